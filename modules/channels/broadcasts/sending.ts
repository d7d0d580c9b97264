import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../../db/pool';
import { recordJobChange } from '../../audit/api';
import type { RowOf } from '../../kit';
import { checkRecipient } from '../audience/services';
import { queueMessage } from '../delivery/services';
import { recordDispatchFailure } from '../delivery/source';
import type { ChannelBroadcast, ChannelBroadcastRecipient } from './models/broadcasts';
import { OUTSTANDING, type BroadcastStatus, type RecipientStatus } from './services';

/**
 * The sending side of a broadcast, one batch at a time (the workflow in workflows/broadcast.ts
 * calls these through activities). The recipients table is the record of what is done: a batch
 * takes the next outstanding recipients in position order, queues each one's message (idempotent
 * on `broadcast:<id>:<contact>`) and dispatches it through the outbox, and records the outcome on
 * the recipient. Running a batch again after a crash repeats nothing that finished, and the
 * outbox's lease and idempotency key keep a message that was in flight to one provider call.
 */

export const broadcastMessageKey = (broadcastId: string, contactId: string) => `broadcast:${broadcastId}:${contactId}`;
/** Usage of a broadcast's messages is recorded against the tool that scheduled it. */
export const BROADCAST_USAGE_TOOL = 'channels_schedule_broadcast';
/** A message whose dispatch keeps failing in ways worth retrying is given up after this many tries (recorded as failed). */
export const MAX_DISPATCH_ATTEMPTS = 5;
/** The largest batch: one batch is at most this many messages, or about a second's worth at the broadcast's rate. */
const MAX_BATCH = 50;

/** What dispatching one message came to, as the outbox reported it. */
export type DispatchResult =
  | { kind: 'sent' }
  /** Not sent, and will not be: the person may not be messaged (suppressed, no consent, crisis hold, no address). */
  | { kind: 'refused'; code: string }
  /** Not now: quiet hours, or another attempt holds the message's lease; try again at `until`. */
  | { kind: 'deferred'; until: Date; reason: string }
  /** The send failed for good (the provider refused it, or it needs a person's review). */
  | { kind: 'failed'; code: string }
  /** It failed in a way worth retrying (the provider was unreachable). */
  | { kind: 'retry'; code: string };

export type Dispatch = (messageId: string) => Promise<DispatchResult>;

/** Refusals that are the person's situation, not a failure of the send: the recipient is skipped. */
const SKIP_REASONS = new Set(['contact_missing', 'no_address', 'no_consent', 'suppressed', 'crisis_hold', 'window_closed', 'not_ready']);

export interface BroadcastBegin {
  sendable: boolean;
  status: BroadcastStatus;
  sendAt: string | null;
  ratePerMinute: number;
  batchSize: number;
}

/** The workflow's look at its broadcast (at the start, while it waits to be scheduled, while it waits for sendAt): an approved broadcast is taken over as scheduled. */
export async function beginBroadcast(pool: Pool, orgId: string, broadcastId: string): Promise<BroadcastBegin> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await queryOne<{ status: BroadcastStatus; send_at: Date | null; rate_per_minute: number }>(db,
      'SELECT status, send_at, rate_per_minute FROM channel_broadcasts WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, broadcastId]);
    if (!row) return { sendable: false, status: 'cancelled', sendAt: null, ratePerMinute: 1, batchSize: 1 };
    let status = row.status;
    if (status === 'approved') {
      await db.query("UPDATE channel_broadcasts SET status = 'scheduled', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, broadcastId]);
      status = 'scheduled';
    }
    return {
      sendable: status === 'scheduled' || status === 'sending',
      status,
      sendAt: row.send_at ? row.send_at.toISOString() : null,
      ratePerMinute: row.rate_per_minute,
      batchSize: Math.min(MAX_BATCH, Math.max(1, Math.ceil(row.rate_per_minute / 60))),
    };
  });
}

export interface BatchStep {
  /** running: call again (after the throttle or at nextDueAt); finished: nothing outstanding; cancelled: stop. */
  state: 'running' | 'finished' | 'cancelled';
  /** Recipients whose message this batch settled or tried. */
  handled: number;
  /** When the earliest deferred message is due, when nothing else is waiting. */
  nextDueAt: string | null;
}

type RecipientRow = Pick<RowOf<ChannelBroadcastRecipient>, 'position' | 'contact_id' | 'message_id' | 'attempts'>;

type BroadcastSendRow = Pick<RowOf<ChannelBroadcast>, 'status' | 'channel' | 'purpose' | 'template_id' | 'template_version_id' | 'subject' | 'body' | 'html' | 'variables'>;

/** Takes the next outstanding recipients; a scheduled broadcast starts sending with its first batch. */
async function nextRecipients(pool: Pool, orgId: string, broadcastId: string, batchSize: number, now: Date) {
  return withTenantTransaction(pool, orgId, async (db) => {
    const broadcast = await queryOne<BroadcastSendRow>(db,
      'SELECT status, channel, purpose, template_id, template_version_id, subject, body, html, variables FROM channel_broadcasts WHERE org_id = $1 AND id = $2 FOR UPDATE',
      [orgId, broadcastId]);
    if (!broadcast || (broadcast.status !== 'scheduled' && broadcast.status !== 'sending')) return { broadcast, recipients: [] as RecipientRow[], nextDueAt: null };
    if (broadcast.status === 'scheduled') {
      await db.query("UPDATE channel_broadcasts SET status = 'sending', started_at = COALESCE(started_at, now()), updated_at = now() WHERE org_id = $1 AND id = $2",
        [orgId, broadcastId]);
      await recordJobChange(db, {
        orgId, channel: 'job:channels.broadcast', module: 'channels', noun: 'broadcast', verb: 'start', target: { type: 'broadcast', id: broadcastId },
        fields: { status: 'sending' }, previous: { status: 'scheduled' },
      });
    }
    const recipients = await queryRows<RecipientRow>(db, `
      SELECT position, contact_id, message_id, attempts FROM channel_broadcast_recipients
      WHERE org_id = $1 AND broadcast_id = $2
        AND (status IN ('pending', 'queued') OR (status = 'deferred' AND not_before <= $3))
      ORDER BY position LIMIT $4`, [orgId, broadcastId, now, batchSize]);
    const due = recipients.length > 0 ? null : await queryOne<{ at: Date | null }>(db,
      "SELECT min(not_before) AS at FROM channel_broadcast_recipients WHERE org_id = $1 AND broadcast_id = $2 AND status = 'deferred'", [orgId, broadcastId]);
    return { broadcast, recipients, nextDueAt: due?.at ?? null };
  });
}

async function recordOutcome(
  db: Queryable, orgId: string, broadcastId: string, position: number,
  outcome: { status: RecipientStatus; reason?: string | null; notBefore?: Date | null; attempted?: boolean },
): Promise<void> {
  // A cancellation that came meanwhile stands, except over a message that did go.
  await db.query(`UPDATE channel_broadcast_recipients SET status = $4, reason = $5, not_before = $6, attempts = attempts + $7, updated_at = now()
    WHERE org_id = $1 AND broadcast_id = $2 AND position = $3 AND (status <> 'cancelled' OR $4 = 'sent') AND status <> 'sent'`,
  [orgId, broadcastId, position, outcome.status, outcome.reason ?? null, outcome.notBefore ?? null, outcome.attempted ? 1 : 0]);
}

/**
 * A template broadcast sends the version fixed when it was scheduled (the one previewed and, when
 * gated, approved), never whichever version is active when its turn comes. A broadcast scheduled
 * before versions were fixed has none and sends the active one, as it always did.
 */
function templateContentOf(broadcast: BroadcastSendRow): { templateId: string; templateVersionId?: string; templateVersionApproved?: boolean; variables: Record<string, string> } {
  const pinned = broadcast.template_version_id ? { templateVersionId: broadcast.template_version_id, templateVersionApproved: true } : {};
  return { templateId: broadcast.template_id!, ...pinned, variables: broadcast.variables ?? {} };
}

/** Queues the recipient's message once (its key finds it again); null when it cannot be made (recorded as failed). */
async function queueFor(pool: Pool, orgId: string, broadcastId: string, broadcast: BroadcastSendRow, recipient: RecipientRow): Promise<string | null> {
  if (recipient.message_id) return recipient.message_id;
  try {
    return await withTenantTransaction(pool, orgId, async (db) => {
      // Someone who may not be messaged at all (no address, suppressed, no consent, crisis hold) is skipped without a message;
      // the dispatch checks again, under locks, for everyone else.
      const check = await checkRecipient(db, orgId, {
        contactId: recipient.contact_id, channel: broadcast.channel, purpose: broadcast.purpose, now: new Date(), freeForm: broadcast.channel === 'whatsapp' && !broadcast.template_id,
      });
      if (!check.ok) {
        await recordOutcome(db, orgId, broadcastId, recipient.position, { status: 'skipped', reason: check.reason, attempted: true });
        return null;
      }
      const { messageId } = await queueMessage(db, orgId, {
        contactId: recipient.contact_id, channel: broadcast.channel, purpose: broadcast.purpose,
        ...(broadcast.template_id ? templateContentOf(broadcast) : { subject: broadcast.subject, body: broadcast.body ?? '', html: broadcast.html }),
        broadcastId, idempotencyKey: broadcastMessageKey(broadcastId, recipient.contact_id), usageTool: BROADCAST_USAGE_TOOL,
      });
      await db.query(`UPDATE channel_broadcast_recipients SET message_id = $4, status = 'queued', updated_at = now()
        WHERE org_id = $1 AND broadcast_id = $2 AND position = $3 AND status IN ('pending', 'queued', 'deferred')`, [orgId, broadcastId, recipient.position, messageId]);
      return messageId;
    });
  } catch (error) {
    // One bad recipient (an invalid number, a missing variable, an erased contact) never stops the rest.
    if (!(error instanceof StewardError)) throw error;
    await withTenantTransaction(pool, orgId, (db) => recordOutcome(db, orgId, broadcastId, recipient.position, { status: 'failed', reason: error.code, attempted: true }));
    return null;
  }
}

/** What one dispatch makes of a recipient: sent; skipped (the person may not be messaged) or failed, with the reason; or deferred until `notBefore`. */
export interface DispatchOutcome {
  status: Extract<RecipientStatus, 'sent' | 'skipped' | 'failed' | 'deferred'>; reason?: string; notBefore?: Date; attempted?: boolean;
  /** A failure worth retrying, given up at the last attempt: the message itself is failed too (settleGivenUp). */
  givenUp?: boolean;
}

/**
 * The one reading of a dispatch's result, for every sender that hands messages over one by one:
 * `attempts` is how many attempts went before this one; a failure worth retrying is deferred with a
 * doubling wait (2, 4, 8, 16 s) and fails at the MAX_DISPATCH_ATTEMPTS-th.
 */
export function dispatchOutcomeOf(result: DispatchResult, attempts: number, now: Date): DispatchOutcome {
  switch (result.kind) {
    case 'sent':
      return { status: 'sent', attempted: true };
    case 'refused':
      return { status: SKIP_REASONS.has(result.code) ? 'skipped' : 'failed', reason: result.code, attempted: true };
    case 'deferred':
      return { status: 'deferred', reason: result.reason, notBefore: result.until };
    case 'failed':
      return { status: 'failed', reason: result.code, attempted: true };
    case 'retry':
      if (attempts + 1 >= MAX_DISPATCH_ATTEMPTS) return { status: 'failed', reason: result.code, attempted: true, givenUp: true };
      return { status: 'deferred', reason: result.code, notBefore: new Date(now.getTime() + 2 ** (attempts + 1) * 1000), attempted: true };
  }
}

/**
 * A retry given up (dispatchOutcomeOf's failure at the last attempt) also fails the channel message,
 * which would otherwise stay queued for good, its outbox row pending: as the message workflow does.
 */
export async function settleGivenUp(db: Queryable, orgId: string, messageId: string, outcome: DispatchOutcome): Promise<void> {
  if (!outcome.givenUp) return;
  await recordDispatchFailure(db, orgId, messageId, { code: outcome.reason ?? 'send_failed', message: `Sending gave up after ${MAX_DISPATCH_ATTEMPTS} attempts the provider could not take` });
}

/** Whether the broadcast was cancelled meanwhile (checked between messages, so a cancel stops a batch part-way). */
async function isCancelled(pool: Pool, orgId: string, broadcastId: string): Promise<boolean> {
  const row = await withTenantTransaction(pool, orgId, (db) => queryOne<{ status: string }>(db,
    'SELECT status FROM channel_broadcasts WHERE org_id = $1 AND id = $2', [orgId, broadcastId]));
  return !row || row.status === 'cancelled';
}

/**
 * One batch: the next `batchSize` outstanding recipients, each queued and dispatched in position
 * order, `beat` called after each (the activity's heartbeat).
 */
export async function sendBroadcastBatch(
  pool: Pool, orgId: string, broadcastId: string, options: { batchSize: number; dispatch: Dispatch; beat?: () => void; now?: () => Date },
): Promise<BatchStep> {
  const clock = options.now ?? (() => new Date());
  const { broadcast, recipients, nextDueAt } = await nextRecipients(pool, orgId, broadcastId, options.batchSize, clock());
  if (!broadcast || broadcast.status === 'cancelled') return { state: 'cancelled', handled: 0, nextDueAt: null };
  if (broadcast.status !== 'scheduled' && broadcast.status !== 'sending') return { state: 'finished', handled: 0, nextDueAt: null };
  if (recipients.length === 0) return nextDueAt ? { state: 'running', handled: 0, nextDueAt: nextDueAt.toISOString() } : { state: 'finished', handled: 0, nextDueAt: null };
  let handled = 0;
  for (const recipient of recipients) {
    if (await isCancelled(pool, orgId, broadcastId)) return { state: 'cancelled', handled, nextDueAt: null };
    const messageId = await queueFor(pool, orgId, broadcastId, broadcast, recipient);
    if (messageId) {
      const result = await options.dispatch(messageId);
      const outcome = dispatchOutcomeOf(result, recipient.attempts, clock());
      await withTenantTransaction(pool, orgId, async (db) => {
        await recordOutcome(db, orgId, broadcastId, recipient.position, outcome);
        await settleGivenUp(db, orgId, messageId, outcome);
      });
    }
    handled += 1;
    options.beat?.();
  }
  return { state: 'running', handled, nextDueAt: null };
}

/** Settles a broadcast once nothing is outstanding: completed, or partially_failed when any message failed. */
export async function finishBroadcast(pool: Pool, orgId: string, broadcastId: string): Promise<{ status: BroadcastStatus }> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const row = await queryOne<{ status: BroadcastStatus }>(db, 'SELECT status FROM channel_broadcasts WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, broadcastId]);
    if (!row) return { status: 'cancelled' as const };
    if (row.status !== 'sending' && row.status !== 'scheduled') return { status: row.status };
    const counts = await queryOne<{ outstanding: number; failed: number }>(db, `
      SELECT count(*) FILTER (WHERE status = ANY($3::text[]))::int AS outstanding, count(*) FILTER (WHERE status = 'failed')::int AS failed
      FROM channel_broadcast_recipients WHERE org_id = $1 AND broadcast_id = $2`, [orgId, broadcastId, [...OUTSTANDING]]);
    if ((counts?.outstanding ?? 0) > 0) return { status: row.status };
    const status: BroadcastStatus = (counts?.failed ?? 0) > 0 ? 'partially_failed' : 'completed';
    await db.query('UPDATE channel_broadcasts SET status = $3, finished_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, broadcastId, status]);
    await recordJobChange(db, {
      orgId, channel: 'job:channels.broadcast', module: 'channels', noun: 'broadcast', verb: 'finish', target: { type: 'broadcast', id: broadcastId },
      fields: { status, failedMessages: counts?.failed ?? 0 }, previous: { status: row.status }, outcome: status === 'completed' ? 'success' : 'failed',
    });
    return { status };
  });
}
