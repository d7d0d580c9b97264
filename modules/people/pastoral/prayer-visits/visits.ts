import { randomUUID } from 'node:crypto';
import { assertDateRange, notFound, type RowOf } from '../../../kit';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import type { OrgSettings } from '../../../tool';
import { displayNameOf, requireContact } from '../../contacts';
import type { Contact } from '../../models/contacts';
import { parseOrgDate } from '../../dates';
import { todayUtc } from '../../../metrics';
import { assertNoteMentionsNamesNotIds } from '../../notes';
import type { CONFIDENTIALITY_LEVELS, NOTE_PRIVACY } from '../../schemas';
import { visibleRecordSql } from '../privacy';
import type { PastoralVisit } from './models';
import { type PastoralVisitView, type VISIT_KINDS } from './schemas';

/** Timeline kind of a logged visit: it contains "visit", so welfare-due counts it as pastoral contact (automations.ts). */
export const VISIT_TIMELINE_KIND = 'pastoral_visit';
/**
 * Timeline kind left when a visit is removed. Deliberately free of "visit", "note" and "pastoral":
 * removing a visit logged in error is not pastoral contact, so it must not reset anyone's welfare clock.
 */
export const VISIT_REMOVED_TIMELINE_KIND = 'care_record_removed';

type VisitRow = Pick<RowOf<PastoralVisit>, 'id' | 'contact_id' | 'visit_date' | 'kind' | 'duration_minutes' | 'summary' | 'visitor_name' | 'privacy'
  | 'confidentiality_level' | 'created_at'> & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

const VISIT_SELECT = `SELECT v.id, v.contact_id, v.visit_date, v.kind, v.duration_minutes, v.summary, v.visitor_name, v.privacy,
  v.confidentiality_level, v.created_at, c.first_name, c.last_name, c.preferred_name, c.email
  FROM pastoral_visits v JOIN contacts c ON c.id = v.contact_id AND c.org_id = v.org_id AND c.deleted_at IS NULL`;

function visitView(row: VisitRow): PastoralVisitView {
  return {
    id: row.id, contactId: row.contact_id, contactName: displayNameOf(row), visitDate: row.visit_date,
    kind: row.kind as PastoralVisitView['kind'], durationMinutes: row.duration_minutes, summary: row.summary, visitorName: row.visitor_name,
    privacy: row.privacy as PastoralVisitView['privacy'], confidentialityLevel: row.confidentiality_level as PastoralVisitView['confidentialityLevel'],
    createdAt: row.created_at.toISOString(),
  };
}

export interface NewVisit {
  contactId: string;
  visitDate?: string;
  kind: (typeof VISIT_KINDS)[number];
  durationMinutes?: number;
  summary: string;
  visitorName?: string;
  privacy: (typeof NOTE_PRIVACY)[number];
  confidentialityLevel: (typeof CONFIDENTIALITY_LEVELS)[number];
}

export async function logPastoralVisit(db: Queryable, org: OrgSettings, userId: string | null, input: NewVisit): Promise<PastoralVisitView> {
  await requireContact(db, org.id, input.contactId);
  assertNoteMentionsNamesNotIds(input.summary);
  const visitDate = input.visitDate === undefined ? todayUtc() : parseOrgDate(input.visitDate, org.dateFormat, 'visitDate');
  // A visit is logged after it happened; a future date is a plan, and would hide someone from welfare-due early.
  if (visitDate > todayUtc()) {
    throw new StewardError('validation_failed', `visitDate ${visitDate} is in the future`, {
      issues: [{ path: 'visitDate', message: 'must be today or earlier' }], hint: 'Log a visit once it has happened.',
    });
  }
  const id = randomUUID();
  await db.query(`INSERT INTO pastoral_visits (id, org_id, contact_id, visit_date, kind, duration_minutes, summary, visitor_name, logged_by_user_id, privacy, confidentiality_level)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  [id, org.id, input.contactId, visitDate, input.kind, input.durationMinutes ?? null, input.summary, input.visitorName ?? null, userId, input.privacy, input.confidentialityLevel]);
  return requireVisibleVisit(db, org.id, id, true);
}

/** A visit the caller may see; a restricted one behaves as missing without people:safeguarding, as another organisation's does. */
export async function requireVisibleVisit(db: Queryable, orgId: string, id: string, canSeeRestricted: boolean): Promise<PastoralVisitView> {
  const row = await queryOne<VisitRow>(db, `${VISIT_SELECT} WHERE v.org_id = $1 AND v.id = $2 AND ${visibleRecordSql('v', canSeeRestricted)}`, [orgId, id]);
  if (!row) throw notFound('Pastoral visit', id, 'people_list_pastoral_visits lists the visits you may see.');
  return visitView(row);
}

export async function listPastoralVisits(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: { contactId?: string; from?: string; to?: string; kind?: string; limit: number },
): Promise<PastoralVisitView[]> {
  assertDateRange(filter);
  const rows = await queryRows<VisitRow>(db, `${VISIT_SELECT}
    WHERE v.org_id = $1 AND ${visibleRecordSql('v', canSeeRestricted)} AND ($2::uuid IS NULL OR v.contact_id = $2)
      AND ($3::date IS NULL OR v.visit_date >= $3::date) AND ($4::date IS NULL OR v.visit_date <= $4::date) AND ($5::text IS NULL OR v.kind = $5)
    ORDER BY v.visit_date DESC, v.created_at DESC, v.id DESC LIMIT $6`,
  [orgId, filter.contactId ?? null, filter.from ?? null, filter.to ?? null, filter.kind ?? null, filter.limit]);
  return rows.map(visitView);
}

/** Deletes a visit and its timeline entry; the caller's timeline sync leaves a content-free removal entry, visible by the same rule. */
export async function removePastoralVisit(db: Queryable, orgId: string, id: string, canSeeRestricted: boolean): Promise<PastoralVisitView> {
  const visit = await requireVisibleVisit(db, orgId, id, canSeeRestricted);
  await db.query(`DELETE FROM timeline_entries WHERE org_id = $1 AND source_kind = 'pastoral_visit' AND source_id = $2`, [orgId, id]);
  await db.query('DELETE FROM pastoral_visits WHERE org_id = $1 AND id = $2', [orgId, id]);
  return visit;
}

export interface VisitAnalytics {
  from: string | null;
  to: string | null;
  total: number;
  contactsVisited: number;
  totalMinutes: number;
  byKind: Record<string, number>;
  byMonth: Array<{ month: string; visits: number; contacts: number }>;
  byVisitor: Array<{ visitor: string; visits: number }>;
  includesRestricted: boolean;
}

/** Visits in [from, to] (dates inclusive) the caller may see: restricted ones are counted only with people:safeguarding. */
export async function visitAnalytics(db: Queryable, orgId: string, canSeeRestricted: boolean, range: { from?: string; to?: string }): Promise<VisitAnalytics> {
  assertDateRange(range);
  const where = `v.org_id = $1 AND ${visibleRecordSql('v', canSeeRestricted)}
    AND ($2::date IS NULL OR v.visit_date >= $2::date) AND ($3::date IS NULL OR v.visit_date <= $3::date)
    AND EXISTS (SELECT 1 FROM contacts c WHERE c.id = v.contact_id AND c.org_id = v.org_id AND c.deleted_at IS NULL)`;
  const binds = [orgId, range.from ?? null, range.to ?? null];
  const totals = await queryOne<{ total: number; contacts: number; minutes: number }>(db, `
    SELECT count(*)::int AS total, count(DISTINCT v.contact_id)::int AS contacts, COALESCE(sum(v.duration_minutes), 0)::int AS minutes
    FROM pastoral_visits v WHERE ${where}`, binds);
  const kinds = await queryRows<{ kind: string; n: number }>(db, `SELECT v.kind, count(*)::int AS n FROM pastoral_visits v WHERE ${where} GROUP BY v.kind ORDER BY v.kind`, binds);
  const months = await queryRows<{ month: string; visits: number; contacts: number }>(db, `
    SELECT to_char(v.visit_date, 'YYYY-MM') AS month, count(*)::int AS visits, count(DISTINCT v.contact_id)::int AS contacts
    FROM pastoral_visits v WHERE ${where} GROUP BY 1 ORDER BY 1`, binds);
  const visitors = await queryRows<{ visitor: string; visits: number }>(db, `
    SELECT COALESCE(v.visitor_name, 'Not recorded') AS visitor, count(*)::int AS visits
    FROM pastoral_visits v WHERE ${where} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`, binds);
  return {
    from: range.from ?? null, to: range.to ?? null, total: totals!.total, contactsVisited: totals!.contacts, totalMinutes: totals!.minutes,
    byKind: Object.fromEntries(kinds.map((k) => [k.kind, k.n])), byMonth: months, byVisitor: visitors, includesRestricted: canSeeRestricted,
  };
}

/** Visits (visible to the caller) in the last `days` days: for dashboards. */
export async function countRecentVisits(db: Queryable, orgId: string, canSeeRestricted: boolean, days: number): Promise<number> {
  const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM pastoral_visits v
    JOIN contacts c ON c.id = v.contact_id AND c.org_id = v.org_id AND c.deleted_at IS NULL
    WHERE v.org_id = $1 AND ${visibleRecordSql('v', canSeeRestricted)} AND v.visit_date > current_date - $2::int`, [orgId, days]);
  return row?.n ?? 0;
}
