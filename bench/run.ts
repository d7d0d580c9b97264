/**
 * `npm run bench`: tool-call latency and throughput on the stack `npm start` runs
 * (API and worker in one process, one pool, eager workflow starts on the worker's
 * connection, the Temporal dev server on a SQLite file), once per Postgres backend:
 *   - embedded: what `startEmbeddedPostgres` gives `npm start` when DATABASE_URL is unset;
 *   - external: a fresh database on DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * For each backend and each state of the Temporal SDK (patched, as npm install leaves it, and
 * unpatched, STEWARD_WORKFLOW_WATCHDOG=on: see patches/), each tool (the read people_get_contact,
 * and platform_search_tools, which does no database work of its own), each path (MCP tools/call
 * over streamable HTTP, the HTTP bridge POST /api/agent/invoke) and each concurrency (1, 16, 32)
 * it reports p50/p95, calls per second, errors and CPU per call by process and thread. Beside the
 * read it runs the floor (bench/floor/): a bare workflow with one local activity doing the same
 * primary-key read, started the same way, which is what a durable call costs on this machine at
 * the least. It also times the read's run() in process, and scores platform_search_tools on
 * bench/data/tool-search-dev.jsonl.
 *
 * Writes bench/results/<yyyy-mm-dd>[-<label>].json with the core count and the load
 * average before and after, and prints a Markdown table for bench/README.md.
 *
 * Knobs (flags or env): --backends / BENCH_BACKENDS (embedded,external),
 * --concurrency / BENCH_CONCURRENCY (1,16,32), --samples / BENCH_SAMPLES (calls per path at
 * concurrency 1, MCP and the bridge called in turn: 200), --calls-per-worker / BENCH_CALLS_PER_WORKER (calls at higher
 * concurrency = this × concurrency: 25), --label / BENCH_LABEL, --eval / BENCH_SEARCH_EVAL,
 * --out / BENCH_OUT_DIR (bench/results), --sqlite-pragmas / BENCH_SQLITE_PRAGMAS (the dev
 * server's, comma-separated, e.g. journal_mode=delete,synchronous=full; `default` for SQLite's own),
 * --dev-server-config / BENCH_DEV_SERVER_CONFIG (the dev server's dynamic config, KEY=VALUE comma-separated; `default`
 * for the CLI's own),
 * --sdk / BENCH_SDK (patched,unpatched), --tools / BENCH_TOOLS (people_get_contact,platform_search_tools),
 * --profile / BENCH_PROFILE (a folder: main-thread CPU profiles of the read's cells, every path, first round).
 * STEWARD_WORKFLOW_THREADS sets the workflow threads of both workers, as it does for npm start.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type NativeConnection } from '@temporalio/worker';
import { Client as TemporalClient } from '@temporalio/client';
import { listen } from '../api/server';
import type { Principal } from '../core/principal';
import { PROJECT_ROOT } from '../db/config';
import { startEmbeddedPostgres } from '../db/embedded';
import { createPool, withTransaction, type Pool } from '../db/pool';
import { catalogue, findTool } from '../modules/catalogue';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { DEV_SERVER_DYNAMIC_CONFIG, DEV_SERVER_SQLITE_PRAGMAS, freePort, parseDevServerSettings, startDevServer } from '../scripts/lib/temporal-dev-server';
import { createTestDatabase } from '../test/helpers/database';
import { TEST_DATABASE_URL } from '../test/helpers/env';
import { ensureWorkflowBundle } from '../worker/bundle';
import { prepareWorker } from '../worker/prepare-worker';
import { workerTuning, workflowThreads } from '../worker/create-worker';
import { backendPids, cpuPerCall, cpuSnapshot, processTree, startProfiler, watchGarbageCollection, type CpuPerCall, type CpuSource } from './cpu';
import { createFloorActivities } from './floor/activities';
import { createBenchOrg } from './seed';
import { serveFloorOverHttp } from './floor/http';
import { checkerFor, invokeBridge, READ_TOOL, startLoadClient, type RemotePath } from './load-client';
import { ToolCaller } from '../api/tool-caller';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';
import { evaluateToolSearch, TOOL_SEARCH_EVAL_FILE, type SearchEvalResult } from './search-eval';
import { measureInterleaved, measureSequential, measureThroughput, medianRound, rotated, type LatencySummary, type RoundSummary, type ThroughputResult } from './stats';
import { createTemporalClient } from '../temporal/client';
import { earlyResultGraceExpiries, earlyResultsDelivered } from '../temporal/early-results';
import { eagerStartCounts, noteEagerStart } from '../temporal/eager-starts';

type Backend = 'embedded' | 'external';
/** patched: the SDK as npm install leaves it (patches/); unpatched: STEWARD_WORKFLOW_WATCHDOG=on, the SDK's own behaviour. */
type SdkMode = 'patched' | 'unpatched';
/** caller: Steward's durable call in process (ToolCaller.call), no HTTP and no credential lookup: what Steward adds to the floor before any surface. */
type CallPath = 'mcp' | 'bridge' | 'floor' | 'floor-http' | 'caller';
const SEARCH_TOOL = 'platform_search_tools';
const KNOWN_TOOLS = [READ_TOOL, SEARCH_TOOL];
/** The floor's row in the table: bench/floor/, the same read as READ_TOOL without Steward around it. */
const FLOOR_TOOL = 'floor (workflow + local activity read)';
/** The floor behind a bare HTTP endpoint (bench/floor/http.ts): what serving a call over HTTP adds, without Steward. */
const FLOOR_HTTP_TOOL = 'floor over bare HTTP';
const isFloorTool = (tool: string) => tool === FLOOR_TOOL || tool === FLOOR_HTTP_TOOL;
const FLOOR_TASK_QUEUE = 'steward-bench-floor';
const TOOL_PATHS: CallPath[] = ['mcp', 'bridge'];
/** Calls per path, one at a time, over which CPU per call at concurrency 1 is taken. */
const CPU_SAMPLES_AT_ONE = 100;
/** The bench's callers (bench/load-client.ts): reported, never counted in a call's CPU. */
const CALLERS_GROUP = 'callers (not counted)';

interface Config {
  backends: Backend[];
  sdkModes: SdkMode[];
  tools: string[];
  concurrency: number[];
  samples: number;
  callsPerWorker: number;
  /** Rounds at each concurrency above 1: every path once a round, in a rotating order; a cell is its median round. */
  rounds: number;
  label?: string;
  /** Overrides the dev server's SQLite pragmas (to compare settings); default: what npm start uses. */
  sqlitePragmas?: string[];
  /** Overrides the dev server's dynamic config (to compare settings); default: what npm start uses. */
  devServerConfig?: string[];
  evalFile: string;
  outDir: string;
  /** Where to write main-thread CPU profiles of the read's cells (.cpuprofile, for DevTools or bench/profile-summary.ts). */
  profileDir?: string;
}

function config(): Config {
  const { values } = parseArgs({
    options: {
      backends: { type: 'string' }, concurrency: { type: 'string' }, samples: { type: 'string' },
      'calls-per-worker': { type: 'string' }, rounds: { type: 'string' }, label: { type: 'string' }, eval: { type: 'string' }, out: { type: 'string' },
      'sqlite-pragmas': { type: 'string' }, 'dev-server-config': { type: 'string' }, sdk: { type: 'string' }, tools: { type: 'string' }, profile: { type: 'string' },
    },
  });
  const int = (raw: string, what: string) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${what} must be a positive integer, not ${raw}`);
    return value;
  };
  const list = (flag: string | undefined, env: string, fallback: string) => (flag ?? process.env[env] ?? fallback).split(',').map((s) => s.trim()).filter(Boolean);
  const backends = list(values.backends, 'BENCH_BACKENDS', 'embedded,external');
  for (const backend of backends) if (backend !== 'embedded' && backend !== 'external') throw new Error(`unknown backend ${backend}: embedded or external`);
  const sdkModes = list(values.sdk, 'BENCH_SDK', 'patched,unpatched');
  for (const mode of sdkModes) if (mode !== 'patched' && mode !== 'unpatched') throw new Error(`unknown SDK state ${mode}: patched or unpatched`);
  const tools = list(values.tools, 'BENCH_TOOLS', KNOWN_TOOLS.join(','));
  for (const tool of tools) if (!KNOWN_TOOLS.includes(tool)) throw new Error(`unknown bench tool ${tool}: ${KNOWN_TOOLS.join(' or ')}`);
  const label = values.label ?? process.env.BENCH_LABEL;
  if (label !== undefined && !/^[a-z0-9-]+$/.test(label)) throw new Error('label: lower-case letters, digits and -');
  return {
    backends: backends as Backend[],
    sdkModes: sdkModes as SdkMode[],
    tools,
    concurrency: list(values.concurrency, 'BENCH_CONCURRENCY', '1,16,32').map((c) => int(c, 'concurrency')),
    samples: int(values.samples ?? process.env.BENCH_SAMPLES ?? '200', 'samples'),
    callsPerWorker: int(values['calls-per-worker'] ?? process.env.BENCH_CALLS_PER_WORKER ?? '25', 'calls-per-worker'),
    rounds: int(values.rounds ?? process.env.BENCH_STACK_ROUNDS ?? '3', 'rounds'),
    label,
    sqlitePragmas: parseDevServerSettings(values['sqlite-pragmas'] ?? process.env.BENCH_SQLITE_PRAGMAS),
    devServerConfig: parseDevServerSettings(values['dev-server-config'] ?? process.env.BENCH_DEV_SERVER_CONFIG),
    evalFile: path.resolve(values.eval ?? process.env.BENCH_SEARCH_EVAL ?? TOOL_SEARCH_EVAL_FILE),
    outDir: path.resolve(values.out ?? process.env.BENCH_OUT_DIR ?? path.join(PROJECT_ROOT, 'bench', 'results')),
    ...(values.profile ?? process.env.BENCH_PROFILE ? { profileDir: path.resolve((values.profile ?? process.env.BENCH_PROFILE)!) } : {}),
  };
}

/** One `npm start`-shaped stack on one Postgres backend. */
interface Stack {
  backend: Backend;
  sdk: SdkMode;
  pool: Pool;
  url: string;
  postgres: string;
  /** A plain client (no payload codec) on the workers' connection, so the floor's starts are eager as the API's are. */
  floorClient: TemporalClient;
  /** The floor behind a bare HTTP endpoint in this process (bench/floor/http.ts). */
  floorUrl: string;
  /** Processes whose CPU each cell accounts, beside this process's own threads. */
  cpuSources: CpuSource[];
  /** A tool caller as the API's (same client, eager starts), for the in-process `caller` path. */
  caller: ToolCaller;
  close(): Promise<void>;
}

/** Runs `work` with the SDK patch on or off: the SDK reads the switch when a worker and its threads are made. */
async function withSdkMode<T>(sdk: SdkMode, work: () => Promise<T>): Promise<T> {
  const before = process.env.STEWARD_WORKFLOW_WATCHDOG;
  if (sdk === 'unpatched') process.env.STEWARD_WORKFLOW_WATCHDOG = 'on';
  else delete process.env.STEWARD_WORKFLOW_WATCHDOG;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.STEWARD_WORKFLOW_WATCHDOG;
    else process.env.STEWARD_WORKFLOW_WATCHDOG = before;
  }
}

/** The floor's worker: its own task queue, on the same connection and with the same tuning as Steward's worker. */
async function startFloorWorker(connection: NativeConnection, pool: Pool, floorBundle: string): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: 'default',
    taskQueue: FLOOR_TASK_QUEUE,
    workflowBundle: { code: floorBundle },
    activities: createFloorActivities(pool),
    ...workerTuning(),
  });
}

type DevServerSettings = Pick<Config, 'sqlitePragmas' | 'devServerConfig'>;

async function startStack(backend: Backend, sdk: SdkMode, bundlePath: string, floorBundle: string, devServer: DevServerSettings): Promise<Stack> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch((error) => console.error(`cleanup: ${String(error)}`));
  };
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `steward-bench-${backend}-`));
    // mkdtemp makes it private; like .data, the embedded server's own account must be able to reach its folder.
    fs.chmodSync(dataDir, 0o755);
    closers.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));

    let databaseUrl: string;
    let postgresPids: (pool: Pool) => number[] | Promise<number[]>;
    if (backend === 'embedded') {
      log('embedded: starting the embedded Postgres');
      const embedded = await startEmbeddedPostgres({ dataRoot: dataDir, port: await freePort() });
      closers.push(() => embedded.stop());
      databaseUrl = embedded.databaseUrl;
      postgresPids = () => processTree(embedded.pid);
    } else {
      postgresPids = backendPids;
      log(`external: creating a fresh database on ${redact(TEST_DATABASE_URL)}`);
      const db = await createTestDatabase();
      closers.push(() => db.drop());
      databaseUrl = db.url;
    }

    // As npm start runs it: a dev server persisting to a SQLite file (not in memory), same flags.
    log(`${backend}: starting a Temporal dev server on a SQLite file`);
    const dev = await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), sqlitePragmas: devServer.sqlitePragmas, dynamicConfig: devServer.devServerConfig });
    closers.push(() => dev.stop());

    const pool = createPool(databaseUrl);
    closers.push(() => pool.end());
    const previousBundle = process.env.STEWARD_WORKFLOW_BUNDLE;
    process.env.STEWARD_WORKFLOW_BUNDLE = bundlePath;
    log(`${backend}: starting the workers, SDK ${sdk}`);
    const { worker, connection, floorWorker } = await withSdkMode(sdk, async () => {
      const prepared = await prepareWorker({ pool, address: dev.address, namespace: 'default', taskQueue: TOOL_TASK_QUEUE });
      return { ...prepared, floorWorker: await startFloorWorker(prepared.connection, pool, floorBundle) };
    }).finally(() => {
      if (previousBundle === undefined) delete process.env.STEWARD_WORKFLOW_BUNDLE;
      else process.env.STEWARD_WORKFLOW_BUNDLE = previousBundle;
    });
    closers.push(() => connection.close());
    for (const running of [worker, floorWorker]) {
      const done = running.run();
      closers.push(async () => {
        running.shutdown();
        await done;
      });
    }
    const temporal = createTemporalClient(connection, 'default');
    const { server, url } = await listen({ pool, temporal, taskQueue: TOOL_TASK_QUEUE, eagerStart: true }, 0);
    closers.push(() => closeServer(server));
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    const cpuSources: CpuSource[] = [
      { name: 'Temporal dev server', pids: () => (dev.process.pid ? [dev.process.pid] : []) },
      { name: 'Postgres', pids: () => postgresPids(pool) },
    ];
    const floorClient = new TemporalClient({ connection, namespace: 'default' });
    const floorHttp = await serveFloorOverHttp((orgId, contactId) => floorRead(floorClient, orgId, contactId));
    closers.push(() => floorHttp.close());
    const caller = new ToolCaller(temporal, TOOL_TASK_QUEUE, true);
    return { backend, sdk, pool, url, postgres: rows[0]?.server_version ?? '?', floorClient, floorUrl: floorHttp.url, cpuSources, caller, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

async function seed(stack: Stack): Promise<{ apiKey: string; principal: Principal; orgId: string; contactId: string }> {
  const { apiKey, orgId, principal } = await createBenchOrg(stack.pool, 'Bench Church');
  const created = await invokeBridge(stack.url, apiKey, 'people_create_contact', {
    firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', phone: '+44 7700 900001', dateOfBirth: '10/12/1985',
  });
  const contactId = (created as { contact: { id: string } }).contact.id;
  return { apiKey, principal, orgId, contactId };
}

/** One floor call, started as Steward starts a tool call: eagerly, on the worker's connection. */
async function floorRead(floorClient: TemporalClient, orgId: string, contactId: string): Promise<{ id?: string } | null> {
  const handle = await floorClient.workflow.start('floorReadWorkflow', {
    taskQueue: FLOOR_TASK_QUEUE,
    workflowId: `bench-floor-${randomUUID()}`,
    workflowExecutionTimeout: '1 minute',
    args: [orgId, contactId],
    requestEagerStart: true,
  });
  noteEagerStart(handle.eagerlyStarted);
  return handle.result();
}

async function callFloor(stack: Stack, orgId: string, contactId: string): Promise<void> {
  const row = await floorRead(stack.floorClient, orgId, contactId);
  if (row?.id !== contactId) throw new Error(`floor: expected contact ${contactId}, got ${JSON.stringify(row)}`);
}

export interface Cell extends ThroughputResult {
  backend: Backend;
  sdk: SdkMode;
  path: CallPath;
  tool: string;
  /** CPU per call over the cell's calls (at concurrency 1: over CPU_SAMPLES_AT_ONE calls of this path alone). */
  cpu?: CpuPerCall;
  /** Above concurrency 1: every round's calls/s and CPU per call, in the order run; the cell's other fields are the median round's. */
  rounds?: RoundSummary[];
  /**
   * Over the measured calls of a tool path: how many answered from their committed transaction in this
   * process (temporal/early-results.ts), and how many waited out the grace period and also asked the
   * Temporal server for the workflow's result (a long poll the server spends CPU on).
   */
  earlyResults?: { delivered: number; askedTemporal: number };
  /** Over the measured calls: workflow starts asked to be eager, and how many the server sent through matching instead. */
  eagerStarts?: { requested: number; declined: number };
}

interface BackendReport {
  backend: Backend;
  sdk: SdkMode;
  postgres: string;
  direct: LatencySummary;
  cells: Cell[];
}

export interface Report {
  timestamp: string;
  label?: string;
  machine: { cpus: number; cpuModel?: string; node: string; platform: string; loadAverageBefore: number[]; loadAverageAfter: number[] };
  config: Omit<Config, 'outDir'>;
  topology: string;
  backends: BackendReport[];
  targets: Record<string, { value: number; target: string; met: boolean }>;
  /** Ratios with no target, that split the gap to the floor: against the floor behind bare HTTP. */
  reference: Record<string, number>;
  toolSearch: SearchEvalResult | { error: string };
}

async function benchBackend(stack: Stack, cfg: Config): Promise<BackendReport> {
  const { apiKey, principal, orgId, contactId } = await seed(stack);
  const argsOf = (tool: string) => (tool === READ_TOOL ? { contactId } : { query: 'add a new person to the church', limit: 10 });
  const label = `${stack.backend} (SDK ${stack.sdk})`;

  // The read tool's own work, in process: what every other row adds to.
  const read = findTool(READ_TOOL);
  if (!read) throw new Error(`${READ_TOOL} is not in the catalogue`);
  const checkRead = checkerFor(READ_TOOL, contactId);
  const direct = await measureSequential(async () => {
    await withTransaction(stack.pool, async (db) => {
      const ctx: ToolContext = { db, principal, org: await getOrgSettings(db, principal.orgId), workflowId: 'bench-direct', catalogue: catalogue() };
      checkRead(read.output.parse(await read.run(ctx, read.input.parse({ contactId }))));
    }, { readOnly: true });
  }, cfg.samples, 20);

  const maxConcurrency = Math.max(...cfg.concurrency);
  const client = await startLoadClient({ url: stack.url, apiKey, contactId, orgId, floorUrl: stack.floorUrl }, maxConcurrency);
  // The callers' own CPU is shown apart and left out of each call's total: an agent spends it on its own machine.
  const sources: CpuSource[] = [...stack.cpuSources, { name: CALLERS_GROUP, pids: () => [client.pid] }];
  const cells: Cell[] = [];
  const floor = () => callFloor(stack, orgId, contactId);
  const inProcess = async () => checkRead(await stack.caller.call(principal, READ_TOOL, { contactId }));
  const cpuOf = async (run: () => Promise<number>, profileName?: string): Promise<CpuPerCall> => {
    const profiler = profileName && cfg.profileDir ? await startProfiler() : undefined;
    const before = await cpuSnapshot(sources);
    const gc = watchGarbageCollection();
    const calls = await run();
    const gcMs = await gc.stop();
    const cpu = { ...cpuPerCall(before, await cpuSnapshot(sources), calls, [CALLERS_GROUP]), mainThreadGcMs: Math.round((gcMs / calls) * 100) / 100 };
    if (profiler) await profiler.stopInto(path.join(cfg.profileDir!, `${stack.backend}-${stack.sdk}-${profileName}.cpuprofile`));
    return cpu;
  };
  // Every path, so that what MCP adds can be told from what HTTP alone (floor-http) and the bridge add.
  const profileNameOf = (tool: string, callPath: CallPath, concurrency: number) => (tool === READ_TOOL ? `${callPath}-c${concurrency}` : undefined);
  try {
    for (const tool of cfg.tools) {
      const args = argsOf(tool);
      // The floor does the read's database work, so it stands beside the read only.
      const paths: CallPath[] = tool === READ_TOOL ? ['floor', 'floor-http', 'caller', ...TOOL_PATHS] : TOOL_PATHS;
      const toolOf = (callPath: CallPath) => (callPath === 'floor' ? FLOOR_TOOL : callPath === 'floor-http' ? FLOOR_HTTP_TOOL : tool);
      const local = (callPath: CallPath) => (callPath === 'floor' ? floor : callPath === 'caller' ? inProcess : undefined);
      /** One call one at a time: the floor and the caller here (they are the API's own work), a tool through the callers' process. */
      const once = (callPath: CallPath): (() => Promise<void | number>) => local(callPath) ?? (() => client.call(callPath as RemotePath, tool, args, 0));
      /** One path at one concurrency: a warm-up, then concurrency × callsPerWorker calls with their CPU. */
      const measureLoaded = async (callPath: CallPath, concurrency: number, profileName: string | undefined): Promise<Cell> => {
        const inHere = local(callPath);
        const measure = (n: number) => (inHere
          ? measureThroughput(Array.from({ length: concurrency }, () => inHere), n)
          : client.throughput(callPath as RemotePath, tool, args, concurrency, n));
        await measure(Math.max(20, concurrency * 3)); // warm-up at the same concurrency
        let result: ThroughputResult | undefined;
        const countsBefore = callCounts();
        const cpu = await cpuOf(async () => {
          result = await measure(concurrency * cfg.callsPerWorker);
          return result.calls;
        }, profileName);
        const { delivered, askedTemporal, requested, declined } = callCountsSince(countsBefore);
        const earlyResults = callPath === 'mcp' || callPath === 'bridge' || callPath === 'caller' ? { delivered, askedTemporal } : undefined;
        return { backend: stack.backend, sdk: stack.sdk, path: callPath, tool: toolOf(callPath), ...result!, cpu, earlyResults, eagerStarts: { requested, declined } };
      };
      if (cfg.concurrency.includes(1)) {
        const sequential = Object.fromEntries(paths.map((callPath) => [callPath, once(callPath)])) as Record<CallPath, () => Promise<void | number>>;
        await measureInterleaved(sequential, 50); // warm-up, every path
        const results = await measureInterleaved(sequential, cfg.samples);
        for (const callPath of paths) {
          const result = results[callPath];
          // CPU cannot be split between paths called in turn: each path alone, one call at a time.
          const cpu = await cpuOf(async () => {
            for (let i = 0; i < CPU_SAMPLES_AT_ONE; i += 1) await sequential[callPath]();
            return CPU_SAMPLES_AT_ONE;
          }, profileNameOf(tool, callPath, 1));
          cells.push({ backend: stack.backend, sdk: stack.sdk, path: callPath, tool: toolOf(callPath), ...result, cpu });
          log(`${label} ${callPath} ${tool} c=1 (interleaved): p50 ${result.latency.p50} ms, p95 ${result.latency.p95} ms, ${result.callsPerSecond} calls/s, ${result.errors} errors, CPU ${cpu.totalMs} ms/call`);
        }
      }
      // A shared machine's load drifts over minutes: the paths are measured in rounds, in a rotating
      // order, and each cell is its median round, so no path is favoured by always running first.
      for (const concurrency of cfg.concurrency.filter((c) => c > 1)) {
        const measured = new Map<CallPath, Cell[]>(paths.map((callPath) => [callPath, []]));
        for (let round = 0; round < cfg.rounds; round += 1) {
          for (const callPath of rotated(paths, round)) {
            const cell = await measureLoaded(callPath, concurrency, round === 0 ? profileNameOf(tool, callPath, concurrency) : undefined);
            measured.get(callPath)!.push(cell);
            const early = cell.earlyResults ? `, ${cell.earlyResults.delivered} answered early, ${cell.earlyResults.askedTemporal} asked Temporal` : '';
            const eager = cell.eagerStarts ? `, ${cell.eagerStarts.declined} of ${cell.eagerStarts.requested} starts not eager` : '';
            log(`${label} ${callPath} ${tool} c=${concurrency} round ${round + 1}/${cfg.rounds}: p50 ${cell.latency.p50} ms, p95 ${cell.latency.p95} ms, ${cell.callsPerSecond} calls/s, ${cell.errors} errors, CPU ${cell.cpu?.totalMs} ms/call (main-thread GC ${cell.cpu?.mainThreadGcMs})${early}${eager}`);
          }
        }
        for (const callPath of paths) cells.push(medianRound(measured.get(callPath)!));
      }
    }
  } finally {
    await client.close();
  }
  return { backend: stack.backend, sdk: stack.sdk, postgres: stack.postgres, direct, cells };
}

type CallCounts = { delivered: number; askedTemporal: number; requested: number; declined: number };

/** This process's early-result and eager-start counters now. */
function callCounts(): CallCounts {
  return { delivered: earlyResultsDelivered(), askedTemporal: earlyResultGraceExpiries(), ...eagerStartCounts() };
}

/** How far each counter moved since `before`. */
function callCountsSince(before: CallCounts): CallCounts {
  const now = callCounts();
  return { delivered: now.delivered - before.delivered, askedTemporal: now.askedTemporal - before.askedTemporal, requested: now.requested - before.requested, declined: now.declined - before.declined };
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/**
 * The targets, read off one backend (embedded, what a new user runs, when it ran): Steward's read
 * against the floor with the patched SDK, the floor patched against unpatched, CPU per read.
 */
type CellFinder = (sdk: SdkMode, p: CallPath, c: number) => Cell | undefined;

/** The read's and the floors' cells on one backend: embedded (what a new user runs) when it ran. */
function readCells(backends: BackendReport[]): { cell: CellFinder; top: number } | undefined {
  const chosen = backends.find((b) => b.backend === 'embedded') ?? backends[0];
  if (!chosen) return undefined;
  const cell: CellFinder = (sdk, p, c) => backends
    .find((b) => b.backend === chosen.backend && b.sdk === sdk)?.cells
    .find((x) => x.path === p && (x.tool === READ_TOOL || isFloorTool(x.tool)) && x.concurrency === c);
  return { cell, top: Math.max(...backends.flatMap((b) => b.cells.map((c) => c.concurrency))) };
}

/** What HTTP alone costs the floor, and Steward's read against the floor behind bare HTTP (patched SDK). */
function referenceOf(backends: BackendReport[]): Report['reference'] {
  const cells = readCells(backends);
  if (!cells) return {};
  const { cell, top } = cells;
  const out: Report['reference'] = {};
  const [floorTop, httpTop, mcpTop] = [cell('patched', 'floor', top), cell('patched', 'floor-http', top), cell('patched', 'mcp', top)];
  if (httpTop && floorTop) out[`httpFloorCallsPerSecondOverFloorAt${top}`] = ratio(httpTop.callsPerSecond, floorTop.callsPerSecond);
  if (httpTop && mcpTop) out[`readMcpCallsPerSecondOverHttpFloorAt${top}`] = ratio(mcpTop.callsPerSecond, httpTop.callsPerSecond);
  if (httpTop?.cpu && floorTop?.cpu) out[`httpCpuMsPerCallAt${top}`] = Math.round((httpTop.cpu.totalMs - floorTop.cpu.totalMs) * 100) / 100;
  return out;
}

function targetsOf(backends: BackendReport[]): Report['targets'] {
  const cells = readCells(backends);
  if (!cells) return {};
  const { cell, top } = cells;
  const out: Report['targets'] = {};
  const [floor1, mcp1, floorTop, mcpTop] = [cell('patched', 'floor', 1), cell('patched', 'mcp', 1), cell('patched', 'floor', top), cell('patched', 'mcp', top)];
  if (floor1 && mcp1) {
    const value = ratio(mcp1.latency.p50, floor1.latency.p50);
    out.readMcpP50OverFloorAt1 = { value, target: '≤ 1.1', met: value <= 1.1 };
  }
  if (floorTop && mcpTop) {
    const value = ratio(mcpTop.callsPerSecond, floorTop.callsPerSecond);
    out[`readMcpCallsPerSecondOverFloorAt${top}`] = { value, target: '≥ 0.85, 0 errors', met: value >= 0.85 && mcpTop.errors === 0 };
  }
  if (mcpTop?.cpu) out[`readMcpCpuMsPerCallAt${top}`] = { value: mcpTop.cpu.totalMs, target: '< 25 ms', met: mcpTop.cpu.totalMs < 25 };
  if (mcp1?.cpu) out.readMcpCpuMsPerCallAt1 = { value: mcp1.cpu.totalMs, target: '< 25 ms', met: mcp1.cpu.totalMs < 25 };
  const [oldFloor1, oldFloorTop] = [cell('unpatched', 'floor', 1), cell('unpatched', 'floor', top)];
  if (floor1 && oldFloor1) {
    const value = ratio(oldFloor1.latency.p50 - floor1.latency.p50, oldFloor1.latency.p50);
    out.floorP50FasterPatchedAt1 = { value, target: '≥ 0.25', met: value >= 0.25 };
  }
  if (floorTop && oldFloorTop) {
    const value = ratio(floorTop.callsPerSecond - oldFloorTop.callsPerSecond, oldFloorTop.callsPerSecond);
    out[`floorMoreCallsPerSecondPatchedAt${top}`] = { value, target: '≥ 0.20', met: value >= 0.20 };
  }
  return out;
}

async function main(): Promise<void> {
  const cfg = config();
  // Worker and SDK chatter at INFO would drown the table; real failures still print.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const loadAverageBefore = loadAverage();

  // Tool search needs neither database nor Temporal; score it first so a bad dataset fails fast.
  let toolSearch: Report['toolSearch'];
  try {
    toolSearch = await evaluateToolSearch(cfg.evalFile);
  } catch (error) {
    toolSearch = { error: error instanceof Error ? error.message : String(error) };
    console.warn(`tool search eval skipped: ${toolSearch.error}`);
  }

  log('building the workflow bundles (Steward and the floor)');
  const bundlePath = await ensureWorkflowBundle(path.join(os.tmpdir(), `steward-bench-workflow-bundle-${process.pid}.js`));
  const { code: floorBundle } = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, 'floor', 'workflows.ts'),
    logger: new DefaultLogger('ERROR'),
  });
  const backends: BackendReport[] = [];
  let current: Stack | undefined;
  const stop = () => {
    void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (const backend of cfg.backends) {
      for (const sdk of cfg.sdkModes) {
        current = await startStack(backend, sdk, bundlePath, floorBundle, cfg);
        try {
          backends.push(await benchBackend(current, cfg));
        } finally {
          await current.close();
          current = undefined;
        }
      }
    }
  } finally {
    fs.rmSync(bundlePath, { force: true });
  }

  const report: Report = {
    timestamp: new Date().toISOString(),
    ...(cfg.label ? { label: cfg.label } : {}),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      loadAverageBefore,
      loadAverageAfter: loadAverage(),
    },
    config: {
      backends: cfg.backends, sdkModes: cfg.sdkModes, tools: cfg.tools, concurrency: cfg.concurrency, samples: cfg.samples, callsPerWorker: cfg.callsPerWorker, rounds: cfg.rounds, label: cfg.label,
      sqlitePragmas: cfg.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS, devServerConfig: cfg.devServerConfig ?? DEV_SERVER_DYNAMIC_CONFIG, evalFile: cfg.evalFile,
    },
    topology: `as npm start: API, worker and bench clients in one Node process; one pg pool for API and worker; API client on the worker's connection (eager starts); Temporal dev server on a SQLite file; the floor's worker on the same connection, its own task queue; workflows ${workflowThreads() === 0 ? 'on the main thread' : `on ${workflowThreads()} threads per worker`}`,
    backends,
    targets: targetsOf(backends),
    reference: referenceOf(backends),
    toolSearch,
  };
  const file = writeReport(cfg.outDir, report);
  console.log(markdownTable(report));
  console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
}

const loadAverage = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

function writeReport(dir: string, report: Report): string {
  fs.mkdirSync(dir, { recursive: true });
  const date = report.timestamp.slice(0, 10);
  const file = path.join(dir, `${date}${report.label ? `-${report.label}` : ''}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** bench/README.md's results table: one row per backend, SDK state, path, tool and concurrency; then where the CPU went. */
export function markdownTable(report: Report): string {
  const lines = [
    `${report.machine.cpus} CPUs, load average ${report.machine.loadAverageBefore.join(' / ')} before, ${report.machine.loadAverageAfter.join(' / ')} after; ${report.timestamp.slice(0, 10)}${report.label ? ` (${report.label})` : ''}`,
    '',
    '| Postgres | SDK | path | tool | concurrency | p50 ms | p95 ms | calls/s | errors | CPU ms/call |',
    '|---|---|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const backend of report.backends) {
    lines.push(`| ${backend.backend} | ${backend.sdk} | in-process run() | ${READ_TOOL} | 1 | ${backend.direct.p50.toFixed(2)} | ${backend.direct.p95.toFixed(2)} | | | |`);
    for (const c of backend.cells) {
      lines.push(`| ${c.backend} | ${c.sdk} | ${c.path} | ${c.tool} | ${c.concurrency} | ${c.latency.p50.toFixed(1)} | ${c.latency.p95.toFixed(1)} | ${c.callsPerSecond.toFixed(1)} | ${c.errors} | ${c.cpu ? c.cpu.totalMs.toFixed(1) : ''} |`);
    }
  }
  const groups = [...new Set(report.backends.flatMap((b) => b.cells.flatMap((c) => Object.keys(c.cpu?.byGroup ?? {}))))].sort();
  if (groups.length > 0) {
    lines.push('', 'CPU per call in ms, by process and thread (the floor and the read):', '');
    lines.push(`| Postgres | SDK | path | concurrency | ${groups.join(' | ')} | total |`, `|---|---|---|---:|${groups.map(() => '---:').join('|')}|---:|`);
    for (const c of report.backends.flatMap((b) => b.cells)) {
      if (!c.cpu || (c.tool !== READ_TOOL && !isFloorTool(c.tool))) continue;
      lines.push(`| ${c.backend} | ${c.sdk} | ${c.path} | ${c.concurrency} | ${groups.map((g) => (c.cpu!.byGroup[g] ?? 0).toFixed(2)).join(' | ')} | ${c.cpu.totalMs.toFixed(2)} |`);
    }
  }
  const targets = Object.entries(report.targets);
  if (targets.length > 0) {
    lines.push('', 'Targets (embedded when it ran, people_get_contact): ' + targets.map(([name, t]) => `${name} ${t.value} (${t.target}) ${t.met ? 'met' : 'not met'}`).join('; '));
  }
  const reference = Object.entries(report.reference ?? {});
  if (reference.length > 0) lines.push('For reference (no target): ' + reference.map(([name, value]) => `${name} ${value}`).join('; '));
  if (!('error' in report.toolSearch)) {
    lines.push(`platform_search_tools quality: recall@5 ${report.toolSearch.recallAt5.toFixed(4)}, MRR ${report.toolSearch.mrr.toFixed(4)} (${report.toolSearch.counted} queries)`);
  }
  return lines.join('\n');
}

function log(message: string): void {
  console.error(`bench: ${message}`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
