import { queryRows, type Queryable } from '../../../db/pool';
import { displayNameOf } from '../display-name';
import { visibleTimelineSql } from './stats';

/**
 * A roll check, previewed: the membership roll (contacts whose stage is member) checked against
 * rules a person can verify from the record, and regular attenders who could be invited onto it.
 * Nothing changes; people_bulk_update_contacts or people_run_contacts_bulk_operation act on it.
 */
export const ROLL_RULES = {
  under_minimum_age: 'Date of birth says they are under the minimum age',
  age_unknown: 'No date of birth recorded, so age cannot be checked',
  no_address: 'No postal address or postcode recorded',
  no_recent_activity: 'No care timeline entry within the activity window',
  no_contact_method: 'No email or phone',
} as const;
export type RollIssue = keyof typeof ROLL_RULES;

export async function previewRollCheck(db: Queryable, orgId: string, options: { minimumAge: number; activityDays: number; limit: number; canSeeRestricted: boolean }) {
  const visible = visibleTimelineSql(options.canSeeRestricted);
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; phone: string | null;
    membership_status: string | null; age: number | null; has_address: boolean; last_at: Date | null }>(db, `
    SELECT c.id, c.first_name, c.last_name, c.preferred_name, c.email, c.phone, c.membership_status,
      extract(year FROM age(current_date, c.date_of_birth))::int AS age,
      (c.address_line1 IS NOT NULL OR c.address_postcode IS NOT NULL) AS has_address,
      (SELECT max(t.occurred_at) FROM timeline_entries t ${visible.join} WHERE t.org_id = c.org_id AND t.contact_id = c.id AND ${visible.where}) AS last_at
    FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND c.membership_status IN ('member', 'regular_attender')
    ORDER BY lower(c.last_name) NULLS LAST, lower(c.first_name) NULLS LAST, c.id`, [orgId]);
  const since = Date.now() - options.activityDays * 86_400_000;
  const onRoll: Array<{ contactId: string; displayName: string; ok: boolean; issues: RollIssue[] }> = [];
  const candidates: Array<{ contactId: string; displayName: string; age: number | null }> = [];
  for (const row of rows) {
    const issues: RollIssue[] = [];
    if (row.age === null) issues.push('age_unknown');
    else if (row.age < options.minimumAge) issues.push('under_minimum_age');
    if (!row.has_address) issues.push('no_address');
    if (!row.last_at || row.last_at.getTime() < since) issues.push('no_recent_activity');
    if (!row.email && !row.phone) issues.push('no_contact_method');
    if (row.membership_status === 'member') onRoll.push({ contactId: row.id, displayName: displayNameOf(row), ok: issues.length === 0, issues });
    else if (row.age !== null && row.age >= options.minimumAge) candidates.push({ contactId: row.id, displayName: displayNameOf(row), age: row.age });
  }
  const byIssue = Object.fromEntries((Object.keys(ROLL_RULES) as RollIssue[]).map((issue) => [issue, onRoll.filter((entry) => entry.issues.includes(issue)).length]));
  return {
    previewOnly: true as const,
    rules: { minimumAge: options.minimumAge, activityDays: options.activityDays, issues: ROLL_RULES },
    onRoll: onRoll.length,
    passing: onRoll.filter((entry) => entry.ok).length,
    byIssue,
    needingAttention: onRoll.filter((entry) => !entry.ok).slice(0, options.limit),
    candidates: candidates.slice(0, options.limit),
    candidateCount: candidates.length,
    includesRestricted: options.canSeeRestricted,
  };
}
