import type { JWK } from '../oauth/jose';
import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_signing_keys`: A key access tokens are signed with. */
export class OAuthSigningKey extends Model<InferAttributes<OAuthSigningKey>, InferCreationAttributes<OAuthSigningKey>> {
  declare kid: string;
  declare alg: string;
  declare publicJwk: JWK;
  declare privateJwk: JWK;
  declare createdAt: CreationOptional<Date>;
  declare retiredAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof OAuthSigningKey {
    return OAuthSigningKey.init({
      kid: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      alg: { type: DataTypes.TEXT, allowNull: false },
      publicJwk: { type: DataTypes.JSONB, allowNull: false },
      privateJwk: { type: DataTypes.JSONB, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      retiredAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'oauth_signing_keys', timestamps: true, updatedAt: false });
  }
}
