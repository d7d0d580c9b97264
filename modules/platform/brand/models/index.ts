import { sequelize } from '../../../../db/sequelize';
import { BrandVoiceProfile } from './brand-voice-profiles';
import { PublicProfile } from './public-profiles';

export { BrandVoiceProfile, PublicProfile };

/** The brand part's models, defined on the process's instance when this file is first imported. */
export const brandModels = [BrandVoiceProfile.initModel(sequelize), PublicProfile.initModel(sequelize)] as const;
