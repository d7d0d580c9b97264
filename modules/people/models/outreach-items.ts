import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { OutreachChannel, OutreachStatus } from '../../../core/approvals';
import { databaseDefault } from '../../../db/sequelize';
import type { OutreachItem as OutreachItemView } from '../outreach';

/** `outreach_items`: A pastoral message waiting for, or past, a human decision. */
export class OutreachItem extends Model<InferAttributes<OutreachItem>, InferCreationAttributes<OutreachItem>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare channel: OutreachChannel;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare contentVersion: CreationOptional<number>;
  declare status: CreationOptional<OutreachStatus>;
  declare source: CreationOptional<OutreachItemView['source']>;
  declare automationId: CreationOptional<string | null>;
  declare sourceRun: CreationOptional<string | null>;
  declare dedupeKey: CreationOptional<string | null>;
  declare reason: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare approvedByUserId: CreationOptional<string | null>;
  declare approvedVersion: CreationOptional<number | null>;
  declare approvedAt: CreationOptional<Date | null>;
  declare decidedByUserId: CreationOptional<string | null>;
  declare decidedAt: CreationOptional<Date | null>;
  declare decisionReason: CreationOptional<string | null>;
  // object, not unknown: CreationOptional<unknown> reduces to a brand-only type that update() refuses null for.
  declare sendError: CreationOptional<{ code: string; message: string } | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): typeof OutreachItem {
    return OutreachItem.init({
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      orgId: { type: DataTypes.UUID, allowNull: false },
      contactId: { type: DataTypes.UUID, allowNull: false },
      channel: { type: DataTypes.TEXT, allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: true },
      body: { type: DataTypes.TEXT, allowNull: false },
      contentVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
      status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      source: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
      automationId: { type: DataTypes.UUID, allowNull: true },
      sourceRun: { type: DataTypes.TEXT, allowNull: true },
      dedupeKey: { type: DataTypes.TEXT, allowNull: true },
      reason: { type: DataTypes.TEXT, allowNull: true },
      createdByUserId: { type: DataTypes.UUID, allowNull: true },
      approvedByUserId: { type: DataTypes.UUID, allowNull: true },
      approvedVersion: { type: DataTypes.INTEGER, allowNull: true },
      approvedAt: { type: DataTypes.DATE, allowNull: true },
      decidedByUserId: { type: DataTypes.UUID, allowNull: true },
      decidedAt: { type: DataTypes.DATE, allowNull: true },
      decisionReason: { type: DataTypes.TEXT, allowNull: true },
      sendError: { type: DataTypes.JSONB, allowNull: true },
      sentAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
      updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
    }, { sequelize, tableName: 'outreach_items', timestamps: true });
  }
}
