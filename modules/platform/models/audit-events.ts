import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/** `audit_events`: One row per write tool call: who, with which credential, what. */
export class AuditEvent extends Model<InferAttributes<AuditEvent>, InferCreationAttributes<AuditEvent>> {
  declare id: CreationOptional<number>;
  declare orgId: string;
  declare actorUserId: CreationOptional<string | null>;
  declare credentialId: CreationOptional<string | null>;
  declare credentialKind: CreationOptional<string | null>;
  declare tool: string;
  declare workflowId: string;
  declare actionSummary: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof AuditEvent {
    return AuditEvent.init({
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      actorUserId: { type: DataTypes.UUID, allowNull: true },
      credentialId: { type: DataTypes.UUID, allowNull: true },
      credentialKind: { type: DataTypes.TEXT, allowNull: true },
      tool: { type: DataTypes.TEXT, allowNull: false },
      workflowId: { type: DataTypes.TEXT, allowNull: false },
      actionSummary: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'audit_events', timestamps: true, updatedAt: false });
  }
}
