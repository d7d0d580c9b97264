import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { checkRecipient } from '../channels/api';
import { notFound } from '../kit';
import { defineOutboxSource, type OutboxDraft } from '../outbox-source';
import { listTeam } from '../platform/api';
import { BLOCKOUT_LINK_DAYS, blockoutUrl, respondUrl } from './links';
import { iso, nameOr, namesOf, requireEditablePlan, type PlanRow } from './common';

/**
 * What the module sends (rota requests, substitute offers, a scheduler's notice that nobody took a
 * place): records of its own that leave through the shared outbox, leased and counted once. Messages
 * to volunteers are checked through channels on every attempt (address, suppression, crisis hold,
 * quiet hours; purpose service), messages to staff go to their sign-in email.
 */
export const MESSAGE_SOURCE_KIND = 'runsheet.message';
export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/**
 * Queues one message. A request or an offer to a volunteer ends with their own link to answer it
 * (links.ts), so nobody has to sign in to accept or decline; a request also carries their own
 * blockout link, for the dates they cannot serve.
 */
export async function queueRunsheetMessage(db: Queryable, orgId: string, input: {
  kind: 'request' | 'offer' | 'scheduler_notice'; contactId?: string; toUserId?: string; planId: string; channel: MessageChannel; subject: string | null; body: string;
}): Promise<string> {
  const id = randomUUID();
  const body = input.contactId ? `${input.body}\n\nAnswer here: ${respondUrl(orgId, id)}${input.kind === 'request' ? `\nDates you cannot serve: ${blockoutUrl(orgId, input.contactId, blockoutLinkExpiry())}` : ''}` : input.body;
  await db.query(`INSERT INTO runsheet_notifications (id, org_id, kind, contact_id, to_user_id, plan_id, channel, subject, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, orgId, input.kind, input.contactId ?? null, input.toUserId ?? null, input.planId, input.channel, input.channel === 'email' ? input.subject : null, body]);
  return id;
}

/** A blockout link in a message stays good for BLOCKOUT_LINK_DAYS (to the second, so one send's links agree). */
const blockoutLinkExpiry = (now = new Date()) => new Date(Math.floor(now.getTime() / 1000) * 1000 + BLOCKOUT_LINK_DAYS * 86_400_000);

/** How a plan reads in a message: "Morning worship, Sunday 7 December 10:30". */
export function planLabel(plan: Pick<PlanRow, 'title' | 'starts_at' | 'time_zone'>, serviceTypeName: string): string {
  const when = DateTime.fromJSDate(plan.starts_at, { zone: plan.time_zone }).toFormat('cccc d LLLL HH:mm');
  return `${plan.title ?? serviceTypeName}, ${when}`;
}

interface MessageDraft extends OutboxDraft { contactId: string | null; toUserId: string | null }

interface MessageRow { id: string; kind: string; contact_id: string | null; to_user_id: string | null; plan_id: string | null; channel: MessageChannel; subject: string | null; body: string; status: string }

export const runsheetMessageDelivery = defineOutboxSource<MessageDraft>({
  kind: MESSAGE_SOURCE_KIND,
  keyOf: (messageId) => `runsheet-message-${messageId}`,
  usageTool: 'runsheet_send_requests',
  meterFor: (channel) => (channel === 'email' ? 'email_sends' : 'messaging_credits'),

  async lock(db, orgId, messageId) {
    const row = await queryOne<MessageRow>(db, 'SELECT * FROM runsheet_notifications WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, messageId]);
    if (!row) throw notFound('Runsheet message', messageId);
    if (row.status === 'sent') return { kind: 'delivered' };
    if (row.status !== 'queued') return { kind: 'not_ready' };
    return { kind: 'ready', draft: { channel: row.channel, subject: row.subject, body: row.body, contactId: row.contact_id, toUserId: row.to_user_id } };
  },

  async recipient(db, orgId, draft, channel) {
    if (draft.toUserId) {
      const member = (await listTeam(db, orgId)).find((candidate) => candidate.userId === draft.toUserId);
      return member ? { to: member.email } : { refused: { code: 'not_a_member', message: 'The scheduler is no longer a member of the organisation' } };
    }
    const check = await checkRecipient(db, orgId, { contactId: draft.contactId!, channel, purpose: 'service', now: new Date(), lock: true });
    if (!check.ok) return { refused: { code: check.reason, message: check.message } };
    if (check.quietUntil) return { deferUntil: check.quietUntil };
    return { to: check.address };
  },

  async delivered(db, orgId, messageId) {
    const row = await queryOne<MessageRow>(db, `UPDATE runsheet_notifications SET status = 'sent', sent_at = COALESCE(sent_at, now()), problem = NULL
      WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, messageId]);
    if (row?.kind === 'request') {
      await db.query(`UPDATE runsheet_plan_people SET notified_at = COALESCE(notified_at, now()) WHERE org_id = $1 AND plan_id = $2 AND contact_id = $3 AND status <> 'declined'`,
        [orgId, row.plan_id, row.contact_id]);
    }
  },

  async undelivered(db, orgId, messageId, problem) {
    await db.query("UPDATE runsheet_notifications SET status = 'refused', problem = $3 WHERE org_id = $1 AND id = $2", [orgId, messageId, JSON.stringify(problem)]);
  },

  async released(db, orgId, messageId) {
    await db.query("UPDATE runsheet_notifications SET status = 'queued', problem = NULL WHERE org_id = $1 AND id = $2", [orgId, messageId]);
  },
});

// ---------------------------------------------------------------- rota requests

/** People on the plan still to be asked: unconfirmed, with no request queued or sent to them for it. */
export async function pendingRequests(db: Queryable, orgId: string, planId: string) {
  // A place at one of the plan's times names it ("Sound desk at 09:00").
  return queryRows<{ contact_id: string; positions: string[] }>(db, `SELECT pp.contact_id,
      array_agg(p.name || COALESCE(' at ' || to_char(t.starts_at AT TIME ZONE pl.time_zone, 'HH24:MI'), '') ORDER BY lower(p.name), t.starts_at NULLS FIRST) AS positions
    FROM runsheet_plan_people pp JOIN runsheet_positions p ON p.id = pp.position_id AND p.org_id = pp.org_id
    JOIN runsheet_plans pl ON pl.id = pp.plan_id AND pl.org_id = pp.org_id LEFT JOIN runsheet_plan_times t ON t.id = pp.plan_time_id AND t.org_id = pp.org_id
    WHERE pp.org_id = $1 AND pp.plan_id = $2 AND pp.status = 'unconfirmed' AND pp.notified_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM runsheet_notifications m WHERE m.org_id = pp.org_id AND m.plan_id = pp.plan_id AND m.contact_id = pp.contact_id
        AND m.kind = 'request' AND m.status <> 'refused')
    GROUP BY pp.contact_id ORDER BY pp.contact_id`, [orgId, planId]);
}

/** Sends above this many requests at once wait for a person's approval. */
export const LARGE_SEND = 25;

/**
 * Asks everyone still to be asked on the plan, one message each through the outbox. Who cannot be
 * reached on the channel (no address, suppressed, crisis hold) is reported and not asked; the plan
 * becomes scheduled (people asked).
 */
export async function sendRequests(db: Queryable, orgId: string, input: { planId: string; channel: MessageChannel; note?: string }, serviceTypeName: (plan: PlanRow) => Promise<string>) {
  const plan = await requireEditablePlan(db, orgId, input.planId);
  const pending = await pendingRequests(db, orgId, plan.id);
  const names = await namesOf(db, orgId, pending.map((row) => row.contact_id));
  const label = planLabel(plan, await serviceTypeName(plan));
  const queued: Array<{ messageId: string; contactId: string; name: string }> = [];
  const skipped: Array<{ contactId: string; name: string; reason: string; message: string }> = [];
  for (const row of pending) {
    const check = await checkRecipient(db, orgId, { contactId: row.contact_id, channel: input.channel, purpose: 'service', now: new Date() });
    if (!check.ok) {
      skipped.push({ contactId: row.contact_id, name: nameOr(names, row.contact_id), reason: check.reason, message: check.message });
      continue;
    }
    const body = `Hello ${nameOr(names, row.contact_id)}, you are down for ${row.positions.join(' and ')} at ${label}. Can you serve?`
      + (input.note ? `\n\n${input.note}` : '');
    const messageId = await queueRunsheetMessage(db, orgId, { kind: 'request', contactId: row.contact_id, planId: plan.id, channel: input.channel, subject: `Can you serve? ${label}`, body });
    queued.push({ messageId, contactId: row.contact_id, name: nameOr(names, row.contact_id) });
  }
  if (queued.length > 0 && plan.status === 'draft') await db.query("UPDATE runsheet_plans SET status = 'scheduled', updated_at = now() WHERE org_id = $1 AND id = $2", [orgId, plan.id]);
  return { planId: plan.id, queued, skipped };
}

export async function listPlanMessages(db: Queryable, orgId: string, planId: string) {
  const rows = await queryRows<MessageRow & { sent_at: Date | null; created_at: Date }>(db,
    'SELECT * FROM runsheet_notifications WHERE org_id = $1 AND plan_id = $2 ORDER BY created_at, id', [orgId, planId]);
  return rows.map((row) => ({ id: row.id, kind: row.kind, contactId: row.contact_id, channel: row.channel, status: row.status, sentAt: iso(row.sent_at) }));
}

export function assertChannel(channel: string): asserts channel is MessageChannel {
  if (!(MESSAGE_CHANNELS as readonly string[]).includes(channel)) throw new StewardError('validation_failed', `Unknown channel ${channel}`);
}
