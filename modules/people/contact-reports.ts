import { assertDateRange } from '../kit';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { displayNameOf } from './contacts';

/** Contacts whose next birthday falls within `days` from today (today included), soonest first. */
export async function upcomingBirthdays(db: Queryable, orgId: string, days: number, limit: number) {
  // age(yesterday, dob) counts completed years as of yesterday, so dob + that + 1 year is the next birthday on or after today.
  // Adding years to 29 February lands on 28 February in common years, which is how most people celebrate it.
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; date_of_birth: string; next_birthday: string; turning: number }>(db, `
    SELECT * FROM (
      SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.date_of_birth,
        (c.date_of_birth + make_interval(years => extract(year FROM age(current_date - 1, c.date_of_birth))::int + 1))::date AS next_birthday,
        extract(year FROM age(current_date - 1, c.date_of_birth))::int + 1 AS turning
      FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.date_of_birth IS NOT NULL
    ) b WHERE b.next_birthday <= current_date + $2::int
    ORDER BY b.next_birthday, b.last_name LIMIT $3`, [orgId, days, limit]);
  return rows.map((row) => ({
    contactId: row.id, displayName: displayNameOf(row), dateOfBirth: row.date_of_birth, nextBirthday: row.next_birthday, turning: row.turning,
  }));
}

export async function countUnsubscribes(db: Queryable, orgId: string, from: string, to: string) {
  assertDateRange({ from, to });
  const row = await queryOne<{ n: number; contacts: number }>(db, `
    SELECT count(*)::int AS n, count(DISTINCT contact_id)::int AS contacts FROM contact_status_events
    WHERE org_id = $1 AND to_status = 'unsubscribed' AND occurred_at >= $2::date AND occurred_at < $3::date + 1`, [orgId, from, to]);
  return { from, to, unsubscribes: row?.n ?? 0, contacts: row?.contacts ?? 0 };
}
