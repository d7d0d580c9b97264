import type { Sequelize } from 'sequelize';
import { sequelize } from '../../../db/sequelize';
import { GivingGasdsCollection } from './gasds-collections';
import { GivingGasdsEntry } from './gasds-entries';
import { GivingGiftAidClaimLine } from './gift-aid-claim-lines';
import { GivingGiftAidClaim } from './gift-aid-claims';
import { GivingGiftAidDeclaration } from './gift-aid-declarations';
import { GivingStatementRun } from './statement-runs';
import { GivingStatement } from './statements';

export { GivingGasdsCollection, GivingGasdsEntry, GivingGiftAidClaim, GivingGiftAidClaimLine, GivingGiftAidDeclaration, GivingStatement, GivingStatementRun };

const initialised = new WeakSet<Sequelize>();

/** Defines the Gift Aid, GASDS and statement models (and their associations) on `instance`. */
export function initGiftAidModels(instance: Sequelize) {
  const models = [
    GivingGiftAidDeclaration.initModel(instance), GivingGiftAidClaim.initModel(instance), GivingGiftAidClaimLine.initModel(instance),
    GivingGasdsCollection.initModel(instance), GivingGasdsEntry.initModel(instance), GivingStatementRun.initModel(instance),
    GivingStatement.initModel(instance),
  ] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);

  GivingGiftAidClaim.hasMany(GivingGiftAidClaimLine, { foreignKey: 'claimId', as: 'lines' });
  GivingGiftAidClaimLine.belongsTo(GivingGiftAidClaim, { foreignKey: 'claimId', as: 'claim' });
  GivingGasdsCollection.hasMany(GivingGasdsEntry, { foreignKey: 'collectionId', as: 'entries' });
  GivingGasdsEntry.belongsTo(GivingGasdsCollection, { foreignKey: 'collectionId', as: 'collection' });
  GivingStatementRun.hasMany(GivingStatement, { foreignKey: 'runId', as: 'statements' });
  GivingStatement.belongsTo(GivingStatementRun, { foreignKey: 'runId', as: 'run' });
  return models;
}

/** Every Gift Aid model, defined on the process's instance when this file is first imported. */
export const giftAidModels = initGiftAidModels(sequelize);
