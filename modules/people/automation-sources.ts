import { randomUUID } from 'node:crypto';
import { queryRows, type Queryable } from '../../db/pool';
import { displayNameOf } from './display-name';
import { compileRules, type RuleSet } from './segment-rules';

/**
 * What people records that other modules' automations start from or act on (grow's automations):
 * contacts created, first visits, life events and birthdays, read since a point in time, whether a
 * contact meets segment-like rules now, and a follow-up task opened for a person.
 */

/** Something that happened to a contact: `key` names the happening so it is counted once. */
export interface ContactHappening { contactId: string; key: string; at: Date }

/** At most this many happenings a read; the caller reads on from the last one it got. */
export const HAPPENINGS_LIMIT = 5000;
const LIMIT = HAPPENINGS_LIMIT;

export async function contactsCreatedSince(db: Queryable, orgId: string, since: Date): Promise<ContactHappening[]> {
  const rows = await queryRows<{ id: string; created_at: Date }>(db, `SELECT id, created_at FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND created_at > $2 ORDER BY created_at LIMIT ${LIMIT}`, [orgId, since]);
  return rows.map((row) => ({ contactId: row.id, key: `contact:${row.id}`, at: row.created_at }));
}

/** Contacts whose first visit (set when they become a first-time visitor) is on or after the day of `since`. */
export async function firstVisitsSince(db: Queryable, orgId: string, since: Date): Promise<ContactHappening[]> {
  const rows = await queryRows<{ id: string; first_visit_date: string }>(db, `SELECT id, first_visit_date::text FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND first_visit_date >= $2::date ORDER BY first_visit_date LIMIT ${LIMIT}`, [orgId, since.toISOString().slice(0, 10)]);
  return rows.map((row) => ({ contactId: row.id, key: `first-visit:${row.first_visit_date}`, at: new Date(`${row.first_visit_date}T00:00:00Z`) }));
}

/** Life events recorded since, of the given types (all when empty); private and amber/red events are never an automation's business. */
export async function lifeEventsRecordedSince(db: Queryable, orgId: string, since: Date, types: readonly string[]): Promise<ContactHappening[]> {
  const rows = await queryRows<{ id: string; contact_id: string; created_at: Date }>(db, `SELECT id, contact_id, created_at FROM pastoral_life_events
    WHERE org_id = $1 AND created_at > $2 AND privacy <> 'private' AND confidentiality_level = 'green' AND (cardinality($3::text[]) = 0 OR event_type = ANY($3::text[]))
    ORDER BY created_at LIMIT ${LIMIT}`, [orgId, since, types]);
  return rows.map((row) => ({ contactId: row.contact_id, key: `life-event:${row.id}`, at: row.created_at }));
}

/** Live contacts whose birthday is `day` (YYYY-MM-DD); 29 February birthdays fall on 28 February in other years. */
export async function birthdaysOn(db: Queryable, orgId: string, day: string): Promise<ContactHappening[]> {
  const rows = await queryRows<{ id: string }>(db, `SELECT id FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND date_of_birth IS NOT NULL
    AND (to_char(date_of_birth, 'MM-DD') = to_char($2::date, 'MM-DD')
      OR (to_char(date_of_birth, 'MM-DD') = '02-29' AND to_char($2::date, 'MM-DD') = '02-28' AND NOT extract(day FROM ($2::date + 1))::int = 29))
    ORDER BY id LIMIT ${LIMIT}`, [orgId, day]);
  return rows.map((row) => ({ contactId: row.id, key: `birthday:${day.slice(0, 4)}`, at: new Date(`${day}T00:00:00Z`) }));
}

/** Whether a live contact meets the rules now (people's segment rules, compiled to SQL with bind parameters). */
export async function contactMatchesRules(db: Queryable, orgId: string, contactId: string, rules: RuleSet): Promise<boolean> {
  const params: unknown[] = [orgId, contactId];
  const where = compileRules(rules, params);
  const rows = await queryRows(db, `SELECT 1 FROM contacts c WHERE c.org_id = $1 AND c.id = $2 AND c.deleted_at IS NULL AND (${where})`, params);
  return rows.length > 0;
}

/** Checks rules without running them against anyone (throws validation_failed naming every bad rule). */
export function assertValidRules(rules: RuleSet): void {
  compileRules(rules, []);
}

/** Display names of the organisation's contacts, by id (missing or erased ones are left out). */
export async function contactNames(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db,
    'SELECT id, first_name, last_name, preferred_name, email FROM contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL', [orgId, [...new Set(ids)]]);
  return new Map(rows.map((row) => [row.id, displayNameOf(row)]));
}

/** Opens a follow-up task for a live contact (people_list_follow_up_tasks lists it); null when the contact is gone. */
export async function openFollowUpTask(db: Queryable, orgId: string, input: { contactId: string; title: string; dueInDays: number }): Promise<string | null> {
  const id = randomUUID();
  const rows = await queryRows(db, `INSERT INTO follow_up_tasks (id, org_id, contact_id, title, due_date)
    SELECT $1, $2, c.id, $4, current_date + $5::int FROM contacts c WHERE c.org_id = $2 AND c.id = $3 AND c.deleted_at IS NULL RETURNING id`,
  [id, orgId, input.contactId, input.title, input.dueInDays]);
  return rows.length > 0 ? id : null;
}
