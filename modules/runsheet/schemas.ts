import { z } from 'zod';
import { CONFLICT_CODES } from './ranking';

export const planStateSchema = z.enum(['draft', 'scheduled', 'locked', 'live', 'past']);

export const planSummarySchema = z.object({
  id: z.uuid(), serviceTypeId: z.uuid(), serviceTypeName: z.string(), date: z.string(), title: z.string().nullable(), seriesTitle: z.string().nullable(),
  state: planStateSchema, startsAt: z.string(), endsAt: z.string(), instanceId: z.uuid().nullable(),
}).strict();

export const itemSchema = z.object({
  id: z.uuid(), parentId: z.uuid().nullable().describe('The header holding it; null at the top level'), kind: z.enum(['song', 'header', 'media', 'item']), title: z.string(),
  lengthSeconds: z.number().int(), order: z.number().int(), songId: z.uuid().nullable(), arrangementId: z.uuid().nullable(), key: z.string().nullable(),
  notes: z.record(z.string(), z.string()).describe('Notes per category (e.g. band, sound, lighting)'),
}).strict();

export const conflictSchema = z.object({ code: z.enum(CONFLICT_CODES), message: z.string() }).strict();

export const planSchema = z.object({
  id: z.uuid(), serviceTypeId: z.uuid(), serviceTypeName: z.string(), instanceId: z.uuid().nullable(), date: z.string(), timeZone: z.string(),
  title: z.string().nullable(), seriesTitle: z.string().nullable(), notes: z.string().nullable(), state: planStateSchema, lockedAt: z.string().nullable(),
  copiedFromPlanId: z.uuid().nullable(), startsAt: z.string(), endsAt: z.string(), totalLengthSeconds: z.number().int(),
  times: z.array(z.object({ id: z.uuid(), kind: z.enum(['service', 'rehearsal', 'other']), name: z.string().nullable(), startsAt: z.string(), endsAt: z.string() }).strict()),
  items: z.array(itemSchema),
  neededPositions: z.array(z.object({
    positionId: z.uuid(), positionName: z.string(), teamId: z.uuid(), teamName: z.string(), planTimeId: z.uuid().nullable().describe('The plan time it is for (times[].id); null: every time of the plan'),
    quantity: z.number().int(), filled: z.number().int(), accepted: z.number().int(), open: z.number().int(),
  }).strict()),
  people: z.array(z.object({
    id: z.uuid(), positionId: z.uuid(), positionName: z.string(), teamName: z.string(), planTimeId: z.uuid().nullable(), contactId: z.uuid(), name: z.string(),
    status: z.enum(['unconfirmed', 'accepted', 'declined']), declineReason: z.string().nullable(), scheduledByUserId: z.uuid().nullable(), scheduledAt: z.string(),
    notifiedAt: z.string().nullable(), respondedAt: z.string().nullable(), autofillRunId: z.uuid().nullable(), substitutionId: z.uuid().nullable(),
  }).strict()),
  substitutions: z.array(z.object({
    id: z.uuid(), positionId: z.uuid(), cause: z.enum(['declined', 'blockout']), status: z.enum(['searching', 'filled', 'unfilled', 'cancelled']), workflowId: z.string(),
    startedAt: z.string(), finishedAt: z.string().nullable(),
    offers: z.array(z.object({
      id: z.uuid(), contactId: z.uuid(), name: z.string(), rank: z.number().int(), status: z.enum(['offered', 'accepted', 'declined', 'expired', 'unreachable', 'withdrawn']),
      reason: z.string().nullable(), offeredAt: z.string(), expiresAt: z.string(), respondedAt: z.string().nullable(),
    }).strict()),
  }).strict()).describe('Substitute searches (declines that fix themselves), each with its offers in the order they were made'),
}).strict();
