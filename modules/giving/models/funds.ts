import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_funds`: A fund gifts are designated to (general, building, missions…). */
export class GivingFund extends Model<InferAttributes<GivingFund>, InferCreationAttributes<GivingFund>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare code: CreationOptional<string | null>;
  declare description: CreationOptional<string | null>;
  declare giftAidEligible: CreationOptional<boolean>;
  declare status: CreationOptional<'active' | 'archived'>;
  declare isDefault: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingFund {
    return GivingFund.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      code: { type: DataTypes.TEXT, allowNull: true },
      description: { type: DataTypes.TEXT, allowNull: true },
      giftAidEligible: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      isDefault: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_funds', timestamps: true });
  }
}
