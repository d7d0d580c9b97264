import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/pool';
import { sequelize, withModels } from '../../db/sequelize';
import type { TimelineSync } from '../tool';
import { requireContact } from './contacts';
import { TimelineEntry } from './models';
import { RESTRICTED_NOTE_REMOVAL, visibleNoteSql } from './notes';

/**
 * Upserts timeline entries; the (source, kind) key makes a retried sync a no-op. SQL: an insert from a
 * select (an entry for a contact id that is not the organisation's writes nothing) with ON CONFLICT.
 */
export async function syncTimelineEntries(db: Queryable, orgId: string, entries: TimelineSync[]): Promise<number> {
  let written = 0;
  for (const entry of entries) {
    const result = await db.query(`
      INSERT INTO timeline_entries (id, org_id, contact_id, kind, source_kind, source_id, summary, occurred_at, restricted)
      SELECT $1, $2, c.id, $4, $5, $6, $7, COALESCE($8::timestamptz, now()), $9 FROM contacts c WHERE c.org_id = $2 AND c.id = $3
      ON CONFLICT (org_id, source_kind, source_id, kind) DO UPDATE SET summary = EXCLUDED.summary, restricted = EXCLUDED.restricted`,
      [randomUUID(), orgId, entry.contactId, entry.kind, entry.sourceKind, entry.sourceId, entry.summary, entry.occurredAt ?? null, entry.restricted ?? false]);
    written += result.rowCount ?? 0;
  }
  return written;
}

/** A stable uuid naming one thing made of parts (a job and a contact): the same parts give the same id, so a retried write is a no-op. */
export function uuidOfParts(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Many unrestricted entries in one statement (a background job's chunk); keyed like syncTimelineEntries,
 * so a chunk written again changes nothing more, and a contact not the organisation's gets none.
 */
export async function addTimelineEntries(db: Queryable, orgId: string, entries: ReadonlyArray<{ contactId: string; kind: string; sourceKind: string; sourceId: string; summary: string }>): Promise<number> {
  if (entries.length === 0) return 0;
  const result = await db.query(`
    INSERT INTO timeline_entries (id, org_id, contact_id, kind, source_kind, source_id, summary, occurred_at, restricted)
    SELECT gen_random_uuid(), $1, c.id, t.kind, t.source_kind, t.source_id, t.summary, now(), false
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::text[]) AS t(contact_id, kind, source_kind, source_id, summary)
    JOIN contacts c ON c.org_id = $1 AND c.id = t.contact_id
    ON CONFLICT (org_id, source_kind, source_id, kind) DO NOTHING`,
  [orgId, entries.map((e) => e.contactId), entries.map((e) => e.kind), entries.map((e) => e.sourceKind), entries.map((e) => e.sourceId), entries.map((e) => e.summary)]);
  return result.rowCount ?? 0;
}

/** The ids of the restricted entries a read showed: what its access event names (never their words). */
export function restrictedEntryIds(entries: ReadonlyArray<{ id: string; restricted: boolean }>): string[] {
  return entries.filter((entry) => entry.restricted).map((entry) => entry.id);
}

/**
 * A read's access record when it showed restricted care entries of a contact (ToolAudit.access): the
 * kernel writes one `access` event naming the reader, the contact and the entries' ids.
 */
export function careAccessOf(contactId: string, ids: string[]): { target: { type: string; id: string }; records: string[] } | null {
  return ids.length > 0 ? { target: { type: 'contact', id: contactId }, records: ids } : null;
}

/**
 * Whether an entry, as shown, is restricted (over `t`, the entry, joined to `n`, its note if any): its
 * own flag, a restricted note's removal, or a note restricted now. Shared by every read of the timeline.
 */
export const RESTRICTED_ENTRY_SQL = `(t.restricted OR t.source_kind = '${RESTRICTED_NOTE_REMOVAL}' OR (t.source_kind = 'note' AND NOT ${visibleNoteSql('n', false)}))`;

export async function listTimeline(db: Queryable, orgId: string, contactId: string, canSeeRestricted: boolean, limit: number) {
  await requireContact(db, orgId, contactId);
  // Entries that came from a note follow that note's visibility, read afresh so a later privacy change applies:
  // a join through visibleNoteSql, so SQL, read into TimelineEntry models.
  const entries = await withModels(db, (transaction) => sequelize.query(`
    SELECT t.id, t.kind, t.summary, t.source_kind, t.source_id, t.occurred_at,
      -- restricted as shown: the entry's own flag, a restricted note's removal, or a note restricted now
      ${RESTRICTED_ENTRY_SQL} AS restricted
    FROM timeline_entries t
    LEFT JOIN notes n ON t.source_kind = 'note' AND n.id = t.source_id AND n.org_id = t.org_id
    WHERE t.org_id = $1 AND t.contact_id = $2
      AND (t.source_kind <> 'note' OR (n.id IS NOT NULL AND ${visibleNoteSql('n', canSeeRestricted)}))
      AND ($4 OR (t.source_kind <> '${RESTRICTED_NOTE_REMOVAL}' AND NOT t.restricted))
    ORDER BY t.occurred_at DESC, t.id DESC LIMIT $3`,
  { bind: [orgId, contactId, limit, canSeeRestricted], transaction, model: TimelineEntry, mapToModel: true }));
  return entries.map((entry) => ({
    id: entry.id, kind: entry.kind, summary: entry.summary, sourceKind: entry.sourceKind, sourceId: entry.sourceId,
    occurredAt: entry.occurredAt.toISOString(), restricted: entry.restricted === true,
  }));
}
