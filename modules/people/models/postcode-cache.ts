import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `postcode_cache`: A cached postcode lookup answer. Not tenant-scoped. */
export class PostcodeCacheEntry extends Model<InferAttributes<PostcodeCacheEntry>, InferCreationAttributes<PostcodeCacheEntry>> {
  declare postcode: string;
  declare result: CreationOptional<unknown | null>;
  declare fetchedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PostcodeCacheEntry {
    return PostcodeCacheEntry.init({
      postcode: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      result: { type: DataTypes.JSONB, allowNull: true },
      fetchedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'postcode_cache', timestamps: false });
  }
}
