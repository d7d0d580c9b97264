import { Connection } from '@temporalio/client';
import { TEMPORAL_NAMESPACE, resolveDatabaseUrl, resolveTaskQueue, resolveTemporalAddress } from '../db/config';
import { migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { ensureWorkflowBundle } from './bundle';
import { createStewardWorker } from './create-worker';
import { ensureSearchAttributes } from './search-attributes';
import { bootstrapSchedules } from './schedules';
import { installWorkerLogging } from './logging';

/** `npm run worker`: one worker process; run as many as load needs. */
async function main() {
  installWorkerLogging();
  const pool = createPool(resolveDatabaseUrl());
  await migrate(pool);
  const address = resolveTemporalAddress();
  const connection = await Connection.connect({ address });
  await ensureSearchAttributes(connection, TEMPORAL_NAMESPACE);
  const taskQueue = resolveTaskQueue();
  await bootstrapSchedules(connection, TEMPORAL_NAMESPACE, pool, taskQueue);
  await connection.close();
  // STEWARD_WORKFLOW_BUNDLE names a prebuilt bundle to load instead of building one.
  const bundlePath = process.env.STEWARD_WORKFLOW_BUNDLE || (await ensureWorkflowBundle());
  const { worker } = await createStewardWorker({ address, namespace: TEMPORAL_NAMESPACE, pool, bundlePath, taskQueue });
  console.log(`worker polling ${address} (${TEMPORAL_NAMESPACE}, queue ${taskQueue})`);
  await worker.run();
  await pool.end();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
