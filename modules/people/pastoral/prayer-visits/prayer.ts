import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { notFound, type RowOf } from '../../../kit';
import { displayNameOf, requireContact } from '../../contacts';
import type { Contact } from '../../models/contacts';
import { assertNoteMentionsNamesNotIds } from '../../notes';
import type { CONFIDENTIALITY_LEVELS } from '../../schemas';
import { isRestrictedRecord, visibleRecordSql } from '../privacy';
import type { PrayerRequest } from './models';
import { privacyOfVisibility, visibilityOfPrivacy, type PrayerRequestView, type PrayerStatus, type PrayerVisibility } from './schemas';

type PrayerRow = Pick<RowOf<PrayerRequest>, 'id' | 'contact_id' | 'request' | 'privacy' | 'confidentiality_level' | 'urgent' | 'status' | 'answered_at'
  | 'answer_note' | 'created_at'> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

const PRAYER_SELECT = `SELECT p.id, p.contact_id, p.request, p.privacy, p.confidentiality_level, p.urgent, p.status, p.answered_at, p.answer_note,
  p.created_at, c.first_name, c.last_name, c.preferred_name, c.email
  FROM prayer_requests p JOIN contacts c ON c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL`;

function prayerView(row: PrayerRow): PrayerRequestView {
  return {
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), request: row.request,
    visibility: visibilityOfPrivacy(row.privacy), confidentialityLevel: row.confidentiality_level as PrayerRequestView['confidentialityLevel'],
    urgent: row.urgent, status: row.status as PrayerStatus, answeredAt: row.answered_at?.toISOString() ?? null,
    answerNote: row.answer_note, createdAt: row.created_at.toISOString(),
  };
}

export function isRestrictedPrayer(request: Pick<PrayerRequestView, 'visibility' | 'confidentialityLevel'>): boolean {
  return isRestrictedRecord({ privacy: privacyOfVisibility(request.visibility), confidentialityLevel: request.confidentialityLevel });
}

export interface NewPrayerRequest {
  contactId: string;
  request: string;
  visibility: PrayerVisibility;
  confidentialityLevel: (typeof CONFIDENTIALITY_LEVELS)[number];
  urgent: boolean;
}

export async function addPrayerRequest(db: Queryable, orgId: string, userId: string | null, input: NewPrayerRequest): Promise<PrayerRequestView> {
  await requireContact(db, orgId, input.contactId);
  assertNoteMentionsNamesNotIds(input.request);
  const id = randomUUID();
  await db.query(`INSERT INTO prayer_requests (id, org_id, contact_id, request, privacy, confidentiality_level, urgent, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  [id, orgId, input.contactId, input.request, privacyOfVisibility(input.visibility), input.confidentialityLevel, input.urgent, userId]);
  return requireVisiblePrayerRequest(db, orgId, id, true);
}

/** A request the caller may see; a restricted one behaves as missing without people:safeguarding, as another organisation's does. */
export async function requireVisiblePrayerRequest(db: Queryable, orgId: string, id: string, canSeeRestricted: boolean): Promise<PrayerRequestView> {
  const row = await queryOne<PrayerRow>(db, `${PRAYER_SELECT} WHERE p.org_id = $1 AND p.id = $2 AND ${visibleRecordSql('p', canSeeRestricted)}`, [orgId, id]);
  if (!row) throw notFound('Prayer request', id, 'people_list_prayer_requests lists the prayer requests you may see.');
  return prayerView(row);
}

export interface PrayerFilter {
  contactId?: string;
  status?: PrayerStatus;
  visibility?: PrayerVisibility;
  urgentOnly: boolean;
  limit: number;
}

export async function listPrayerRequests(db: Queryable, orgId: string, canSeeRestricted: boolean, filter: PrayerFilter): Promise<PrayerRequestView[]> {
  const rows = await queryRows<PrayerRow>(db, `${PRAYER_SELECT}
    WHERE p.org_id = $1 AND ${visibleRecordSql('p', canSeeRestricted)}
      AND ($2::uuid IS NULL OR p.contact_id = $2) AND ($3::text IS NULL OR p.status = $3)
      AND ($4::text IS NULL OR p.privacy = $4) AND (NOT $5 OR p.urgent)
    ORDER BY p.created_at DESC, p.id DESC LIMIT $6`,
  [orgId, filter.contactId ?? null, filter.status ?? null, filter.visibility ? privacyOfVisibility(filter.visibility) : null, filter.urgentOnly, filter.limit]);
  return rows.map(prayerView);
}

/**
 * Moves a request between active and answered. Setting the status it already has changes nothing
 * and says so (`changed: false`), so a retried call is harmless. The row is locked first, so two
 * callers answering at once record one answer.
 */
export async function setPrayerRequestStatus(
  db: Queryable, orgId: string, canSeeRestricted: boolean, input: { prayerRequestId: string; status: PrayerStatus; answerNote?: string },
): Promise<{ prayerRequest: PrayerRequestView; changed: boolean }> {
  const current = await requireVisiblePrayerRequest(db, orgId, input.prayerRequestId, canSeeRestricted);
  if (input.answerNote !== undefined && input.status !== 'answered') {
    throw new StewardError('validation_failed', 'answerNote goes with status answered', { issues: [{ path: 'answerNote', message: 'only with status answered' }] });
  }
  if (input.answerNote !== undefined) assertNoteMentionsNamesNotIds(input.answerNote);
  const locked = await queryOne<{ status: string }>(db, 'SELECT status FROM prayer_requests WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, current.id]);
  if (locked?.status === input.status) return { prayerRequest: await requireVisiblePrayerRequest(db, orgId, current.id, canSeeRestricted), changed: false };
  await db.query(`UPDATE prayer_requests SET status = $3, updated_at = now(),
      answered_at = CASE WHEN $3 = 'answered' THEN now() ELSE NULL END,
      answer_note = CASE WHEN $3 = 'answered' THEN $4 ELSE NULL END
    WHERE org_id = $1 AND id = $2`, [orgId, current.id, input.status, input.answerNote ?? null]);
  return { prayerRequest: await requireVisiblePrayerRequest(db, orgId, current.id, canSeeRestricted), changed: true };
}

export interface PrayerRequestChange {
  prayerRequestId: string;
  request?: string;
  visibility?: PrayerVisibility;
  confidentialityLevel?: (typeof CONFIDENTIALITY_LEVELS)[number];
  urgent?: boolean;
}

/**
 * Changes a request's text, visibility, confidentiality or urgency; only the fields given change.
 * Narrowing the audience takes effect everywhere at once: the prayer wall reads visibility afresh
 * through shareable_prayer_requests, and the caller's timeline sync rewrites the entries' restricted flag.
 */
export async function updatePrayerRequest(db: Queryable, orgId: string, canSeeRestricted: boolean, change: PrayerRequestChange): Promise<{ prayerRequest: PrayerRequestView; changed: string[] }> {
  const current = await requireVisiblePrayerRequest(db, orgId, change.prayerRequestId, canSeeRestricted);
  if (change.request !== undefined) assertNoteMentionsNamesNotIds(change.request);
  const changed = (['request', 'visibility', 'confidentialityLevel', 'urgent'] as const).filter((field) => change[field] !== undefined && change[field] !== current[field]);
  if (change.request === undefined && change.visibility === undefined && change.confidentialityLevel === undefined && change.urgent === undefined) {
    throw new StewardError('validation_failed', 'Nothing to update: give request, visibility, confidentialityLevel or urgent');
  }
  if (changed.length > 0) {
    await db.query(`UPDATE prayer_requests SET request = COALESCE($3, request), privacy = COALESCE($4, privacy),
        confidentiality_level = COALESCE($5, confidentiality_level), urgent = COALESCE($6, urgent), updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [orgId, current.id, change.request ?? null, change.visibility ? privacyOfVisibility(change.visibility) : null, change.confidentialityLevel ?? null, change.urgent ?? null]);
  }
  // Read back with the caller's view: a request they just made private is theirs to have changed, so it is returned once.
  const row = await queryOne<PrayerRow>(db, `${PRAYER_SELECT} WHERE p.org_id = $1 AND p.id = $2`, [orgId, current.id]);
  return { prayerRequest: prayerView(row!), changed };
}

export interface PrayerAnalytics {
  total: number;
  byStatus: { active: number; answered: number };
  byVisibility: { private: number; team: number; congregation: number };
  urgentActive: number;
  answeredRate: number | null;
  medianDaysToAnswer: number | null;
  byMonth: Array<{ month: string; added: number; answered: number }>;
  includesRestricted: boolean;
}

/**
 * Counts over the requests the caller may see (restricted ones only with people:safeguarding), so a
 * total never reveals that a private request exists. `from`/`to` bound when requests were added.
 */
export async function prayerAnalytics(db: Queryable, orgId: string, canSeeRestricted: boolean, range: { from?: string; to?: string }): Promise<PrayerAnalytics> {
  const where = `p.org_id = $1 AND ${visibleRecordSql('p', canSeeRestricted)}
    AND ($2::date IS NULL OR p.created_at >= $2::date) AND ($3::date IS NULL OR p.created_at < $3::date + 1)
    AND EXISTS (SELECT 1 FROM contacts c WHERE c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL)`;
  const binds = [orgId, range.from ?? null, range.to ?? null];
  const totals = await queryOne<{ total: number; active: number; answered: number; private: number; team: number; congregation: number; urgent_active: number; median_days: number | null }>(db, `
    SELECT count(*)::int AS total,
      count(*) FILTER (WHERE p.status = 'active')::int AS active, count(*) FILTER (WHERE p.status = 'answered')::int AS answered,
      count(*) FILTER (WHERE p.privacy = 'private')::int AS private, count(*) FILTER (WHERE p.privacy = 'team')::int AS team,
      count(*) FILTER (WHERE p.privacy = 'public')::int AS congregation,
      count(*) FILTER (WHERE p.status = 'active' AND p.urgent)::int AS urgent_active,
      (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM p.answered_at - p.created_at) / 86400)
        FILTER (WHERE p.answered_at IS NOT NULL))::float8 AS median_days
    FROM prayer_requests p WHERE ${where}`, binds);
  const months = await queryRows<{ month: string; added: number; answered: number }>(db, `
    SELECT to_char(date_trunc('month', p.created_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month, count(*)::int AS added,
      count(*) FILTER (WHERE p.status = 'answered')::int AS answered
    FROM prayer_requests p WHERE ${where} GROUP BY 1 ORDER BY 1`, binds);
  const t = totals!;
  return {
    total: t.total, byStatus: { active: t.active, answered: t.answered },
    byVisibility: { private: t.private, team: t.team, congregation: t.congregation },
    urgentActive: t.urgent_active,
    answeredRate: t.total === 0 ? null : Math.round((t.answered / t.total) * 1000) / 1000,
    medianDaysToAnswer: t.median_days === null ? null : Math.round(t.median_days * 10) / 10,
    byMonth: months, includesRestricted: canSeeRestricted,
  };
}

/** For the community prayer wall: a request the congregation may see (visibility congregation, confidentiality green), or undefined. */
export async function findShareablePrayerRequest(db: Queryable, orgId: string, id: string): Promise<(PrayerRequestView & { firstName: string | null }) | undefined> {
  const row = await queryOne<PrayerRow>(db, `${PRAYER_SELECT} WHERE p.org_id = $1 AND p.id = $2 AND p.privacy = 'public' AND p.confidentiality_level = 'green'`, [orgId, id]);
  return row ? { ...prayerView(row), firstName: row.preferred_name ?? row.first_name } : undefined;
}

/** Marks a shareable request answered from the wall (a praise report); answering twice changes nothing. */
export async function markShareablePrayerAnswered(db: Queryable, orgId: string, id: string, answerNote: string | undefined): Promise<PrayerRequestView> {
  const request = await findShareablePrayerRequest(db, orgId, id);
  if (!request) throw notFound('Prayer request', id);
  return (await setPrayerRequestStatus(db, orgId, false, { prayerRequestId: id, status: 'answered', answerNote })).prayerRequest;
}
