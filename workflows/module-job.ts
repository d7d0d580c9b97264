import { proxyActivities } from '@temporalio/workflow';
import type { ModuleJobActivities } from '../activities/module-jobs';

const { runModuleJob } = proxyActivities<ModuleJobActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

export interface ModuleJobRunInput {
  /** The job's name (`<module>.<what>`), as a module declares it in `jobs`. */
  job: string;
  /** The moment to run as of (ISO 8601); the schedule leaves it out and the run's start time is used. */
  now?: string;
  /** Only this organisation (tests, operators); the schedule covers all. */
  orgId?: string;
}

/**
 * One run of a module's periodic job (ModuleJob in modules/module.ts), started by its Temporal
 * Schedule (activities/schedules.ts): the whole run is one activity, retried until it succeeds, and
 * the job itself is idempotent, so a retry or a repeated run changes nothing more.
 */
export async function moduleJobWorkflow(input: ModuleJobRunInput): Promise<{ job: string; now: string; counts: Record<string, number> }> {
  // Workflow time is the run's start as Temporal recorded it, so a replay uses the same moment.
  const now = input.now ?? new Date(Date.now()).toISOString();
  return { job: input.job, now, counts: await runModuleJob(input.job, now, input.orgId) };
}
