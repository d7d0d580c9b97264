/**
 * `npm run bench`: one run measures
 *   - p50/p95 latency of the read tool people_get_contact
 *       (a) called directly in-process (the tool's run() on a pool client),
 *       (b) through toolCallWorkflow via the HTTP bridge, POST /api/agent/invoke,
 *       (c) through MCP tools/call (SDK client, streamable HTTP);
 *   - calls per second for (c) at concurrency 16;
 *   - platform_search_tools quality (recall@5, MRR) on ../shared/eval/tool-search-dev.jsonl.
 * It prints a table and writes JSON to bench/results/<timestamp>.json.
 *
 * Needs Postgres at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres;
 * the run uses a fresh database and drops it) and starts a Temporal dev server
 * unless TEMPORAL_ADDRESS is set.
 *
 * Knobs (flags or env): --samples / BENCH_SAMPLES (300), --warmup / BENCH_WARMUP (50),
 * --concurrency / BENCH_CONCURRENCY (16), --calls / BENCH_THROUGHPUT_CALLS (1600),
 * --eval / BENCH_SEARCH_EVAL (the dev set), --out / BENCH_OUT_DIR (bench/results).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { listen } from '../api/server';
import type { Principal } from '../core/principal';
import { ALL_SCOPES } from '../core/scopes';
import { PROJECT_ROOT } from '../db/config';
import { createPool, withTransaction, type Pool } from '../db/pool';
import { findTool } from '../modules/catalogue';
import { createApiKey, principalForApiKey } from '../modules/platform/api-keys';
import { createOrganisation, getOrgSettings } from '../modules/platform/orgs';
import { createMember } from '../modules/platform/users';
import type { ToolContext } from '../modules/tool';
import { startDevServer, type DevServer } from '../scripts/lib/temporal-dev-server';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database';
import { TEST_DATABASE_URL } from '../test/helpers/env';
import { ensureWorkflowBundle } from '../worker/bundle';
import { createStewardWorker } from '../worker/create-worker';
import { evaluateToolSearch, type SearchEvalResult } from './search-eval';
import { measureSequential, measureThroughput, type LatencySummary, type ThroughputResult } from './stats';
import { createTemporalClient } from '../temporal/client';

const TOOL = 'people_get_contact';

interface Config {
  samples: number;
  warmup: number;
  concurrency: number;
  throughputCalls: number;
  evalFile: string;
  outDir: string;
}

function config(): Config {
  const { values } = parseArgs({
    options: {
      samples: { type: 'string' }, warmup: { type: 'string' }, concurrency: { type: 'string' },
      calls: { type: 'string' }, eval: { type: 'string' }, out: { type: 'string' },
    },
  });
  const int = (flag: string | undefined, env: string, fallback: number) => {
    const raw = flag ?? process.env[env];
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${env} must be a positive integer, not ${raw}`);
    return value;
  };
  return {
    samples: int(values.samples, 'BENCH_SAMPLES', 300),
    warmup: int(values.warmup, 'BENCH_WARMUP', 50),
    concurrency: int(values.concurrency, 'BENCH_CONCURRENCY', 16),
    throughputCalls: int(values.calls, 'BENCH_THROUGHPUT_CALLS', 1600),
    evalFile: path.resolve(values.eval ?? process.env.BENCH_SEARCH_EVAL ?? path.join(PROJECT_ROOT, '..', 'shared', 'eval', 'tool-search-dev.jsonl')),
    outDir: path.resolve(values.out ?? process.env.BENCH_OUT_DIR ?? path.join(PROJECT_ROOT, 'bench', 'results')),
  };
}

/** The Steward stack, shaped like production: the API and the worker each with their own pool. */
interface Stack {
  db: TestDatabase;
  apiPool: Pool;
  url: string;
  separateUrl: string;
  temporalAddress: string;
  temporalKind: string;
  close(): Promise<void>;
}

async function startStack(): Promise<Stack> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch((error) => console.error(`cleanup: ${String(error)}`));
  };
  try {
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    let temporalKind = `external (${temporalAddress})`;
    if (!temporalAddress) {
      log('starting a Temporal dev server');
      const dev: DevServer = await startDevServer({ headless: true });
      closers.push(() => dev.stop());
      temporalAddress = dev.address;
      temporalKind = 'temporal server start-dev (in-memory, started by the bench)';
    }
    log('building the workflow bundle');
    const bundlePath = await ensureWorkflowBundle(path.join(os.tmpdir(), 'steward-bench-workflow-bundle.js'));

    log(`creating a fresh database on ${redact(TEST_DATABASE_URL)}`);
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    const apiPool = createPool(db.url);
    closers.push(() => apiPool.end());

    const taskQueue = `bench-${randomBytes(6).toString('hex')}`;
    const { worker, connection: workerConnection } = await createStewardWorker({
      address: temporalAddress, namespace: 'default', pool: db.pool, taskQueue, bundlePath,
    });
    closers.push(() => workerConnection.close());
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });

    // As `npm start` runs it: the API's client shares the worker's connection, so starts are eager.
    const eagerTemporal = createTemporalClient(workerConnection, 'default');
    const { server, url } = await listen({ pool: apiPool, temporal: eagerTemporal, taskQueue, eagerStart: true }, 0);
    closers.push(() => closeServer(server));
    // As separate `npm run api` replicas run it: their own connection, first task through matching.
    const connection = await Connection.connect({ address: temporalAddress });
    closers.push(() => connection.close());
    const temporal = createTemporalClient(connection, 'default');
    const separate = await listen({ pool: apiPool, temporal, taskQueue }, 0);
    closers.push(() => closeServer(separate.server));
    return { db, apiPool, url, separateUrl: separate.url, temporalAddress, temporalKind, close };
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
  const { apiKey, orgId } = await withTransaction(stack.db.pool, async (db) => {
    const org = await createOrganisation(db, { name: 'Bench Church', country: 'GB' });
    const owner = await createMember(db, { orgId: org.id, email: `owner-${org.id}@bench.local`, role: 'owner', safeguarding: true });
    const key = await createApiKey(db, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] });
    return { apiKey: key.apiKey, orgId: org.id };
  });
  const principal = await principalForApiKey(stack.db.pool, apiKey);
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

function expectContact(result: unknown, contactId: string, path: string): void {
  const id = (result as { contact?: { id?: string } } | undefined)?.contact?.id;
  if (id !== contactId) throw new Error(`${path}: expected contact ${contactId}, got ${JSON.stringify(result).slice(0, 300)}`);
}

interface Report {
  timestamp: string;
  tool: string;
  config: Omit<Config, 'outDir'>;
  environment: Record<string, unknown>;
  latency: { direct: LatencySummary; bridge: LatencySummary; mcp: LatencySummary; bridgeSeparateApi: LatencySummary };
  ratios: { mcpOverBridgeP50: number; bridgeOverDirectP50: number };
  throughput: { mcp: ThroughputResult };
  toolSearch: SearchEvalResult | { error: string };
}

async function main(): Promise<void> {
  const cfg = config();
  // Worker and SDK chatter at INFO would drown the table; real failures still print.
  Runtime.install({ logger: new DefaultLogger('ERROR') });

  // Tool search needs neither database nor Temporal; score it first so a bad dataset fails fast.
  let toolSearch: Report['toolSearch'];
  try {
    toolSearch = evaluateToolSearch(cfg.evalFile);
  } catch (error) {
    toolSearch = { error: error instanceof Error ? error.message : String(error) };
    console.warn(`tool search eval skipped: ${toolSearch.error}`);
  }

  const stack = await startStack();
  const stop = () => {
    void stack.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const { apiKey, principal, contactId } = await seed(stack);
    const args = { contactId };
    const tool = findTool(TOOL);
    if (!tool) throw new Error(`${TOOL} is not in the catalogue`);

    // (a) In-process: what the activity does, without Temporal or HTTP.
    const direct = async () => {
      const client = await stack.db.pool.connect();
      try {
        const ctx: ToolContext = { db: client, principal, org: await getOrgSettings(client, principal.orgId), workflowId: 'bench-direct' };
        const result = tool.output.parse(await tool.run(ctx, tool.input.parse(args)));
        expectContact(result, contactId, 'direct');
      } finally {
        client.release();
      }
    };
    // (b) HTTP bridge → toolCallWorkflow.
    const bridge = async () => expectContact(await invokeBridge(stack.url, apiKey, TOOL, args), contactId, 'bridge');
    const bridgeSeparate = async () => expectContact(await invokeBridge(stack.separateUrl, apiKey, TOOL, args), contactId, 'bridge, separate API');
    // (c) MCP tools/call → toolCallWorkflow.
    const mcpCall = (client: McpClient) => async () => {
      const result = await client.callTool({ name: TOOL, arguments: args });
      if (result.isError) throw new Error(`mcp: ${JSON.stringify(result.content).slice(0, 300)}`);
      expectContact(result.structuredContent, contactId, 'mcp');
    };

    const mcp = await mcpClient(stack.url, apiKey);
    log(`measuring ${TOOL}: ${cfg.warmup} warm-up + ${cfg.samples} samples per path`);
    const latency = {
      direct: await measureSequential(direct, cfg.samples, cfg.warmup),
      bridge: await measureSequential(bridge, cfg.samples, cfg.warmup),
      mcp: await measureSequential(mcpCall(mcp), cfg.samples, cfg.warmup),
      bridgeSeparateApi: await measureSequential(bridgeSeparate, cfg.samples, cfg.warmup),
    };
    await mcp.close();

    log(`measuring MCP throughput: ${cfg.throughputCalls} calls at concurrency ${cfg.concurrency}`);
    const clients = await Promise.all(Array.from({ length: cfg.concurrency }, () => mcpClient(stack.url, apiKey)));
    const callers = clients.map(mcpCall);
    await measureThroughput(callers, cfg.concurrency * 5); // warm-up at the same concurrency
    const throughput = await measureThroughput(callers, cfg.throughputCalls);
    await Promise.all(clients.map((client) => client.close()));

    const report: Report = {
      timestamp: new Date().toISOString(),
      tool: TOOL,
      config: { samples: cfg.samples, warmup: cfg.warmup, concurrency: cfg.concurrency, throughputCalls: cfg.throughputCalls, evalFile: cfg.evalFile },
      environment: await environment(stack),
      latency,
      ratios: {
        mcpOverBridgeP50: ratio(latency.mcp.p50, latency.bridge.p50),
        bridgeOverDirectP50: ratio(latency.bridge.p50, latency.direct.p50),
      },
      throughput: { mcp: throughput },
      toolSearch,
    };
    const file = writeReport(cfg.outDir, report);
    printReport(report, file);
  } finally {
    await stack.close();
  }
}

async function environment(stack: Stack): Promise<Record<string, unknown>> {
  const { rows } = await stack.apiPool.query<{ server_version: string }>('SHOW server_version');
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    postgres: rows[0]?.server_version,
    temporal: stack.temporalKind,
    topology: 'API, worker and clients in one Node process (API client on the worker connection: eager starts, as npm start runs); API and worker use separate pools (10 connections each); the last row uses an API with its own connection, as separate npm run api replicas do',
  };
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

function writeReport(dir: string, report: Report): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${report.timestamp.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

function printReport(report: Report, file: string): void {
  const { latency, throughput, ratios, toolSearch } = report;
  const row = (cells: string[], widths: number[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const widths = [44, 9, 9, 9, 9, 8];
  const lines = [
    '',
    `Steward benchmark: ${report.tool}   (${report.timestamp})`,
    row(['path', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'samples'], widths),
    row(['-'.repeat(44), '-'.repeat(9), '-'.repeat(9), '-'.repeat(9), '-'.repeat(9), '-'.repeat(8)], widths),
  ];
  const paths: Array<[string, LatencySummary]> = [
    ['(a) direct, in-process', latency.direct],
    ['(b) workflow via HTTP bridge /api/agent/invoke', latency.bridge],
    ['(c) workflow via MCP tools/call', latency.mcp],
    [`(c) under load, concurrency ${throughput.mcp.concurrency}`, throughput.mcp.latency],
    ['(b) with the API on its own connection', latency.bridgeSeparateApi],
  ];
  for (const [name, s] of paths) lines.push(row([name, s.p50.toFixed(2), s.p95.toFixed(2), s.p99.toFixed(2), s.mean.toFixed(2), String(s.samples)], widths));
  lines.push(
    '',
    `(c)/(b) p50 ratio            ${ratios.mcpOverBridgeP50.toFixed(2)}`,
    `(b)/(a) p50 ratio            ${ratios.bridgeOverDirectP50.toFixed(2)}`,
    `(c) throughput               ${throughput.mcp.callsPerSecond.toFixed(1)} calls/s  (${throughput.mcp.calls} calls, concurrency ${throughput.mcp.concurrency}, ${throughput.mcp.seconds.toFixed(2)} s)`,
  );
  if ('error' in toolSearch) {
    lines.push(`platform_search_tools        not scored: ${toolSearch.error}`);
  } else {
    lines.push(
      `platform_search_tools        recall@5 ${toolSearch.recallAt5.toFixed(4)}   MRR ${toolSearch.mrr.toFixed(4)}   (${toolSearch.counted} queries counted, ${toolSearch.skipped} skipped of ${toolSearch.queries}: expected tools not in the catalogue)`,
    );
    const misses = toolSearch.cases.filter((c) => c.recallAt5 < 1);
    for (const miss of misses) lines.push(`  miss@5: "${miss.q}" expected ${miss.expect.join(', ')} (rank ${miss.firstRank ?? '-'}), top 5: ${miss.top5.join(', ')}`);
  }
  lines.push('', `environment: ${report.environment.cpus} CPU, node ${report.environment.node}, Postgres ${report.environment.postgres}, Temporal ${report.environment.temporal}`, `written to ${path.relative(process.cwd(), file)}`);
  console.log(lines.join('\n'));
}

function log(message: string): void {
  console.error(`bench: ${message}`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exit(1);
});
