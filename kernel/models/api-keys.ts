import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `api_keys`: An API key: only its secret's sha-256 is stored. */
export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
  declare id: string;
  declare orgId: string;
  declare userId: string;
  declare name: string;
  declare displayPrefix: string;
  declare secretHash: string;
  declare scopes: string[];
  declare createdAt: CreationOptional<Date>;
  declare lastUsedAt: CreationOptional<Date | null>;
  declare revokedAt: CreationOptional<Date | null>;
  /** Carries the operator scope while its holder is a platform admin (kernel/operators.ts). */
  declare operator: CreationOptional<boolean>;

  static initModel(sequelize: Sequelize): typeof ApiKey {
    return ApiKey.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      userId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      displayPrefix: { type: DataTypes.TEXT, allowNull: false },
      secretHash: { type: DataTypes.TEXT, allowNull: false },
      scopes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      lastUsedAt: { type: DataTypes.DATE, allowNull: true },
      revokedAt: { type: DataTypes.DATE, allowNull: true },
      operator: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'api_keys', timestamps: true, updatedAt: false });
  }
}
