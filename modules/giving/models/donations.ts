import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { DonationMethod, GIFT_AID_STATUSES } from '../donations';

/** `giving_donations`: One gift (or an adjusting entry) in integer minor units of the organisation's currency. */
export class GivingDonation extends Model<InferAttributes<GivingDonation>, InferCreationAttributes<GivingDonation>> {
  declare id: string;
  declare orgId: string;
  declare batchId: string;
  declare contactId: CreationOptional<string | null>;
  declare amount: number;
  declare currency: string;
  declare fee: CreationOptional<number>;
  declare method: DonationMethod;
  declare receivedOn: string;
  declare source: CreationOptional<string>;
  declare externalId: CreationOptional<string | null>;
  declare pledgeId: CreationOptional<string | null>;
  declare recurringGiftId: CreationOptional<string | null>;
  declare occurrenceOn: CreationOptional<string | null>;
  declare adjustsDonationId: CreationOptional<string | null>;
  declare giftAidStatus: CreationOptional<(typeof GIFT_AID_STATUSES)[number]>;
  declare isGasds: CreationOptional<boolean>;
  declare note: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingDonation {
    return GivingDonation.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      batchId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: true },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      currency: { type: DataTypes.TEXT, allowNull: false },
      fee: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      method: { type: DataTypes.TEXT, allowNull: false },
      receivedOn: { type: DataTypes.DATEONLY, allowNull: false },
      source: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      externalId: { type: DataTypes.TEXT, allowNull: true },
      pledgeId: { type: DataTypes.UUID, allowNull: true },
      recurringGiftId: { type: DataTypes.UUID, allowNull: true },
      occurrenceOn: { type: DataTypes.DATEONLY, allowNull: true },
      adjustsDonationId: { type: DataTypes.UUID, allowNull: true },
      giftAidStatus: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      isGasds: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      note: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_donations', timestamps: true });
  }
}
