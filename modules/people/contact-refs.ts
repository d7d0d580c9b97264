import type { Queryable } from '../../db/pool';
import { sqlIdentifier } from '../../db/sql';
import type { ContactRef, ModuleDefinition } from '../module';
import { registeredModules } from '../registry';

/**
 * Where contact ids live across every module, as each module declares them
 * (ModuleDefinition.contactRefs). Merge and erasure walk this list, so a table a new
 * module adds is moved and erased without an edit here; a test fails for any
 * contact-id column no module declares.
 */

/** The people module's own references. 'custom' ones are handled by merge.ts / eraseRecordsOf themselves. */
export const peopleContactRefs: readonly ContactRef[] = [
  { table: 'notes', column: 'contact_id', onMerge: 'custom', onErase: 'custom' },
  { table: 'contact_tags', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'timeline_entries', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'outreach_items', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'family_relationships', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'family_relationships', column: 'related_contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'crm_group_members', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'segment_members', column: 'contact_id', onMerge: 'custom', onErase: 'delete' },
  { table: 'follow_up_tasks', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  { table: 'contact_status_events', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  // The merge record itself: it names both contacts and is what erasure follows to the duplicates.
  { table: 'contact_merges', column: 'kept_contact_id', onMerge: 'custom', onErase: 'custom' },
  { table: 'contact_merges', column: 'merged_contact_id', onMerge: 'custom', onErase: 'custom' },
];

/** Every module's declared references, checked to be plain identifiers (they are written into SQL). */
export function allContactRefs(modules: readonly ModuleDefinition[] = registeredModules()): Array<ContactRef & { module: string }> {
  return modules.flatMap((module) => (module.contactRefs ?? []).map((ref) => ({
    ...ref, table: sqlIdentifier(ref.table), column: sqlIdentifier(ref.column), module: module.name,
    ...(ref.alsoClear ? { alsoClear: ref.alsoClear.map((column) => sqlIdentifier(column)) } : {}),
  })));
}

/** Takes, once each and before any declared row is rewritten, the locks the owning modules' writers take first (ContactRef.lockFirst). */
async function takeOwnersLocks(db: Queryable, orgId: string, refs: readonly ContactRef[]): Promise<void> {
  const locks = new Set(refs.flatMap((ref) => (ref.lockFirst ? [ref.lockFirst] : [])));
  for (const lock of locks) await lock(db, orgId);
}

/** Repoints rows declared 'move' from the merged contact to the kept one; rows moved, by `table.column`. */
export async function moveDeclaredReferences(db: Queryable, orgId: string, mergeId: string, keepId: string): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  const refs = allContactRefs().filter((r) => r.onMerge === 'move');
  await takeOwnersLocks(db, orgId, refs);
  for (const ref of refs) {
    const result = ref.list
      // A list that already names the kept contact only loses the merged id; otherwise it takes the kept id in its place.
      ? await db.query(`UPDATE ${ref.table} SET ${ref.column} = CASE WHEN $3::uuid = ANY(${ref.column}) THEN array_remove(${ref.column}, $2::uuid)
          ELSE array_replace(${ref.column}, $2::uuid, $3::uuid) END WHERE org_id = $1 AND $2::uuid = ANY(${ref.column})`, [orgId, mergeId, keepId])
      : await db.query(`UPDATE ${ref.table} SET ${ref.column} = $3 WHERE org_id = $1 AND ${ref.column} = $2`, [orgId, mergeId, keepId]);
    moved[`${ref.table}.${ref.column}`] = result.rowCount ?? 0;
  }
  return moved;
}

/**
 * Removes what other records hold about an erased contact: 'delete' rows go, 'null' rows stay
 * (a money record must) with the person's id cleared (taken out of a list column, and the columns
 * declared alongside it cleared too). Runs before the contact row is deleted,
 * so it does not depend on each table's ON DELETE rule.
 */
export async function eraseDeclaredReferences(db: Queryable, orgId: string, contactId: string): Promise<void> {
  const refs = allContactRefs();
  await takeOwnersLocks(db, orgId, refs);
  for (const ref of refs) {
    const names = ref.list ? `$2::uuid = ANY(${ref.column})` : `${ref.column} = $2`;
    if (ref.onErase === 'delete') await db.query(`DELETE FROM ${ref.table} WHERE org_id = $1 AND ${names}`, [orgId, contactId]);
    else if (ref.onErase === 'null') {
      const cleared = [ref.list ? `${ref.column} = array_remove(${ref.column}, $2::uuid)` : `${ref.column} = NULL`, ...(ref.alsoClear ?? []).map((column) => `${column} = NULL`)];
      await db.query(`UPDATE ${ref.table} SET ${cleared.join(', ')} WHERE org_id = $1 AND ${names}`, [orgId, contactId]);
    }
  }
}
