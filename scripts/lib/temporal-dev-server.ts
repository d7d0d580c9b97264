import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeFlags } from '../../core/search-attributes';
import { PROJECT_ROOT } from '../../db/config';

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
  stop(): Promise<void>;
}

export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  /** SQLite file; in-memory when omitted. */
  dbFile?: string;
  headless?: boolean;
  logFile?: string;
  /** Further `start-dev` flags, e.g. `--dynamic-config-value KEY=VALUE`. */
  extraArgs?: string[];
}

/** Starts `temporal server start-dev` with our search attributes and waits until it answers. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error', ...devServerSearchAttributeFlags()];
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.extraArgs) args.push(...options.extraArgs);
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort ?? 8233), '--ui-disable-news-fetch');
  const log = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(findTemporalCli(), args, { stdio: ['ignore', log, log], detached: false });
  const address = `127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`temporal dev server exited with code ${code}`))));
  await Promise.race([waitForTemporal(address, 60_000), exited]);
  return {
    address,
    uiUrl: options.headless ? undefined : `http://127.0.0.1:${options.uiPort ?? 8233}`,
    process: child,
    stop: () => stopChild(child),
  };
}

export async function waitForTemporal(address: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
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

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
