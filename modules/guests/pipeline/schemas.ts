import { z } from 'zod';
import { CARD_SOURCES, CARD_STATUSES, EVENT_KINDS } from './cards';
import { VOLUNTEER_STATUSES } from './volunteers';
import { WELCOME_CHANNELS, WELCOME_PURPOSES } from './welcome-cards';

export const instanceIdSchema = z.uuid();
export const teamSchema = z.string().trim().max(50).regex(/^[a-z][a-z0-9_]{0,49}$/, 'lower-case letters, digits and _ (e.g. welcome, kids, parking)');
export const limitSchema = z.number().int().min(1).max(100).default(50).describe('How many to return (1 to 100)');

export const stageSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  position: z.number().int().describe('0 is the first stage'),
  expectedDays: z.number().int().describe('Days a guest is expected to spend in this stage before the follow-up is due'),
  defaultAssigneeUserId: z.uuid().nullable().describe('The team member new cards in this stage go to'),
}).strict();

export const cardSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  guestName: z.string(),
  stageId: z.uuid(),
  stageName: z.string(),
  stagePosition: z.number().int().nullable().describe('null when the stage was removed'),
  status: z.enum(CARD_STATUSES).describe('ready (due later or today), snoozed, overdue (past its due date) or completed'),
  source: z.enum(CARD_SOURCES),
  instanceId: z.string().nullable().describe('The service instance the guest first came to, when known'),
  assigneeUserId: z.uuid().nullable(),
  stageEnteredAt: z.string(),
  dueDate: z.string(),
  snoozedUntil: z.string().nullable(),
  snoozeReason: z.string().nullable(),
  completedAt: z.string().nullable(),
  outcome: z.string().nullable(),
  openedAt: z.string(),
}).strict();

export const journeyStepSchema = z.object({
  kind: z.enum(EVENT_KINDS),
  fromStage: z.string().nullable(),
  toStage: z.string().nullable(),
  note: z.string().nullable(),
  actorUserId: z.uuid().nullable(),
  at: z.string(),
}).strict();

export const welcomeCardSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid(),
  templateKey: z.string(),
  channel: z.enum(WELCOME_CHANNELS),
  status: z.enum(['queued', 'dispatched', 'sent', 'cancelled']).describe('dispatched: handed to channels (email, text; channels_get_message follows it); queued: a posted card waiting for the person it is queued for; sent: they marked it sent'),
  purpose: z.enum(WELCOME_PURPOSES).nullable().describe('The consent purpose it was sent under (email and text)'),
  channelMessageId: z.uuid().nullable(),
  subject: z.string().nullable(),
  body: z.string(),
  queuedForUserId: z.uuid().nullable(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
}).strict();

export const volunteerAssignmentSchema = z.object({
  id: z.uuid(),
  instanceId: z.string(),
  serviceTitle: z.string(),
  serviceStartsAt: z.string(),
  localDate: z.string(),
  contactId: z.uuid(),
  volunteerName: z.string(),
  team: z.string(),
  role: z.string().nullable(),
  locationId: z.uuid().nullable(),
  status: z.enum(VOLUNTEER_STATUSES),
  notes: z.string().nullable(),
  copiedFromId: z.uuid().nullable(),
}).strict();
