import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { listen } from '../../api/server';
import { ALL_SCOPES } from '../../core/scopes';
import { PROJECT_ROOT } from '../../db/config';
import { withTransaction } from '../../db/pool';
import { createApiKey } from '../../kernel/api-keys';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTemporalClient } from '../../temporal/client';
import { createTestDatabase, type TestDatabase } from './database';
import { BUNDLE_PATH_ENV } from './env';

/**
 * A Steward worker as its own process (`node --import tsx worker/main.ts`, one process, so SIGKILL
 * kills the worker itself) on a test's database and task queue, for tests that kill it mid-send.
 * It is added to `workers` at once (so a test can clean up even if it never starts) and resolves
 * once it polls; `env` adds the test's own settings (providers, send timeout).
 */
export function startWorkerProcess(
  workers: ChildProcess[], options: { databaseUrl: string; taskQueue: string; env?: Record<string, string | undefined> },
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'worker', 'main.ts')], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      STEWARD_TASK_QUEUE: options.taskQueue,
      STEWARD_WORKFLOW_BUNDLE: process.env[BUNDLE_PATH_ENV],
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker polling')) resolve(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before polling: ${output}`)));
  });
}

/** Resolves when the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A crash test's API: in this process, on the test's own database, starting calls on `taskQueue` for
 * the worker processes the test starts (and kills); with one organisation and its owner's key holding
 * every scope. `close` kills any worker still running, then stops the API and drops the database.
 */
export interface CrashTestApi {
  db: TestDatabase;
  url: string;
  temporal: Client;
  orgId: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startCrashTestApi(
  workers: ChildProcess[], options: { taskQueue: string; orgName: string; planCode?: string },
): Promise<CrashTestApi> {
  const db = await createTestDatabase();
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = createTemporalClient(connection, 'default');
  const { server, url } = await listen({ pool: db.pool, temporal, taskQueue: options.taskQueue }, 0);
  const { orgId, apiKey } = await withTransaction(db.pool, async (tx) => {
    const org = await createOrganisation(tx, { name: options.orgName, planCode: options.planCode });
    const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner', safeguarding: true });
    return { orgId: org.id, apiKey: (await createApiKey(tx, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] })).apiKey };
  });
  return {
    db, url, temporal, orgId, apiKey,
    close: async () => {
      for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await connection.close();
      await db.drop();
    },
  };
}
