/**
 * `npm run bench`: tool-call latency and throughput on the stack `npm start` runs
 * (API and worker in one process, one pool, eager workflow starts on the worker's
 * connection, the Temporal dev server on a SQLite file), once per Postgres backend:
 *   - embedded: what `startEmbeddedPostgres` gives `npm start` when DATABASE_URL is unset;
 *   - external: a fresh database on DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * For each backend, each tool (the read people_get_contact, and platform_search_tools,
 * which does no database work of its own), each path (MCP tools/call over streamable
 * HTTP, the HTTP bridge POST /api/agent/invoke) and each concurrency (1, 16, 32) it
 * reports p50/p95, calls per second and errors. It also times the read's run() in
 * process, and scores platform_search_tools on bench/data/tool-search-dev.jsonl.
 *
 * Writes bench/results/<yyyy-mm-dd>[-<label>].json with the core count and the load
 * average before and after, and prints a Markdown table for bench/README.md.
 *
 * Knobs (flags or env): --backends / BENCH_BACKENDS (embedded,external),
 * --concurrency / BENCH_CONCURRENCY (1,16,32), --samples / BENCH_SAMPLES (calls per path at
 * concurrency 1, MCP and the bridge called in turn: 200), --calls-per-worker / BENCH_CALLS_PER_WORKER (calls at higher
 * concurrency = this × concurrency: 25), --label / BENCH_LABEL, --eval / BENCH_SEARCH_EVAL,
 * --out / BENCH_OUT_DIR (bench/results), --sqlite-pragmas / BENCH_SQLITE_PRAGMAS (the dev
 * server's, comma-separated, e.g. journal_mode=delete,synchronous=full; `default` for SQLite's own).
 */
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { listen } from '../api/server';
import type { Principal } from '../core/principal';
import { ALL_SCOPES } from '../core/scopes';
import { PROJECT_ROOT } from '../db/config';
import { startEmbeddedPostgres } from '../db/embedded';
import { createPool, withTransaction, type Pool } from '../db/pool';
import { catalogue, findTool } from '../modules/catalogue';
import { createApiKey, principalForApiKey } from '../kernel/api-keys';
import { createOrganisation, getOrgSettings } from '../modules/platform/orgs';
import { createMember } from '../modules/platform/users';
import type { ToolContext } from '../modules/tool';
import { DEV_SERVER_SQLITE_PRAGMAS, freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { createTestDatabase } from '../test/helpers/database';
import { TEST_DATABASE_URL } from '../test/helpers/env';
import { ensureWorkflowBundle } from '../worker/bundle';
import { prepareWorker } from '../worker/prepare-worker';
import { evaluateToolSearch, TOOL_SEARCH_EVAL_FILE, type SearchEvalResult } from './search-eval';
import { measureInterleaved, measureSequential, measureThroughput, type LatencySummary, type ThroughputResult } from './stats';
import { createTemporalClient } from '../temporal/client';

type Backend = 'embedded' | 'external';
type CallPath = 'mcp' | 'bridge';
const READ_TOOL = 'people_get_contact';
const SEARCH_TOOL = 'platform_search_tools';
const TOOLS = [READ_TOOL, SEARCH_TOOL] as const;
const PATHS: CallPath[] = ['mcp', 'bridge'];

interface Config {
  backends: Backend[];
  concurrency: number[];
  samples: number;
  callsPerWorker: number;
  label?: string;
  /** Overrides the dev server's SQLite pragmas (to compare settings); default: what npm start uses. */
  sqlitePragmas?: string[];
  evalFile: string;
  outDir: string;
}

function config(): Config {
  const { values } = parseArgs({
    options: {
      backends: { type: 'string' }, concurrency: { type: 'string' }, samples: { type: 'string' },
      'calls-per-worker': { type: 'string' }, label: { type: 'string' }, eval: { type: 'string' }, out: { type: 'string' },
      'sqlite-pragmas': { type: 'string' },
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
  const label = values.label ?? process.env.BENCH_LABEL;
  if (label !== undefined && !/^[a-z0-9-]+$/.test(label)) throw new Error('label: lower-case letters, digits and -');
  return {
    backends: backends as Backend[],
    concurrency: list(values.concurrency, 'BENCH_CONCURRENCY', '1,16,32').map((c) => int(c, 'concurrency')),
    samples: int(values.samples ?? process.env.BENCH_SAMPLES ?? '200', 'samples'),
    callsPerWorker: int(values['calls-per-worker'] ?? process.env.BENCH_CALLS_PER_WORKER ?? '25', 'calls-per-worker'),
    label,
    sqlitePragmas: values['sqlite-pragmas'] ?? process.env.BENCH_SQLITE_PRAGMAS
      ? list(values['sqlite-pragmas'], 'BENCH_SQLITE_PRAGMAS', '').filter((p) => p !== 'default')
      : undefined,
    evalFile: path.resolve(values.eval ?? process.env.BENCH_SEARCH_EVAL ?? TOOL_SEARCH_EVAL_FILE),
    outDir: path.resolve(values.out ?? process.env.BENCH_OUT_DIR ?? path.join(PROJECT_ROOT, 'bench', 'results')),
  };
}

/** One `npm start`-shaped stack on one Postgres backend. */
interface Stack {
  backend: Backend;
  pool: Pool;
  url: string;
  postgres: string;
  close(): Promise<void>;
}

async function startStack(backend: Backend, bundlePath: string, sqlitePragmas: string[] | undefined): Promise<Stack> {
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
    if (backend === 'embedded') {
      log('embedded: starting the embedded Postgres');
      const embedded = await startEmbeddedPostgres({ dataRoot: dataDir, port: await freePort() });
      closers.push(() => embedded.stop());
      databaseUrl = embedded.databaseUrl;
    } else {
      log(`external: creating a fresh database on ${redact(TEST_DATABASE_URL)}`);
      const db = await createTestDatabase();
      closers.push(() => db.drop());
      databaseUrl = db.url;
    }

    // As npm start runs it: a dev server persisting to a SQLite file (not in memory), same flags.
    log(`${backend}: starting a Temporal dev server on a SQLite file`);
    const dev = await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), sqlitePragmas });
    closers.push(() => dev.stop());

    const pool = createPool(databaseUrl);
    closers.push(() => pool.end());
    const previousBundle = process.env.STEWARD_WORKFLOW_BUNDLE;
    process.env.STEWARD_WORKFLOW_BUNDLE = bundlePath;
    const { worker, connection } = await prepareWorker({ pool, address: dev.address, namespace: 'default', taskQueue: 'steward-tools' })
      .finally(() => {
        if (previousBundle === undefined) delete process.env.STEWARD_WORKFLOW_BUNDLE;
        else process.env.STEWARD_WORKFLOW_BUNDLE = previousBundle;
      });
    closers.push(() => connection.close());
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    const temporal = createTemporalClient(connection, 'default');
    const { server, url } = await listen({ pool, temporal, taskQueue: 'steward-tools', eagerStart: true }, 0);
    closers.push(() => closeServer(server));
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    return { backend, pool, url, postgres: rows[0]?.server_version ?? '?', close };
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

async function seed(stack: Stack): Promise<{ apiKey: string; principal: Principal; contactId: string }> {
  const { apiKey, orgId } = await withTransaction(stack.pool, async (db) => {
    const org = await createOrganisation(db, { name: 'Bench Church', country: 'GB' });
    const owner = await createMember(db, { orgId: org.id, email: `owner-${org.id}@bench.local`, role: 'owner', safeguarding: true });
    const key = await createApiKey(db, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] });
    return { apiKey: key.apiKey, orgId: org.id };
  });
  const principal = await principalForApiKey(stack.pool, apiKey);
  if (!principal || principal.orgId !== orgId) throw new Error('seed: the new API key did not resolve to its organisation');
  const created = await invokeBridge(stack.url, apiKey, 'people_create_contact', {
    firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', phone: '+44 7700 900001', dateOfBirth: '10/12/1985',
  });
  const contactId = (created as { contact: { id: string } }).contact.id;
  return { apiKey, principal, contactId };
}

async function invokeBridge(url: string, apiKey: string, tool: string, args: unknown): Promise<unknown> {
  const response = await fetch(`${url}/api/agent/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ tool, arguments: args }),
  });
  const body = (await response.json()) as { ok: boolean; result?: unknown; error?: unknown };
  if (!body.ok) throw new Error(`${tool} via /api/agent/invoke failed (${response.status}): ${JSON.stringify(body.error)}`);
  return body.result;
}

async function mcpClient(url: string, apiKey: string): Promise<McpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  const client = new McpClient({ name: 'steward-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Each call's answer is checked, so a fast wrong answer counts as an error, not as speed. */
function checkerFor(tool: string, contactId: string): (result: unknown) => void {
  if (tool === READ_TOOL) {
    return (result) => {
      const id = (result as { contact?: { id?: string } } | undefined)?.contact?.id;
      if (id !== contactId) throw new Error(`expected contact ${contactId}, got ${JSON.stringify(result).slice(0, 200)}`);
    };
  }
  return (result) => {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools) || !tools.includes('people_create_contact')) throw new Error(`unexpected search answer ${JSON.stringify(result).slice(0, 200)}`);
  };
}

export interface Cell extends ThroughputResult {
  backend: Backend;
  path: CallPath;
  tool: string;
}

interface BackendReport {
  backend: Backend;
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
  toolSearch: SearchEvalResult | { error: string };
}

async function benchBackend(stack: Stack, cfg: Config): Promise<BackendReport> {
  const { apiKey, principal, contactId } = await seed(stack);
  const argsOf = (tool: string) => (tool === READ_TOOL ? { contactId } : { query: 'add a new person to the church', limit: 10 });

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
  const clients = await Promise.all(Array.from({ length: maxConcurrency }, () => mcpClient(stack.url, apiKey)));
  const cells: Cell[] = [];
  try {
    for (const tool of TOOLS) {
      const args = argsOf(tool);
      const check = checkerFor(tool, contactId);
      const callerFor = (callPath: CallPath, index: number) => (callPath === 'bridge'
        ? async () => check(await invokeBridge(stack.url, apiKey, tool, args))
        : async () => {
          const result = await clients[index].callTool({ name: tool, arguments: args });
          if (result.isError) throw new Error(`mcp: ${JSON.stringify(result.content).slice(0, 200)}`);
          check(result.structuredContent);
        });
      if (cfg.concurrency.includes(1)) {
        const sequential = { mcp: callerFor('mcp', 0), bridge: callerFor('bridge', 0) } satisfies Record<CallPath, () => Promise<void>>;
        await measureInterleaved(sequential, 50); // warm-up, both paths
        const results = await measureInterleaved(sequential, cfg.samples);
        for (const callPath of PATHS) {
          const result = results[callPath];
          cells.push({ backend: stack.backend, path: callPath, tool, ...result });
          log(`${stack.backend} ${callPath} ${tool} c=1 (interleaved with the other path): p50 ${result.latency.p50} ms, p95 ${result.latency.p95} ms, ${result.callsPerSecond} calls/s, ${result.errors} errors`);
        }
      }
      for (const callPath of PATHS) {
        for (const concurrency of cfg.concurrency.filter((c) => c > 1)) {
          const callers = Array.from({ length: concurrency }, (_, i) => callerFor(callPath, i));
          const calls = concurrency * cfg.callsPerWorker;
          await measureThroughput(callers, Math.max(20, concurrency * 3)); // warm-up at the same concurrency
          const result = await measureThroughput(callers, calls);
          cells.push({ backend: stack.backend, path: callPath, tool, ...result });
          log(`${stack.backend} ${callPath} ${tool} c=${concurrency}: p50 ${result.latency.p50} ms, p95 ${result.latency.p95} ms, ${result.callsPerSecond} calls/s, ${result.errors} errors`);
        }
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  return { backend: stack.backend, postgres: stack.postgres, direct, cells };
}

/** The issue's targets, read off the embedded backend (what a new user runs). */
function targetsOf(backends: BackendReport[]): Report['targets'] {
  const embedded = backends.find((b) => b.backend === 'embedded');
  if (!embedded) return {};
  const cell = (p: CallPath, c: number) => embedded.cells.find((x) => x.path === p && x.tool === READ_TOOL && x.concurrency === c);
  const out: Report['targets'] = {};
  const mcp1 = cell('mcp', 1);
  const bridge1 = cell('bridge', 1);
  const mcp32 = cell('mcp', 32);
  if (mcp1) {
    out.readMcpP50 = { value: mcp1.latency.p50, target: '≤ 20 ms', met: mcp1.latency.p50 <= 20 };
    out.readMcpP95 = { value: mcp1.latency.p95, target: '≤ 35 ms', met: mcp1.latency.p95 <= 35 };
  }
  if (mcp32) out.readMcpCallsPerSecondAt32 = { value: mcp32.callsPerSecond, target: '≥ 100 calls/s, 0 errors', met: mcp32.callsPerSecond >= 100 && mcp32.errors === 0 };
  if (mcp1 && bridge1) {
    const ratio = Math.round((mcp1.latency.p50 / bridge1.latency.p50) * 100) / 100;
    out.mcpOverBridgeP50 = { value: ratio, target: '≤ 1.1', met: ratio <= 1.1 };
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
    toolSearch = evaluateToolSearch(cfg.evalFile);
  } catch (error) {
    toolSearch = { error: error instanceof Error ? error.message : String(error) };
    console.warn(`tool search eval skipped: ${toolSearch.error}`);
  }

  log('building the workflow bundle');
  const bundlePath = await ensureWorkflowBundle(path.join(os.tmpdir(), `steward-bench-workflow-bundle-${process.pid}.js`));
  const backends: BackendReport[] = [];
  let current: Stack | undefined;
  const stop = () => {
    void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (const backend of cfg.backends) {
      current = await startStack(backend, bundlePath, cfg.sqlitePragmas);
      try {
        backends.push(await benchBackend(current, cfg));
      } finally {
        await current.close();
        current = undefined;
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
      backends: cfg.backends, concurrency: cfg.concurrency, samples: cfg.samples, callsPerWorker: cfg.callsPerWorker, label: cfg.label,
      sqlitePragmas: cfg.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS, evalFile: cfg.evalFile,
    },
    topology: 'as npm start: API, worker and bench clients in one Node process; one pg pool for API and worker; API client on the worker\'s connection (eager starts); Temporal dev server on a SQLite file',
    backends,
    targets: targetsOf(backends),
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

/** bench/README.md's results table: one row per backend, path, tool and concurrency. */
export function markdownTable(report: Report): string {
  const lines = [
    `${report.machine.cpus} CPUs, load average ${report.machine.loadAverageBefore.join(' / ')} before, ${report.machine.loadAverageAfter.join(' / ')} after; ${report.timestamp.slice(0, 10)}${report.label ? ` (${report.label})` : ''}`,
    '',
    '| Postgres | path | tool | concurrency | p50 ms | p95 ms | calls/s | errors |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const backend of report.backends) {
    lines.push(`| ${backend.backend} | in-process run() | ${READ_TOOL} | 1 | ${backend.direct.p50.toFixed(2)} | ${backend.direct.p95.toFixed(2)} | | |`);
    for (const c of backend.cells) {
      lines.push(`| ${c.backend} | ${c.path} | ${c.tool} | ${c.concurrency} | ${c.latency.p50.toFixed(1)} | ${c.latency.p95.toFixed(1)} | ${c.callsPerSecond.toFixed(1)} | ${c.errors} |`);
    }
  }
  const targets = Object.entries(report.targets);
  if (targets.length > 0) {
    lines.push('', 'Targets (embedded, people_get_contact): ' + targets.map(([name, t]) => `${name} ${t.value} (${t.target}) ${t.met ? 'met' : 'not met'}`).join('; '));
  }
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
