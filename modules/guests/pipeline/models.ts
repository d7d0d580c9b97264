import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes } from 'sequelize';
import { databaseDefault, sequelize } from '../../../db/sequelize';
import type { CardSource } from './cards';
import type { VolunteerStatus } from './volunteers';
import type { WelcomeCardView, WelcomeChannel, WelcomePurpose } from './welcome-cards';

/**
 * The pipeline part's tables (migrations/2026.11.24T16.00.00.guests-pipeline.ts). Services read and
 * write them with bound SQL (ordering, locks and ON CONFLICT); the models keep the declared columns
 * honest against the schema and serve simple reads.
 */

// Fresh objects for every attribute: Sequelize writes each attribute's column name into its definition.
const id = () => ({ type: DataTypes.UUID, primaryKey: true, allowNull: false });
const orgId = () => ({ type: DataTypes.UUID, allowNull: false });
const uuidOrNull = () => ({ type: DataTypes.UUID, allowNull: true });
const textOrNull = () => ({ type: DataTypes.TEXT, allowNull: true });
const text = () => ({ type: DataTypes.TEXT, allowNull: false });
const createdAt = () => ({ type: DataTypes.DATE, allowNull: false, defaultValue: databaseDefault() });

/** `guests_pipeline_stages`: one ordered step of the guest pipeline, archived when a sync removes it. */
export class PipelineStage extends Model<InferAttributes<PipelineStage>, InferCreationAttributes<PipelineStage>> {
  declare id: string;
  declare orgId: string;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare position: number;
  declare expectedDays: number;
  declare defaultAssigneeUserId: CreationOptional<string | null>;
  declare archivedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
PipelineStage.init({
  id: id(), orgId: orgId(), name: text(), description: textOrNull(),
  position: { type: DataTypes.INTEGER, allowNull: false },
  expectedDays: { type: DataTypes.INTEGER, allowNull: false },
  defaultAssigneeUserId: uuidOrNull(),
  archivedAt: { type: DataTypes.DATE, allowNull: true },
  createdAt: createdAt(), updatedAt: createdAt(),
}, { sequelize, tableName: 'guests_pipeline_stages', timestamps: false });

/** `guests_pipeline_cards`: a guest's one card, in one stage at a time, until completed. */
export class PipelineCard extends Model<InferAttributes<PipelineCard>, InferCreationAttributes<PipelineCard>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare stageId: string;
  declare assigneeUserId: CreationOptional<string | null>;
  declare source: CardSource;
  declare instanceId: CreationOptional<string | null>;
  declare stageEnteredAt: CreationOptional<Date>;
  declare dueDate: string;
  declare snoozedUntil: CreationOptional<string | null>;
  declare snoozeReason: CreationOptional<string | null>;
  declare completedAt: CreationOptional<Date | null>;
  declare outcome: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
PipelineCard.init({
  id: id(), orgId: orgId(), contactId: { type: DataTypes.UUID, allowNull: false }, stageId: { type: DataTypes.UUID, allowNull: false },
  assigneeUserId: uuidOrNull(), source: text(), instanceId: textOrNull(),
  stageEnteredAt: createdAt(),
  dueDate: { type: DataTypes.DATEONLY, allowNull: false },
  snoozedUntil: { type: DataTypes.DATEONLY, allowNull: true },
  snoozeReason: textOrNull(),
  completedAt: { type: DataTypes.DATE, allowNull: true },
  outcome: textOrNull(), createdByUserId: uuidOrNull(), createdAt: createdAt(), updatedAt: createdAt(),
}, { sequelize, tableName: 'guests_pipeline_cards', timestamps: false });

/** `guests_pipeline_events`: what happened to a card, in order; a journey is read from these. */
export class PipelineEvent extends Model<InferAttributes<PipelineEvent>, InferCreationAttributes<PipelineEvent>> {
  declare id: string;
  declare orgId: string;
  declare cardId: string;
  declare kind: string;
  declare fromStageId: CreationOptional<string | null>;
  declare toStageId: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare actorUserId: CreationOptional<string | null>;
  declare at: CreationOptional<Date>;
}
PipelineEvent.init({
  id: id(), orgId: orgId(), cardId: { type: DataTypes.UUID, allowNull: false }, kind: text(),
  fromStageId: uuidOrNull(), toStageId: uuidOrNull(), note: textOrNull(), actorUserId: uuidOrNull(), at: createdAt(),
}, { sequelize, tableName: 'guests_pipeline_events', timestamps: false });

/** `guests_welcome_cards`: a welcome card for a guest: handed to the channels module (email, text) or queued for a person (post). */
export class WelcomeCard extends Model<InferAttributes<WelcomeCard>, InferCreationAttributes<WelcomeCard>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare templateKey: string;
  declare channel: WelcomeChannel;
  declare status: CreationOptional<WelcomeCardView['status']>;
  declare purpose: CreationOptional<WelcomePurpose | null>;
  declare channelMessageId: CreationOptional<string | null>;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare queuedForUserId: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare sentByUserId: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
}
WelcomeCard.init({
  id: id(), orgId: orgId(), contactId: { type: DataTypes.UUID, allowNull: false }, templateKey: text(), channel: text(),
  status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  purpose: textOrNull(), channelMessageId: uuidOrNull(), subject: textOrNull(), body: text(), queuedForUserId: uuidOrNull(), createdByUserId: uuidOrNull(), sentByUserId: uuidOrNull(),
  sentAt: { type: DataTypes.DATE, allowNull: true }, createdAt: createdAt(),
}, { sequelize, tableName: 'guests_welcome_cards', timestamps: false });

/** `guests_card_submissions`: a connect card a guest filled in, with the contact it created or matched. */
export class CardSubmission extends Model<InferAttributes<CardSubmission>, InferCreationAttributes<CardSubmission>> {
  declare id: string;
  declare orgId: string;
  declare contactId: string;
  declare cardId: CreationOptional<string | null>;
  declare contactOutcome: string;
  declare matchedOn: CreationOptional<string[]>;
  declare instanceId: CreationOptional<string | null>;
  declare firstName: CreationOptional<string | null>;
  declare lastName: CreationOptional<string | null>;
  declare email: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare howHeard: CreationOptional<string | null>;
  declare interests: CreationOptional<string[]>;
  declare message: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
}
CardSubmission.init({
  id: id(), orgId: orgId(), contactId: { type: DataTypes.UUID, allowNull: false }, cardId: uuidOrNull(), contactOutcome: text(),
  matchedOn: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
  instanceId: textOrNull(), firstName: textOrNull(), lastName: textOrNull(), email: textOrNull(), phone: textOrNull(), howHeard: textOrNull(),
  interests: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: databaseDefault() },
  message: textOrNull(), createdByUserId: uuidOrNull(), createdAt: createdAt(),
}, { sequelize, tableName: 'guests_card_submissions', timestamps: false });

/** `guests_volunteer_assignments`: a person on a team (welcome, kids…) for one service instance. */
export class VolunteerAssignment extends Model<InferAttributes<VolunteerAssignment>, InferCreationAttributes<VolunteerAssignment>> {
  declare id: string;
  declare orgId: string;
  declare instanceId: string;
  declare contactId: string;
  declare team: string;
  declare role: CreationOptional<string | null>;
  declare locationId: CreationOptional<string | null>;
  declare status: CreationOptional<VolunteerStatus>;
  declare notes: CreationOptional<string | null>;
  declare copiedFromId: CreationOptional<string | null>;
  declare createdByUserId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
}
VolunteerAssignment.init({
  id: id(), orgId: orgId(), instanceId: text(), contactId: { type: DataTypes.UUID, allowNull: false }, team: text(), role: textOrNull(),
  locationId: uuidOrNull(), status: { type: DataTypes.TEXT, allowNull: false, defaultValue: databaseDefault() },
  notes: textOrNull(), copiedFromId: uuidOrNull(), createdByUserId: uuidOrNull(), createdAt: createdAt(), updatedAt: createdAt(),
}, { sequelize, tableName: 'guests_volunteer_assignments', timestamps: false });

export const pipelineModels = [PipelineStage, PipelineCard, PipelineEvent, WelcomeCard, CardSubmission, VolunteerAssignment] as const;
