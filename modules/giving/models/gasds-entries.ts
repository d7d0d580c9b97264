import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `giving_gasds_entries`: The small gifts of a GASDS collection: an amount and how many of it. */
export class GivingGasdsEntry extends Model<InferAttributes<GivingGasdsEntry>, InferCreationAttributes<GivingGasdsEntry>> {
  declare id: string;
  declare orgId: string;
  declare collectionId: string;
  declare amount: number;
  declare quantity: number;

  static initModel(sequelize: Sequelize): typeof GivingGasdsEntry {
    return GivingGasdsEntry.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      collectionId: { type: DataTypes.UUID, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
      quantity: { type: DataTypes.INTEGER, allowNull: false },
    }, { sequelize, tableName: 'giving_gasds_entries', timestamps: false });
  }
}
