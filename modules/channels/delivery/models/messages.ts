import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../../db/sequelize';
import type { Channel, Purpose } from '../../audience/addresses';
import type { WhatsAppCategory } from '../pricing';
import type { MessageStatus } from '../services';

/** `channel_messages`: one message to one contact on one channel, its rendered snapshot and what became of it. */
export class ChannelMessage extends Model<InferAttributes<ChannelMessage>, InferCreationAttributes<ChannelMessage>> {
  declare id: string;
  declare orgId: string;
  declare channel: Channel;
  declare contactId: string | null;
  declare purpose: Purpose;
  declare recipientAddress: CreationOptional<string | null>;
  declare sender: CreationOptional<string | null>;
  declare templateId: CreationOptional<string | null>;
  declare templateVersionId: CreationOptional<string | null>;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare html: CreationOptional<string | null>;
  declare whatsappPayload: CreationOptional<unknown | null>;
  declare whatsappCategory: CreationOptional<WhatsAppCategory | null>;
  declare smsEncoding: CreationOptional<'GSM-7' | 'UCS-2' | null>;
  declare segments: CreationOptional<number | null>;
  declare meteredUnits: number;
  declare estimatedCostMinor: number;
  declare actualCostMinor: CreationOptional<number | null>;
  declare actualCostCurrency: CreationOptional<string | null>;
  declare currency: string;
  declare status: CreationOptional<MessageStatus>;
  declare providerMessageId: CreationOptional<string | null>;
  declare errorCode: CreationOptional<string | null>;
  declare errorMessage: CreationOptional<string | null>;
  declare deferredUntil: CreationOptional<Date | null>;
  declare meteredAt: CreationOptional<Date | null>;
  declare broadcastId: CreationOptional<string | null>;
  declare idempotencyKey: string;
  declare usageTool: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare sentAt: CreationOptional<Date | null>;
  declare deliveredAt: CreationOptional<Date | null>;
}

ChannelMessage.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: true },
  purpose: { type: DataTypes.TEXT, allowNull: false },
  recipientAddress: { type: DataTypes.TEXT, allowNull: true },
  sender: { type: DataTypes.TEXT, allowNull: true },
  templateId: { type: DataTypes.UUID, allowNull: true },
  templateVersionId: { type: DataTypes.UUID, allowNull: true },
  subject: { type: DataTypes.TEXT, allowNull: true },
  body: { type: DataTypes.TEXT, allowNull: false },
  html: { type: DataTypes.TEXT, allowNull: true },
  whatsappPayload: { type: DataTypes.JSONB, allowNull: true },
  whatsappCategory: { type: DataTypes.TEXT, allowNull: true },
  smsEncoding: { type: DataTypes.TEXT, allowNull: true },
  segments: { type: DataTypes.INTEGER, allowNull: true },
  meteredUnits: { type: DataTypes.INTEGER, allowNull: false },
  estimatedCostMinor: { type: DataTypes.INTEGER, allowNull: false },
  actualCostMinor: { type: DataTypes.INTEGER, allowNull: true },
  actualCostCurrency: { type: DataTypes.TEXT, allowNull: true },
  currency: { type: DataTypes.TEXT, allowNull: false },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  providerMessageId: { type: DataTypes.TEXT, allowNull: true },
  errorCode: { type: DataTypes.TEXT, allowNull: true },
  errorMessage: { type: DataTypes.TEXT, allowNull: true },
  deferredUntil: { type: DataTypes.DATE, allowNull: true },
  meteredAt: { type: DataTypes.DATE, allowNull: true },
  broadcastId: { type: DataTypes.UUID, allowNull: true },
  idempotencyKey: { type: DataTypes.TEXT, allowNull: false },
  usageTool: { type: DataTypes.TEXT, allowNull: false },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  sentAt: { type: DataTypes.DATE, allowNull: true },
  deliveredAt: { type: DataTypes.DATE, allowNull: true },
}, { sequelize, tableName: 'channel_messages', timestamps: false });

/** `channel_webhook_events`: signed provider events already applied, so a replay changes nothing. */
export class ChannelWebhookEvent extends Model<InferAttributes<ChannelWebhookEvent>, InferCreationAttributes<ChannelWebhookEvent>> {
  declare provider: string;
  declare eventId: string;
  declare receivedAt: CreationOptional<Date>;
}

ChannelWebhookEvent.init({
  provider: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
  eventId: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
  receivedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_webhook_events', timestamps: false });

/** `channel_email_events`: the mail provider's bounces (hard, soft) and complaints, per message. */
export class ChannelEmailEvent extends Model<InferAttributes<ChannelEmailEvent>, InferCreationAttributes<ChannelEmailEvent>> {
  declare id: string;
  declare orgId: string;
  declare messageId: string;
  declare kind: 'hard_bounce' | 'soft_bounce' | 'complaint';
  declare createdAt: CreationOptional<Date>;
}

ChannelEmailEvent.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  messageId: { type: DataTypes.UUID, allowNull: false },
  kind: { type: DataTypes.TEXT, allowNull: false },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_email_events', timestamps: false });

export const deliveryModels = [ChannelMessage, ChannelWebhookEvent, ChannelEmailEvent] as const;
