import { createHmac, hkdfSync, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { resolvePayloadKey } from '../../../../temporal/payload-key';
import { recordJobChange } from '../../../audit/api';
import { listTeam } from '../../../platform/api';
import type { RowOf } from '../../../kit';
import { displayNameOf } from '../../contacts';
import type { Contact } from '../../models/contacts';
import type { SafeguardingCheck, SafeguardingPolicy } from './models';

/**
 * Safeguarding checks (DBS and the like) and policies. Everything here is for callers holding
 * people:safeguarding (the tools ask for it).
 *
 * A certificate number is never stored: only its last four characters (to tell certificates apart
 * in a list) and an HMAC keyed per deployment and organisation (to recognise the same certificate
 * again, e.g. "is this number already on file?"). The HMAC key is derived from the deployment's
 * payload key, so a copy of the database alone cannot test guesses against the hashes.
 *
 * A check's status follows from its dates: pending (no issue date yet, or issued in the future), completed, expiring (expires
 * within EXPIRING_WITHIN_DAYS), overdue (expired). It is computed when a check is written and again
 * every day by the safeguarding status schedule (workflows/safeguarding-status.ts), so lists, counts
 * and alerts read a stored status that is at most a day old; the check-in gate reads the dates.
 */

export const EXPIRING_WITHIN_DAYS = 60;
export const POLICY_REVIEW_WARNING_DAYS = 30;
export const CHECK_STATUSES = ['pending', 'completed', 'expiring', 'overdue'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** The status rule, in SQL over a row's dates and the day `asOf` (a date expression). */
export function checkStatusSql(asOf: string): string {
  return `(CASE WHEN issued_on IS NULL OR issued_on > ${asOf} THEN 'pending' WHEN expires_on IS NULL THEN 'completed'
    WHEN expires_on < ${asOf} THEN 'overdue' WHEN expires_on <= ${asOf} + ${EXPIRING_WITHIN_DAYS} THEN 'expiring' ELSE 'completed' END)`;
}

export const safeguardingCheckSchema = z.object({
  checkId: z.uuid(),
  contactId: z.uuid(),
  contactName: z.string(),
  checkType: z.string(),
  certificateLast4: z.string().nullable().describe('Last four characters of the certificate number; the full number is never stored'),
  issuedOn: z.string().nullable(),
  expiresOn: z.string().nullable(),
  status: z.enum(CHECK_STATUSES).describe('pending (not yet issued), completed, expiring (within 60 days) or overdue (expired)'),
  notes: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type SafeguardingCheckView = z.infer<typeof safeguardingCheckSchema>;

export const safeguardingPolicySchema = z.object({
  policyId: z.uuid(),
  title: z.string(),
  version: z.string(),
  reviewOn: z.string().nullable(),
  reviewStatus: z.enum(['no_review_date', 'current', 'review_due', 'overdue']).describe('review_due: within 30 days; overdue: the review date has passed'),
  ownerUserId: z.uuid().nullable(),
  ownerEmail: z.string().nullable(),
  notes: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type SafeguardingPolicyView = z.infer<typeof safeguardingPolicySchema>;

// ---------------------------------------------------------------- certificate numbers

let certificateKey: Buffer | undefined;

function certificateKeyOf(): Buffer {
  certificateKey ??= Buffer.from(hkdfSync('sha256', resolvePayloadKey(), Buffer.alloc(0), 'steward safeguarding certificate numbers', 32));
  return certificateKey;
}

/** Spaces, dashes and case do not make a different certificate. */
export function normaliseCertificateNumber(value: string): string {
  return value.replace(/[\s-]/g, '').toUpperCase();
}

export function certificateHashOf(orgId: string, number: string): string {
  return createHmac('sha256', certificateKeyOf()).update(`${orgId}\n${normaliseCertificateNumber(number)}`).digest('base64url');
}

function certificateColumns(orgId: string, number: string | null | undefined): { hash: string | null; last4: string | null } {
  if (!number) return { hash: null, last4: null };
  const normalised = normaliseCertificateNumber(number);
  if (!/^[A-Z0-9]{4,40}$/.test(normalised)) {
    throw new StewardError('validation_failed', 'A certificate number is 4 to 40 letters and digits', { issues: [{ path: 'certificateNumber', message: 'letters and digits only' }] });
  }
  return { hash: certificateHashOf(orgId, normalised), last4: normalised.slice(-4) };
}

// ---------------------------------------------------------------- checks

type CheckRow = Pick<RowOf<SafeguardingCheck>, 'id' | 'contact_id' | 'check_type' | 'certificate_last4' | 'issued_on' | 'expires_on' | 'status' | 'notes'
  | 'created_at' | 'updated_at'> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

const SELECT_CHECK = `SELECT s.id, s.contact_id, s.check_type, s.certificate_last4, s.issued_on::text, s.expires_on::text, s.status, s.notes, s.created_at, s.updated_at,
    c.first_name, c.last_name, c.preferred_name, c.email
  FROM safeguarding_checks s JOIN contacts c ON c.id = s.contact_id AND c.org_id = s.org_id AND c.deleted_at IS NULL`;

function checkView(row: CheckRow): SafeguardingCheckView {
  return {
    checkId: row.id, contactId: row.contact_id, contactName: displayNameOf(row), checkType: row.check_type, certificateLast4: row.certificate_last4,
    issuedOn: row.issued_on, expiresOn: row.expires_on, status: row.status, notes: row.notes,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export async function requireSafeguardingCheck(db: Queryable, orgId: string, checkId: string): Promise<SafeguardingCheckView> {
  const row = await queryOne<CheckRow>(db, `${SELECT_CHECK} WHERE s.org_id = $1 AND s.id = $2`, [orgId, checkId]);
  if (!row) throw new StewardError('not_found', `Safeguarding check ${checkId} was not found`, { hint: 'people_list_safeguarding_checks lists them.' });
  return checkView(row);
}

function requireDateOrder(issuedOn: string | null, expiresOn: string | null): void {
  if (issuedOn && expiresOn && expiresOn < issuedOn) {
    throw new StewardError('validation_failed', 'A check cannot expire before it was issued', { issues: [{ path: 'expiresOn', message: 'before issuedOn' }] });
  }
}

export interface CheckFields {
  checkType?: string;
  certificateNumber?: string | null;
  issuedOn?: string | null;
  expiresOn?: string | null;
  notes?: string | null;
}

export async function createSafeguardingCheck(
  db: Queryable, orgId: string, userId: string, input: CheckFields & { contactId: string; checkType: string },
): Promise<SafeguardingCheckView> {
  const contact = await queryOne(db, 'SELECT 1 FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, input.contactId]);
  if (!contact) throw new StewardError('not_found', `Contact ${input.contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  requireDateOrder(input.issuedOn ?? null, input.expiresOn ?? null);
  const certificate = certificateColumns(orgId, input.certificateNumber);
  const id = randomUUID();
  await db.query(`INSERT INTO safeguarding_checks (id, org_id, contact_id, check_type, certificate_hash, certificate_last4, issued_on, expires_on, notes, created_by_user_id, status, status_computed_on)
    VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8::date, $9, $10, 'pending', CURRENT_DATE)`,
  [id, orgId, input.contactId, input.checkType, certificate.hash, certificate.last4, input.issuedOn ?? null, input.expiresOn ?? null, input.notes ?? null, userId]);
  await db.query(`UPDATE safeguarding_checks SET status = ${checkStatusSql('CURRENT_DATE')} WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return requireSafeguardingCheck(db, orgId, id);
}

export async function setSafeguardingCheck(db: Queryable, orgId: string, checkId: string, changes: CheckFields): Promise<{ check: SafeguardingCheckView; changed: string[] }> {
  await db.query('SELECT 1 FROM safeguarding_checks WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, checkId]);
  const current = await requireSafeguardingCheck(db, orgId, checkId);
  const changed = (Object.keys(changes) as Array<keyof CheckFields>).filter((key) => changes[key] !== undefined);
  if (changed.length === 0) {
    throw new StewardError('validation_failed', 'Nothing to change: give checkType, certificateNumber, issuedOn, expiresOn or notes');
  }
  const issuedOn = changes.issuedOn !== undefined ? changes.issuedOn : current.issuedOn;
  const expiresOn = changes.expiresOn !== undefined ? changes.expiresOn : current.expiresOn;
  requireDateOrder(issuedOn, expiresOn);
  const sets: string[] = ['issued_on = $3::date', 'expires_on = $4::date', 'check_type = $5', 'notes = $6'];
  const values: unknown[] = [orgId, checkId, issuedOn, expiresOn, changes.checkType ?? current.checkType, changes.notes !== undefined ? changes.notes : current.notes];
  if (changes.certificateNumber !== undefined) {
    const certificate = certificateColumns(orgId, changes.certificateNumber);
    values.push(certificate.hash, certificate.last4);
    sets.push(`certificate_hash = $${values.length - 1}`, `certificate_last4 = $${values.length}`);
  }
  await db.query(`UPDATE safeguarding_checks SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2`, values);
  await db.query(`UPDATE safeguarding_checks SET status = ${checkStatusSql('CURRENT_DATE')}, status_computed_on = CURRENT_DATE WHERE org_id = $1 AND id = $2`, [orgId, checkId]);
  return { check: await requireSafeguardingCheck(db, orgId, checkId), changed };
}

export async function removeSafeguardingCheck(db: Queryable, orgId: string, checkId: string): Promise<SafeguardingCheckView> {
  const check = await requireSafeguardingCheck(db, orgId, checkId);
  await db.query('DELETE FROM safeguarding_checks WHERE org_id = $1 AND id = $2', [orgId, checkId]);
  return check;
}

export async function listSafeguardingChecks(
  db: Queryable, orgId: string, filter: { contactId?: string; status?: CheckStatus; certificateNumber?: string; limit: number },
): Promise<SafeguardingCheckView[]> {
  const hash = filter.certificateNumber ? certificateHashOf(orgId, filter.certificateNumber) : null;
  const rows = await queryRows<CheckRow>(db, `${SELECT_CHECK}
    WHERE s.org_id = $1 AND ($2::uuid IS NULL OR s.contact_id = $2) AND ($3::text IS NULL OR s.status = $3) AND ($4::text IS NULL OR s.certificate_hash = $4)
    ORDER BY s.expires_on NULLS LAST, s.created_at, s.id LIMIT $5`, [orgId, filter.contactId ?? null, filter.status ?? null, hash, filter.limit]);
  return rows.map(checkView);
}

/**
 * For the check-in gate (guests module, to come): whether the contact holds a check issued on or
 * before `asOf` (YYYY-MM-DD) that has not expired by then. Reads the dates, not the stored status,
 * so it is right to the day even before the daily status run.
 */
export async function hasCurrentSafeguardingCheck(db: Queryable, orgId: string, contactId: string, asOf: string, checkType?: string): Promise<boolean> {
  const row = await queryOne(db, `SELECT 1 FROM safeguarding_checks WHERE org_id = $1 AND contact_id = $2
    AND issued_on IS NOT NULL AND issued_on <= $3::date AND (expires_on IS NULL OR expires_on >= $3::date)
    AND ($4::text IS NULL OR lower(check_type) = lower($4)) LIMIT 1`, [orgId, contactId, asOf, checkType ?? null]);
  return Boolean(row);
}

/**
 * The daily status run: every check whose status the dates now say differently is updated. One
 * statement over all organisations on the worker's own connection (no tenant setting), as the other
 * deployment-wide schedules read; it writes nothing but the computed status.
 */
export async function refreshSafeguardingStatuses(db: Queryable, asOf: string, orgId?: string): Promise<number> {
  const moved = await queryRows<{ id: string; org_id: string; contact_id: string; previous: string; status: string }>(db, `
    WITH prev AS (SELECT id, status FROM safeguarding_checks WHERE ($2::uuid IS NULL OR org_id = $2) AND status <> ${checkStatusSql('$1::date')} FOR UPDATE)
    UPDATE safeguarding_checks s SET status = ${checkStatusSql('$1::date')}, status_computed_on = $1::date
    FROM prev WHERE s.id = prev.id
    RETURNING s.id, s.org_id, s.contact_id, prev.status AS previous, s.status`, [asOf, orgId ?? null]);
  // Each check whose status its dates moved: one event in this statement's transaction (the caller's), the system as actor.
  for (const check of moved) {
    await recordJobChange(db, {
      orgId: check.org_id, channel: 'job:people.safeguarding_status', module: 'people', noun: 'safeguarding_check', verb: 'update',
      target: { type: 'safeguarding_check', id: check.id }, fields: { status: check.status, statusComputedOn: asOf }, previous: { status: check.previous },
      contactIds: [check.contact_id],
    });
  }
  return moved.length;
}

export async function countChecksByStatus(db: Queryable, orgId: string): Promise<Record<CheckStatus, number>> {
  const rows = await queryRows<{ status: CheckStatus; count: number }>(db, `SELECT s.status, count(*)::int AS count FROM safeguarding_checks s
    JOIN contacts c ON c.id = s.contact_id AND c.org_id = s.org_id AND c.deleted_at IS NULL WHERE s.org_id = $1 GROUP BY s.status`, [orgId]);
  const counts = { pending: 0, completed: 0, expiring: 0, overdue: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

// ---------------------------------------------------------------- policies

type PolicyRow = Pick<RowOf<SafeguardingPolicy>, 'id' | 'title' | 'version' | 'review_on' | 'owner_user_id' | 'notes' | 'created_at' | 'updated_at'> & {
  review_status: SafeguardingPolicyView['reviewStatus'];
};

const SELECT_POLICY = `SELECT p.id, p.title, p.version, p.review_on::text, p.owner_user_id, p.notes, p.created_at, p.updated_at,
    CASE WHEN p.review_on IS NULL THEN 'no_review_date' WHEN p.review_on < CURRENT_DATE THEN 'overdue'
      WHEN p.review_on <= CURRENT_DATE + ${POLICY_REVIEW_WARNING_DAYS} THEN 'review_due' ELSE 'current' END AS review_status
  FROM safeguarding_policies p`;

async function policyView(db: Queryable, orgId: string, rows: PolicyRow[]): Promise<SafeguardingPolicyView[]> {
  const team = new Map((await listTeam(db, orgId)).map((member) => [member.userId, member.email]));
  return rows.map((row) => ({
    policyId: row.id, title: row.title, version: row.version, reviewOn: row.review_on, reviewStatus: row.review_status,
    ownerUserId: row.owner_user_id, ownerEmail: row.owner_user_id ? team.get(row.owner_user_id) ?? null : null, notes: row.notes,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  }));
}

export async function requireSafeguardingPolicy(db: Queryable, orgId: string, policyId: string): Promise<SafeguardingPolicyView> {
  const row = await queryOne<PolicyRow>(db, `${SELECT_POLICY} WHERE p.org_id = $1 AND p.id = $2`, [orgId, policyId]);
  if (!row) throw new StewardError('not_found', `Safeguarding policy ${policyId} was not found`, { hint: 'people_list_safeguarding_policies lists them.' });
  return (await policyView(db, orgId, [row]))[0];
}

export async function listSafeguardingPolicies(db: Queryable, orgId: string): Promise<SafeguardingPolicyView[]> {
  const rows = await queryRows<PolicyRow>(db, `${SELECT_POLICY} WHERE p.org_id = $1 ORDER BY p.review_on NULLS LAST, lower(p.title)`, [orgId]);
  return policyView(db, orgId, rows);
}

async function requireTeamMember(db: Queryable, orgId: string, userId: string | null | undefined): Promise<void> {
  if (!userId) return;
  if (!(await listTeam(db, orgId)).some((member) => member.userId === userId)) {
    throw new StewardError('not_found', `Team member ${userId} was not found`, { hint: 'platform_list_team_members lists the team.' });
  }
}

async function lockPolicyTitles(db: Queryable, orgId: string, title: string | undefined, exceptId: string | null): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`safeguarding-policies:${orgId}`]);
  if (title === undefined) return;
  const clash = await queryOne(db, 'SELECT 1 FROM safeguarding_policies WHERE org_id = $1 AND lower(title) = lower($2) AND ($3::uuid IS NULL OR id <> $3)', [orgId, title, exceptId]);
  if (clash) throw new StewardError('conflict', `A safeguarding policy titled "${title}" already exists`, { hint: 'Change its version with people_set_safeguarding_policy instead.' });
}

export interface PolicyFields {
  title?: string;
  version?: string;
  reviewOn?: string | null;
  ownerUserId?: string | null;
  notes?: string | null;
}

export async function createSafeguardingPolicy(db: Queryable, orgId: string, input: PolicyFields & { title: string; version: string }): Promise<SafeguardingPolicyView> {
  await lockPolicyTitles(db, orgId, input.title, null);
  await requireTeamMember(db, orgId, input.ownerUserId);
  const id = randomUUID();
  await db.query('INSERT INTO safeguarding_policies (id, org_id, title, version, review_on, owner_user_id, notes) VALUES ($1, $2, $3, $4, $5::date, $6, $7)',
    [id, orgId, input.title, input.version, input.reviewOn ?? null, input.ownerUserId ?? null, input.notes ?? null]);
  return requireSafeguardingPolicy(db, orgId, id);
}

export async function setSafeguardingPolicy(db: Queryable, orgId: string, policyId: string, changes: PolicyFields): Promise<{ policy: SafeguardingPolicyView; changed: string[] }> {
  const current = await requireSafeguardingPolicy(db, orgId, policyId);
  const changed = (Object.keys(changes) as Array<keyof PolicyFields>).filter((key) => changes[key] !== undefined);
  if (changed.length === 0) throw new StewardError('validation_failed', 'Nothing to change: give title, version, reviewOn, ownerUserId or notes');
  await lockPolicyTitles(db, orgId, changes.title, policyId);
  await requireTeamMember(db, orgId, changes.ownerUserId);
  const pick = <K extends keyof PolicyFields>(key: K, fallback: PolicyFields[K]) => (changes[key] !== undefined ? changes[key] : fallback);
  await db.query(`UPDATE safeguarding_policies SET title = $3, version = $4, review_on = $5::date, owner_user_id = $6, notes = $7, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, policyId, pick('title', current.title), pick('version', current.version), pick('reviewOn', current.reviewOn),
    pick('ownerUserId', current.ownerUserId), pick('notes', current.notes)]);
  return { policy: await requireSafeguardingPolicy(db, orgId, policyId), changed };
}

export async function removeSafeguardingPolicy(db: Queryable, orgId: string, policyId: string): Promise<SafeguardingPolicyView> {
  const policy = await requireSafeguardingPolicy(db, orgId, policyId);
  await db.query('DELETE FROM safeguarding_policies WHERE org_id = $1 AND id = $2', [orgId, policyId]);
  return policy;
}

// ---------------------------------------------------------------- summary

export async function safeguardingSummary(db: Queryable, orgId: string) {
  const checksByStatus = await countChecksByStatus(db, orgId);
  const people = await queryOne<{ with_current: number; with_any: number }>(db, `SELECT
      count(DISTINCT s.contact_id) FILTER (WHERE s.status IN ('completed', 'expiring'))::int AS with_current,
      count(DISTINCT s.contact_id)::int AS with_any
    FROM safeguarding_checks s JOIN contacts c ON c.id = s.contact_id AND c.org_id = s.org_id AND c.deleted_at IS NULL WHERE s.org_id = $1`, [orgId]);
  const attention = await queryRows<CheckRow>(db, `${SELECT_CHECK} WHERE s.org_id = $1 AND s.status IN ('expiring', 'overdue')
    ORDER BY s.expires_on, s.id LIMIT 50`, [orgId]);
  const policies = await listSafeguardingPolicies(db, orgId);
  return {
    checksByStatus,
    peopleWithCurrentCheck: people!.with_current,
    peopleWithAnyCheck: people!.with_any,
    needingAttention: attention.map(checkView),
    policies: {
      total: policies.length,
      reviewDue: policies.filter((policy) => policy.reviewStatus === 'review_due').length,
      reviewOverdue: policies.filter((policy) => policy.reviewStatus === 'overdue').length,
    },
    expiringWithinDays: EXPIRING_WITHIN_DAYS,
  };
}
