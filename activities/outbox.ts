import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { SEND_NEEDS_REVIEW } from '../core/approvals';
import { StewardError } from '../core/errors';
import { queryOne, withTransaction, type Pool, type Queryable } from '../db/pool';
import { MODULES } from '../modules';
import { recordJobChange } from '../modules/audit/api';
import type { OutboxChannel, OutboxDraft, OutboxOutcome, OutboxProblem, OutboxSource } from '../modules/outbox-source';
import { ALLOWANCE_REFUSALS, assertAllowance, lockFeature, recordUsage } from '../kernel/billing';
import { stableUuid } from '../kernel/proposals';
import { NotDeliveredError, PermanentDeliveryError, type MessageProvider, type OutboundMessage } from './provider-kit';
import { providerFor as providerFromEnv } from './providers';

/**
 * The outbox: how an approved message of any module leaves, through one
 * `outbox_messages` row per source record (`source_kind`, `source_id`). The
 * source (an OutboxSource a module declares) says what may be sent and records
 * what became of it; this file owns the protocol.
 *
 * What is guaranteed:
 * - The outbox row is created once per source record, in the same transaction
 *   as its usage record, so the message is counted once however often sending
 *   runs (counted when the row is created, even if delivery later fails).
 * - Before every provider call the row is claimed with a lease (status
 *   'sending', claimed_until = now + the provider-call timeout + a margin).
 *   A row can only be claimed when it is pending, failed, or sending with an
 *   expired lease, and the call is abandoned at its timeout, so two workers are
 *   never inside the provider call for one message at once (barring a worker
 *   frozen past its lease; even then SMTP is not resent, see below).
 * - Every attempt re-checks, under row locks, that the source still wants it
 *   sent (e.g. the item is still approved) and that the recipient still
 *   consents, and uses their current address.
 * - HTTP messaging (idempotent, Idempotency-Key): an attempt that crashed or
 *   failed is retried automatically with the same key, so the provider sees
 *   one message however many calls it gets (within its de-duplication window).
 * - SMTP (not idempotent): a retry happens automatically only when the failed
 *   attempt provably did not reach the server (refused with 4xx, connection
 *   failed before the message data). An attempt that may have been accepted
 *   (the worker died, or the connection dropped or timed out while the message
 *   was being transmitted or acknowledged) is NOT resent: the row becomes
 *   'needs_review' and the source records `needs_review` until a person
 *   approves it again (which may deliver a second copy) or cancels it.
 *   So the mail server is handed a message at most once per human decision;
 *   it is not "exactly once": SMTP cannot tell us about a lost 250.
 * - A message counts the units its draft names (an SMS its segments; one by
 *   default), checked against the allowance and recorded under its key once.
 * - A source may defer an attempt (quiet hours): nothing is claimed or counted,
 *   and the outcome `deferred` says when to try again.
 */

export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'needs_review';

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
  channel: OutboxChannel;
  status: OutboxStatus;
  attempts: number;
  /** Milliseconds left on a live lease, null when the row is not under a live lease. */
  lease_left_ms: number | null;
}

type Claim =
  | { kind: 'sent' }
  | { kind: 'not_ready' }
  | { kind: 'refused'; error: OutboxProblem }
  | { kind: 'needs_review' }
  | { kind: 'deferred'; until: Date }
  | { kind: 'busy'; leaseLeftMs: number; attempt: number }
  /** inFlight: this attempt finishes an earlier hand-over whose outcome is unknown (see claim). */
  | { kind: 'claimed'; token: string; attempt: number; provider: MessageProvider; message: OutboundMessage; inFlight: boolean };

/** One source record's row: every statement names the organisation, the source kind and the record. */
interface RowRef {
  orgId: string;
  source: OutboxSource;
  sourceId: string;
}

const ROW = 'org_id = $1 AND source_kind = $2 AND source_id = $3';
const rowParams = (ref: RowRef) => [ref.orgId, ref.source.kind, ref.sourceId];
/** An attempt giving its claim up ($4 its token, $5 the error): back to pending, or left sending with the lease ended. */
const RETRY_FRESH_SQL = `UPDATE outbox_messages SET status = 'pending', last_error = $5, claim_token = NULL, claimed_until = NULL
  WHERE ${ROW} AND status = 'sending' AND claim_token = $4`;
const RETRY_UNKNOWN_SQL = `UPDATE outbox_messages SET last_error = $5, claim_token = NULL, claimed_until = now()
  WHERE ${ROW} AND status = 'sending' AND claim_token = $4`;

/**
 * What became of a message, in the audit trail: every move of its row (claimed for an attempt, back
 * for a retry, sent, failed, held for a person, released by one) and every refusal is one INSERT in
 * the transaction that makes it, after its other statements, so it adds no lock of its own: only the
 * organisation's chain head, taken by that INSERT and held until the commit just after it. The
 * system is the actor (for a release, on behalf of the person who decided). The action is the
 * source's kind and the verb (`channels.message.send`); the body is kept by reference only, the
 * address never (the source record names the recipient), a provider's error by a code only.
 */
async function recordDelivery(db: Queryable, ref: RowRef, verb: 'attempt' | 'retry' | 'send' | 'fail' | 'refuse' | 'hold' | 'release', change: {
  fields: Record<string, unknown>; previous?: Record<string, unknown>; outcome?: 'success' | 'failed'; onBehalfOfUserId?: string;
}): Promise<void> {
  const [module, ...rest] = ref.source.kind.split('.');
  const noun = rest.join('_') || 'message';
  await recordJobChange(db, {
    orgId: ref.orgId, channel: 'job:outbox', module, noun, verb, target: { type: noun, id: ref.sourceId },
    fields: change.fields, previous: change.previous, outcome: change.outcome, onBehalfOfUserId: change.onBehalfOfUserId,
  });
}

export interface OutboxDeps {
  pool: Pool;
  /** The provider for a channel; by default configured from the environment at send time. */
  providerFor?: (channel: OutboxChannel) => MessageProvider | null;
  /** How long one provider call may take; the lease is this plus LEASE_MARGIN_MS. */
  sendTimeoutMs?: () => number;
  /** The sources it serves; by default every module's `outboxSources` from the registry. */
  sources?: readonly OutboxSource[];
}

/** Every registered module's outbox sources by kind; a kind declared twice is a mistake caught at start. */
export function outboxSourcesByKind(sources: readonly OutboxSource[] = MODULES.flatMap((module) => module.outboxSources ?? [])): Map<string, OutboxSource> {
  const byKind = new Map<string, OutboxSource>();
  for (const source of sources) {
    if (byKind.has(source.kind)) throw new Error(`Two outbox sources are named ${source.kind}`);
    byKind.set(source.kind, source);
  }
  return byKind;
}

function unconfirmedMessage(channel: OutboxChannel, attempt: number, why: string): string {
  const provider = channel === 'email' ? 'the mail server' : 'the messaging provider';
  return `Delivery unconfirmed: send attempt ${attempt} handed this message to ${provider}, but ${why}, so it may already have been delivered. `
    + `It was not sent again automatically because ${provider} cannot recognise a repeat. Check with the recipient; approve it again to send it once more `
    + '(they may receive two copies), or cancel it.';
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

/** The generic outbox for every registered source: `send` makes one attempt, `release` lets a reviewed message go again. */
export function createOutbox(deps: OutboxDeps) {
  const { pool } = deps;
  const providerFor = deps.providerFor ?? ((channel: OutboxChannel) => providerFromEnv(channel));
  const timeoutOf = deps.sendTimeoutMs ?? (() => sendTimeoutMs());
  const sources = outboxSourcesByKind(deps.sources);

  function refOf(kind: string, orgId: string, sourceId: string): RowRef {
    const source = sources.get(kind);
    if (!source) throw new StewardError('internal_error', `No module declares the outbox source ${kind}`);
    return { orgId, source, sourceId };
  }

  /** Parks the row for a person; `token` limits it to the attempt that holds the claim. */
  async function markNeedsReview(db: Queryable, ref: RowRef, reason: string, token: string | null): Promise<boolean> {
    const result = await db.query(`UPDATE outbox_messages SET status = 'needs_review', review_reason = $4, claim_token = NULL, claimed_until = NULL
      WHERE ${ROW} AND status = 'sending' AND ($5::text IS NULL OR claim_token = $5)`, [...rowParams(ref), reason, token]);
    if ((result.rowCount ?? 0) === 0) return false;
    await ref.source.undelivered(db, ref.orgId, ref.sourceId, { code: SEND_NEEDS_REVIEW, message: reason });
    await recordDelivery(db, ref, 'hold', { fields: { status: 'needs_review', reason: SEND_NEEDS_REVIEW }, previous: { status: 'sending' }, outcome: 'failed' });
    return true;
  }

  /** The row's state before claiming: a final answer, or null when the attempt may go on. */
  async function settledOrBusy(db: Queryable, ref: RowRef, outbox: OutboxRow | undefined, provider: MessageProvider | null): Promise<Claim | null> {
    if (outbox?.status === 'sent') return { kind: 'sent' };
    if (outbox?.status === 'needs_review') return { kind: 'needs_review' };
    if (outbox?.status !== 'sending') return null;
    // Another attempt holds the lease: it may be inside the provider call right now.
    if (outbox.lease_left_ms !== null) return { kind: 'busy', leaseLeftMs: outbox.lease_left_ms, attempt: outbox.attempts };
    // The lease ran out with no outcome recorded. Only a provider that de-duplicates may be called again.
    if (outbox.attempts >= 1 && !(provider?.idempotent ?? false)) {
      await markNeedsReview(db, ref, unconfirmedMessage(outbox.channel, outbox.attempts,
        'no answer was recorded before its lease ran out (the worker probably stopped)'), null);
      return { kind: 'needs_review' };
    }
    return null;
  }

  /** The first attempt creates the row and counts the message, unless the allowance is used up. */
  async function createRow(db: Queryable, ref: RowRef, key: string, draft: OutboxDraft, channel: OutboxChannel, recipient: string): Promise<Claim | null> {
    const feature = ref.source.meterFor(channel);
    const units = draft.units ?? 1;
    await lockFeature(db, ref.orgId, feature);
    try {
      await assertAllowance(db, ref.orgId, feature, units, { tool: draft.usageTool ?? ref.source.usageTool, purpose: draft.purpose });
    } catch (error) {
      if (error instanceof StewardError && ALLOWANCE_REFUSALS.has(error.code)) {
        return { kind: 'refused', error: { code: error.code, message: `${error.message}. The message stays approved and unsent.` } };
      }
      throw error;
    }
    await db.query(`INSERT INTO outbox_messages (id, org_id, source_kind, source_id, idempotency_key, channel, recipient, subject, body, html)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [stableUuid(key), ref.orgId, ref.source.kind, ref.sourceId, key, channel, recipient, draft.subject, draft.body, draft.html ?? null]);
    await recordUsage(db, { orgId: ref.orgId, feature, units, idempotencyKey: key, tool: draft.usageTool ?? ref.source.usageTool });
    await ref.source.metered?.(db, ref.orgId, ref.sourceId, units);
    return null;
  }

  /** One transaction: checks everything afresh, creates the outbox row (and its usage) the first time, then claims it. */
  async function claim(ref: RowRef, timeoutMs: number): Promise<Claim> {
    return withTransaction(pool, async (db) => {
      const state = await ref.source.lock(db, ref.orgId, ref.sourceId);
      if (state.kind === 'delivered') return { kind: 'sent' };
      if (state.kind === 'not_ready') return { kind: 'not_ready' };
      const outbox = await queryOne<OutboxRow>(db, `
        SELECT idempotency_key, channel, status, attempts,
          CASE WHEN status = 'sending' AND claimed_until > now() THEN ceil(extract(epoch FROM claimed_until - now()) * 1000)::int END AS lease_left_ms
        FROM outbox_messages WHERE ${ROW} FOR UPDATE`, rowParams(ref));
      const channel = outbox?.channel ?? state.draft.channel;
      const provider = providerFor(channel);
      const settled = await settledOrBusy(db, ref, outbox, provider);
      if (settled) return settled;

      // Consent, and the address it goes to, on every attempt. An earlier attempt whose outcome is unknown (its lease ran out, or
      // its answer was lost) may already have been accepted by an idempotent provider: the source is told, so it can finish that
      // hand-over under the same key rather than treat it as a new message.
      const inFlight = outbox?.status === 'sending' && outbox.attempts >= 1 && (provider?.idempotent ?? false);
      const recipient = await ref.source.recipient(db, ref.orgId, state.draft, channel, { inFlight });
      if ('refused' in recipient) return { kind: 'refused', error: recipient.refused };
      if ('deferUntil' in recipient) return { kind: 'deferred', until: recipient.deferUntil };
      if (!provider) return { kind: 'refused', error: { code: 'channel_not_configured', message: `No ${channel} provider is configured on this server` } };
      const key = outbox?.idempotency_key ?? ref.source.keyOf(ref.sourceId);
      if (!outbox) {
        const refused = await createRow(db, ref, key, state.draft, channel, recipient.to);
        if (refused) return refused;
      }

      const token = randomUUID();
      const claimed = await queryOne<{ attempts: number; subject: string | null; body: string; html: string | null }>(db, `
        UPDATE outbox_messages
        SET status = 'sending', claim_token = $4, claimed_at = now(), claimed_until = now() + $5::int * interval '1 millisecond',
            attempts = attempts + 1, recipient = $6
        WHERE ${ROW} AND (status IN ('pending', 'failed') OR (status = 'sending' AND claimed_until <= now()))
        RETURNING attempts, subject, body, html`, [...rowParams(ref), token, leaseMsFor(timeoutMs), recipient.to]);
      // Unreachable while the row lock is held; kept so the claim stands on its own.
      if (!claimed) return { kind: 'busy', leaseLeftMs: 1000, attempt: outbox?.attempts ?? 0 };
      // From no row (created and counted just now), pending, failed, or sending under a lease that ran out.
      await recordDelivery(db, ref, 'attempt', {
        fields: { status: 'sending', attempt: claimed.attempts, channel, ...(outbox ? {} : { units: state.draft.units ?? 1 }), ...(inFlight ? { inFlight: true } : {}) },
        previous: { status: outbox?.status ?? null },
      });
      return {
        kind: 'claimed', token, attempt: claimed.attempts, provider, inFlight,
        message: {
          idempotencyKey: key, channel, to: recipient.to, subject: claimed.subject, body: claimed.body, html: claimed.html,
          ...(state.draft.transport ? { transport: state.draft.transport } : {}),
        },
      };
    });
  }

  /**
   * Recorded whatever became of the lease meanwhile: the provider took the message. The row moves to sent
   * once, and that move writes the message's one delivery event in the same transaction.
   */
  async function recordSent(ref: RowRef, claimed: Extract<Claim, { kind: 'claimed' }>, providerMessageId: string): Promise<void> {
    await withTransaction(pool, async (db) => {
      const moved = await queryOne<{ previous: OutboxStatus; attempts: number }>(db, `
        WITH prev AS (SELECT id, status FROM outbox_messages WHERE ${ROW} FOR UPDATE)
        UPDATE outbox_messages o SET status = 'sent', sent_at = now(), provider_message_id = $4, last_error = NULL, claim_token = NULL, claimed_until = NULL
        FROM prev WHERE o.id = prev.id AND prev.status <> 'sent'
        RETURNING prev.status AS previous, o.attempts`, [...rowParams(ref), providerMessageId]);
      if (!moved) return;
      await recordDelivery(db, ref, 'send', {
        fields: { status: 'sent', providerId: providerMessageId, attempt: moved.attempts, channel: claimed.message.channel, body: claimed.message.body },
        previous: { status: moved.previous },
      });
    });
  }

  /** Tells the source it went (idempotent, so a repeated report is harmless). */
  async function finishSent(ref: RowRef, sent?: { providerMessageId: string }): Promise<OutboxOutcome> {
    await withTransaction(pool, (db) => ref.source.delivered(db, ref.orgId, ref.sourceId, sent));
    return { status: 'sent' };
  }

  /**
   * An attempt that failed in a way that is safe to retry gives its claim up (on the row this attempt
   * still holds) and records the move in the same transaction; the activity's retry makes the next
   * attempt. `fresh`: provably not taken, so back to pending. `unknown`: the provider may have taken it,
   * so the row stays sending with its lease ended, as after a crash. The event's outcome is `failed`
   * with a code: this attempt did not deliver, though the message may yet go.
   */
  async function retryLater(ref: RowRef, claimed: Extract<Claim, { kind: 'claimed' }>, text: string, handOver: 'fresh' | 'unknown'): Promise<void> {
    await withTransaction(pool, async (db) => {
      const moved = await db.query(handOver === 'fresh' ? RETRY_FRESH_SQL : RETRY_UNKNOWN_SQL, [...rowParams(ref), claimed.token, text]);
      if ((moved.rowCount ?? 0) === 0) return;
      if (handOver === 'fresh') await ref.source.notTaken?.(db, ref.orgId, ref.sourceId);
      const fields = handOver === 'fresh' ? { status: 'pending', error: 'not_delivered' } : { status: 'sending', error: 'provider_error', leaseEnded: true };
      await recordDelivery(db, ref, 'retry', {
        fields: { ...fields, attempt: claimed.attempt, channel: claimed.message.channel }, previous: { status: 'sending' }, outcome: 'failed',
      });
    });
  }

  /** The provider call failed: retry it, give up for good, or leave it to a person, depending on what the failure proves. */
  async function afterFailedCall(ref: RowRef, claimed: Extract<Claim, { kind: 'claimed' }>, error: unknown): Promise<OutboxOutcome> {
    const text = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentDeliveryError) {
      await withTransaction(pool, async (db) => {
        const failed = await db.query(`UPDATE outbox_messages SET status = 'failed', last_error = $5, claim_token = NULL, claimed_until = NULL
          WHERE ${ROW} AND status = 'sending' AND claim_token = $4`, [...rowParams(ref), claimed.token, text]);
        await ref.source.providerRefused?.(db, ref.orgId, ref.sourceId, { code: 'provider_refused', message: error.message });
        // The provider's own words may quote the address: the trail keeps the code only.
        if ((failed.rowCount ?? 0) > 0) {
          await recordDelivery(db, ref, 'fail', {
            fields: { status: 'failed', error: 'provider_refused', attempt: claimed.attempt, channel: claimed.message.channel }, previous: { status: 'sending' }, outcome: 'failed',
          });
        }
      });
      throw ApplicationFailure.create({ type: 'delivery_refused', message: error.message, nonRetryable: true });
    }
    if (error instanceof NotDeliveredError && !claimed.inFlight) {
      // Provably not taken: the next attempt is a fresh one.
      await retryLater(ref, claimed, text, 'fresh');
      throw error;
    }
    if (claimed.provider.idempotent) {
      // Safe to call again (the provider de-duplicates on the key), but it may already have taken the message: the row stays
      // 'sending' with its lease ended, exactly as after a crash, so the next attempt knows the hand-over may have happened.
      // So too when this attempt was finishing such a hand-over and was refused: that proves nothing about the earlier one.
      await retryLater(ref, claimed, text, 'unknown');
      throw error;
    }
    // The provider may have accepted it and cannot recognise a repeat: a person decides.
    await withTransaction(pool, async (db) => {
      await db.query(`UPDATE outbox_messages SET last_error = $4 WHERE ${ROW}`, [...rowParams(ref), text]);
      await markNeedsReview(db, ref, unconfirmedMessage(claimed.message.channel, claimed.attempt, `its answer was lost (${text})`), claimed.token);
    });
    return { status: 'needs_review' };
  }

  return {
    /**
     * One send attempt for a source record. Returns the outcome, or throws: a
     * retryable failure when another attempt holds the lease (retried once the
     * lease has run out) or the provider failed in a way that is safe to retry;
     * a non-retryable `delivery_refused` when the provider refused it for good.
     */
    async send(kind: string, orgId: string, sourceId: string): Promise<OutboxOutcome> {
      const ref = refOf(kind, orgId, sourceId);
      const timeoutMs = timeoutOf();
      const claimed = await claim(ref, timeoutMs);
      switch (claimed.kind) {
        case 'sent':
          return finishSent(ref);
        case 'not_ready':
          return { status: 'not_ready' };
        case 'needs_review':
          return { status: 'needs_review' };
        case 'deferred':
          return { status: 'deferred', until: claimed.until.toISOString() };
        case 'refused':
          await withTransaction(pool, async (db) => {
            await ref.source.undelivered(db, orgId, sourceId, claimed.error);
            await recordDelivery(db, ref, 'refuse', { fields: { error: claimed.error.code }, outcome: 'failed' });
          });
          return { status: 'refused', error: claimed.error };
        case 'busy':
          throw ApplicationFailure.create({
            type: 'send_in_progress',
            message: `Send attempt ${claimed.attempt} holds this message's lease for another ${claimed.leaseLeftMs} ms; trying again after that`,
            nextRetryDelay: claimed.leaseLeftMs + 250,
          });
        case 'claimed':
          break;
      }
      let providerMessageId: string;
      try {
        ({ providerMessageId } = await callProvider(claimed.provider, claimed.message, timeoutMs));
      } catch (error) {
        return afterFailedCall(ref, claimed, error);
      }
      await recordSent(ref, claimed, providerMessageId);
      return finishSent(ref, { providerMessageId });
    },

    /**
     * A person chose to send a message in needs_review again: its row becomes
     * claimable once more, recording who decided, and the source clears its
     * problem if it still wants the message sent. True when a row was released.
     */
    async release(kind: string, orgId: string, sourceId: string, userId: string): Promise<boolean> {
      const ref = refOf(kind, orgId, sourceId);
      return withTransaction(pool, async (db) => {
        const state = await ref.source.lock(db, orgId, sourceId);
        const released = await db.query(`UPDATE outbox_messages SET status = 'pending', reviewed_by_user_id = $4, reviewed_at = now()
          WHERE ${ROW} AND status = 'needs_review'`, [...rowParams(ref), userId]);
        const done = (released.rowCount ?? 0) > 0;
        if (done && state.kind === 'ready') await ref.source.released(db, orgId, sourceId);
        if (done) await recordDelivery(db, ref, 'release', { fields: { status: 'pending' }, previous: { status: 'needs_review' }, onBehalfOfUserId: userId });
        return done;
      });
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
