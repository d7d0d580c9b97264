import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';
import type { Channel, Purpose } from './addresses';
import type { DomainCheck, SenderView } from './senders';
import type { ConsentBasis, SuppressionReason } from './store';

/** `channel_consents`: one consent as captured (evidence); withdrawn or superseded, never deleted. */
export class ChannelConsent extends Model<InferAttributes<ChannelConsent>, InferCreationAttributes<ChannelConsent>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare channel: Channel;
  declare purpose: Purpose;
  declare basis: ConsentBasis;
  declare source: string;
  declare wording: string;
  declare capturedAt: Date;
  declare recordedBy: CreationOptional<string | null>;
  declare withdrawnAt: CreationOptional<Date | null>;
  declare withdrawalSource: CreationOptional<string | null>;
  declare supersededBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}

ChannelConsent.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  contactId: { type: DataTypes.UUID, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  purpose: { type: DataTypes.TEXT, allowNull: false },
  basis: { type: DataTypes.TEXT, allowNull: false },
  source: { type: DataTypes.TEXT, allowNull: false },
  wording: { type: DataTypes.TEXT, allowNull: false },
  capturedAt: { type: DataTypes.DATE, allowNull: false },
  recordedBy: { type: DataTypes.TEXT, allowNull: true },
  withdrawnAt: { type: DataTypes.DATE, allowNull: true },
  withdrawalSource: { type: DataTypes.TEXT, allowNull: true },
  supersededBy: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_consents', underscored: true, timestamps: false });

/** `channel_suppressions`: an address that must not be messaged on a channel; lifted with evidence, never deleted. */
export class ChannelSuppression extends Model<InferAttributes<ChannelSuppression>, InferCreationAttributes<ChannelSuppression>> {
  declare id: string;
  declare orgId: string;
  declare channel: Channel;
  declare address: string;
  declare reason: SuppressionReason;
  declare source: string;
  declare note: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare liftedAt: CreationOptional<Date | null>;
  declare liftedBy: CreationOptional<string | null>;
  declare liftEvidence: CreationOptional<string | null>;
}

ChannelSuppression.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  address: { type: DataTypes.TEXT, allowNull: false },
  reason: { type: DataTypes.TEXT, allowNull: false },
  source: { type: DataTypes.TEXT, allowNull: false },
  note: { type: DataTypes.TEXT, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  liftedAt: { type: DataTypes.DATE, allowNull: true },
  liftedBy: { type: DataTypes.TEXT, allowNull: true },
  liftEvidence: { type: DataTypes.TEXT, allowNull: true },
}, { sequelize, tableName: 'channel_suppressions', underscored: true, timestamps: false });

/** `channel_senders`: an email domain, SMS number or alphanumeric id, or WhatsApp number the organisation sends from. */
export class ChannelSender extends Model<InferAttributes<ChannelSender>, InferCreationAttributes<ChannelSender>> {
  declare id: string;
  declare orgId: string;
  declare channel: Channel;
  declare kind: SenderView['kind'];
  declare address: string;
  declare label: CreationOptional<string | null>;
  declare oneWay: CreationOptional<boolean>;
  declare status: SenderView['status'];
  declare dkimSelector: CreationOptional<string | null>;
  declare lastCheck: CreationOptional<DomainCheck | null>;
  declare checkedAt: CreationOptional<Date | null>;
  declare verifiedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}

ChannelSender.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  kind: { type: DataTypes.TEXT, allowNull: false },
  address: { type: DataTypes.TEXT, allowNull: false },
  label: { type: DataTypes.TEXT, allowNull: true },
  oneWay: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  status: { type: DataTypes.TEXT, allowNull: false },
  dkimSelector: { type: DataTypes.TEXT, allowNull: true },
  lastCheck: { type: DataTypes.JSONB, allowNull: true },
  checkedAt: { type: DataTypes.DATE, allowNull: true },
  verifiedAt: { type: DataTypes.DATE, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_senders', underscored: true, timestamps: false });

/** `channel_inbound_windows`: when an address last wrote in on a channel (opens WhatsApp's 24 hour window). */
export class ChannelInboundWindow extends Model<InferAttributes<ChannelInboundWindow>, InferCreationAttributes<ChannelInboundWindow>> {
  declare orgId: string;
  declare channel: string;
  declare address: string;
  declare lastInboundAt: Date;
  declare createdAt: CreationOptional<Date>;
}

ChannelInboundWindow.init({
  orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  channel: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
  address: { type: DataTypes.TEXT, primaryKey: true, allowNull: false },
  lastInboundAt: { type: DataTypes.DATE, allowNull: false },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_inbound_windows', underscored: true, timestamps: false });

/** `channel_settings`: the organisation's quiet hours and the time zone they are read in. */
export class ChannelSettings extends Model<InferAttributes<ChannelSettings>, InferCreationAttributes<ChannelSettings>> {
  declare orgId: string;
  declare quietHoursEnabled: CreationOptional<boolean>;
  declare quietStart: CreationOptional<string>;
  declare quietEnd: CreationOptional<string>;
  declare timeZone: CreationOptional<string>;
  declare updatedAt: CreationOptional<Date>;
}

ChannelSettings.init({
  orgId: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  quietHoursEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: databaseDefault() },
  quietStart: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  quietEnd: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  timeZone: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  updatedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
}, { sequelize, tableName: 'channel_settings', underscored: true, timestamps: false });

export const audienceModels = [ChannelConsent, ChannelSuppression, ChannelSender, ChannelInboundWindow, ChannelSettings] as const;
