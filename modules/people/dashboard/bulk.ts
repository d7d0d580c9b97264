import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { recordJobChange } from '../../audit/api';
import { notFound } from '../../kit';
import { getOrgSettings } from '../../platform/api';
import { MAX_BULK_UPDATE } from '../contacts-bulk';
import { getContact, updateContact } from '../contacts';
import { addGroupMember, removeGroupMember, requireGroup } from '../crm-groups';
import { displayNameOf } from '../display-name';
import { MEMBERSHIP_STATUSES } from '../schemas';
import { requireSegment } from '../segments';
import { addContactTags, removeContactTags, requireTag } from '../tags';

/**
 * Bulk operations on contacts, as the dashboard's bulk bar does them: previewed first (who is
 * selected and, for a sample, what would change), then run as a job. The job is a Temporal workflow
 * (contactsBulkOperationWorkflow) taking the contacts in batches of MAX_BULK_UPDATE, each batch one
 * transaction that also advances the job's progress, so a retried batch never applies twice.
 * At most MAX_BULK_OPERATION_CONTACTS contacts are taken by one operation.
 */
export const MAX_BULK_OPERATION_CONTACTS = 1000;
export const BULK_BATCH = MAX_BULK_UPDATE;
/** A preview older than this must be made again before it is run: the selection may have moved on. */
export const PREVIEW_LIFETIME_MINUTES = 30;

export const bulkOperationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('add_tags'), tags: z.array(z.string().trim().min(1).max(100)).min(1).max(10) }),
  z.object({ kind: z.literal('remove_tags'), tags: z.array(z.string().trim().min(1).max(100)).min(1).max(10) }),
  z.object({ kind: z.literal('set_membership_status'), membershipStatus: z.enum(MEMBERSHIP_STATUSES) }),
  z.object({ kind: z.literal('add_to_group'), groupId: z.uuid() }),
  z.object({ kind: z.literal('remove_from_group'), groupId: z.uuid() }),
]);
export type BulkOperationSpec = z.output<typeof bulkOperationSchema>;

export const bulkSelectionSchema = z.object({
  contactIds: z.array(z.uuid()).min(1).max(MAX_BULK_OPERATION_CONTACTS).optional().describe(`Up to ${MAX_BULK_OPERATION_CONTACTS} contact ids`),
  segmentId: z.uuid().optional().describe('Every contact in this segment'),
  tag: z.string().trim().min(1).max(100).optional().describe('Every contact with this tag'),
});
export type BulkSelection = z.output<typeof bulkSelectionSchema>;

type OperationRow = {
  id: string; operation: string; params: BulkOperationSpec; contact_ids: string[]; total: number; done: number; applied: number; skipped: number;
  status: 'previewed' | 'running' | 'completed' | 'failed'; error: string | null; created_at: Date; started_at: Date | null; finished_at: Date | null;
};

export function operationView(row: OperationRow) {
  return {
    id: row.id, operation: row.params, status: row.status, total: row.total, done: row.done, changed: row.applied, skipped: row.skipped,
    percent: row.total === 0 ? 100 : Math.floor((row.done / row.total) * 100), error: row.error,
    createdAt: row.created_at.toISOString(), startedAt: row.started_at?.toISOString() ?? null, finishedAt: row.finished_at?.toISOString() ?? null,
  };
}
export type OperationView = ReturnType<typeof operationView>;

async function selectContacts(db: Queryable, orgId: string, selection: BulkSelection): Promise<string[]> {
  const given = [selection.contactIds, selection.segmentId, selection.tag].filter((value) => value !== undefined).length;
  if (given !== 1) {
    throw new StewardError('validation_failed', 'Select the contacts one way: contactIds, segmentId or tag', {
      issues: [{ path: 'selection', message: given === 0 ? 'nothing selected' : 'more than one selection' }],
    });
  }
  let where = 'c.id = ANY($2::uuid[])';
  let value: unknown = selection.contactIds;
  if (selection.segmentId) {
    await requireSegment(db, orgId, selection.segmentId);
    where = 'EXISTS (SELECT 1 FROM segment_members m WHERE m.org_id = c.org_id AND m.contact_id = c.id AND m.segment_id = $2)';
    value = selection.segmentId;
  } else if (selection.tag) {
    const tag = await requireTag(db, orgId, { name: selection.tag });
    where = 'EXISTS (SELECT 1 FROM contact_tags t WHERE t.org_id = c.org_id AND t.contact_id = c.id AND t.tag_id = $2)';
    value = tag.id;
  }
  const rows = await queryRows<{ id: string }>(db, `SELECT c.id FROM contacts c WHERE c.org_id = $1 AND c.deleted_at IS NULL AND ${where}
    ORDER BY c.created_at, c.id LIMIT $3`, [orgId, value, MAX_BULK_OPERATION_CONTACTS + 1]);
  if (rows.length > MAX_BULK_OPERATION_CONTACTS) {
    throw new StewardError('validation_failed', `The selection holds more than ${MAX_BULK_OPERATION_CONTACTS} contacts; one bulk operation takes at most that many`, {
      hint: 'Narrow the selection (a smaller segment or tag), or split it into several operations.',
    });
  }
  if (selection.contactIds && rows.length < new Set(selection.contactIds).size) {
    const found = new Set(rows.map((row) => row.id));
    const missing = [...new Set(selection.contactIds)].filter((id) => !found.has(id));
    throw new StewardError('not_found', `${missing.length} of the selected contacts were not found`, {
      issues: missing.slice(0, 20).map((id) => ({ path: 'contactIds', message: `${id} was not found` })),
      hint: 'Select contacts with people_search_contacts or people_list_contacts.',
    });
  }
  return rows.map((row) => row.id);
}

/** What one contact's change would be, read only. */
async function wouldChange(db: Queryable, orgId: string, contactId: string, spec: BulkOperationSpec): Promise<{ change: boolean; detail: string }> {
  const contact = await getContact(db, orgId, contactId);
  if (!contact) return { change: false, detail: 'no longer a live contact' };
  const has = new Set(contact.tags.map((tag) => tag.toLowerCase()));
  switch (spec.kind) {
    case 'add_tags': {
      const missing = spec.tags.filter((tag) => !has.has(tag.toLowerCase()));
      return missing.length ? { change: true, detail: `gains ${missing.join(', ')}` } : { change: false, detail: 'already has every tag' };
    }
    case 'remove_tags': {
      const present = spec.tags.filter((tag) => has.has(tag.toLowerCase()));
      return present.length ? { change: true, detail: `loses ${present.join(', ')}` } : { change: false, detail: 'has none of the tags' };
    }
    case 'set_membership_status':
      return contact.membershipStatus === spec.membershipStatus
        ? { change: false, detail: `already ${spec.membershipStatus}` }
        : { change: true, detail: `${contact.membershipStatus ?? 'no stage'} → ${spec.membershipStatus}` };
    case 'add_to_group':
    case 'remove_from_group': {
      const member = await queryOne(db, 'SELECT 1 FROM crm_group_members WHERE org_id = $1 AND group_id = $2 AND contact_id = $3', [orgId, spec.groupId, contactId]);
      if (spec.kind === 'add_to_group') return member ? { change: false, detail: 'already in the team' } : { change: true, detail: 'joins the team' };
      return member ? { change: true, detail: 'leaves the team' } : { change: false, detail: 'not in the team' };
    }
  }
}

export const PREVIEW_SAMPLE = 20;

export async function previewBulkOperation(db: Queryable, orgId: string, userId: string, spec: BulkOperationSpec, selection: BulkSelection) {
  if (spec.kind === 'add_to_group' || spec.kind === 'remove_from_group') await requireGroup(db, orgId, { groupId: spec.groupId });
  const ids = await selectContacts(db, orgId, selection);
  const sample = [];
  let wouldChangeCount = 0;
  for (const [index, id] of ids.entries()) {
    const outcome = await wouldChange(db, orgId, id, spec);
    if (outcome.change) wouldChangeCount += 1;
    if (index < PREVIEW_SAMPLE) {
      const row = await queryOne<{ first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db,
        'SELECT first_name, last_name, preferred_name, email FROM contacts WHERE org_id = $1 AND id = $2', [orgId, id]);
      sample.push({ contactId: id, displayName: row ? displayNameOf(row) : id, wouldChange: outcome.change, detail: outcome.detail });
    }
  }
  const id = randomUUID();
  const row = await queryOne<OperationRow>(db, `INSERT INTO people_bulk_operations (id, org_id, operation, params, contact_ids, total, status, created_by_user_id)
    VALUES ($1, $2, $3, $4::jsonb, $5::uuid[], $6, 'previewed', $7) RETURNING *`, [id, orgId, spec.kind, JSON.stringify(spec), ids, ids.length, userId]);
  return { previewId: id, operation: operationView(row!), selected: ids.length, wouldChange: wouldChangeCount, unchanged: ids.length - wouldChangeCount, sample };
}

/** Turns a fresh preview into a running job; the follow-up starts its workflow. A preview runs once. */
export async function startBulkOperation(db: Queryable, orgId: string, previewId: string) {
  const row = await queryOne<OperationRow>(db, 'SELECT * FROM people_bulk_operations WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, previewId]);
  if (!row) throw notFound('Bulk operation preview', previewId, 'Preview the operation first (mode: "preview"), then run it with the previewId it gives.');
  if (row.status !== 'previewed') throw new StewardError('conflict', `This preview was already run (the operation is ${row.status})`, { hint: 'people_get_contacts_bulk_operation shows its progress.' });
  if (row.created_at.getTime() < Date.now() - PREVIEW_LIFETIME_MINUTES * 60_000) {
    throw new StewardError('conflict', `The preview is over ${PREVIEW_LIFETIME_MINUTES} minutes old`, { hint: 'Preview the operation again, then run the new previewId.' });
  }
  const started = await queryOne<OperationRow>(db, `UPDATE people_bulk_operations SET status = CASE WHEN total = 0 THEN 'completed' ELSE 'running' END,
    started_at = now(), finished_at = CASE WHEN total = 0 THEN now() END WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, previewId]);
  return operationView(started!);
}

export async function getBulkOperation(db: Queryable, orgId: string, operationId: string) {
  const row = await queryOne<OperationRow>(db, 'SELECT * FROM people_bulk_operations WHERE org_id = $1 AND id = $2', [orgId, operationId]);
  if (!row) throw notFound('Bulk operation', operationId);
  return operationView(row);
}

/** One batch of a running operation, in the caller's transaction: applies it and advances the progress; answers whether the job is finished. */
export async function runBulkBatch(db: Queryable, orgId: string, operationId: string): Promise<{ finished: boolean; done: number; total: number }> {
  const row = await queryOne<OperationRow>(db, 'SELECT * FROM people_bulk_operations WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, operationId]);
  if (!row || row.status !== 'running') return { finished: true, done: row?.done ?? 0, total: row?.total ?? 0 };
  const batch = row.contact_ids.slice(row.done, row.done + BULK_BATCH);
  const spec = row.params;
  const org = await getOrgSettings(db, orgId);
  const changedIds: string[] = [];
  for (const contactId of batch) {
    const outcome = await wouldChange(db, orgId, contactId, spec);
    if (!outcome.change) continue;
    switch (spec.kind) {
      case 'add_tags': await addContactTags(db, orgId, contactId, spec.tags); break;
      case 'remove_tags': await removeContactTags(db, orgId, contactId, spec.tags); break;
      case 'set_membership_status': await updateContact(db, org, contactId, { membershipStatus: spec.membershipStatus }); break;
      case 'add_to_group': await addGroupMember(db, orgId, { groupId: spec.groupId }, { contactId }); break;
      case 'remove_from_group': await removeGroupMember(db, orgId, { groupId: spec.groupId }, { contactId }); break;
    }
    changedIds.push(contactId);
  }
  const changed = changedIds.length;
  const done = row.done + batch.length;
  const finished = done >= row.total;
  // One event per batch (not per contact): what was applied, to whom by id, the progress before and after.
  await recordJobChange(db, {
    orgId, channel: 'job:people.bulk_operation', module: 'people', noun: 'bulk_operation', verb: 'apply', target: { type: 'bulk_operation', id: operationId },
    fields: { kind: spec.kind, done, applied: changed, skipped: batch.length - changed, status: finished ? 'completed' : 'running' },
    previous: { done: row.done, status: row.status }, contactIds: changedIds,
  });
  await db.query(`UPDATE people_bulk_operations SET done = $3, applied = applied + $4, skipped = skipped + $5,
    status = CASE WHEN $6 THEN 'completed' ELSE status END, finished_at = CASE WHEN $6 THEN now() ELSE finished_at END WHERE org_id = $1 AND id = $2`,
  [orgId, operationId, done, changed, batch.length - changed, finished]);
  return { finished, done, total: row.total };
}

export async function failBulkOperation(db: Queryable, orgId: string, operationId: string, error: string): Promise<void> {
  const failed = await db.query(`UPDATE people_bulk_operations SET status = 'failed', error = $3, finished_at = now() WHERE org_id = $1 AND id = $2 AND status = 'running'`,
    [orgId, operationId, error.slice(0, 500)]);
  if ((failed.rowCount ?? 0) === 0) return;
  await recordJobChange(db, {
    orgId, channel: 'job:people.bulk_operation', module: 'people', noun: 'bulk_operation', verb: 'fail', target: { type: 'bulk_operation', id: operationId },
    fields: { status: 'failed' }, previous: { status: 'running' }, outcome: 'failed',
  });
}
