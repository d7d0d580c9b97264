import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `agents`: An organisation's setting for one autonomous agent, and its last run. */
export class Agent extends Model<InferAttributes<Agent>, InferCreationAttributes<Agent>> {
  declare orgId: string;
  declare agentKey: string;
  declare autonomy: CreationOptional<string>;
  declare intervalMinutes: CreationOptional<number>;
  declare lastRunAt: CreationOptional<Date | null>;
  declare lastRunStatus: CreationOptional<string | null>;
  declare lastRunSummary: CreationOptional<string | null>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof Agent {
    return Agent.init({
      orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      agentKey: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      autonomy: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      intervalMinutes: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      lastRunAt: { type: DataTypes.DATE, allowNull: true },
      lastRunStatus: { type: DataTypes.TEXT, allowNull: true },
      lastRunSummary: { type: DataTypes.TEXT, allowNull: true },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'agents', timestamps: true, createdAt: false });
  }
}
