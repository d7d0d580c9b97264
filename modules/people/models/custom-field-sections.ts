import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `custom_field_sections`: A heading custom fields are shown under. */
export class CustomFieldSection extends Model<InferAttributes<CustomFieldSection>, InferCreationAttributes<CustomFieldSection>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare position: CreationOptional<number>;

  static initModel(sequelize: Sequelize): typeof CustomFieldSection {
    return CustomFieldSection.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'custom_field_sections', timestamps: false });
  }
}
