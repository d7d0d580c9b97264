import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `giving_designations`: The part of a donation given to one fund; a donation's parts add up to its amount. */
export class GivingDesignation extends Model<InferAttributes<GivingDesignation>, InferCreationAttributes<GivingDesignation>> {
  declare orgId: string;
  declare donationId: string;
  declare fundId: string;
  declare amount: number;

  static initModel(sequelize: Sequelize): typeof GivingDesignation {
    return GivingDesignation.init({
      orgId: { type: DataTypes.UUID, allowNull: false },
      donationId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      fundId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      amount: { type: DataTypes.BIGINT, allowNull: false },
    }, { sequelize, tableName: 'giving_designations', timestamps: false });
  }
}
