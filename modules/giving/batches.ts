import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound, type RowOf } from '../kit';
import type { GivingBatch } from './models/batches';
import { minorUnits } from './money';
import { commitThresholdOf } from './settings';
import type { OrgSettings } from '../tool';

/**
 * Batches: donations are recorded into a batch, which is a staging area until it is committed.
 * Only committed batches count anywhere (a giver's history, totals, statements, claims); a
 * committed batch never changes again (a correction is an adjusting entry in a new batch).
 *
 * Locking: whatever adds to or removes from a batch holds its row FOR SHARE (so many can add at
 * once), and a commit holds it FOR UPDATE, so a commit waits for the adds in flight and no add
 * lands in a batch after it was committed.
 */

/** A SQL condition: donation `d` is in a committed batch (the only donations that count anywhere). */
export const COMMITTED_DONATION_SQL = "EXISTS (SELECT 1 FROM giving_batches cb WHERE cb.id = d.batch_id AND cb.status = 'committed')";

export const batchSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(['in_progress', 'committed']),
  currency: z.string(),
  donationCount: z.number().int(),
  total: z.number().int().describe('Sum of the amounts in minor units (adjusting entries may be negative)'),
  createdByUserId: z.uuid().nullable(),
  createdAt: z.string(),
  committedAt: z.string().nullable(),
  committedByUserId: z.uuid().nullable(),
}).strict();
export type BatchView = z.infer<typeof batchSchema>;

type BatchRow = Pick<RowOf<GivingBatch>, 'id' | 'name' | 'status' | 'currency' | 'created_by_user_id' | 'created_at' | 'committed_at' | 'committed_by_user_id'>;

const BATCH_COLUMNS = 'id, name, status, currency, created_by_user_id, created_at, committed_at, committed_by_user_id';

async function batchTotals(db: Queryable, batchIds: readonly string[]): Promise<Map<string, { count: number; total: number; gross: number }>> {
  if (batchIds.length === 0) return new Map();
  const rows = await queryRows<{ batch_id: string; n: number; total: string; gross: string }>(db, `SELECT batch_id, count(*)::int AS n,
      COALESCE(sum(amount), 0)::text AS total, COALESCE(sum(abs(amount)), 0)::text AS gross
    FROM giving_donations WHERE batch_id = ANY($1::uuid[]) GROUP BY batch_id`, [batchIds]);
  return new Map(rows.map((row) => [row.batch_id, { count: row.n, total: minorUnits(row.total), gross: minorUnits(row.gross) }]));
}

function batchView(row: BatchRow, totals: { count: number; total: number } | undefined): BatchView {
  return {
    id: row.id, name: row.name, status: row.status, currency: row.currency, donationCount: totals?.count ?? 0, total: totals?.total ?? 0,
    createdByUserId: row.created_by_user_id, createdAt: row.created_at.toISOString(),
    committedAt: row.committed_at?.toISOString() ?? null, committedByUserId: row.committed_by_user_id,
  };
}

export async function createBatch(db: Queryable, orgId: string, input: { name: string; currency: string; userId: string | null }): Promise<BatchView> {
  const id = randomUUID();
  await db.query('INSERT INTO giving_batches (id, org_id, name, currency, created_by_user_id) VALUES ($1, $2, $3, $4, $5)', [
    id, orgId, input.name, input.currency, input.userId,
  ]);
  return getBatch(db, orgId, id);
}

export async function getBatch(db: Queryable, orgId: string, batchId: string): Promise<BatchView> {
  const row = await queryOne<BatchRow>(db, `SELECT ${BATCH_COLUMNS} FROM giving_batches WHERE org_id = $1 AND id = $2`, [orgId, batchId]);
  if (!row) throw notFound('Batch', batchId, 'giving_list_batches lists batches.');
  return batchView(row, (await batchTotals(db, [batchId])).get(batchId));
}

/**
 * The batch's row, locked: 'share' for adding or removing donations (many at once), 'update'
 * to commit. Another organisation's batch is missing.
 */
export async function lockBatch(db: Queryable, orgId: string, batchId: string, mode: 'share' | 'update'): Promise<BatchRow> {
  const row = await queryOne<BatchRow>(db, `SELECT ${BATCH_COLUMNS} FROM giving_batches WHERE org_id = $1 AND id = $2 FOR ${mode === 'share' ? 'SHARE' : 'UPDATE'}`, [orgId, batchId]);
  if (!row) throw notFound('Batch', batchId, 'giving_list_batches lists batches.');
  return row;
}

/** An open batch to add to or remove from, held FOR SHARE until the transaction ends; a committed one is refused. */
export async function lockOpenBatch(db: Queryable, orgId: string, batchId: string): Promise<BatchRow> {
  const row = await lockBatch(db, orgId, batchId, 'share');
  if (row.status === 'committed') throw committedBatchError(row);
  return row;
}

function committedBatchError(row: BatchRow): StewardError {
  return new StewardError('conflict', `Batch "${row.name}" is committed and can no longer change`, {
    hint: 'Record new gifts in another batch; correct a committed gift with giving_adjust_donation (an adjusting entry in a new batch).',
    details: { batchId: row.id, status: row.status },
  });
}

export async function listBatches(db: Queryable, orgId: string, input: { status?: 'in_progress' | 'committed'; limit: number; cursor?: string }) {
  const page = await listPage<BatchRow>(db, {
    table: 'giving_batches', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true,
    where: input.status ? 'status = $4' : undefined, values: input.status ? [input.status] : [],
  });
  const totals = await batchTotals(db, page.rows.map((row) => row.id));
  return { batches: page.rows.map((row) => batchView(row, totals.get(row.id))), nextCursor: page.nextCursor };
}

/** Gross of a batch (sum of absolute amounts): what the approval threshold compares, so a large correction needs approval too. */
export async function batchGross(db: Queryable, batchId: string): Promise<number> {
  return (await batchTotals(db, [batchId])).get(batchId)?.gross ?? 0;
}

/**
 * Whether committing this batch needs an owner/admin's approval: its gross passes the
 * organisation's threshold. A missing or committed batch needs none (the commit itself refuses it).
 */
export async function commitNeedsApproval(db: Queryable, orgId: string, batchId: string, expectedTotal?: number): Promise<boolean> {
  const batch = await queryOne<{ status: string }>(db, 'SELECT status FROM giving_batches WHERE org_id = $1 AND id = $2', [orgId, batchId]);
  if (!batch || batch.status !== 'in_progress') return false;
  if ((await batchGross(db, batchId)) <= (await commitThresholdOf(db, orgId))) return false;
  if (expectedTotal === undefined) throw unpinnedCommit(batchId, (await batchTotals(db, [batchId])).get(batchId)?.total ?? 0);
  return true;
}

/**
 * A commit an owner or admin approves names the total they will see: without it, gifts added to the
 * batch after the proposal would be committed under an approval of a smaller batch.
 */
function unpinnedCommit(batchId: string, total: number): StewardError {
  return new StewardError('validation_failed', 'A commit that needs approval names expectedTotal, the batch total the approver will see and the only total it commits', {
    issues: [{ path: 'expectedTotal', message: 'required when the commit needs approval' }],
    details: { batchId, total }, hint: `Check the batch (giving_list_donations { batchId }) and commit with expectedTotal: ${total}.`,
  });
}

/**
 * Commits an open batch under its row lock. `approved` says the call is an approved proposal's
 * action; without it a batch over the threshold is refused (the gate routes such calls to a
 * proposal, and this re-check under the lock covers gifts added since). `expectedTotal`, when
 * given, must match, so what an approver saw is what gets committed.
 */
export async function commitBatch(
  db: Queryable, org: OrgSettings, batchId: string, input: { userId: string | null; approved: boolean; expectedTotal?: number },
): Promise<BatchView> {
  const row = await lockBatch(db, org.id, batchId, 'update');
  if (row.status === 'committed') throw committedBatchError(row);
  const totals = (await batchTotals(db, [batchId])).get(batchId);
  if (!totals || totals.count === 0) {
    throw new StewardError('validation_failed', `Batch "${row.name}" has no donations to commit`, {
      hint: 'Add gifts with giving_add_batch_donations or giving_record_donation { batchId }.', issues: [{ path: 'batchId', message: 'empty batch' }],
    });
  }
  if (input.expectedTotal !== undefined && input.expectedTotal !== totals.total) {
    throw new StewardError('conflict', `Batch "${row.name}" totals ${totals.total}, not the expected ${input.expectedTotal}`, {
      hint: 'Review the batch (giving_list_donations { batchId }) and commit with its current total.', details: { total: totals.total, donationCount: totals.count },
    });
  }
  const commitApprovalThreshold = await commitThresholdOf(db, org.id);
  if (!input.approved && totals.gross > commitApprovalThreshold) {
    throw new StewardError('conflict', `Batch "${row.name}" (${totals.gross} minor units) is above the approval threshold of ${commitApprovalThreshold}`, {
      hint: 'Call giving_commit_batch again: it becomes a proposal for an owner or admin to approve.',
    });
  }
  await db.query(`UPDATE giving_batches SET status = 'committed', committed_at = now(), committed_by_user_id = $3, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [org.id, batchId, input.userId]);
  return getBatch(db, org.id, batchId);
}
