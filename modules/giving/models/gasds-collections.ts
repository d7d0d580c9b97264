import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_gasds_collections`: Small donations (cash or contactless, at most £30 each) collected on one day. */
export class GivingGasdsCollection extends Model<InferAttributes<GivingGasdsCollection>, InferCreationAttributes<GivingGasdsCollection>> {
  declare id: string;
  declare orgId: string;
  declare collectedOn: string;
  declare method: string;
  declare amount: number;
  declare giftCount: number;
  declare donationId: CreationOptional<string | null>;
  declare description: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingGasdsCollection {
    return GivingGasdsCollection.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      collectedOn: { type: DataTypes.DATEONLY, allowNull: false },
      method: { type: DataTypes.TEXT, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      giftCount: { type: DataTypes.INTEGER, allowNull: false },
      donationId: { type: DataTypes.UUID, allowNull: true },
      description: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_gasds_collections', timestamps: true, updatedAt: false });
  }
}
