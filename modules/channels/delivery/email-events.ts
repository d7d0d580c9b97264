import { randomUUID } from 'node:crypto';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { channelMessageKeyOf } from './source';

export type EmailEventKind = 'hard_bounce' | 'soft_bounce' | 'complaint';

/** Keeps one of the mail provider's bounce or complaint events against its message (the webhook has already refused a replayed event). */
export async function recordEmailEvent(db: Queryable, orgId: string, messageId: string, kind: EmailEventKind): Promise<void> {
  await db.query('INSERT INTO channel_email_events (id, org_id, message_id, kind) VALUES ($1, $2, $3, $4)', [randomUUID(), orgId, messageId, kind]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CHANNEL_MESSAGE_ID_LOCAL = new RegExp(`^${channelMessageKeyOf('')}([0-9a-f-]{36})@`, 'i');

/**
 * The email a mail provider's event is about, with its organisation. The event names it either by
 * Steward's message id (as `channels_get_message` shows it) or by the email's Message-ID header,
 * with or without its angle brackets: what a relay sees in a bounce. Every email Steward sends
 * carries a Message-ID made from its outbox key; a channel message's holds the message id, and any
 * other (pastoral outreach, a portal invitation, recorded as a channel message once the provider has
 * taken it) is found by the Message-ID the provider answered with. Anything else, or a Message-ID
 * two messages share, is no message.
 */
export async function findReportedEmail(db: Queryable, reported: string): Promise<{ id: string; orgId: string } | null> {
  const bare = reported.trim().replace(/^<(.*)>$/, '$1');
  const id = UUID.test(bare) ? bare : CHANNEL_MESSAGE_ID_LOCAL.exec(bare)?.[1];
  if (id && UUID.test(id)) {
    const row = await queryOne<{ org_id: string }>(db, "SELECT org_id FROM channel_messages WHERE id = $1 AND channel = 'email'", [id]);
    return row ? { id, orgId: row.org_id } : null;
  }
  if (!bare.includes('@')) return null;
  const rows = await queryRows<{ id: string; org_id: string }>(db,
    "SELECT id, org_id FROM channel_messages WHERE provider_message_id = ANY($1::text[]) AND channel = 'email' LIMIT 2", [[bare, `<${bare}>`]]);
  return rows.length === 1 ? { id: rows[0]!.id, orgId: rows[0]!.org_id } : null;
}

export interface MessageEmailOutcome { messageId: string; delivered: boolean; hardBounce: boolean; softBounce: boolean; complaint: boolean }

/**
 * What the mail provider reported of each of these messages (of this organisation only): delivered
 * to the recipient's mail server (its delivery event, kept as the message's delivered status and
 * time), a hard bounce (also a message marked undelivered for hard_bounce before these events were
 * kept), a soft bounce, a complaint. A delivery later followed by a hard bounce counts as the bounce.
 * Messages with nothing reported are left out.
 */
export async function emailOutcomesOf(db: Queryable, orgId: string, messageIds: readonly string[]): Promise<MessageEmailOutcome[]> {
  if (messageIds.length === 0) return [];
  const rows = await queryRows<{ id: string; delivered: boolean; hard: boolean; soft: boolean; complaint: boolean }>(db, `SELECT m.id, m.delivered_at IS NOT NULL AS delivered,
      coalesce(bool_or(e.kind = 'hard_bounce'), false) OR (m.status = 'undelivered' AND m.error_code = 'hard_bounce') AS hard,
      coalesce(bool_or(e.kind = 'soft_bounce'), false) AS soft, coalesce(bool_or(e.kind = 'complaint'), false) AS complaint
    FROM channel_messages m LEFT JOIN channel_email_events e ON e.org_id = m.org_id AND e.message_id = m.id
    WHERE m.org_id = $1 AND m.id = ANY($2::uuid[]) AND m.channel = 'email'
    GROUP BY m.id, m.status, m.error_code, m.delivered_at
    HAVING count(e.id) > 0 OR m.delivered_at IS NOT NULL OR (m.status = 'undelivered' AND m.error_code = 'hard_bounce')`, [orgId, [...messageIds]]);
  return rows.map((r) => ({ messageId: r.id, delivered: r.delivered && !r.hard, hardBounce: Boolean(r.hard), softBounce: r.soft, complaint: r.complaint }));
}
