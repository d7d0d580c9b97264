import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { contactNameOf } from './outreach';

/**
 * Merging duplicate contacts: one contact is kept, the other's notes, tags,
 * timeline, household and outreach move onto it, blank fields on the kept contact
 * are filled from the other (or chosen per field), and the other is soft-deleted.
 */

/** Fields a merge may take from the merged contact (camelCase → column). */
const MERGEABLE: Record<string, string> = {
  prefix: 'prefix', firstName: 'first_name', lastName: 'last_name', preferredName: 'preferred_name', email: 'email', phone: 'phone',
  dateOfBirth: 'date_of_birth', gender: 'gender', addressLine1: 'address_line1', addressLine2: 'address_line2',
  addressCity: 'address_city', addressCounty: 'address_county', addressPostcode: 'address_postcode', addressCountry: 'address_country',
  membershipStatus: 'membership_status', baptismDate: 'baptism_date', membershipDate: 'membership_date', anniversaryDate: 'anniversary_date',
};
export const MERGEABLE_FIELDS = Object.keys(MERGEABLE);

export interface MergeResult {
  keptContactId: string;
  mergedContactId: string;
  moved: { notes: number; tags: number; timelineEntries: number; outreachItems: number };
  fieldsTaken: string[];
}

async function lockLiveContact(db: Queryable, orgId: string, id: string) {
  const row = await queryOne<Record<string, unknown> & { id: string; deleted_at: Date | null }>(db,
    'SELECT * FROM contacts WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  if (!row || row.deleted_at) throw new StewardError('not_found', `Contact ${id} was not found`, { hint: 'It may already have been merged or deleted.' });
  return row;
}

export async function mergeContacts(
  db: Queryable, orgId: string, keepId: string, mergeId: string, userId: string | null,
  fieldChoices: Record<string, 'keep' | 'merge'> = {},
): Promise<MergeResult> {
  if (keepId === mergeId) throw new StewardError('validation_failed', 'A contact cannot be merged into itself', { issues: [{ path: 'mergeContactId', message: 'must differ from keepContactId' }] });
  // Lock both in a fixed order so two merges of the same pair cannot deadlock.
  const [first, second] = [keepId, mergeId].sort();
  const a = await lockLiveContact(db, orgId, first);
  const b = await lockLiveContact(db, orgId, second);
  const keep = a.id === keepId ? a : b;
  const merged = a.id === keepId ? b : a;

  const sets: string[] = [];
  const values: unknown[] = [orgId, keepId];
  const fieldsTaken: string[] = [];
  for (const [field, column] of Object.entries(MERGEABLE)) {
    const choice = fieldChoices[field];
    const take = choice === 'merge' ? merged[column] !== null : choice === 'keep' ? false : keep[column] === null && merged[column] !== null;
    if (!take) continue;
    values.push(merged[column]);
    sets.push(`${column} = $${values.length}`);
    fieldsTaken.push(field);
  }
  if (keep.whatsapp_consent !== true && merged.whatsapp_consent === true && fieldChoices.whatsappConsent !== 'keep') {
    sets.push('whatsapp_consent = true');
    fieldsTaken.push('whatsappConsent');
  }
  // Custom fields: the kept contact's values win, the merged one's fill gaps.
  values.push(JSON.stringify(merged.custom_fields ?? {}));
  sets.push(`custom_fields = $${values.length}::jsonb || custom_fields`);
  await db.query(`UPDATE contacts SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2`, values);

  const notes = await db.query('UPDATE notes SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId, keepId]);
  const tags = await db.query(`INSERT INTO contact_tags (org_id, contact_id, tag_id)
    SELECT org_id, $3, tag_id FROM contact_tags WHERE org_id = $1 AND contact_id = $2 ON CONFLICT DO NOTHING`, [orgId, mergeId, keepId]);
  await db.query('DELETE FROM contact_tags WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId]);
  const timeline = await db.query('UPDATE timeline_entries SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId, keepId]);
  const outreach = await db.query(`UPDATE outreach_items SET contact_id = $3, updated_at = now() WHERE org_id = $1 AND contact_id = $2`, [orgId, mergeId, keepId]);
  if (keep.family_id === null && merged.family_id !== null) {
    await db.query('UPDATE contacts SET family_id = $3 WHERE org_id = $1 AND id = $2', [orgId, keepId, merged.family_id]);
  }
  await db.query('UPDATE contacts SET deleted_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, mergeId]);
  const moved = { notes: notes.rowCount ?? 0, tags: tags.rowCount ?? 0, timelineEntries: timeline.rowCount ?? 0, outreachItems: outreach.rowCount ?? 0 };
  await db.query(`INSERT INTO contact_merges (id, org_id, kept_contact_id, merged_contact_id, merged_by_user_id, moved)
    VALUES ($1, $2, $3, $4, $5, $6)`, [randomUUID(), orgId, keepId, mergeId, userId, JSON.stringify({ ...moved, fieldsTaken })]);
  return { keptContactId: keepId, mergedContactId: mergeId, moved, fieldsTaken };
}

export interface DuplicatePair {
  keepContactId: string;
  mergeContactId: string;
  keepName: string;
  mergeName: string;
  matchedOn: Array<'email' | 'phone' | 'name'>;
}

/**
 * Likely duplicates: live contacts sharing an email, the last ten digits of a
 * phone number, or first and last name. The older contact is kept.
 */
export async function findDuplicatePairs(db: Queryable, orgId: string, limit: number): Promise<DuplicatePair[]> {
  const rows = await queryRows<{
    a_id: string; b_id: string; m_email: boolean; m_phone: boolean; m_name: boolean;
    a_first: string | null; a_last: string | null; a_pref: string | null; a_email: string | null;
    b_first: string | null; b_last: string | null; b_pref: string | null; b_email: string | null;
  }>(db, `
    WITH live AS (
      SELECT id, created_at, first_name, last_name, preferred_name, email,
        lower(email) AS e, NULLIF(right(regexp_replace(coalesce(phone, ''), '\\D', '', 'g'), 10), '') AS p,
        CASE WHEN first_name IS NOT NULL AND last_name IS NOT NULL THEN lower(first_name) || ' ' || lower(last_name) END AS n
      FROM contacts WHERE org_id = $1 AND deleted_at IS NULL
    )
    SELECT a.id AS a_id, b.id AS b_id,
      (a.e IS NOT NULL AND a.e = b.e) AS m_email, (length(a.p) >= 6 AND a.p = b.p) AS m_phone, (a.n IS NOT NULL AND a.n = b.n) AS m_name,
      a.first_name AS a_first, a.last_name AS a_last, a.preferred_name AS a_pref, a.email AS a_email,
      b.first_name AS b_first, b.last_name AS b_last, b.preferred_name AS b_pref, b.email AS b_email
    FROM live a JOIN live b ON (a.created_at, a.id) < (b.created_at, b.id)
      AND ((a.e IS NOT NULL AND a.e = b.e) OR (length(a.p) >= 6 AND a.p = b.p) OR (a.n IS NOT NULL AND a.n = b.n))
    ORDER BY a.created_at, a.id, b.created_at, b.id
    LIMIT $2`, [orgId, limit]);
  const name = (first: string | null, last: string | null, pref: string | null, email: string | null) =>
    contactNameOf({ first_name: first, last_name: last, preferred_name: pref, email });
  return rows.map((row) => ({
    keepContactId: row.a_id,
    mergeContactId: row.b_id,
    keepName: name(row.a_first, row.a_last, row.a_pref, row.a_email),
    mergeName: name(row.b_first, row.b_last, row.b_pref, row.b_email),
    matchedOn: [row.m_email && 'email', row.m_phone && 'phone', row.m_name && 'name'].filter(Boolean) as DuplicatePair['matchedOn'],
  }));
}
