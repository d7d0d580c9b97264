import { randomUUID } from 'node:crypto';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import type { RowOf } from '../../kit';
import type { Channel, Purpose } from './addresses';
import type { ChannelConsent, ChannelSuppression } from './models';

/**
 * The audience part's own rows, read and written without any other module: people's contact
 * writes call into here (people-sync.ts), so this file must not import people.
 */

export const CONSENT_BASES = ['consent', 'charitable_soft_opt_in'] as const;
export type ConsentBasis = (typeof CONSENT_BASES)[number];

export const SUPPRESSION_REASONS = ['hard_bounce', 'complaint', 'stop_keyword', 'unsubscribe', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** Rows as `SELECT *` reads them, typed by the models. */
export type ConsentRow = RowOf<ChannelConsent>;
export type SuppressionRow = RowOf<ChannelSuppression>;

type LockMode = 'share' | 'exclusive';

/**
 * Transaction-scoped advisory locks pair a dispatch's check (shared) with what would change its
 * answer (exclusive): a STOP, a bounce or a withdrawal waits for a dispatch that already checked to
 * commit its claim, and a dispatch checking after them sees them. Rows that do not exist yet (a new
 * suppression) cannot be locked with FOR SHARE, hence keys rather than row locks.
 */
async function advisoryLock(db: Queryable, key: string, mode: LockMode): Promise<void> {
  const fn = mode === 'share' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await db.query(`SELECT ${fn}(hashtextextended($1, 0))`, [key]);
}

export function lockAddress(db: Queryable, orgId: string, channel: Channel, address: string, mode: LockMode): Promise<void> {
  return advisoryLock(db, `channels.address:${orgId}:${channel}:${address}`, mode);
}

export function lockContactConsent(db: Queryable, orgId: string, contactId: string, channel: Channel, mode: LockMode): Promise<void> {
  return advisoryLock(db, `channels.consent:${orgId}:${contactId}:${channel}`, mode);
}

// ---------------------------------------------------------------- consent

export interface ConsentInput {
  contactId: string;
  channel: Channel;
  purpose: Purpose;
  basis: ConsentBasis;
  source: string;
  wording: string;
  capturedAt: Date;
  recordedBy: string | null;
}

/** Records a consent; the active one it replaces (same contact, channel and purpose) is marked superseded, not changed otherwise. */
export async function insertConsent(db: Queryable, orgId: string, input: ConsentInput): Promise<ConsentRow> {
  await lockContactConsent(db, orgId, input.contactId, input.channel, 'exclusive');
  const id = randomUUID();
  const row = await queryOne<ConsentRow>(db, `
    INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at, recorded_by)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
  [id, orgId, input.contactId, input.channel, input.purpose, input.basis, input.source, input.wording, input.capturedAt, input.recordedBy]);
  await db.query(`
    UPDATE channel_consents SET superseded_by = $5
    WHERE org_id = $1 AND contact_id = $2 AND channel = $3 AND purpose = $4 AND id <> $5
      AND withdrawn_at IS NULL AND superseded_by IS NULL`, [orgId, input.contactId, input.channel, input.purpose, id]);
  return row!;
}

/** Withdraws the contact's active consents on a channel (for the purposes given, or all); returns the rows withdrawn. */
export async function withdrawConsents(
  db: Queryable, orgId: string, input: { contactId: string; channel: Channel; purposes?: readonly Purpose[]; at: Date; source: string },
): Promise<ConsentRow[]> {
  await lockContactConsent(db, orgId, input.contactId, input.channel, 'exclusive');
  return queryRows<ConsentRow>(db, `
    UPDATE channel_consents SET withdrawn_at = $5, withdrawal_source = $6
    WHERE org_id = $1 AND contact_id = $2 AND channel = $3 AND ($4::text[] IS NULL OR purpose = ANY($4::text[]))
      AND withdrawn_at IS NULL AND superseded_by IS NULL
    RETURNING *`, [orgId, input.contactId, input.channel, input.purposes ?? null, input.at, input.source]);
}

/** The contact's active consents (neither withdrawn nor superseded), on one channel or all. */
export async function activeConsents(db: Queryable, orgId: string, contactId: string, channel?: Channel): Promise<ConsentRow[]> {
  return queryRows<ConsentRow>(db, `
    SELECT * FROM channel_consents
    WHERE org_id = $1 AND contact_id = $2 AND ($3::text IS NULL OR channel = $3)
      AND withdrawn_at IS NULL AND superseded_by IS NULL
    ORDER BY captured_at DESC, id`, [orgId, contactId, channel ?? null]);
}

// ---------------------------------------------------------------- suppression

export interface SuppressInput {
  channel: Channel;
  /** Already normalised (lower-case email, E.164 phone). */
  address: string;
  reason: SuppressionReason;
  source: string;
  note?: string | null;
}

/** Suppresses an address; an address already suppressed keeps its first live record (created: false). */
export async function insertSuppression(db: Queryable, orgId: string, input: SuppressInput): Promise<{ suppression: SuppressionRow; created: boolean }> {
  await lockAddress(db, orgId, input.channel, input.address, 'exclusive');
  const inserted = await queryOne<SuppressionRow>(db, `
    INSERT INTO channel_suppressions (id, org_id, channel, address, reason, source, note)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (org_id, channel, address) WHERE lifted_at IS NULL DO NOTHING
    RETURNING *`, [randomUUID(), orgId, input.channel, input.address, input.reason, input.source, input.note ?? null]);
  if (inserted) return { suppression: inserted, created: true };
  return { suppression: (await liveSuppression(db, orgId, input.channel, input.address))!, created: false };
}

export function liveSuppression(db: Queryable, orgId: string, channel: Channel, address: string): Promise<SuppressionRow | undefined> {
  return queryOne<SuppressionRow>(db, `
    SELECT * FROM channel_suppressions WHERE org_id = $1 AND channel = $2 AND address = $3 AND lifted_at IS NULL`, [orgId, channel, address]);
}

/** Lifts the live suppression of an address (only if its reason is one of `reasons`, when given), keeping the record and the evidence. */
export async function liftSuppression(
  db: Queryable, orgId: string, input: { channel: Channel; address: string; reasons?: readonly SuppressionReason[]; evidence: string; by: string | null },
): Promise<SuppressionRow | undefined> {
  await lockAddress(db, orgId, input.channel, input.address, 'exclusive');
  return queryOne<SuppressionRow>(db, `
    UPDATE channel_suppressions SET lifted_at = now(), lifted_by = $5, lift_evidence = $6
    WHERE org_id = $1 AND channel = $2 AND address = $3 AND lifted_at IS NULL AND ($4::text[] IS NULL OR reason = ANY($4::text[]))
    RETURNING *`, [orgId, input.channel, input.address, input.reasons ?? null, input.by, input.evidence]);
}
