/**
 * CPU time by process and thread, read from /proc (Linux), so a bench cell can say what each call
 * cost in CPU and where: the bench's own Node process thread by thread (its main thread runs the
 * API, the Temporal client and the activities; the workflow threads run the sandbox; the SDK's
 * core runs on its own threads), the Temporal dev server, and Postgres. Wall time on a shared
 * two-core machine hides most of this; CPU per call is what the next decision should be made on.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import type { Pool } from '../db/pool';

/** Clock ticks per second of /proc's utime and stime (USER_HZ; 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** A named set of processes (each with all its threads) to account together. */
export interface CpuSource {
  name: string;
  /** The pids to sum, asked again at every snapshot (Postgres backends come and go). */
  pids(): number[] | Promise<number[]>;
}

/**
 * Milliseconds of CPU (user + system) at one moment, by group, then by process or thread id: a
 * cell's CPU is the sum of each one's own difference, so a process that ends during the cell (an
 * idle pooled connection's backend) takes only its own share out, rather than making its group's
 * total shrink.
 */
export type CpuSnapshot = Map<string, Map<string, number>>;

function record(snapshot: CpuSnapshot, group: string, id: string, ms: number): void {
  const units = snapshot.get(group) ?? new Map<string, number>();
  units.set(id, ms);
  snapshot.set(group, units);
}

/** utime + stime of one /proc stat line, in milliseconds; fields counted after the command's closing parenthesis. */
function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After ")": state is field 3 of stat(5), so utime (14) and stime (15) are at indexes 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // the process or thread ended between listing and reading
  }
}

function processCpuMs(pid: number): number {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  return stat ? cpuMsOfStat(stat) : 0;
}

/** The threads of this process, grouped: the main thread alone, every other by its name (comm). */
function ownThreadsCpuMs(into: CpuSnapshot): void {
  const taskDir = `/proc/${process.pid}/task`;
  for (const tid of fs.readdirSync(taskDir)) {
    const stat = readOrUndefined(`${taskDir}/${tid}/stat`);
    if (!stat) continue;
    const comm = (readOrUndefined(`${taskDir}/${tid}/comm`) ?? '?').trim();
    const group = Number(tid) === process.pid ? 'node: main thread' : `node: ${threadGroupName(comm)}`;
    record(into, group, tid, cpuMsOfStat(stat));
  }
}

/** Thread names as Linux shows them (15 characters), read as what they are. */
function threadGroupName(comm: string): string {
  if (comm.startsWith('tokio') || comm.startsWith('temporal')) return 'SDK core threads (Rust)';
  if (comm.startsWith('V8') || comm.startsWith('node') && comm.includes('Worker')) return 'V8 helper threads';
  if (comm.startsWith('libuv')) return 'libuv pool';
  return `thread "${comm}"`;
}

export async function cpuSnapshot(sources: readonly CpuSource[]): Promise<CpuSnapshot> {
  const snapshot: CpuSnapshot = new Map();
  if (!fs.existsSync('/proc/self/task')) return snapshot; // not Linux: the bench reports no CPU split
  const pidLists = await Promise.all(sources.map((source) => source.pids()));
  ownThreadsCpuMs(snapshot);
  sources.forEach((source, index) => {
    for (const pid of pidLists[index]) record(snapshot, source.name, String(pid), processCpuMs(pid));
  });
  return snapshot;
}

/** CPU per call in milliseconds, per group and in total, between two snapshots. */
export interface CpuPerCall {
  totalMs: number;
  byGroup: Record<string, number>;
  /** Time the main thread spent in garbage collection pauses, per call (part of its CPU above). */
  mainThreadGcMs?: number;
}

/**
 * Sums this thread's garbage-collection pauses from now until `stop()` (in ms). The observer is
 * asynchronous: `stop()` waits a turn of the event loop so the last pauses are delivered.
 */
export function watchGarbageCollection(): { stop(): Promise<number> } {
  let totalMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) totalMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      return totalMs;
    },
  };
}

/** `notCounted`: groups shown but left out of the total (the bench's own callers). */
export function cpuPerCall(before: CpuSnapshot, after: CpuSnapshot, calls: number, notCounted: readonly string[] = []): CpuPerCall {
  const byGroup: Record<string, number> = {};
  let total = 0;
  for (const [group, units] of after) {
    let used = 0;
    // A process or thread new since `before` used all its CPU within the cell.
    for (const [id, ms] of units) used += Math.max(0, ms - (before.get(group)?.get(id) ?? 0));
    if (used === 0) continue;
    byGroup[group] = Math.round((used / calls) * 100) / 100;
    if (!notCounted.includes(group)) total += used;
  }
  return { totalMs: Math.round((total / Math.max(1, calls)) * 100) / 100, byGroup };
}

/** The Postgres backends serving this pool's database (an external server is shared; its other databases are not ours). */
export async function backendPids(pool: Pick<Pool, 'query'>): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  return rows.map((row) => row.pid);
}

/** The process and every descendant (a server that forks per connection, as Postgres does). */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readOrUndefined(`/proc/${entry}/stat`);
    if (!stat) continue;
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(rootPid);
  return out;
}

/** The V8 profiler on this (the main) thread, for the length of one measurement. */
export async function startProfiler(): Promise<{ stopInto(file: string): Promise<void> }> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => {
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result)));
  });
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return {
    async stopInto(file) {
      const { profile } = await post('Profiler.stop') as { profile: unknown };
      session.disconnect();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      console.log(`main-thread CPU profile written to ${file}`);
    },
  };
}
