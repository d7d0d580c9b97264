import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { visibleNoteSql } from './notes';
import { displayNameOf } from './contacts';
import { moveDeclaredReferences } from './contact-refs';

/**
 * Merging duplicate contacts: one contact is kept, and everything that hangs off
 * the other moves onto it (notes, tags, timeline, outreach, family links, CRM
 * groups, hand-added segment memberships, Welcome Desk follow-ups, consent
 * history); blank fields on the kept contact are filled from the other (or
 * chosen per field), and the other is soft-deleted.
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
  /**
   * What moved. Notes and timeline entries are counted only when visible without
   * people:safeguarding: restricted notes move too, but the result (which the
   * proposer and every platform:read holder may see) must not reveal how many there are.
   */
  moved: { notes: number; tags: number; timelineEntries: number; outreachItems: number };
  fieldsTaken: string[];
}

/** The rest of what a merge moved, kept on the contact_merges record only. */
interface MovedLinks {
  familyLinks: number;
  groupMemberships: number;
  segmentMemberships: number;
  followUpTasks: number;
  statusEvents: number;
  /** Rows moved through declared references, by `table.column` (every module's, people's own included). */
  declared: Record<string, number>;
}

/**
 * Family links, both directions: the duplicate's links become the kept
 * contact's, except a link to the kept contact itself (it would become a
 * self-link) or one the kept contact already has (a duplicate); those are dropped.
 */
async function moveFamilyLinks(db: Queryable, orgId: string, mergeId: string, keepId: string): Promise<number> {
  const from = await db.query(`UPDATE family_relationships f SET contact_id = $3
    WHERE f.org_id = $1 AND f.contact_id = $2 AND f.related_contact_id <> $3
      AND NOT EXISTS (SELECT 1 FROM family_relationships k WHERE k.org_id = $1 AND k.contact_id = $3 AND k.related_contact_id = f.related_contact_id)`,
  [orgId, mergeId, keepId]);
  const to = await db.query(`UPDATE family_relationships f SET related_contact_id = $3
    WHERE f.org_id = $1 AND f.related_contact_id = $2 AND f.contact_id <> $3
      AND NOT EXISTS (SELECT 1 FROM family_relationships k WHERE k.org_id = $1 AND k.contact_id = f.contact_id AND k.related_contact_id = $3)`,
  [orgId, mergeId, keepId]);
  await db.query('DELETE FROM family_relationships WHERE org_id = $1 AND (contact_id = $2 OR related_contact_id = $2)', [orgId, mergeId]);
  return (from.rowCount ?? 0) + (to.rowCount ?? 0);
}

async function moveGroupMemberships(db: Queryable, orgId: string, mergeId: string, keepId: string): Promise<number> {
  const moved = await db.query(`UPDATE crm_group_members g SET contact_id = $3
    WHERE g.org_id = $1 AND g.contact_id = $2
      AND NOT EXISTS (SELECT 1 FROM crm_group_members k WHERE k.org_id = $1 AND k.group_id = g.group_id AND k.contact_id = $3)`,
  [orgId, mergeId, keepId]);
  await db.query('DELETE FROM crm_group_members WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId]);
  return moved.rowCount ?? 0;
}

/**
 * Hand-added segment memberships become the kept contact's (a rule membership of
 * the kept contact in the same segment becomes a hand-added one, so it survives
 * refreshes). Rule memberships are not moved: the next refresh decides them.
 * Member counts of every segment either contact was in are brought up to date.
 */
async function moveSegmentMemberships(db: Queryable, orgId: string, mergeId: string, keepId: string): Promise<{ moved: number; segmentIds: string[] }> {
  const segments = await queryRows<{ segment_id: string }>(db,
    'SELECT DISTINCT segment_id FROM segment_members WHERE org_id = $1 AND contact_id IN ($2, $3)', [orgId, mergeId, keepId]);
  const promoted = await db.query(`UPDATE segment_members k SET source = 'manual'
    WHERE k.org_id = $1 AND k.contact_id = $3 AND k.source = 'rule'
      AND EXISTS (SELECT 1 FROM segment_members d WHERE d.org_id = $1 AND d.segment_id = k.segment_id AND d.contact_id = $2 AND d.source = 'manual')`,
  [orgId, mergeId, keepId]);
  const moved = await db.query(`UPDATE segment_members d SET contact_id = $3
    WHERE d.org_id = $1 AND d.contact_id = $2 AND d.source = 'manual'
      AND NOT EXISTS (SELECT 1 FROM segment_members k WHERE k.org_id = $1 AND k.segment_id = d.segment_id AND k.contact_id = $3)`,
  [orgId, mergeId, keepId]);
  await db.query('DELETE FROM segment_members WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId]);
  return { moved: (promoted.rowCount ?? 0) + (moved.rowCount ?? 0), segmentIds: segments.map((row) => row.segment_id) };
}

/** Same count as the segments service keeps: members that are live contacts. */
async function recountSegments(db: Queryable, orgId: string, segmentIds: string[]): Promise<void> {
  if (segmentIds.length === 0) return;
  await db.query(`UPDATE segments s SET member_count = (
      SELECT count(*)::int FROM segment_members m JOIN contacts c ON c.id = m.contact_id AND c.org_id = m.org_id AND c.deleted_at IS NULL
      WHERE m.org_id = s.org_id AND m.segment_id = s.id), updated_at = now()
    WHERE s.org_id = $1 AND s.id = ANY($2::uuid[])`, [orgId, segmentIds]);
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
  // WhatsApp consent is not a field choice: consent the duplicate gave is kept.
  if (keep.whatsapp_consent !== true && merged.whatsapp_consent === true) {
    sets.push('whatsapp_consent = true');
    fieldsTaken.push('whatsappConsent');
  }
  // Custom fields: the kept contact's values win, the merged one's fill gaps.
  values.push(JSON.stringify(merged.custom_fields ?? {}));
  sets.push(`custom_fields = $${values.length}::jsonb || custom_fields`);
  await db.query(`UPDATE contacts SET ${sets.join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2`, values);

  const notes = await queryOne<{ visible: number }>(db, `
    WITH moved AS (UPDATE notes SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2 RETURNING privacy, confidentiality_level)
    SELECT count(*)::int AS visible FROM moved WHERE ${visibleNoteSql('moved', false)}`, [orgId, mergeId, keepId]);
  const tags = await db.query(`INSERT INTO contact_tags (org_id, contact_id, tag_id)
    SELECT org_id, $3, tag_id FROM contact_tags WHERE org_id = $1 AND contact_id = $2 ON CONFLICT DO NOTHING`, [orgId, mergeId, keepId]);
  await db.query('DELETE FROM contact_tags WHERE org_id = $1 AND contact_id = $2', [orgId, mergeId]);
  // Entries that came from a restricted note are moved but not counted (see MergeResult).
  const timeline = await queryOne<{ visible: number }>(db, `
    WITH moved AS (UPDATE timeline_entries SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2 RETURNING source_kind, source_id, restricted)
    SELECT count(*)::int AS visible FROM moved t
      LEFT JOIN notes n ON t.source_kind = 'note' AND n.org_id = $1 AND n.id = t.source_id
    WHERE NOT t.restricted AND (t.source_kind <> 'note' OR (n.id IS NOT NULL AND ${visibleNoteSql('n', false)}))`, [orgId, mergeId, keepId]);
  const outreach = await db.query(`UPDATE outreach_items SET contact_id = $3, updated_at = now() WHERE org_id = $1 AND contact_id = $2`, [orgId, mergeId, keepId]);
  const familyLinks = await moveFamilyLinks(db, orgId, mergeId, keepId);
  const groupMemberships = await moveGroupMemberships(db, orgId, mergeId, keepId);
  const segments = await moveSegmentMemberships(db, orgId, mergeId, keepId);
  // Every other module's rows that name the duplicate (declared on its ModuleDefinition) follow it too.
  const declared = await moveDeclaredReferences(db, orgId, mergeId, keepId);
  if (keep.family_id === null && merged.family_id !== null) {
    await db.query('UPDATE contacts SET family_id = $3 WHERE org_id = $1 AND id = $2', [orgId, keepId, merged.family_id]);
  }
  await db.query('UPDATE contacts SET deleted_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, mergeId]);
  await recountSegments(db, orgId, segments.segmentIds);
  const moved = { notes: notes?.visible ?? 0, tags: tags.rowCount ?? 0, timelineEntries: timeline?.visible ?? 0, outreachItems: outreach.rowCount ?? 0 };
  const links: MovedLinks = {
    familyLinks, groupMemberships, segmentMemberships: segments.moved,
    followUpTasks: declared['follow_up_tasks.contact_id'] ?? 0, statusEvents: declared['contact_status_events.contact_id'] ?? 0, declared,
  };
  await db.query(`INSERT INTO contact_merges (id, org_id, kept_contact_id, merged_contact_id, merged_by_user_id, moved)
    VALUES ($1, $2, $3, $4, $5, $6)`, [randomUUID(), orgId, keepId, mergeId, userId, JSON.stringify({ ...moved, ...links, fieldsTaken })]);
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
    displayNameOf({ first_name: first, last_name: last, preferred_name: pref, email });
  return rows.map((row) => ({
    keepContactId: row.a_id,
    mergeContactId: row.b_id,
    keepName: name(row.a_first, row.a_last, row.a_pref, row.a_email),
    mergeName: name(row.b_first, row.b_last, row.b_pref, row.b_email),
    matchedOn: [row.m_email && 'email', row.m_phone && 'phone', row.m_name && 'name'].filter(Boolean) as DuplicatePair['matchedOn'],
  }));
}
