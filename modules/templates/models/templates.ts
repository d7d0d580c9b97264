import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';
import type { Channel, DeclaredVariable, Purpose } from '../content';

export const VERSION_STATUSES = ['draft', 'approved', 'active', 'archived'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];
export const WHATSAPP_STATUSES = ['pending', 'approved', 'rejected', 'paused', 'disabled'] as const;
export type WhatsAppStatus = (typeof WHATSAPP_STATUSES)[number];

/** `templates`: a named message template of one channel, purpose and locale; its words live in its versions. */
export class Template extends Model<InferAttributes<Template>, InferCreationAttributes<Template>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare channel: Channel;
  declare purpose: Purpose;
  declare locale: string;
  declare description: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare archivedAt: CreationOptional<Date | null>;
}

Template.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  name: { type: DataTypes.TEXT, allowNull: false },
  channel: { type: DataTypes.TEXT, allowNull: false },
  purpose: { type: DataTypes.TEXT, allowNull: false },
  locale: { type: DataTypes.TEXT, allowNull: false },
  description: { type: DataTypes.TEXT, allowNull: true },
  createdByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  archivedAt: { type: DataTypes.DATE, allowNull: true },
}, { sequelize, tableName: 'templates', timestamps: false });

/** `template_versions`: one immutable wording of a template, with its review state (and the provider's, for WhatsApp). */
export class TemplateVersion extends Model<InferAttributes<TemplateVersion>, InferCreationAttributes<TemplateVersion>> {
  declare id: string;
  declare orgId: string;
  declare templateId: string;
  declare number: number;
  declare status: CreationOptional<VersionStatus>;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare html: CreationOptional<string | null>;
  declare variables: CreationOptional<DeclaredVariable[]>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare approvedAt: CreationOptional<Date | null>;
  declare activatedAt: CreationOptional<Date | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare whatsappStatus: CreationOptional<WhatsAppStatus | null>;
  declare whatsappName: CreationOptional<string | null>;
  declare whatsappTemplateId: CreationOptional<string | null>;
  declare whatsappCategory: CreationOptional<string | null>;
  declare whatsappReason: CreationOptional<string | null>;
  declare whatsappSubmittedAt: CreationOptional<Date | null>;
  declare whatsappStatusAt: CreationOptional<Date | null>;
}

TemplateVersion.init({
  id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
  orgId: { type: DataTypes.UUID, allowNull: false },
  templateId: { type: DataTypes.UUID, allowNull: false },
  number: { type: DataTypes.INTEGER, allowNull: false },
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  subject: { type: DataTypes.TEXT, allowNull: true },
  body: { type: DataTypes.TEXT, allowNull: false },
  html: { type: DataTypes.TEXT, allowNull: true },
  variables: { type: DataTypes.JSONB, allowNull: false, defaultValue: databaseDefault() },
  createdByUserId: { type: DataTypes.UUID, allowNull: true },
  createdAt: { type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() },
  approvedAt: { type: DataTypes.DATE, allowNull: true },
  activatedAt: { type: DataTypes.DATE, allowNull: true },
  archivedAt: { type: DataTypes.DATE, allowNull: true },
  whatsappStatus: { type: DataTypes.TEXT, allowNull: true },
  whatsappName: { type: DataTypes.TEXT, allowNull: true },
  whatsappTemplateId: { type: DataTypes.TEXT, allowNull: true },
  whatsappCategory: { type: DataTypes.TEXT, allowNull: true },
  whatsappReason: { type: DataTypes.TEXT, allowNull: true },
  whatsappSubmittedAt: { type: DataTypes.DATE, allowNull: true },
  whatsappStatusAt: { type: DataTypes.DATE, allowNull: true },
}, { sequelize, tableName: 'template_versions', timestamps: false });

export const templatesModels = [Template, TemplateVersion] as const;
