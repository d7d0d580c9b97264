import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../../db/sequelize';
import type { SyncStatus } from '../processor';

/** `public_profiles`: The name the public sees (trading name, card statement text) and its sync to the payment processor. */
export class PublicProfile extends Model<InferAttributes<PublicProfile>, InferCreationAttributes<PublicProfile>> {
  declare orgId: string;
  declare tradingName: string;
  declare statementDescriptor: string | null;
  declare processorAccountId: string | null;
  declare syncStatus: SyncStatus;
  declare syncMessage: string | null;
  declare syncedAt: Date | null;
  declare updatedByUserId: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof PublicProfile {
    return PublicProfile.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      tradingName: { type: DataTypes.TEXT, allowNull: false },
      statementDescriptor: { type: DataTypes.TEXT, allowNull: true },
      processorAccountId: { type: DataTypes.TEXT, allowNull: true },
      syncStatus: { type: DataTypes.TEXT, allowNull: false },
      syncMessage: { type: DataTypes.TEXT, allowNull: true },
      syncedAt: { type: DataTypes.DATE, allowNull: true },
      updatedByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'public_profiles', timestamps: true });
  }
}
