import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_gift_aid_claim_lines`: One line of a Gift Aid claim: a donation, a negative adjustment for a refunded claimed gift, or small donations. */
export class GivingGiftAidClaimLine extends Model<InferAttributes<GivingGiftAidClaimLine>, InferCreationAttributes<GivingGiftAidClaimLine>> {
  declare id: string;
  declare orgId: string;
  declare claimId: string;
  declare kind: string;
  declare donationId: CreationOptional<string | null>;
  declare declarationId: CreationOptional<string | null>;
  declare collectionId: CreationOptional<string | null>;
  declare giftOn: string;
  declare amount: number;
  declare giftAidAmount: number;
  declare status: CreationOptional<string>;
  declare rejectionReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingGiftAidClaimLine {
    return GivingGiftAidClaimLine.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      claimId: { type: DataTypes.UUID, allowNull: false },
      kind: { type: DataTypes.TEXT, allowNull: false },
      donationId: { type: DataTypes.UUID, allowNull: true },
      declarationId: { type: DataTypes.UUID, allowNull: true },
      collectionId: { type: DataTypes.UUID, allowNull: true },
      giftOn: { type: DataTypes.DATEONLY, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      giftAidAmount: { type: DataTypes.BIGINT, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      rejectionReason: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_gift_aid_claim_lines', timestamps: true, updatedAt: false });
  }
}
