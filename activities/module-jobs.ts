import { ApplicationFailure } from '@temporalio/common';
import type { Pool } from '../db/pool';
import { MODULES } from '../modules';
import type { ModuleJob } from '../modules/module';
import { guarded } from '../modules/activity-kit';

/** Every module's periodic jobs by name; a name declared twice is a mistake caught at start. */
export function moduleJobsByName(jobs: readonly ModuleJob[] = MODULES.flatMap((module) => module.jobs ?? [])): Map<string, ModuleJob> {
  const byName = new Map<string, ModuleJob>();
  for (const job of jobs) {
    if (byName.has(job.name)) throw new Error(`Two modules declare the job ${job.name}`);
    byName.set(job.name, job);
  }
  return byName;
}

/** The one step of moduleJobWorkflow (workflows/module-job.ts). */
export function createModuleJobActivities(deps: { pool: Pool }) {
  const { pool } = deps;
  return {
    /** Runs the named job as of `now` (ISO 8601); its counts are the run's result. */
    async runModuleJob(name: string, now: string, orgId?: string): Promise<Record<string, number>> {
      // Looked up at run time, so a module registered after the worker was built (the kit's tests) is found.
      const job = moduleJobsByName().get(name);
      if (!job) throw ApplicationFailure.create({ type: 'unknown_job', message: `No module declares the job ${name}`, nonRetryable: true });
      return guarded(() => job.run(pool, { now: new Date(now), orgId }));
    },
  };
}

export type ModuleJobActivities = ReturnType<typeof createModuleJobActivities>;
