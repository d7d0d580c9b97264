import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_refresh_tokens`: A one-time refresh token (stored hashed). */
export class OAuthRefreshToken extends Model<InferAttributes<OAuthRefreshToken>, InferCreationAttributes<OAuthRefreshToken>> {
  declare tokenHash: string;
  declare grantId: string;
  declare clientId: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof OAuthRefreshToken {
    return OAuthRefreshToken.init({
      tokenHash: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      grantId: { type: DataTypes.UUID, allowNull: false },
      clientId: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'oauth_refresh_tokens', timestamps: true, updatedAt: false });
  }
}
