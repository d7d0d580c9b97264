import { SEND_NEEDS_REVIEW } from '../../../core/approvals';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { defineOutboxSource, type OutboxDraft, type OutboxProblem } from '../../outbox-source';
import { normaliseAddress, type Channel, type Purpose } from '../audience/addresses';
import { checkRecipient, oneWayOptOutRefusal, senderFor } from '../audience/services';
import { listUnsubscribeHeaders, smsStatusCallbackUrl } from './links';
import type { MessageRow } from './services';

/**
 * Dispatch of channel messages: the channels module's outbox source. The outbox
 * (activities/outbox.ts) leases the row, calls the provider with the message's key as
 * Idempotency-Key and counts the message once (SMS by its segments); this says what a message
 * allows. At every attempt, under locks, the recipient is checked afresh (consent for the purpose,
 * suppression of the address, crisis holds, the WhatsApp window for free-form text) and the message
 * goes to the contact's current address; quiet hours defer it (nothing claimed or counted) until
 * they end. A message that may not go is failed with the reason; one that went is marked sent.
 */

export const CHANNEL_MESSAGE_SOURCE_KIND = 'channels.message';

export const channelMessageKeyOf = (messageId: string) => `channel-message-${messageId}`;

interface MessageDraft extends OutboxDraft {
  messageId: string;
  contactId: string | null;
  purpose: Purpose;
  freeForm: boolean;
  /** The SMS sender is an alphanumeric id: recipients cannot reply STOP. */
  oneWaySender: boolean;
  /** Where an earlier attempt sent it (null before the first). */
  recipientAddress: string | null;
}

/** The sender a message leaves from when the organisation names none: the provider's configured default. */
function defaultSender(channel: Channel, env: NodeJS.ProcessEnv = process.env): string | null {
  if (channel === 'sms') return env.SMS_FROM ?? null;
  if (channel === 'whatsapp') return env.WHATSAPP_PHONE_NUMBER_ID ?? null;
  return env.SMTP_FROM ?? null;
}

/**
 * The message's sender: the one it was first dispatched from, else the organisation's own SMS number
 * or sender id (A's senderFor), else the provider's default. WhatsApp and email leave from the
 * configured phone-number id and SMTP_FROM.
 */
async function senderOf(db: Queryable, orgId: string, row: MessageRow): Promise<{ address: string | null; oneWay: boolean }> {
  if (row.channel === 'sms') {
    const own = await senderFor(db, orgId, 'sms');
    if (row.sender) return { address: row.sender, oneWay: Boolean(own?.oneWay && own.address === row.sender) };
    if (own) return { address: own.address, oneWay: own.oneWay };
  }
  return { address: row.sender ?? defaultSender(row.channel), oneWay: false };
}

function draftOf(orgId: string, row: MessageRow, sender: { address: string | null; oneWay: boolean }): MessageDraft {
  return {
    messageId: row.id,
    channel: row.channel,
    subject: row.subject,
    body: row.body,
    html: row.html,
    units: row.metered_units,
    usageTool: row.usage_tool,
    contactId: row.contact_id,
    purpose: row.purpose,
    freeForm: row.channel === 'whatsapp' && row.whatsapp_payload === null,
    oneWaySender: sender.oneWay,
    recipientAddress: row.recipient_address,
    transport: {
      from: row.channel === 'email' ? null : sender.address,
      statusCallbackUrl: row.channel === 'sms' ? smsStatusCallbackUrl(orgId, row.id) : null,
      // RFC 8058: every marketing email can be left in one click.
      headers: row.channel === 'email' && row.purpose === 'marketing' ? listUnsubscribeHeaders(orgId, row.id) : undefined,
      whatsappTemplate: row.channel === 'whatsapp' && row.whatsapp_payload !== null ? row.whatsapp_payload : undefined,
      callbackData: row.channel === 'whatsapp' ? `${orgId}:${row.id}` : null,
    },
  };
}

/** Fails those of these messages whose status is one of `from`, with the problem; the ids it failed. */
async function failMessages(db: Queryable, orgId: string, messageIds: readonly string[], from: ReadonlyArray<'queued' | 'sending'>, problem: OutboxProblem): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const failed = await queryRows<{ id: string }>(db, `UPDATE channel_messages SET status = 'failed', error_code = $4, error_message = $5, updated_at = now()
    WHERE org_id = $1 AND id = ANY($2::uuid[]) AND status = ANY($3::text[]) RETURNING id`, [orgId, [...messageIds], [...from], problem.code, problem.message.slice(0, 2000)]);
  return failed.map((row) => row.id);
}

async function failMessage(db: Queryable, orgId: string, messageId: string, problem: OutboxProblem): Promise<void> {
  await failMessages(db, orgId, [messageId], ['queued', 'sending'], problem);
}

/**
 * Withdraws those of these messages nothing has begun to send: still queued, with no attempt holding
 * them (an attempt takes the row lock and moves the message to sending first, so a withdrawn message
 * is never claimed and a claimed one is never withdrawn). They are failed with the reason; the ids
 * withdrawn are returned. A message sending or sent is left to finish.
 */
export async function withdrawQueuedMessages(db: Queryable, orgId: string, messageIds: readonly string[], problem: OutboxProblem): Promise<string[]> {
  return failMessages(db, orgId, messageIds, ['queued'], problem);
}

/** Records that dispatch gave up on a message still queued or sending (see workflows/message.ts). */
export async function recordDispatchFailure(db: Queryable, orgId: string, messageId: string, problem: OutboxProblem): Promise<void> {
  await failMessage(db, orgId, messageId, problem);
}

export const channelMessageDelivery = defineOutboxSource<MessageDraft>({
  kind: CHANNEL_MESSAGE_SOURCE_KIND,
  keyOf: channelMessageKeyOf,
  // Each message names the tool it is counted against (its draft's usageTool); this is only the fallback.
  usageTool: 'channels_send_email',
  meterFor: (channel) => (channel === 'email' ? 'email_sends' : 'messaging_credits'),

  async lock(db, orgId, messageId) {
    const row = await queryOne<MessageRow>(db, 'SELECT * FROM channel_messages WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, messageId]);
    if (!row) throw new StewardError('not_found', `Message ${messageId} was not found`);
    if (row.status === 'sent' || row.status === 'delivered' || row.status === 'undelivered') return { kind: 'delivered' };
    if (row.status === 'failed') return { kind: 'not_ready' };
    return { kind: 'ready', draft: draftOf(orgId, row, await senderOf(db, orgId, row)) };
  },

  async recipient(db, orgId, draft, channel, attempt) {
    // An earlier attempt handed this message to the (idempotent) provider and its answer never came back: the provider may have
    // accepted it, and its acceptance is the truth. That hand-over was decided before anything that arrived since (a STOP, a
    // crisis hold, a suppression), so it is finished under the same key and to the same address, which the provider
    // de-duplicates: a message it accepted comes back as sent, and nothing goes twice. Those apply to later messages.
    if (attempt?.inFlight && draft.recipientAddress) return { to: draft.recipientAddress };
    if (!draft.contactId) return { refused: { code: 'contact_missing', message: 'The contact was erased' } };
    const now = new Date();
    // Locks what it read (FOR SHARE), so a STOP or a withdrawal cannot slip in between this check and the claim.
    const check = await checkRecipient(db, orgId, { contactId: draft.contactId, channel, purpose: draft.purpose, now, lock: true, freeForm: draft.freeForm });
    if (!check.ok) return { refused: { code: check.reason, message: check.hint ? `${check.message} ${check.hint}` : check.message } };
    const noOptOut = oneWayOptOutRefusal({ oneWay: draft.oneWaySender }, draft.purpose, draft.body);
    if (noOptOut) return { refused: { code: noOptOut.code, message: `${noOptOut.message}. ${noOptOut.hint}` } };
    if (check.quietUntil && check.quietUntil.getTime() > now.getTime()) {
      // Deferred, nothing in flight (a hand-over whose outcome is unknown finished above): queued, even after an attempt the provider did not take.
      await db.query(`UPDATE channel_messages SET deferred_until = $3, status = CASE WHEN status = 'sending' THEN 'queued' ELSE status END, updated_at = now()
        WHERE org_id = $1 AND id = $2`, [orgId, draft.messageId, check.quietUntil]);
      return { deferUntil: check.quietUntil };
    }
    let to: string;
    try {
      to = normaliseAddress(channel, check.address);
    } catch (error) {
      if (!(error instanceof StewardError)) throw error;
      return { refused: { code: 'invalid_address', message: error.message } };
    }
    await db.query(`UPDATE channel_messages SET status = 'sending', recipient_address = $3, sender = COALESCE(sender, $4), deferred_until = NULL,
        error_code = NULL, error_message = NULL, updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, draft.messageId, to, draft.transport?.from ?? defaultSender(channel)]);
    return { to };
  },

  async metered(db, orgId, messageId) {
    await db.query('UPDATE channel_messages SET metered_at = COALESCE(metered_at, now()) WHERE org_id = $1 AND id = $2', [orgId, messageId]);
  },

  async delivered(db, orgId, messageId, sent) {
    await db.query(`UPDATE channel_messages SET
        status = CASE WHEN status IN ('queued', 'sending') THEN 'sent' ELSE status END,
        sent_at = COALESCE(sent_at, now()), provider_message_id = COALESCE(provider_message_id, $3), error_code = NULL, error_message = NULL,
        updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, messageId, sent?.providerMessageId ?? null]);
  },

  async undelivered(db, orgId, messageId, problem) {
    // An email whose acceptance is unknown waits for a person (released, or cancelled): it stays sending with the reason.
    if (problem.code === SEND_NEEDS_REVIEW) {
      await db.query('UPDATE channel_messages SET error_code = $3, error_message = $4, updated_at = now() WHERE org_id = $1 AND id = $2',
        [orgId, messageId, problem.code, problem.message.slice(0, 2000)]);
      return;
    }
    await failMessage(db, orgId, messageId, problem);
  },

  providerRefused: failMessage,

  // Not taken: queued again, as before the attempt, so nothing says it is on its way (a cancel can still withdraw it). The
  // outbox holds its own row here, and a claim locks this row before that one: a row another attempt holds is skipped, not
  // waited for, so the two never wait on each other (that attempt leaves it sending if it sends, queued if it defers).
  async notTaken(db, orgId, messageId) {
    await db.query(`UPDATE channel_messages SET status = 'queued', updated_at = now() WHERE id IN (
      SELECT id FROM channel_messages WHERE org_id = $1 AND id = $2 AND status = 'sending' FOR UPDATE SKIP LOCKED)`, [orgId, messageId]);
  },

  async released(db, orgId, messageId) {
    await db.query('UPDATE channel_messages SET error_code = NULL, error_message = NULL, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, messageId]);
  },
});
