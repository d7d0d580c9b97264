import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_codes`: A one-time authorization code (stored hashed). */
export class OAuthCode extends Model<InferAttributes<OAuthCode>, InferCreationAttributes<OAuthCode>> {
  declare codeHash: string;
  declare grantId: string;
  declare clientId: string;
  declare redirectUri: string;
  declare redirectUriExplicit: boolean;
  declare codeChallenge: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof OAuthCode {
    return OAuthCode.init({
      codeHash: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      grantId: { type: DataTypes.UUID, allowNull: false },
      clientId: { type: DataTypes.TEXT, allowNull: false },
      redirectUri: { type: DataTypes.TEXT, allowNull: false },
      redirectUriExplicit: { type: DataTypes.BOOLEAN, allowNull: false },
      codeChallenge: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'oauth_codes', timestamps: true, updatedAt: false });
  }
}
