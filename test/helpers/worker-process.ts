import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';
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
