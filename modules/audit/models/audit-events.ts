import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { databaseDefault } from '../../../db/sequelize';

/**
 * `audit_events`: one row per write tool call, written in the call's transaction: who (actor kind,
 * on whose behalf, with which credential and scopes), what (action, target, changed fields), the
 * outcome and approval, and its link in the organisation's hash chain (columns from the audit
 * module's migration; its trigger sets seq, prev_hash, personal_digest and hash).
 */
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
  declare seq: CreationOptional<number>;
  declare action: string;
  declare operation: string;
  declare category: CreationOptional<string>;
  declare actorKind: CreationOptional<string>;
  declare onBehalfOfUserId: CreationOptional<string | null>;
  declare credentialHash: CreationOptional<string | null>;
  declare scopes: CreationOptional<string[]>;
  declare targetType: CreationOptional<string | null>;
  declare targetId: CreationOptional<string | null>;
  declare changes: CreationOptional<unknown>;
  declare contactIds: CreationOptional<string[]>;
  declare outcome: CreationOptional<string>;
  declare approvalId: CreationOptional<string | null>;
  declare amountMinor: CreationOptional<number | null>;
  declare currency: CreationOptional<string | null>;
  declare units: CreationOptional<number | null>;
  declare personalDigest: CreationOptional<string>;
  declare prevHash: CreationOptional<string | null>;
  declare hash: CreationOptional<string>;
  declare redactedAt: CreationOptional<Date | null>;

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
      seq: { type: DataTypes.BIGINT, allowNull: false },
      action: { type: DataTypes.TEXT, allowNull: false },
      operation: { type: DataTypes.TEXT, allowNull: false },
      category: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      actorKind: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      onBehalfOfUserId: { type: DataTypes.UUID, allowNull: true },
      credentialHash: { type: DataTypes.TEXT, allowNull: true },
      scopes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
      targetType: { type: DataTypes.TEXT, allowNull: true },
      targetId: { type: DataTypes.TEXT, allowNull: true },
      changes: { type: DataTypes.JSONB, allowNull: true },
      contactIds: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false, defaultValue: databaseDefault() },
      outcome: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      approvalId: { type: DataTypes.UUID, allowNull: true },
      amountMinor: { type: DataTypes.BIGINT, allowNull: true },
      currency: { type: DataTypes.TEXT, allowNull: true },
      units: { type: DataTypes.INTEGER, allowNull: true },
      personalDigest: { type: DataTypes.TEXT, allowNull: false },
      prevHash: { type: DataTypes.TEXT, allowNull: true },
      hash: { type: DataTypes.TEXT, allowNull: false },
      redactedAt: { type: DataTypes.DATE, allowNull: true },
    }, { sequelize, tableName: 'audit_events', timestamps: true, updatedAt: false });
  }
}
