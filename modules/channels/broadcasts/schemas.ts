import { z } from 'zod';
import { audienceSchema } from './audience';
import { BROADCAST_STATUSES, RECIPIENT_STATUSES } from './services';

export const CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export const PURPOSES = ['marketing', 'charitable_purpose', 'service'] as const;

const counts = z.record(z.string(), z.number().int());

export const broadcastSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  channel: z.enum(CHANNELS),
  purpose: z.enum(PURPOSES),
  audience: audienceSchema,
  templateId: z.uuid().nullable(),
  subject: z.string().nullable(),
  body: z.string().nullable(),
  status: z.enum(BROADCAST_STATUSES),
  previewHash: z.string().nullable(),
  previewedAt: z.string().nullable(),
  sendAt: z.string().nullable(),
  ratePerMinute: z.number().int(),
  totalRecipients: z.number().int().describe('People in the audience when it was previewed, or fixed when scheduled'),
  approvedAt: z.string().nullable(),
  scheduledAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  cancelReason: z.string().nullable(),
  createdAt: z.string(),
  approvalProposalId: z.uuid().optional().describe('While pending_approval: the proposal to approve (platform_approve_proposal)'),
}).strict();

export const previewSchema = z.object({
  total: z.number().int().describe('People in the audience'),
  eligible: z.number().int().describe('People a message would go to now'),
  excluded: counts.describe('People left out, by reason: no_consent, suppressed, no_address, crisis_hold, missing_variables…'),
  deferredForQuietHours: z.number().int().describe('Eligible people inside quiet hours now: their message waits until quiet hours end, it is never dropped'),
  cost: z.object({
    channel: z.enum(CHANNELS),
    messages: z.number().int(),
    smsSegments: z.number().int().nullable().describe('SMS only: segments over all eligible messages (each rendered for its recipient)'),
    whatsappCategory: z.enum(['service', 'utility', 'marketing', 'authentication']).nullable(),
    unit: z.enum(['sms_segment', 'whatsapp_message', 'email']),
    unitPrice: z.number().int().describe('Minor units per unit'),
    amount: z.number().int().describe('Estimated cost in minor units'),
    currency: z.string(),
  }).strict(),
  sample: z.object({
    contactId: z.uuid(),
    subject: z.string().nullable(),
    text: z.string(),
    html: z.string().nullable(),
    sms: z.object({ encoding: z.string(), segments: z.number().int(), characters: z.number().int() }).strict().nullable(),
  }).strict().nullable().describe('The message as the first eligible person would receive it'),
  templateVersionId: z.uuid().nullable(),
  needsApproval: z.boolean().describe('Scheduling waits for a person: more than 50 recipients, or a marketing purpose'),
}).strict();

export const recipientCountsSchema = z.object({
  byStatus: z.object(Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof RECIPIENT_STATUSES)[number], z.ZodNumber>).strict(),
  skippedByReason: counts.describe('Refused when dispatched (e.g. suppressed after a STOP, consent withdrawn)'),
  failedByReason: counts,
}).strict();
