import { randomUUID } from 'node:crypto';
import { queryRows, type Queryable } from '../../../db/pool';
import { channelMessageKeyOf } from './source';

export type EmailEventKind = 'hard_bounce' | 'soft_bounce' | 'complaint';

/** Keeps one of the mail provider's bounce or complaint events against its message (the webhook has already refused a replayed event). */
export async function recordEmailEvent(db: Queryable, orgId: string, messageId: string, kind: EmailEventKind): Promise<void> {
  await db.query('INSERT INTO channel_email_events (id, org_id, message_id, kind) VALUES ($1, $2, $3, $4)', [randomUUID(), orgId, messageId, kind]);
}

const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const MESSAGE_ID = new RegExp(`^${UUID_PATTERN}$`, 'i');
const CHANNEL_MESSAGE_KEY = new RegExp(`^${channelMessageKeyOf('')}(${UUID_PATTERN})$`, 'i');
/**
 * Another outbox source's key (OutboxSource.keyOf: the record kind, then the record's id), as
 * pastoral outreach and portal invitations use: ending in a UUID, it is unique across organisations.
 */
const RECORD_KEY = new RegExp(`^[a-z][a-z-]*-${UUID_PATTERN}$`, 'i');

interface MatchRow { id: string; org_id: string; recipient_address: string | null }
const MATCHED = 'id, org_id, recipient_address';

export interface ReportedEmail { id: string; orgId: string; recipientAddress: string | null }

/**
 * The email a mail provider's event is about, with its organisation. The event names it either by
 * Steward's message id (as `channels_get_message` shows it) or by the email's Message-ID header,
 * with or without its angle brackets: what a relay sees in a bounce. Every email Steward sends
 * carries a Message-ID whose local part is its outbox key: a channel message's holds the message
 * id; another source's (pastoral outreach, portal invitations), recorded as a channel message once
 * the provider has taken it, is kept on that record. A provider's own id, when it answered with one, is
 * matched too. Anything else, or a Message-ID two messages share, is no message.
 */
export async function findReportedEmail(db: Queryable, reported: string): Promise<ReportedEmail | null> {
  const bare = reported.trim().replace(/^<(.*)>$/, '$1');
  const local = bare.includes('@') ? bare.slice(0, bare.lastIndexOf('@')) : bare;
  const id = MESSAGE_ID.test(bare) ? bare : CHANNEL_MESSAGE_KEY.exec(local)?.[1];
  const rows = id
    ? await queryRows<MatchRow>(db, `SELECT ${MATCHED} FROM channel_messages WHERE id = $1 AND channel = 'email'`, [id])
    : RECORD_KEY.test(local)
      ? await queryRows<MatchRow>(db, `SELECT ${MATCHED} FROM channel_messages WHERE idempotency_key = $1 AND channel = 'email' LIMIT 2`, [local])
      : bare.includes('@')
        ? await queryRows<MatchRow>(db, `SELECT ${MATCHED} FROM channel_messages WHERE provider_message_id = ANY($1::text[]) AND channel = 'email' LIMIT 2`, [[bare, `<${bare}>`]])
        : [];
  return rows.length === 1 ? { id: rows[0]!.id, orgId: rows[0]!.org_id, recipientAddress: rows[0]!.recipient_address } : null;
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
