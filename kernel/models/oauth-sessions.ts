import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../db/sequelize';

/** `oauth_sessions`: A browser signed in on the authorize pages (token stored hashed). */
export class OAuthSession extends Model<InferAttributes<OAuthSession>, InferCreationAttributes<OAuthSession>> {
  declare id: string;
  declare tokenHash: string;
  declare userId: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): typeof OAuthSession {
    return OAuthSession.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      tokenHash: { type: DataTypes.TEXT, allowNull: false },
      userId: { type: DataTypes.UUID, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
    }, { sequelize, tableName: 'oauth_sessions', timestamps: true, updatedAt: false });
  }
}
