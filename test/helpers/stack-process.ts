import fs from 'node:fs';
import { listen } from '../../api/server';
import { createPool } from '../../db/pool';
import { createTemporalClient } from '../../temporal/client';
import { createStewardWorker } from '../../worker/create-worker';
import { installWorkerLogging } from '../../worker/logging';

/**
 * A shared test stack (test/helpers/shared-stack.ts): the API and a worker in one process, as a
 * Harness builds them in a test's own process, on the database, task queue and bundle the
 * environment names. Writes `{ url }` to STEWARD_TEST_STACK_READY once both serve; what it prints
 * goes to the stack's log, which each suite's harness shows. Stops on SIGTERM, and by itself when
 * the process that started it (a jest worker) is gone.
 */
// Expected tool errors (not_found, validation) fail activities by design; only real errors are worth printing.
// It logs through the service's log (core/log.ts), as the service does.
process.env.STEWARD_LOG_LEVEL ??= 'error';
installWorkerLogging({ ownSignals: true });

async function main(): Promise<void> {
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const pool = createPool(env('DATABASE_URL'));
  const taskQueue = env('STEWARD_TASK_QUEUE');
  const { worker, connection } = await createStewardWorker({
    address: env('TEMPORAL_ADDRESS'), namespace: 'default', pool, taskQueue, bundlePath: env('STEWARD_WORKFLOW_BUNDLE'),
  });
  const running = worker.run();
  // As npm start runs it: the API's client on the worker's connection, so starts are eager and a call
  // whose transaction has committed answers at once (temporal/early-results.ts).
  const temporal = createTemporalClient(connection, 'default');
  const { server, url } = await listen({ pool, temporal, taskQueue, eagerStart: true }, 0);
  // Written under another name and renamed: the parent polls for the file, and must never read it half written.
  const readyFile = env('STEWARD_TEST_STACK_READY');
  fs.writeFileSync(`${readyFile}.partial`, JSON.stringify({ url }));
  fs.renameSync(`${readyFile}.partial`, readyFile);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`shared stack stopping: ${reason}`);
    // Whatever is still in flight belongs to suites that have finished; the run is ending, so no drain.
    const deadline = setTimeout(() => process.exit(0), 3_000);
    server.closeAllConnections();
    server.close();
    worker.shutdown();
    await running.catch(() => undefined);
    await connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    clearTimeout(deadline);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // The jest worker that started this stack is gone (ended, or killed with the run): so is its stack.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop('its jest worker is gone');
  }, 500).unref();
  await running;
}

main().catch((error) => {
  console.error('shared stack failed:', error);
  process.exit(1);
});
