import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `organisations`: One tenant: a church or nonprofit, with its plan and date conventions. */
export class Organisation extends Model<InferAttributes<Organisation>, InferCreationAttributes<Organisation>> {
  declare id: string;
  declare name: string;
  declare country: CreationOptional<string>;
  declare dateFormat: CreationOptional<string>;
  declare planCode: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Organisation {
    return Organisation.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      country: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      dateFormat: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      planCode: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'organisations', timestamps: true, updatedAt: false });
  }
}
