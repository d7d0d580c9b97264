import { withTenantTransaction, type Pool } from '../../../db/pool';
import { recordJobChange } from '../../audit/api';
import { applyStep, undoStep } from './fixes';
import { requireJob } from './jobs';
import { scanStep } from './scan';

/**
 * One step of a data-quality job, in its own transaction under the organisation's row-level
 * security, with the job's row locked: a retried or repeated step starts from the progress the
 * last committed step left, so nothing is done twice. Answers whether the job has finished.
 */
export async function runDataQualityJobStep(pool: Pool, orgId: string, jobId: string): Promise<{ finished: boolean; done: number; total: number }> {
  return withTenantTransaction(pool, orgId, async (db) => {
    const job = await requireJob(db, orgId, jobId, true);
    if (job.status === 'completed' || job.status === 'failed') return { finished: true, done: job.done, total: job.total };
    const finished = job.kind === 'scan' ? await scanStep(db, job) : job.kind === 'apply_fix' ? await applyStep(db, job) : await undoStep(db, job);
    const after = await requireJob(db, orgId, jobId);
    // One event per step (a batch), not per record: the job's kind and progress before and after.
    await recordJobChange(db, {
      orgId, channel: 'job:people.data_quality', module: 'people', noun: 'dq_job', verb: 'step', target: { type: 'dq_job', id: jobId },
      fields: { kind: job.kind, done: after.done, total: after.total, status: after.status }, previous: { done: job.done, status: job.status },
    });
    return { finished, done: after.done, total: after.total };
  });
}

/** A job whose steps failed for good: marked failed with the error's code, never its details. */
export async function markDataQualityJobFailed(pool: Pool, orgId: string, jobId: string, code: string): Promise<void> {
  await withTenantTransaction(pool, orgId, async (db) => {
    const failed = await db.query(`UPDATE dq_jobs SET status = 'failed', finished_at = now(), error = $3 WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
      [orgId, jobId, `The job stopped (${code.slice(0, 60)}); start it again`]);
    if ((failed.rowCount ?? 0) === 0) return;
    await recordJobChange(db, {
      orgId, channel: 'job:people.data_quality', module: 'people', noun: 'dq_job', verb: 'fail', target: { type: 'dq_job', id: jobId },
      fields: { status: 'failed', error: code.slice(0, 60) }, outcome: 'failed',
    });
  });
}
