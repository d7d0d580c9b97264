import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeFlags } from '../../core/search-attributes';
import { PROJECT_ROOT } from '../../db/config';
import { StartupError, argsOf, isAlive, portInUseMessage, portIsFree } from '../../db/ports';

/** TEMPORAL_CLI_PATH, then the project-local install made by `npm run setup`, then PATH. */
export function findTemporalCli(): string {
  const candidates = [process.env.TEMPORAL_CLI_PATH, path.join(PROJECT_ROOT, '.venv', 'bin', 'temporal')].filter(Boolean) as string[];
  for (const candidate of candidates) if (fs.existsSync(candidate)) return candidate;
  const onPath = spawnSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim();
  throw new Error('The Temporal CLI was not found. Run `npm run setup` (installs it under .venv/), or set TEMPORAL_CLI_PATH.');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL if it is still running after `killAfterMs` (default 5 s). */
  stop(killAfterMs?: number): Promise<void>;
}

export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  /** SQLite file; in-memory when omitted. */
  dbFile?: string;
  /** `--sqlite-pragma` values for a file-backed server; default DEV_SERVER_SQLITE_PRAGMAS. */
  sqlitePragmas?: string[];
  headless?: boolean;
  /** `--dynamic-config-value` settings; default DEV_SERVER_DYNAMIC_CONFIG, `[]` for the CLI's own. */
  dynamicConfig?: string[];
  logFile?: string;
  /** Further `start-dev` flags (dynamic config goes in `dynamicConfig`). */
  extraArgs?: string[];
  /**
   * The operators' codec endpoint (`<public API URL>/api/temporal-codec`) the Web UI
   * sends encrypted payloads to for decoding; without it the UI shows ciphertext.
   */
  codecEndpoint?: string;
  /**
   * Run in its own process group, so a signal to the launcher's group (Ctrl-C, `kill -- -pgid`)
   * does not stop it before the worker has drained; the launcher then stops it itself.
   */
  ownProcessGroup?: boolean;
}

/**
 * SQLite's defaults (a rollback journal, synchronous=FULL) sync the disk several times for
 * every workflow state change, which made each tool call wait on the disk. A write-ahead log
 * with synchronous=NORMAL syncs only at checkpoints: a committed change still survives the
 * server process crashing, and the file cannot be corrupted; only an OS crash or power loss
 * can lose the last moments of history, which is the dev server's bargain anyway.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/**
 * Unless told otherwise, the dev server reads its search attributes from its database again on
 * every read of them (a setting meant for tests that add attributes and use them at once), and it
 * reads them for every workflow start and every visibility record, with or without custom ones.
 * What the cache saves is measured in bench/README.md (bench/temporal-options.ts with
 * BENCH_DEV_SERVER_CONFIG=default against it). Cached, an attribute added while the server runs
 * (through the operator API, not a start flag) can take up to a minute to reach all its services;
 * Steward's own are start flags (devServerSearchAttributeFlags), usable from the first call
 * (test/e2e/dev-server-config.test.ts).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = ['system.forceSearchAttributesCacheRefreshOnRead=false'];

/**
 * A list of dev-server settings (SQLite pragmas, dynamic config) as the benches take it to compare
 * settings: comma-separated, `default` for the CLI's own (none); unset or empty, undefined (what
 * npm start uses: DEV_SERVER_SQLITE_PRAGMAS, DEV_SERVER_DYNAMIC_CONFIG).
 */
export function parseDevServerSettings(raw: string | undefined): string[] | undefined {
  const items = (raw ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) return undefined;
  return items.filter((item) => item !== 'default');
}

/** Where a file-backed server records its pid, so the next start can stop one a killed launcher left running. */
const pidFileOf = (dbFile: string) => `${dbFile}.pid`;

/**
 * A dev server started on this SQLite file by an earlier launcher that was killed outright still
 * holds its ports and the file: stop it (SIGTERM, then SIGKILL) before starting ours. Only a
 * process whose command line is a Temporal dev server on this very file is touched.
 */
export async function stopLeftoverDevServer(dbFile: string): Promise<number | undefined> {
  const pidFile = pidFileOf(dbFile);
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  fs.rmSync(pidFile, { force: true });
  const args = Number.isInteger(pid) && pid > 0 ? argsOf(pid) : [];
  if (!args.includes('start-dev') || !args.includes(dbFile)) return undefined;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  return pid;
}

/** The last lines the dev server logged (it logs errors only), to say why it stopped; empty without a log file. */
function logTailOf(logFile: string | undefined, lines = 15): string {
  if (!logFile) return '';
  try {
    const tail = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return tail ? `; its log (${logFile}) ends:\n${tail}` : '';
  } catch {
    return '';
  }
}

/**
 * The dev server picks further ports of its own for its internal services when it starts. When
 * another process takes one first, it panics at startup (seen: a nil listener in its worker
 * service) or reports the address in use; a second try, on fresh ports, then starts.
 */
const TRANSIENT_START_FAILURE = /address already in use|panic:/i;
const START_ATTEMPTS = 3;

/** The dev server exited before it answered; the message ends with its log's last lines. */
class DevServerExit extends Error {}

/** Starts `temporal server start-dev` with our search attributes and waits until it answers. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  if (options.dbFile) {
    const stopped = await stopLeftoverDevServer(options.dbFile);
    if (stopped) console.warn(`Stopped a Temporal dev server left running by an earlier start (pid ${stopped}).`);
  }
  if (options.port !== undefined && !(await portIsFree(options.port))) throw new StartupError(portInUseMessage(options.port, 'the Temporal dev server', 'TEMPORAL_PORT (or TEMPORAL_ADDRESS for a server of your own)'));
  if (!options.headless && options.uiPort !== undefined && !(await portIsFree(options.uiPort))) throw new StartupError(portInUseMessage(options.uiPort, 'the Temporal UI', 'TEMPORAL_UI_PORT'));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launchDevServer(options, options.port ?? (await freePort()));
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !(error instanceof DevServerExit) || !TRANSIENT_START_FAILURE.test(error.message)) throw error;
      console.warn(`The Temporal dev server stopped while starting (attempt ${attempt} of ${START_ATTEMPTS}); starting it again.`);
    }
  }
}

async function launchDevServer(options: DevServerOptions, port: number): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error', ...devServerSearchAttributeFlags()];
  if (options.dbFile) {
    args.push('--db-filename', options.dbFile);
    for (const pragma of options.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS) args.push('--sqlite-pragma', pragma);
  }
  for (const setting of options.dynamicConfig ?? DEV_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', setting);
  if (options.extraArgs) args.push(...options.extraArgs);
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort ?? 8233), '--ui-disable-news-fetch');
  if (options.codecEndpoint && !options.headless) args.push('--ui-codec-endpoint', options.codecEndpoint);
  const log = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(findTemporalCli(), args, { stdio: ['ignore', log, log], detached: options.ownProcessGroup ?? false });
  if (typeof log === 'number') fs.closeSync(log);
  if (options.dbFile && child.pid) fs.writeFileSync(pidFileOf(options.dbFile), String(child.pid));
  const address = `127.0.0.1:${port}`;
  const stop = async (killAfterMs?: number) => {
    await stopChild(child, killAfterMs);
    if (options.dbFile) fs.rmSync(pidFileOf(options.dbFile), { force: true });
  };
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new DevServerExit(`temporal dev server exited with code ${code}`))));
  // Only a start that failed reads the log, to say why.
  const waiting = new AbortController();
  try {
    await Promise.race([waitForTemporal(address, 60_000, waiting.signal), exited]);
  } catch (error) {
    waiting.abort(); // no more polling of a server that is gone
    (error as Error).message += logTailOf(options.logFile);
    await stop();
    throw error;
  }
  return { address, uiUrl: options.headless ? undefined : `http://127.0.0.1:${options.uiPort ?? 8233}`, process: child, stop };
}

/** Polls until the server answers; stops early, without answering, once `signal` aborts. */
export async function waitForTemporal(address: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline && !signal?.aborted) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal at ${address} did not become reachable: ${String(lastError)}`);
}

export function stopChild(child: ChildProcess, killAfterMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
