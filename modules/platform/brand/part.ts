import type { ModulePart } from '../../module';
import { brandVoice } from './migrations/2026.11.24T03.50.00.brand-voice';
import { brandModels } from './models';
import { brandTools } from './tools';

/** Brand voice and the public display name. */
export const brandPart: ModulePart = {
  name: 'brand',
  tools: brandTools,
  models: [...brandModels],
  migrations: [brandVoice],
};
