import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_clients`: A dynamically registered OAuth client. */
export class OAuthClient extends Model<InferAttributes<OAuthClient>, InferCreationAttributes<OAuthClient>> {
  declare clientId: string;
  declare clientSecretHash: CreationOptional<string | null>;
  declare clientSecretExpiresAt: CreationOptional<number | null>;
  declare clientIdIssuedAt: number;
  declare metadata: unknown;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof OAuthClient {
    return OAuthClient.init({
      clientId: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      clientSecretHash: { type: DataTypes.TEXT, allowNull: true },
      clientSecretExpiresAt: { type: DataTypes.BIGINT, allowNull: true },
      clientIdIssuedAt: { type: DataTypes.BIGINT, allowNull: false },
      metadata: { type: DataTypes.JSONB, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'oauth_clients', timestamps: true, updatedAt: false });
  }
}
