import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `tool_call_results`: A write tool's stored result, keyed by workflow id, so a retry returns it instead of writing twice. */
export class ToolCallResult extends Model<InferAttributes<ToolCallResult>, InferCreationAttributes<ToolCallResult>> {
  declare workflowId: string;
  declare orgId: string;
  declare tool: string;
  declare result: unknown;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof ToolCallResult {
    return ToolCallResult.init({
      workflowId: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      tool: { type: DataTypes.TEXT, allowNull: false },
      result: { type: DataTypes.JSONB, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'tool_call_results', timestamps: true, updatedAt: false });
  }
}
