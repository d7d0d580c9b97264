import { z } from 'zod';

export const POST_KINDS = ['prayer', 'celebration'] as const;
export const POST_STATUSES = ['pending', 'approved', 'rejected', 'answered', 'removed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
export const SHOW_NAME = ['first_name', 'anonymous'] as const;

export const postSchema = z.object({
  id: z.uuid(),
  kind: z.enum(POST_KINDS),
  status: z.enum(POST_STATUSES),
  displayName: z.string().describe('What the congregation sees as the name: a first name or "Anonymous"'),
  body: z.string().describe('The text the congregation sees'),
  contactId: z.uuid(),
  prayerRequestId: z.uuid().nullable(),
  lifeEventId: z.uuid().nullable(),
  eventType: z.string().nullable(),
  eventDate: z.string().nullable(),
  submittedAt: z.string(),
  decidedAt: z.string().nullable(),
  rejectionReason: z.string().nullable(),
  answeredAt: z.string().nullable(),
  answerNote: z.string().nullable(),
  prayedCount: z.number().int(),
}).strict();
export type PostView = z.infer<typeof postSchema>;

/** What the congregation-facing lists show: no ids of people, only what was shared. */
export const wallItemSchema = z.object({
  id: z.uuid(),
  displayName: z.string(),
  body: z.string(),
  status: z.enum(['approved', 'answered']),
  approvedAt: z.string(),
  answeredAt: z.string().nullable(),
  answerNote: z.string().nullable(),
  prayedCount: z.number().int(),
}).strict();

export const celebrationItemSchema = z.object({
  id: z.uuid(),
  displayName: z.string(),
  body: z.string(),
  eventType: z.string(),
  eventDate: z.string().nullable(),
  approvedAt: z.string(),
}).strict();
