import { createPool } from '../../../db/pool';
import { createStewardWorker } from '../../../worker/create-worker';
import type { GivingRecurringActivities } from '../activities/recurring';

/**
 * A worker process for the recurring-gift crash test: it records due occurrences for real (the
 * transaction commits), says so on stdout, and then never acknowledges the activity, so the test
 * can SIGKILL it in the window between recording and acknowledging.
 */
async function main(): Promise<void> {
  const pool = createPool(process.env.DATABASE_URL!);
  const { worker } = await createStewardWorker({
    address: process.env.TEMPORAL_ADDRESS!,
    namespace: 'default',
    pool,
    taskQueue: process.env.STEWARD_TASK_QUEUE!,
    bundlePath: process.env.STEWARD_WORKFLOW_BUNDLE,
    wrapActivities: (activities) => ({
      ...activities,
      givingRecordDueRecurringGifts: async (input: Parameters<GivingRecurringActivities['givingRecordDueRecurringGifts']>[0]) => {
        const run = await (activities as unknown as GivingRecurringActivities).givingRecordDueRecurringGifts(input);
        console.log(`RECORDED ${JSON.stringify({ recorded: run.recorded, batchId: run.batchId })}`);
        return new Promise<never>(() => undefined);
      },
    }),
  });
  console.log('worker polling');
  await worker.run();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
