import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `giving_settings`: An organisation's giving settings (currency override, batch commit approval threshold). */
export class GivingSettings extends Model<InferAttributes<GivingSettings>, InferCreationAttributes<GivingSettings>> {
  declare orgId: string;
  declare currency: CreationOptional<string | null>;
  declare commitApprovalThreshold: CreationOptional<number>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof GivingSettings {
    return GivingSettings.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      currency: { type: DataTypes.TEXT, allowNull: true },
      commitApprovalThreshold: { type: DataTypes.BIGINT, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'giving_settings', timestamps: true, createdAt: false });
  }
}
