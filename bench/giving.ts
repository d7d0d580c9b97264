/**
 * `npm run bench:giving`: latency of the giving module's heavy tools on the stack `npm start`
 * runs (API and worker in one process, eager workflow starts, the Temporal dev server on a SQLite
 * file), against a fresh database on DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 *
 * Each scenario seeds what it needs into one organisation and reports p50/p95 over sequential calls:
 *   - giving_preview_gift_aid_claim over 10,000 unclaimed donations from 1,000 declared givers,
 *     through the HTTP bridge (the whole durable call) and in process (the tool's run() alone);
 *   - giving_record_donation beside 10,000 committed donations (bench/giving-record.ts).
 * Further scenarios are added to SCENARIOS.
 *
 * Writes bench/results/<yyyy-mm-dd>-giving.json and prints a Markdown table for bench/README.md.
 * Knobs: BENCH_GIVING_SAMPLES (sequential calls per scenario: 20), BENCH_GIVING_DONATIONS (10000),
 * BENCH_GIVING_GIVERS (1000), BENCH_OUT_DIR (bench/results).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { listen } from '../api/server';
import { PROJECT_ROOT } from '../db/config';
import { createPool, withTenantTransaction, type Pool } from '../db/pool';
import { catalogue, findTool } from '../modules/catalogue';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { createTestDatabase } from '../test/helpers/database';
import { ensureWorkflowBundle } from '../worker/bundle';
import { prepareWorker } from '../worker/prepare-worker';
import { createTemporalClient } from '../temporal/client';
import { recordDonationScenario } from './giving-record';
import { invokeBridge } from './load-client';
import { createBenchOrg, type BenchOrg } from './seed';
import { measureSequential, type LatencySummary } from './stats';

export interface GivingStack {
  pool: Pool;
  url: string;
  close(): Promise<void>;
}

export interface ScenarioResult {
  scenario: string;
  tool: string;
  path: 'bridge' | 'in-process run()';
  setup: string;
  latency: LatencySummary;
}

/** One measured tool: seeds its organisation, then returns its rows of the report. */
export interface Scenario {
  name: string;
  run(stack: GivingStack, org: BenchOrg, samples: number): Promise<ScenarioResult[]>;
}

const int = (raw: string | undefined, fallback: number) => {
  const value = Number(raw ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`expected a positive integer, not ${raw}`);
  return value;
};

function log(message: string): void {
  console.error(`bench:giving: ${message}`);
}

async function startStack(bundlePath: string): Promise<GivingStack> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch((error) => console.error(`cleanup: ${String(error)}`));
  };
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-giving-'));
    closers.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    const dev = await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
    closers.push(() => dev.stop());
    const pool = createPool(db.url);
    closers.push(() => pool.end());
    process.env.STEWARD_WORKFLOW_BUNDLE = bundlePath;
    const { worker, connection } = await prepareWorker({ pool, address: dev.address, namespace: 'default', taskQueue: 'steward-tools' });
    closers.push(() => connection.close());
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    const { server, url } = await listen({ pool, temporal: createTemporalClient(connection, 'default'), taskQueue: 'steward-tools', eagerStart: true }, 0);
    closers.push(() => new Promise<void>((resolve) => {
      (server as Server).closeAllConnections();
      server.close(() => resolve());
    }));
    return { pool, url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs a tool's run() in process, in a read-only tenant snapshot: the tool's own work without the durable call around it. */
export async function runInProcess(pool: Pool, org: BenchOrg, toolName: string, args: unknown): Promise<unknown> {
  const tool = findTool(toolName);
  if (!tool) throw new Error(`${toolName} is not in the catalogue`);
  return withTenantTransaction(pool, org.orgId, async (db) => {
    const ctx: ToolContext = { db, principal: org.principal, org: await getOrgSettings(db, org.orgId), workflowId: 'bench-giving-direct', catalogue: catalogue() };
    return tool.output.parse(await tool.run(ctx, tool.input.parse(args)));
  }, { readOnly: true });
}

// ---------------------------------------------------------------- Gift Aid preview

/** Givers with complete Gift Aid details and an enduring written declaration, and their unclaimed gifts. */
async function seedGiftAid(pool: Pool, orgId: string, givers: number, donations: number): Promise<void> {
  const fundId = randomUUID();
  const batchId = randomUUID();
  await pool.query('INSERT INTO giving_funds (id, org_id, name) VALUES ($1, $2, $3)', [fundId, orgId, 'General']);
  await pool.query(`INSERT INTO giving_batches (id, org_id, name, status, currency, committed_at) VALUES ($1, $2, 'Bench', 'committed', 'GBP', now())`, [batchId, orgId]);
  const contactIds = Array.from({ length: givers }, () => randomUUID());
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, prefix)
    SELECT u.id, $1, 'Giver', 'Number ' || u.n, 'Mx' FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, contactIds]);
  await pool.query(`INSERT INTO giving_givers (id, org_id, contact_id, giver_reference, house_name_or_number, postcode)
    SELECT gen_random_uuid(), $1, u.id, 'B' || u.n, u.n::text, 'SW1A 1AA' FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, contactIds]);
  await pool.query(`INSERT INTO giving_gift_aid_declarations (id, org_id, contact_id, scope, method, made_on, start_on)
    SELECT gen_random_uuid(), $1, u.id, 'past_and_future', 'written', CURRENT_DATE - 30, CURRENT_DATE - 1000 FROM unnest($2::uuid[]) AS u(id)`, [orgId, contactIds]);
  // Every tenth giver has no postcode, so the preview also lists excluded lines.
  await pool.query(`UPDATE giving_givers SET postcode = NULL WHERE org_id = $1 AND giver_reference ~ '0$'`, [orgId]);
  await pool.query(`INSERT INTO giving_donations (id, org_id, batch_id, contact_id, amount, currency, method, received_on, gift_aid_status)
    SELECT ids.id, $1, $2, ($3::uuid[])[1 + (ids.n % $4)], 500 + (ids.n % 5000), 'GBP', 'card', CURRENT_DATE - (ids.n % 300)::int, 'unclaimed'
    FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, $5::int) AS n) ids`, [orgId, batchId, contactIds, givers, donations]);
  await pool.query(`INSERT INTO giving_designations (org_id, donation_id, fund_id, amount)
    SELECT org_id, id, $2, amount FROM giving_donations WHERE org_id = $1`, [orgId, fundId]);
  await pool.query('ANALYZE');
}

const previewScenario: Scenario = {
  name: 'gift-aid-preview',
  async run(stack, org, samples) {
    const donations = int(process.env.BENCH_GIVING_DONATIONS, 10_000);
    const givers = int(process.env.BENCH_GIVING_GIVERS, 1000);
    log(`seeding ${donations} donations from ${givers} givers`);
    await seedGiftAid(stack.pool, org.orgId, givers, donations);
    const tool = 'giving_preview_gift_aid_claim';
    const setup = `${donations} unclaimed donations, ${givers} givers (a tenth without a postcode)`;
    const check = (result: unknown) => {
      const preview = result as { donationLines: number; excludedCount: number };
      if (preview.donationLines + preview.excludedCount !== donations) throw new Error(`the preview saw ${preview.donationLines + preview.excludedCount} of ${donations} donations`);
    };
    log(`${tool}: in process`);
    const direct = await measureSequential(async () => check(await runInProcess(stack.pool, org, tool, {})), samples, 2);
    log(`${tool}: through the bridge`);
    const bridge = await measureSequential(async () => check(await invokeBridge(stack.url, org.apiKey, tool, {})), samples, 2);
    return [
      { scenario: this.name, tool, path: 'in-process run()', setup, latency: direct },
      { scenario: this.name, tool, path: 'bridge', setup, latency: bridge },
    ];
  },
};

/** Every measured scenario, each in an organisation of its own. */
export const SCENARIOS: Scenario[] = [previewScenario, recordDonationScenario];

export function markdownTable(results: readonly ScenarioResult[], machine: { cpus: number; timestamp: string }): string {
  return [
    `${machine.cpus} CPUs; ${machine.timestamp.slice(0, 10)}`,
    '',
    '| tool | path | data | samples | p50 ms | p95 ms |',
    '|---|---|---|---:|---:|---:|',
    ...results.map((r) => `| ${r.tool} | ${r.path} | ${r.setup} | ${r.latency.samples} | ${r.latency.p50.toFixed(1)} | ${r.latency.p95.toFixed(1)} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already
  }
  const samples = int(process.env.BENCH_GIVING_SAMPLES, 20);
  const bundlePath = await ensureWorkflowBundle(path.join(os.tmpdir(), `steward-bench-workflow-bundle-${process.pid}.js`));
  log('starting the stack');
  const stack = await startStack(bundlePath);
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of SCENARIOS) {
      const org = await createBenchOrg(stack.pool, `Bench ${scenario.name}`);
      results.push(...await scenario.run(stack, org, samples));
    }
  } finally {
    await stack.close();
  }
  const timestamp = new Date().toISOString();
  const report = { timestamp, machine: { cpus: os.cpus().length, loadAverage: os.loadavg() }, samples, results };
  const dir = path.resolve(process.env.BENCH_OUT_DIR ?? path.join(PROJECT_ROOT, 'bench', 'results'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${timestamp.slice(0, 10)}-giving.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${file}`);
  console.log(markdownTable(results, { cpus: os.cpus().length, timestamp }));
}

if (require.main === module) {
  main().then(() => process.exit(0), (error) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
