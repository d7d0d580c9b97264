import type { Sequelize } from 'sequelize';
import { sequelize } from '../../../db/sequelize';
import { GivingBatch } from './batches';
import { GivingDesignation } from './designations';
import { GivingDonation } from './donations';
import { GivingFund } from './funds';
import { GivingGiver } from './givers';
import { GivingPledgeCampaign } from './pledge-campaigns';
import { GivingPledge } from './pledges';
import { GivingRecurringGift } from './recurring-gifts';
import { GivingRefund } from './refunds';
import { GivingSettings } from './settings';

export {
  GivingBatch, GivingDesignation, GivingDonation, GivingFund, GivingGiver, GivingPledge, GivingPledgeCampaign,
  GivingRecurringGift, GivingRefund, GivingSettings,
};

const initialised = new WeakSet<Sequelize>();

/**
 * Defines the giving module's core models and their associations on `instance`. Contacts belong
 * to the people module: giving reaches them through people's services, never its models.
 */
export function initGivingModels(instance: Sequelize) {
  const models = [
    GivingFund.initModel(instance), GivingGiver.initModel(instance), GivingBatch.initModel(instance),
    GivingPledgeCampaign.initModel(instance), GivingPledge.initModel(instance), GivingRecurringGift.initModel(instance),
    GivingDonation.initModel(instance), GivingDesignation.initModel(instance), GivingRefund.initModel(instance),
    GivingSettings.initModel(instance),
  ] as const;
  if (initialised.has(instance)) return models;
  initialised.add(instance);

  GivingBatch.hasMany(GivingDonation, { foreignKey: 'batchId', as: 'donations' });
  GivingDonation.belongsTo(GivingBatch, { foreignKey: 'batchId', as: 'batch' });
  GivingDonation.hasMany(GivingDesignation, { foreignKey: 'donationId', as: 'designations' });
  GivingDesignation.belongsTo(GivingDonation, { foreignKey: 'donationId', as: 'donation' });
  GivingDesignation.belongsTo(GivingFund, { foreignKey: 'fundId', as: 'fund' });
  GivingDonation.hasMany(GivingRefund, { foreignKey: 'donationId', as: 'refunds' });
  GivingRefund.belongsTo(GivingDonation, { foreignKey: 'donationId', as: 'donation' });
  GivingPledgeCampaign.hasMany(GivingPledge, { foreignKey: 'campaignId', as: 'pledges' });
  GivingPledge.belongsTo(GivingPledgeCampaign, { foreignKey: 'campaignId', as: 'campaign' });
  return models;
}

/** Every core giving model, defined on the process's instance when this file is first imported. */
export const givingModels = initGivingModels(sequelize);
