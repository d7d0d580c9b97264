import { TEMPORAL_NAMESPACE, resolveDatabaseUrl, resolveTaskQueue, resolveTemporalAddress } from '../db/config';
import { createPool } from '../db/pool';
import { installWorkerLogging } from './logging';
import { prepareWorker } from './prepare-worker';

/** `npm run worker`: one worker process; run as many as load needs. */
async function main() {
  installWorkerLogging();
  const pool = createPool(resolveDatabaseUrl());
  const address = resolveTemporalAddress();
  const taskQueue = resolveTaskQueue();
  const { worker } = await prepareWorker({ pool, address, namespace: TEMPORAL_NAMESPACE, taskQueue });
  console.log(`worker polling ${address} (${TEMPORAL_NAMESPACE}, queue ${taskQueue})`);
  await worker.run();
  await pool.end();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
