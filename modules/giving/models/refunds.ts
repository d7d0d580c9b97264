import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_refunds`: Money returned against one designation of a donation. */
export class GivingRefund extends Model<InferAttributes<GivingRefund>, InferCreationAttributes<GivingRefund>> {
  declare id: string;
  declare orgId: string;
  declare donationId: string;
  declare fundId: string;
  declare amount: number;
  declare reason: string;
  declare refundedOn: string;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingRefund {
    return GivingRefund.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      donationId: { type: DataTypes.UUID, allowNull: false },
      fundId: { type: DataTypes.UUID, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      reason: { type: DataTypes.TEXT, allowNull: false },
      refundedOn: { type: DataTypes.DATEONLY, allowNull: false },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_refunds', timestamps: true, updatedAt: false });
  }
}
