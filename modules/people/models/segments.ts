import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `segments`: A saved audience: rules, and members rebuilt on refresh. */
export class Segment extends Model<InferAttributes<Segment>, InferCreationAttributes<Segment>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare templateId: CreationOptional<string | null>;
  declare rules: unknown;
  declare memberCount: CreationOptional<number>;
  declare refreshedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Segment {
    return Segment.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: true },
      templateId: { type: DataTypes.TEXT, allowNull: true },
      rules: { type: DataTypes.JSONB, allowNull: false },
      memberCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      refreshedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'segments', timestamps: true });
  }
}
