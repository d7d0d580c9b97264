import { ApplicationFailure, ActivityFailure } from '@temporalio/common';
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DataQualityActivities } from '../activities/data-quality';

const { dataQualityJobStep, dataQualityJobFailed } = proxyActivities<DataQualityActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

export interface DataQualityJobInput {
  orgId: string;
  jobId: string;
}

/** The job's progress, for the Temporal UI's query tab (the job tools read the same figures from dq_jobs). */
export const dataQualityProgressQuery = defineQuery<{ done: number; total: number; finished: boolean }>('dataQualityProgress');

/** At most this many steps per run: far more than any job needs (a 100,000-contact scan takes 22). */
const MAX_STEPS = 10_000;

/**
 * One data-quality job (a scan, a fix applied, a fix undone), started by its tool's follow-up as
 * data-quality-job-<jobId>: it runs the job's steps as activities until one says it has finished,
 * each step a short transaction that moves the job's progress on, so no tool call ever waits for
 * it and readers see done / total as it goes. A step that fails for good marks the job failed.
 */
export async function dataQualityJobWorkflow(input: DataQualityJobInput): Promise<{ done: number; total: number }> {
  let progress = { done: 0, total: 0, finished: false };
  setHandler(dataQualityProgressQuery, () => progress);
  try {
    for (let step = 0; step < MAX_STEPS; step++) {
      const result = await dataQualityJobStep(input);
      progress = result;
      if (result.finished) return { done: result.done, total: result.total };
    }
    throw ApplicationFailure.nonRetryable('The job took more steps than any job should', 'internal_error');
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const code = cause instanceof ApplicationFailure && cause.type ? cause.type : 'internal_error';
    await dataQualityJobFailed({ ...input, code });
    throw error;
  }
}
