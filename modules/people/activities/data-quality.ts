import type { ActivityDeps } from '../../module';
import { guarded } from '../../activity-kit';
import { markDataQualityJobFailed, runDataQualityJobStep } from '../data-quality/runner';

/** The data-quality job's steps (workflows/data-quality.ts). */
export function createDataQualityActivities(deps: Pick<ActivityDeps, 'pool'>) {
  const { pool } = deps;
  return {
    async dataQualityJobStep(input: { orgId: string; jobId: string }): Promise<{ finished: boolean; done: number; total: number }> {
      return guarded(() => runDataQualityJobStep(pool, input.orgId, input.jobId));
    },
    async dataQualityJobFailed(input: { orgId: string; jobId: string; code: string }): Promise<void> {
      return guarded(() => markDataQualityJobFailed(pool, input.orgId, input.jobId, input.code));
    },
  };
}

export type DataQualityActivities = ReturnType<typeof createDataQualityActivities>;
