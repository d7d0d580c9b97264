import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `pastoral_automations`: A welfare automation that drafts outreach. Soft-deleted (deleted_at). */
export class PastoralAutomation extends Model<InferAttributes<PastoralAutomation>, InferCreationAttributes<PastoralAutomation>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare automationType: string;
  declare channel: string;
  declare subjectTemplate: CreationOptional<string | null>;
  declare bodyTemplate: string;
  declare enabled: CreationOptional<boolean>;
  declare intervalHours: CreationOptional<number>;
  declare daysWithoutContact: CreationOptional<number>;
  declare targetTag: CreationOptional<string | null>;
  declare maxItemsPerRun: CreationOptional<number>;
  declare lastRunAt: CreationOptional<Date | null>;
  declare lastRunStatus: CreationOptional<string | null>;
  declare lastRunGenerated: CreationOptional<number | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare deletedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): typeof PastoralAutomation {
    return PastoralAutomation.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      name: { type: DataTypes.TEXT, allowNull: false },
      automationType: { type: DataTypes.TEXT, allowNull: false },
      channel: { type: DataTypes.TEXT, allowNull: false },
      subjectTemplate: { type: DataTypes.TEXT, allowNull: true },
      bodyTemplate: { type: DataTypes.TEXT, allowNull: false },
      enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
      intervalHours: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      daysWithoutContact: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      targetTag: { type: DataTypes.TEXT, allowNull: true },
      maxItemsPerRun: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      lastRunAt: { type: DataTypes.DATE, allowNull: true },
      lastRunStatus: { type: DataTypes.TEXT, allowNull: true },
      lastRunGenerated: { type: DataTypes.INTEGER, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      deletedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'pastoral_automations', timestamps: true, paranoid: true });
  }
}
