import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `tag_categories`: A group of tags. */
export class TagCategory extends Model<InferAttributes<TagCategory>, InferCreationAttributes<TagCategory>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof TagCategory {
    return TagCategory.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'tag_categories', timestamps: true, updatedAt: false });
  }
}
