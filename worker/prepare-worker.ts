import { Connection } from '@temporalio/client';
import { prepareDatabase } from '../modules';
import type { Pool } from '../db/pool';
import { ensureWorkflowBundle } from './bundle';
import { createStewardWorker } from './create-worker';
import { bootstrapSchedules } from './schedules';
import { ensureSearchAttributes } from './search-attributes';
import { assertPayloadKey } from '../temporal/payload-key-check';
import { payloadCodec } from '../temporal/client';

/**
 * Everything a worker process does before polling, shared by `npm run worker`
 * and `npm start`: migrations, the payload key's check (see temporal/payload-key-check.ts), our search attributes on the cluster, schedules
 * in line with the database, then a worker on the prebuilt bundle
 * (STEWARD_WORKFLOW_BUNDLE names one to load instead of building it).
 */
export async function prepareWorker(options: { pool: Pool; address: string; namespace: string; taskQueue: string }) {
  await prepareDatabase(options.pool);
  // Before polling: a worker with another key would fail every workflow task it took, for ever.
  await assertPayloadKey(options.pool, payloadCodec().keyId);
  const connection = await Connection.connect({ address: options.address });
  try {
    await ensureSearchAttributes(connection, options.namespace);
    await bootstrapSchedules(connection, options.namespace, options.pool, options.taskQueue);
  } finally {
    await connection.close();
  }
  const bundlePath = process.env.STEWARD_WORKFLOW_BUNDLE || (await ensureWorkflowBundle());
  return createStewardWorker({ address: options.address, namespace: options.namespace, pool: options.pool, bundlePath, taskQueue: options.taskQueue });
}
