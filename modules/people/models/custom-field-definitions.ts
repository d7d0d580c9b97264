import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `custom_field_definitions`: A custom contact field: key, label, type and options. */
export class CustomFieldDefinition extends Model<InferAttributes<CustomFieldDefinition>, InferCreationAttributes<CustomFieldDefinition>> {
  declare id: string;
  declare orgId: string;
  declare key: string;
  declare label: string;
  declare type: string;
  declare options: CreationOptional<string[] | null>;
  declare sectionId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof CustomFieldDefinition {
    return CustomFieldDefinition.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      key: { type: DataTypes.TEXT, allowNull: false },
      label: { type: DataTypes.TEXT, allowNull: false },
      type: { type: DataTypes.TEXT, allowNull: false },
      options: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: true },
      sectionId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'custom_field_definitions', timestamps: true, updatedAt: false });
  }
}
