import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_authorization_requests`: An authorization request waiting for sign-in and consent. */
export class OAuthAuthorizationRequest extends Model<InferAttributes<OAuthAuthorizationRequest>, InferCreationAttributes<OAuthAuthorizationRequest>> {
  declare id: string;
  declare clientId: string;
  declare redirectUri: string;
  declare redirectUriExplicit: boolean;
  declare codeChallenge: string;
  declare state: CreationOptional<string | null>;
  declare intent: CreationOptional<string | null>;
  declare requestedScopes: string[];
  declare resource: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;
  declare completedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof OAuthAuthorizationRequest {
    return OAuthAuthorizationRequest.init({
      id: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      clientId: { type: DataTypes.TEXT, allowNull: false },
      redirectUri: { type: DataTypes.TEXT, allowNull: false },
      redirectUriExplicit: { type: DataTypes.BOOLEAN, allowNull: false },
      codeChallenge: { type: DataTypes.TEXT, allowNull: false },
      state: { type: DataTypes.TEXT, allowNull: true },
      intent: { type: DataTypes.TEXT, allowNull: true },
      requestedScopes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      resource: { type: DataTypes.TEXT, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      completedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'oauth_authorization_requests', timestamps: true, updatedAt: false });
  }
}
