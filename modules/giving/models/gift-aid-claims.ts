import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';
import type { ClaimStatus } from '../gift-aid/claims';

/** `giving_gift_aid_claims`: A Gift Aid claim to HMRC, its totals and its progress from draft to paid. */
export class GivingGiftAidClaim extends Model<InferAttributes<GivingGiftAidClaim>, InferCreationAttributes<GivingGiftAidClaim>> {
  declare id: string;
  declare orgId: string;
  declare status: CreationOptional<ClaimStatus>;
  declare currency: string;
  declare claimedOn: string;
  declare grossTotal: number;
  declare giftAidTotal: number;
  declare gasdsTotal: CreationOptional<number>;
  declare gasdsTopUp: CreationOptional<number>;
  declare lineCount: number;
  declare acceptedGiftAid: CreationOptional<number | null>;
  declare paidAmount: CreationOptional<number | null>;
  declare paidOn: CreationOptional<string | null>;
  declare charityReference: CreationOptional<string | null>;
  declare providerReference: CreationOptional<string | null>;
  declare validatedAt: CreationOptional<Date | null>;
  declare submittedAt: CreationOptional<Date | null>;
  declare approvedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare decisionReason: CreationOptional<string | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingGiftAidClaim {
    return GivingGiftAidClaim.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      currency: { type: DataTypes.TEXT, allowNull: false },
      claimedOn: { type: DataTypes.DATEONLY, allowNull: false },
      grossTotal: { type: DataTypes.BIGINT, allowNull: false },
      giftAidTotal: { type: DataTypes.BIGINT, allowNull: false },
      gasdsTotal: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      gasdsTopUp: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      lineCount: { type: DataTypes.INTEGER, allowNull: false },
      acceptedGiftAid: { type: DataTypes.BIGINT, allowNull: true },
      paidAmount: { type: DataTypes.BIGINT, allowNull: true },
      paidOn: { type: DataTypes.DATEONLY, allowNull: true },
      charityReference: { type: DataTypes.TEXT, allowNull: true },
      providerReference: { type: DataTypes.TEXT, allowNull: true },
      validatedAt: { type: DataTypes.DATE, allowNull: true },
      submittedAt: { type: DataTypes.DATE, allowNull: true },
      approvedByUserId: { type: DataTypes.UUID, allowNull: true },
      decidedAt: { type: DataTypes.DATE, allowNull: true },
      decisionReason: { type: DataTypes.TEXT, allowNull: true },
      cancelledAt: { type: DataTypes.DATE, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_gift_aid_claims', timestamps: true });
  }
}
