import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';
import { copyTemplateDatabase, dropDatabase } from './database';
import { BUNDLE_PATH_ENV, STACKS_DIR_ENV } from './env';

/**
 * One API + worker stack per jest worker, shared by the suites that worker runs one after another,
 * each in organisations of its own (row-level security already keeps organisations apart).
 *
 * Jest gives every test file a fresh module registry, so a stack kept in memory would not outlive
 * its file. The stack is a process instead (test/helpers/stack-process.ts), on a database copied
 * from the run's template and a task queue of its own, started by the first suite of a jest worker
 * that asks for it and found by the next through a file in the run's stacks folder (made by the
 * global setup, keyed by JEST_WORKER_ID). The global teardown stops every stack and drops its
 * database; a stack whose jest worker dies stops by itself.
 */
export interface SharedStack {
  pid: number;
  url: string;
  taskQueue: string;
  databaseName: string;
  databaseUrl: string;
  /** Everything the stack prints; a harness shows the part written while its suite ran. */
  logFile: string;
}

const READY_TIMEOUT_MS = 90_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited stack nobody has reaped yet (its jest worker ended first) still answers signal 0.
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

function tail(file: string, bytes = 8_000): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.length > bytes ? `…${text.slice(-bytes)}` : text;
  } catch {
    return '';
  }
}

/** This jest worker's shared stack, started if it is not running yet; undefined outside a jest run (benches build their own). */
export async function sharedStack(): Promise<SharedStack | undefined> {
  const dir = process.env[STACKS_DIR_ENV];
  if (!dir) return undefined;
  const id = process.env.JEST_WORKER_ID ?? '1';
  const stateFile = path.join(dir, `stack-${id}.json`);
  if (fs.existsSync(stateFile)) {
    const stack = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as SharedStack;
    if (alive(stack.pid)) return stack;
    // It died (its log says why, and the suite that was using it failed); this worker gets a fresh one.
    fs.rmSync(stateFile, { force: true });
    await dropDatabase(stack.databaseName).catch(() => undefined);
  }
  return startStack(dir, id, stateFile);
}

async function startStack(dir: string, id: string, stateFile: string): Promise<SharedStack> {
  const database = await copyTemplateDatabase();
  const taskQueue = `test-shared-${id}-${randomBytes(4).toString('hex')}`;
  const logFile = path.join(dir, `stack-${id}.log`);
  const readyFile = path.join(dir, `stack-${id}.ready-${randomBytes(4).toString('hex')}`);
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'test', 'helpers', 'stack-process.ts')], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      STEWARD_TASK_QUEUE: taskQueue,
      STEWARD_WORKFLOW_BUNDLE: process.env[BUNDLE_PATH_ENV],
      STEWARD_TEST_STACK_READY: readyFile,
    },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  // The stack must never keep this jest worker alive; it watches for the worker's end itself.
  child.unref();
  const pid = child.pid!;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!fs.existsSync(readyFile)) {
    if (!alive(pid) || child.exitCode !== null) {
      await dropDatabase(database.name).catch(() => undefined);
      throw new Error(`The shared test stack exited before serving. Its output:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await dropDatabase(database.name).catch(() => undefined);
      throw new Error(`The shared test stack did not serve within ${READY_TIMEOUT_MS / 1000} s. Its output:\n${tail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { url } = JSON.parse(fs.readFileSync(readyFile, 'utf8')) as { url: string };
  fs.rmSync(readyFile, { force: true });
  const stack: SharedStack = { pid, url, taskQueue, databaseName: database.name, databaseUrl: database.url, logFile };
  fs.writeFileSync(stateFile, JSON.stringify(stack));
  return stack;
}

/** The global teardown's part: stops every shared stack of the run (SIGTERM, then SIGKILL), drops their databases and the folder. */
export async function stopSharedStacks(dir: string): Promise<void> {
  if (!fs.existsSync(dir)) return;
  const stacks = fs.readdirSync(dir).filter((file) => /^stack-[^.]+\.json$/.test(file))
    .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as SharedStack);
  await Promise.all(stacks.map(async (stack) => {
    if (alive(stack.pid)) {
      process.kill(stack.pid, 'SIGTERM');
      const deadline = Date.now() + 5_000;
      while (alive(stack.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      if (alive(stack.pid)) process.kill(stack.pid, 'SIGKILL');
    }
    await dropDatabase(stack.databaseName);
  }));
  fs.rmSync(dir, { recursive: true, force: true });
}
