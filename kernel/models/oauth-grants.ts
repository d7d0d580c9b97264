import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_grants`: What one person consented to for one client; codes and refresh tokens descend from it. */
export class OAuthGrant extends Model<InferAttributes<OAuthGrant>, InferCreationAttributes<OAuthGrant>> {
  declare id: string;
  declare clientId: string;
  declare orgId: string;
  declare userId: string;
  declare intent: string;
  declare scopes: string[];
  declare resource: string;
  declare createdAt: CreationOptional<Date>;
  declare revokedAt: CreationOptional<Date | null>;
  declare revokedReason: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): typeof OAuthGrant {
    return OAuthGrant.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      clientId: { type: DataTypes.TEXT, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      userId: { type: DataTypes.UUID, allowNull: false },
      intent: { type: DataTypes.TEXT, allowNull: false },
      scopes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      resource: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      revokedAt: { type: DataTypes.DATE, allowNull: true },
      revokedReason: { type: DataTypes.TEXT, allowNull: true },
    }, { sequelize, tableName: 'oauth_grants', timestamps: true, updatedAt: false });
  }
}
