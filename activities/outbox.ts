import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { SEND_NEEDS_REVIEW, type OutreachChannel } from '../core/approvals';
import type { MeteredFeature } from '../core/billing';
import { StewardError } from '../core/errors';
import { queryOne, withTransaction, type Pool, type Queryable } from '../db/pool';
import {
  clearSendError, consentRefusal, loadDeliveryContact, requireOutreachItem, type OutreachItem,
} from '../modules/people/outreach';
import { syncTimelineEntries } from '../modules/people/timeline';
import { assertAllowance, lockFeature, recordUsage } from '../modules/platform/billing';
import { stableUuid } from '../modules/platform/proposals';
import {
  NotDeliveredError, PermanentDeliveryError, providerFor as providerFromEnv, type MessageProvider, type OutboundMessage,
} from './providers';

/**
 * Sending an approved outreach item through its outbox row.
 *
 * What is guaranteed:
 * - The outbox row is created once per item, in the same transaction as its
 *   usage record, so the message is counted once however often sending runs
 *   (counted when the row is created, even if delivery later fails).
 * - Before every provider call the row is claimed with a lease (status
 *   'sending', claimed_until = now + the provider-call timeout + a margin).
 *   A row can only be claimed when it is pending, failed, or sending with an
 *   expired lease, and the call is abandoned at its timeout, so two workers are
 *   never inside the provider call for one message at once (barring a worker
 *   frozen past its lease; even then SMTP is not resent, see below).
 * - Every attempt re-checks, under row locks, that the item is still approved
 *   and the contact still consents, and uses the contact's current address.
 * - HTTP messaging (idempotent, Idempotency-Key): an attempt that crashed or
 *   failed is retried automatically with the same key, so the provider sees
 *   one message however many calls it gets (within its de-duplication window).
 * - SMTP (not idempotent): a retry happens automatically only when the failed
 *   attempt provably did not reach the server (refused with 4xx, connection
 *   failed before the message data). An attempt that may have been accepted
 *   (the worker died, or the connection dropped or timed out while the message
 *   was being transmitted or acknowledged) is NOT resent: the row becomes
 *   'needs_review' and the item shows sendError `needs_review` until a person
 *   approves it again (which may deliver a second copy) or cancels it.
 *   So the mail server is handed a message at most once per human decision;
 *   it is not "exactly once": SMTP cannot tell us about a lost 250.
 */

export type SendOutcome =
  | { status: 'sent'; item: OutreachItem }
  | { status: 'refused'; item: OutreachItem; error: { code: string; message: string } }
  | { status: 'needs_review'; item: OutreachItem }
  | { status: 'not_approved'; item: OutreachItem };

export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'needs_review';

const FEATURE_FOR_CHANNEL: Record<OutreachChannel, MeteredFeature> = { email: 'email_sends', sms: 'messaging_credits', whatsapp: 'messaging_credits' };

/** The outbox key: one per outreach item. It is the provider idempotency key and the SMTP Message-ID, stable across attempts. */
export const outboxKeyOf = (itemId: string) => `outreach-${itemId}`;

const DEFAULT_SEND_TIMEOUT_MS = 60_000;
/** The send activity may run for 2 minutes (startToCloseTimeout); one provider call stays well inside that. */
const MAX_SEND_TIMEOUT_MS = 90_000;
/** How much longer a lease lasts than the provider call it covers. */
export const LEASE_MARGIN_MS = 10_000;

/** How long one provider call may take (STEWARD_SEND_TIMEOUT_MS, 1–90 s, default 60 s); read at send time. */
export function sendTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.STEWARD_SEND_TIMEOUT_MS);
  if (!Number.isFinite(value) || value <= 0) return DEFAULT_SEND_TIMEOUT_MS;
  return Math.min(Math.max(Math.round(value), 1000), MAX_SEND_TIMEOUT_MS);
}

export const leaseMsFor = (timeoutMs: number) => timeoutMs + LEASE_MARGIN_MS;

interface OutboxRow {
  idempotency_key: string;
  channel: OutreachChannel;
  status: OutboxStatus;
  attempts: number;
  /** Milliseconds left on a live lease, null when the row is not under a live lease. */
  lease_left_ms: number | null;
}

type Claim =
  | { kind: 'sent' }
  | { kind: 'not_approved' }
  | { kind: 'refused'; error: { code: string; message: string } }
  | { kind: 'needs_review' }
  | { kind: 'busy'; leaseLeftMs: number; attempt: number }
  | { kind: 'claimed'; token: string; attempt: number; provider: MessageProvider; message: OutboundMessage };

export interface OutreachSenderDeps {
  pool: Pool;
  /** The provider for a channel; by default configured from the environment at send time. */
  providerFor?: (channel: OutreachChannel) => MessageProvider | null;
  /** How long one provider call may take; the lease is this plus LEASE_MARGIN_MS. */
  sendTimeoutMs?: () => number;
}

function unconfirmedMessage(channel: OutreachChannel, attempt: number, why: string): string {
  const provider = channel === 'email' ? 'the mail server' : 'the messaging provider';
  return `Delivery unconfirmed: send attempt ${attempt} handed this message to ${provider}, but ${why}, so it may already have been delivered. `
    + `It was not sent again automatically because ${provider} cannot recognise a repeat. Check with the recipient; approve it again to send it once more `
    + '(they may receive two copies), or cancel it.';
}

export function createOutreachSender(deps: OutreachSenderDeps) {
  const { pool } = deps;
  const providerFor = deps.providerFor ?? ((channel: OutreachChannel) => providerFromEnv(channel));
  const timeoutOf = deps.sendTimeoutMs ?? (() => sendTimeoutMs());

  async function setSendError(db: Queryable, orgId: string, itemId: string, error: { code: string; message: string }): Promise<void> {
    await db.query('UPDATE outreach_items SET send_error = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, itemId, JSON.stringify(error)]);
  }

  /** Parks the row for a person; `token` limits it to the attempt that holds the claim. */
  async function markNeedsReview(db: Queryable, orgId: string, itemId: string, reason: string, token: string | null): Promise<boolean> {
    const result = await db.query(`UPDATE outbox_messages SET status = 'needs_review', review_reason = $2, claim_token = NULL, claimed_until = NULL
      WHERE outreach_id = $1 AND org_id = $4 AND status = 'sending' AND ($3::text IS NULL OR claim_token = $3)`, [itemId, reason, token, orgId]);
    if ((result.rowCount ?? 0) === 0) return false;
    await setSendError(db, orgId, itemId, { code: SEND_NEEDS_REVIEW, message: reason });
    return true;
  }

  /** One transaction: checks everything afresh, creates the outbox row (and its usage) the first time, then claims it. */
  async function claim(orgId: string, itemId: string, timeoutMs: number): Promise<Claim> {
    return withTransaction(pool, async (db) => {
      const item = await queryOne<{ status: string; channel: OutreachChannel; subject: string | null; body: string; contact_id: string }>(db,
        'SELECT status, channel, subject, body, contact_id FROM outreach_items WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, itemId]);
      if (!item) throw new StewardError('not_found', `Outreach item ${itemId} was not found`);
      if (item.status === 'sent') return { kind: 'sent' };
      if (item.status !== 'approved') return { kind: 'not_approved' };
      const outbox = await queryOne<OutboxRow>(db, `
        SELECT idempotency_key, channel, status, attempts,
          CASE WHEN status = 'sending' AND claimed_until > now() THEN ceil(extract(epoch FROM claimed_until - now()) * 1000)::int END AS lease_left_ms
        FROM outbox_messages WHERE org_id = $1 AND outreach_id = $2 FOR UPDATE`, [orgId, itemId]);
      const channel = outbox?.channel ?? item.channel;
      const provider = providerFor(channel);
      if (outbox?.status === 'sent') return { kind: 'sent' };
      if (outbox?.status === 'needs_review') return { kind: 'needs_review' };
      if (outbox?.status === 'sending') {
        // Another attempt holds the lease: it may be inside the provider call right now.
        if (outbox.lease_left_ms !== null) return { kind: 'busy', leaseLeftMs: outbox.lease_left_ms, attempt: outbox.attempts };
        // The lease ran out with no outcome recorded. Only a provider that de-duplicates may be called again.
        if (outbox.attempts >= 1 && !(provider?.idempotent ?? false)) {
          await markNeedsReview(db, orgId, itemId, unconfirmedMessage(channel, outbox.attempts, 'no answer was recorded before its lease ran out (the worker probably stopped)'), null);
          return { kind: 'needs_review' };
        }
      }

      // Consent, and the address it goes to, on every attempt.
      const contact = await loadDeliveryContact(db, orgId, item.contact_id, true);
      const refusal = consentRefusal(contact, channel);
      if (refusal) return { kind: 'refused', error: refusal };
      if (!provider) return { kind: 'refused', error: { code: 'channel_not_configured', message: `No ${channel} provider is configured on this server` } };
      const recipient = channel === 'email' ? contact!.email! : contact!.phone!;
      const key = outbox?.idempotency_key ?? outboxKeyOf(itemId);

      if (!outbox) {
        const feature = FEATURE_FOR_CHANNEL[channel];
        await lockFeature(db, orgId, feature);
        try {
          await assertAllowance(db, orgId, feature, 1);
        } catch (error) {
          if (error instanceof StewardError && error.code === 'allowance_exceeded') {
            return { kind: 'refused', error: { code: 'allowance_exceeded', message: `${error.message}. The message stays approved and unsent.` } };
          }
          throw error;
        }
        await db.query(`INSERT INTO outbox_messages (id, org_id, outreach_id, idempotency_key, channel, recipient, subject, body)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [stableUuid(key), orgId, itemId, key, channel, recipient, item.subject, item.body]);
        await recordUsage(db, { orgId, feature, units: 1, idempotencyKey: key, tool: 'people_approve_outreach' });
      }

      const token = randomUUID();
      const claimed = await queryOne<{ attempts: number; subject: string | null; body: string }>(db, `
        UPDATE outbox_messages
        SET status = 'sending', claim_token = $2, claimed_at = now(), claimed_until = now() + $3::int * interval '1 millisecond',
            attempts = attempts + 1, recipient = $4
        WHERE outreach_id = $1 AND org_id = $5 AND (status IN ('pending', 'failed') OR (status = 'sending' AND claimed_until <= now()))
        RETURNING attempts, subject, body`, [itemId, token, leaseMsFor(timeoutMs), recipient, orgId]);
      // Unreachable while the row lock is held; kept so the claim stands on its own.
      if (!claimed) return { kind: 'busy', leaseLeftMs: 1000, attempt: outbox?.attempts ?? 0 };
      return {
        kind: 'claimed', token, attempt: claimed.attempts, provider,
        message: { idempotencyKey: key, channel, to: recipient, subject: claimed.subject, body: claimed.body },
      };
    });
  }

  /** Marks the item sent and puts it on the care timeline (both idempotent). */
  async function finishSent(orgId: string, itemId: string): Promise<SendOutcome> {
    const item = await withTransaction(pool, async (db) => {
      await db.query(`UPDATE outreach_items SET status = 'sent', sent_at = COALESCE(sent_at, now()), send_error = NULL, updated_at = now()
        WHERE org_id = $1 AND id = $2 AND status = 'approved'`, [orgId, itemId]);
      const sent = await requireOutreachItem(db, orgId, itemId);
      await syncTimelineEntries(db, orgId, [{
        contactId: sent.contactId, kind: 'outreach_sent', sourceKind: 'outreach', sourceId: itemId,
        summary: `${sent.channel === 'email' ? `Email "${sent.subject ?? ''}"` : sent.channel === 'sms' ? 'SMS' : 'WhatsApp message'} sent`,
        occurredAt: sent.sentAt ?? undefined,
      }]);
      return sent;
    });
    return { status: 'sent', item };
  }

  /** Calls the provider, giving up (and closing the connection) at the timeout, well inside the lease. */
  async function callProvider(provider: MessageProvider, message: OutboundMessage, timeoutMs: number): Promise<{ providerMessageId: string }> {
    const controller = new AbortController();
    const timedOut = new Promise<never>((_resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error(`The provider gave no answer within ${timeoutMs} ms`)), { once: true });
    });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return await Promise.race([provider.send(message, { signal: controller.signal }), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /**
     * One send attempt. Returns the outcome, or throws: a retryable failure when
     * another attempt holds the lease (retried once the lease has run out) or the
     * provider failed in a way that is safe to retry; a non-retryable
     * `delivery_refused` when the provider refused the message for good.
     */
    async send(orgId: string, itemId: string): Promise<SendOutcome> {
      const timeoutMs = timeoutOf();
      const claimed = await claim(orgId, itemId, timeoutMs);
      switch (claimed.kind) {
        case 'sent':
          return finishSent(orgId, itemId);
        case 'not_approved':
          return { status: 'not_approved', item: await requireOutreachItem(pool, orgId, itemId) };
        case 'needs_review':
          return { status: 'needs_review', item: await requireOutreachItem(pool, orgId, itemId) };
        case 'refused':
          await setSendError(pool, orgId, itemId, claimed.error);
          return { status: 'refused', item: await requireOutreachItem(pool, orgId, itemId), error: claimed.error };
        case 'busy':
          throw ApplicationFailure.create({
            type: 'send_in_progress',
            message: `Send attempt ${claimed.attempt} holds this message's lease for another ${claimed.leaseLeftMs} ms; trying again after that`,
            nextRetryDelay: claimed.leaseLeftMs + 250,
          });
        case 'claimed':
          break;
      }

      const { token, provider, message, attempt } = claimed;
      let providerMessageId: string;
      try {
        ({ providerMessageId } = await callProvider(provider, message, timeoutMs));
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        if (error instanceof PermanentDeliveryError) {
          await pool.query(`UPDATE outbox_messages SET status = 'failed', last_error = $3, claim_token = NULL, claimed_until = NULL
            WHERE outreach_id = $1 AND org_id = $4 AND status = 'sending' AND claim_token = $2`, [itemId, token, text, orgId]);
          throw ApplicationFailure.create({ type: 'delivery_refused', message: error.message, nonRetryable: true });
        }
        if (provider.idempotent || error instanceof NotDeliveredError) {
          // Safe to call again: the provider de-duplicates on the key, or it provably did not take the message.
          await pool.query(`UPDATE outbox_messages SET status = 'pending', last_error = $3, claim_token = NULL, claimed_until = NULL
            WHERE outreach_id = $1 AND org_id = $4 AND status = 'sending' AND claim_token = $2`, [itemId, token, text, orgId]);
          throw error;
        }
        // The provider may have accepted it and cannot recognise a repeat: a person decides.
        await withTransaction(pool, async (db) => {
          await db.query('UPDATE outbox_messages SET last_error = $2 WHERE outreach_id = $1 AND org_id = $3', [itemId, text, orgId]);
          await markNeedsReview(db, orgId, itemId, unconfirmedMessage(message.channel, attempt, `its answer was lost (${text})`), token);
        });
        return { status: 'needs_review', item: await requireOutreachItem(pool, orgId, itemId) };
      }
      // Recorded whatever became of the lease meanwhile: the provider took the message.
      await pool.query(`UPDATE outbox_messages SET status = 'sent', sent_at = now(), provider_message_id = $2, last_error = NULL,
          claim_token = NULL, claimed_until = NULL
        WHERE outreach_id = $1 AND org_id = $3 AND status <> 'sent'`, [itemId, providerMessageId, orgId]);
      return finishSent(orgId, itemId);
    },

    /** A person chose to send an item in needs_review again: its row becomes claimable once more, recording who decided. */
    async releaseForResend(orgId: string, itemId: string, userId: string): Promise<OutreachItem> {
      return withTransaction(pool, async (db) => {
        const item = await queryOne<{ status: string }>(db, 'SELECT status FROM outreach_items WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, itemId]);
        if (!item) throw new StewardError('not_found', `Outreach item ${itemId} was not found`);
        const released = await db.query(`UPDATE outbox_messages SET status = 'pending', reviewed_by_user_id = $3, reviewed_at = now()
          WHERE org_id = $1 AND outreach_id = $2 AND status = 'needs_review'`, [orgId, itemId, userId]);
        if ((released.rowCount ?? 0) > 0 && item.status === 'approved') await clearSendError(db, orgId, itemId);
        return requireOutreachItem(db, orgId, itemId);
      });
    },
  };
}

export type OutreachSender = ReturnType<typeof createOutreachSender>;
