import fs from 'node:fs';
import path from 'node:path';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const DATA_DIR = process.env.STEWARD_DATA_DIR ?? path.join(PROJECT_ROOT, '.data');
export const RUNTIME_FILE = path.join(DATA_DIR, 'runtime.json');

/** What a running `npm start` records so the admin CLI and separate processes can find it. */
export interface RuntimeInfo {
  databaseUrl: string;
  temporalAddress: string;
  apiUrl?: string;
  pid?: number;
}

export function readRuntimeInfo(): RuntimeInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(RUNTIME_FILE, 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

export function writeRuntimeInfo(info: RuntimeInfo): void {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  // The database URL may hold a password: readable by this user only.
  fs.writeFileSync(RUNTIME_FILE, JSON.stringify(info, null, 2), { mode: 0o600 });
  fs.chmodSync(RUNTIME_FILE, 0o600);
}

/** DATABASE_URL, else the embedded database a running `npm start` announced. */
export function resolveDatabaseUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const runtime = readRuntimeInfo();
  if (runtime?.databaseUrl) return runtime.databaseUrl;
  throw new Error('No database: set DATABASE_URL, or run `npm start` (embedded defaults) first.');
}

export function resolveTemporalAddress(): string {
  return process.env.TEMPORAL_ADDRESS ?? readRuntimeInfo()?.temporalAddress ?? '127.0.0.1:7233';
}

export const TEMPORAL_NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';

/** STEWARD_TASK_QUEUE lets one Temporal cluster serve separate deployments; API and workers must agree on it. */
export function resolveTaskQueue(): string {
  return process.env.STEWARD_TASK_QUEUE || TOOL_TASK_QUEUE;
}
