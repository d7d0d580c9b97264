import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../../db/sequelize';
import type { Channel, Purpose } from '../../audience/addresses';
import type { Audience } from '../audience';
import type { BroadcastPreview, BroadcastStatus, RecipientStatus } from '../services';

/** `channel_broadcasts`: one message to an audience, previewed, possibly approved, then sent by a long-running workflow. */
export class ChannelBroadcast extends Model<InferAttributes<ChannelBroadcast>, InferCreationAttributes<ChannelBroadcast>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare channel: Channel;
  declare purpose: Purpose;
  declare audience: Audience;
  declare templateId: CreationOptional<string | null>;
  /** The version sent, fixed at scheduling to the one the preview showed. */
  declare templateVersionId: CreationOptional<string | null>;
  declare subject: CreationOptional<string | null>;
  declare body: CreationOptional<string | null>;
  declare html: CreationOptional<string | null>;
  declare variables: CreationOptional<Record<string, string>>;
  declare status: CreationOptional<BroadcastStatus>;
  declare previewHash: CreationOptional<string | null>;
  declare preview: CreationOptional<BroadcastPreview | null>;
  declare previewedAt: CreationOptional<Date | null>;
  declare sendAt: CreationOptional<Date | null>;
  declare ratePerMinute: CreationOptional<number>;
  declare totalRecipients: CreationOptional<number>;
  declare createdByUserId: CreationOptional<string | null>;
  declare approvedAt: CreationOptional<Date | null>;
  declare scheduledAt: CreationOptional<Date | null>;
  declare startedAt: CreationOptional<Date | null>;
  declare finishedAt: CreationOptional<Date | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare cancelReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}

ChannelBroadcast.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  name: { type: DataTypes.TEXT, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  purpose: { type: DataTypes.TEXT, allowNull: false },
  audience: { type: DataTypes.JSONB, allowNull: false },
  templateId: { type: DataTypes.UUID, allowNull: true },
  templateVersionId: { type: DataTypes.UUID, allowNull: true },
  subject: { type: DataTypes.TEXT, allowNull: true },
  body: { type: DataTypes.TEXT, allowNull: true },
  html: { type: DataTypes.TEXT, allowNull: true },
  variables: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  previewHash: { type: DataTypes.TEXT, allowNull: true },
  preview: { type: DataTypes.JSONB, allowNull: true },
  previewedAt: { type: DataTypes.DATE, allowNull: true },
  sendAt: { type: DataTypes.DATE, allowNull: true },
  ratePerMinute: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
  totalRecipients: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
  createdByUserId: { type: DataTypes.UUID, allowNull: true },
  approvedAt: { type: DataTypes.DATE, allowNull: true },
  scheduledAt: { type: DataTypes.DATE, allowNull: true },
  startedAt: { type: DataTypes.DATE, allowNull: true },
  finishedAt: { type: DataTypes.DATE, allowNull: true },
  cancelledAt: { type: DataTypes.DATE, allowNull: true },
  cancelReason: { type: DataTypes.TEXT, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_broadcasts', timestamps: false });

/** `channel_broadcast_recipients`: the audience fixed when a broadcast is scheduled, in sending order, with each person's outcome. */
export class ChannelBroadcastRecipient extends Model<InferAttributes<ChannelBroadcastRecipient>, InferCreationAttributes<ChannelBroadcastRecipient>> {
  declare orgId: string;
  declare broadcastId: string;
  declare position: number;
  declare contactId: string;
  declare status: CreationOptional<RecipientStatus>;
  declare messageId: CreationOptional<string | null>;
  declare reason: CreationOptional<string | null>;
  declare attempts: CreationOptional<number>;
  declare notBefore: CreationOptional<Date | null>;
  declare updatedAt: CreationOptional<Date>;
}

ChannelBroadcastRecipient.init({
  orgId: { type: DataTypes.UUID, allowNull: false },
  broadcastId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  position: { type: DataTypes.INTEGER, primaryKey: true, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: false },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  messageId: { type: DataTypes.UUID, allowNull: true },
  reason: { type: DataTypes.TEXT, allowNull: true },
  attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: databaseDefault() },
  notBefore: { type: DataTypes.DATE, allowNull: true },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_broadcast_recipients', timestamps: false });

export const broadcastModels = [ChannelBroadcast, ChannelBroadcastRecipient] as const;
