import os from 'node:os';
import { Connection } from '@temporalio/client';
import { TEMPORAL_NAMESPACE, resolveTaskQueue, resolveTemporalAddress } from '../db/config';

/**
 * The container's HEALTHCHECK (`node dist/app/scripts/healthcheck.js`), for either half:
 * - the API (default): GET /healthz on its own port answers;
 * - a worker (STEWARD_PROCESS=worker, as docker-compose.yml sets): Temporal lists a poller on the
 *   task queue from this host (a worker's identity is `<pid>@<hostname>`) that polled within the
 *   last two minutes, so a worker that started but stopped polling is reported, not just one that died.
 * Exits 0 when healthy, 1 with the reason otherwise.
 */
const RECENT_MS = 120_000;

async function apiHealthy(): Promise<string | undefined> {
  const response = await fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/healthz`).catch(() => undefined);
  return response?.ok ? undefined : 'the API does not answer /healthz';
}

async function workerHealthy(): Promise<string | undefined> {
  const connection = await Connection.connect({ address: resolveTemporalAddress(), connectTimeout: 5000 });
  try {
    const taskQueue = resolveTaskQueue();
    const described = await connection.workflowService.describeTaskQueue({ namespace: TEMPORAL_NAMESPACE, taskQueue: { name: taskQueue }, taskQueueType: 1 });
    const host = `@${os.hostname()}`;
    const ours = (described.pollers ?? []).filter((poller) => poller.identity?.endsWith(host));
    const recent = ours.some((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return Date.now() - seconds * 1000 < RECENT_MS;
    });
    return recent ? undefined : `no worker on this host (${os.hostname()}) has polled ${taskQueue} in the last ${RECENT_MS / 1000} s`;
  } finally {
    await connection.close();
  }
}

async function main() {
  const problem = process.env.STEWARD_PROCESS === 'worker' ? await workerHealthy() : await apiHealthy();
  if (problem) {
    console.error(`unhealthy: ${problem}`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((error) => {
  console.error(`unhealthy: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
