import { Connection } from '@temporalio/client';
import { TEMPORAL_NAMESPACE, resolveDatabaseUrl, resolveTemporalAddress } from '../db/config';
import { migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { ensureWorkflowBundle } from './bundle';
import { createStewardWorker } from './create-worker';
import { ensureSearchAttributes } from './search-attributes';

/** `npm run worker`: one worker process; run as many as load needs. */
async function main() {
  const pool = createPool(resolveDatabaseUrl());
  await migrate(pool);
  const address = resolveTemporalAddress();
  const connection = await Connection.connect({ address });
  await ensureSearchAttributes(connection, TEMPORAL_NAMESPACE);
  await connection.close();
  const bundlePath = await ensureWorkflowBundle();
  const { worker } = await createStewardWorker({ address, namespace: TEMPORAL_NAMESPACE, pool, bundlePath });
  console.log(`worker polling ${address} (${TEMPORAL_NAMESPACE})`);
  await worker.run();
  await pool.end();
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
