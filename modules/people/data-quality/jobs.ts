import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound } from '../../kit';
import { UNDO_DAYS } from './rules';

/**
 * Data-quality jobs: a scan, a fix being applied, a fix being undone. A tool call only records the
 * job (queued) and its follow-up starts dataQualityJobWorkflow (workflows/data-quality.ts), which
 * runs it step by step as activities, each step its own short transaction that moves `done`
 * towards `total`; so the work never runs inside a tool call, and every reader sees its progress.
 */

export type JobKind = 'scan' | 'apply_fix' | 'undo_fix';
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface JobRow {
  id: string;
  org_id: string;
  kind: JobKind;
  status: JobStatus;
  done: number;
  total: number;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface JobView {
  id: string;
  kind: JobKind;
  status: JobStatus;
  progress: { done: number; total: number; percent: number };
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** For a completed fix: until when it can be undone (null when it cannot, or was undone). */
  undoableUntil: string | null;
  /** The workflow running it (Temporal UI). */
  workflowId: string;
}

export function dataQualityJobWorkflowId(jobId: string): string {
  return `data-quality-job-${jobId}`;
}

/** Result fields kept private to the runner (cursors, running tallies). */
const PRIVATE_RESULT_KEYS = new Set(['cursor', 'tallies', 'stage', 'startedMs', 'staleIds']);

export function jobView(row: JobRow): JobView {
  const result = row.result ? Object.fromEntries(Object.entries(row.result).filter(([key]) => !PRIVATE_RESULT_KEYS.has(key))) : null;
  const undoable = row.kind === 'apply_fix' && row.status === 'completed' && row.finished_at && !row.result?.undoneByJobId
    && Date.now() - new Date(row.finished_at).getTime() < UNDO_DAYS * 86_400_000;
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    progress: { done: row.done, total: row.total, percent: row.total === 0 ? (row.status === 'completed' ? 100 : 0) : Math.floor((100 * row.done) / row.total) },
    result,
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: row.started_at ? new Date(row.started_at).toISOString() : null,
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    undoableUntil: undoable ? new Date(new Date(row.finished_at!).getTime() + UNDO_DAYS * 86_400_000).toISOString() : null,
    workflowId: dataQualityJobWorkflowId(row.id),
  };
}

export async function insertJob(db: Queryable, orgId: string, kind: JobKind, params: Record<string, unknown>, userId: string | null, total = 0): Promise<JobRow> {
  const row = await queryOne<JobRow>(db, `INSERT INTO dq_jobs (id, org_id, kind, params, created_by, total)
    VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`, [randomUUID(), orgId, kind, JSON.stringify(params), userId, total]);
  return row!;
}

export async function requireJob(db: Queryable, orgId: string, jobId: string, lock = false): Promise<JobRow> {
  const row = await queryOne<JobRow>(db, `SELECT * FROM dq_jobs WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, jobId]);
  if (!row) throw notFound('Data quality job', jobId, 'List jobs with people_list_data_quality_jobs.');
  return row;
}

export async function listJobs(db: Queryable, orgId: string, filter: { kind?: JobKind; status?: JobStatus; limit: number; offset: number }): Promise<{ jobs: JobView[]; total: number }> {
  const rows = await queryRows<JobRow & { full_count: number }>(db, `SELECT *, count(*) OVER ()::int AS full_count FROM dq_jobs
    WHERE org_id = $1 AND ($2::text IS NULL OR kind = $2) AND ($3::text IS NULL OR status = $3)
    ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, [orgId, filter.kind ?? null, filter.status ?? null, filter.limit, filter.offset]);
  return { jobs: rows.map(jobView), total: rows[0]?.full_count ?? 0 };
}

/**
 * A scan job: a scan already queued or running is answered instead of starting a second one
 * (the organisation's row in dq_jobs is locked by an advisory lock, so two calls at once start one).
 */
export async function startScanJob(db: Queryable, orgId: string, country: string, userId: string | null): Promise<{ job: JobRow; alreadyRunning: boolean }> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('dq_scan:' || $1::text))`, [orgId]);
  const running = await queryOne<JobRow>(db, `SELECT * FROM dq_jobs WHERE org_id = $1 AND kind = 'scan' AND status IN ('queued', 'running')
    ORDER BY created_at DESC LIMIT 1`, [orgId]);
  if (running) return { job: running, alreadyRunning: true };
  return { job: await insertJob(db, orgId, 'scan', { scanId: randomUUID(), country }, userId), alreadyRunning: false };
}

/** An undo of a completed fix, within its 30 days; one undo per fix (a second call answers the first). */
export async function startUndoJob(db: Queryable, orgId: string, fixJobId: string, userId: string | null): Promise<{ job: JobRow; alreadyRunning: boolean }> {
  const fix = await requireJob(db, orgId, fixJobId, true);
  if (fix.kind !== 'apply_fix') {
    throw new StewardError('validation_failed', `Job ${fixJobId} is a ${fix.kind} job, not a fix`, {
      issues: [{ path: 'fixJobId', message: 'must be an apply_fix job' }], hint: 'Undo takes the id of a job started by people_apply_data_quality_fix or people_apply_data_quality_special_fix.',
    });
  }
  const undoneBy = fix.result?.undoneByJobId;
  if (typeof undoneBy === 'string') return { job: await requireJob(db, orgId, undoneBy), alreadyRunning: true };
  if (fix.status !== 'completed') {
    throw new StewardError('conflict', `The fix is ${fix.status}; only a completed fix can be undone`, { hint: 'Wait for the job to finish (people_get_data_quality_job), then undo it.' });
  }
  if (Date.now() - new Date(fix.finished_at!).getTime() >= UNDO_DAYS * 86_400_000) {
    throw new StewardError('conflict', `The fix finished more than ${UNDO_DAYS} days ago and can no longer be undone`, { hint: 'Correct the contacts by hand with people_update_contact.' });
  }
  const changes = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM dq_changes WHERE org_id = $1 AND job_id = $2 AND undone_at IS NULL', [orgId, fixJobId]);
  const job = await insertJob(db, orgId, 'undo_fix', { fixJobId }, userId, changes?.n ?? 0);
  await db.query(`UPDATE dq_jobs SET result = coalesce(result, '{}'::jsonb) || jsonb_build_object('undoneByJobId', $3::text) WHERE org_id = $1 AND id = $2`, [orgId, fixJobId, job.id]);
  // The preview may be applied again once its application is undone.
  await db.query('UPDATE dq_previews SET undone_at = now() WHERE org_id = $1 AND applied_job_id = $2', [orgId, fixJobId]);
  return { job, alreadyRunning: false };
}
