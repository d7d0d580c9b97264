/**
 * `npx tsx bench/temporal-options.ts`: what each option Steward starts a tool call's workflow with
 * costs the Temporal dev server, on the floor's workflow (bench/floor/) with an activity that does no
 * database work, so nothing but Temporal is measured. Variants, run in turn for several rounds at
 * concurrency 32: the bare start; with Steward's four search attributes; with the memo an
 * idempotency key adds (four fields); with payloads the size of a read's plan and result; with the
 * id reuse policy and execution timeout every call sets. Reports the dev server's CPU per workflow
 * (median of the rounds) and the Node process's, and writes bench/results/<date>-temporal-options.json.
 *
 * Knobs: BENCH_OPTIONS_ROUNDS (3), BENCH_OPTIONS_CALLS (640 per variant and round), BENCH_OPTIONS_VARIANTS (all),
 * BENCH_OPTIONS_PAYLOAD_BYTES (1500), BENCH_OUT_DIR (bench/results), BENCH_DEV_SERVER_CONFIG (the dev
 * server's dynamic config, comma-separated KEY=VALUE, `default` for the CLI's own: to compare settings).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Client, type WorkflowStartOptions } from '@temporalio/client';
import { SA_ACTOR, SA_MODULE, SA_ORG, SA_TOOL } from '../core/search-attributes';
import { DEV_SERVER_DYNAMIC_CONFIG, parseDevServerSettings, startDevServer } from '../scripts/lib/temporal-dev-server';
import { workerTuning } from '../worker/create-worker';
import { cpuPerCall, cpuSnapshot, type CpuSource } from './cpu';
import { measureThroughput } from './stats';

const TASK_QUEUE = 'steward-bench-options';
const CONCURRENCY = 32;
const ROUNDS = Number(process.env.BENCH_OPTIONS_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_OPTIONS_CALLS ?? 640);
const PAYLOAD_BYTES = Number(process.env.BENCH_OPTIONS_PAYLOAD_BYTES ?? 1500);

type Extra = Partial<Pick<WorkflowStartOptions, 'typedSearchAttributes' | 'memo' | 'workflowIdReusePolicy' | 'workflowExecutionTimeout'>>;

/** Each variant: what it adds to the bare start, and the contact id the activity echoes (its size is the payloads'). */
function variants(orgId: string): Record<string, { extra: () => Extra; echoed: string }> {
  return {
    bare: { extra: () => ({}), echoed: 'c' },
    'search attributes (4)': {
      extra: () => ({ typedSearchAttributes: [
        { key: SA_ORG, value: orgId }, { key: SA_TOOL, value: 'people_get_contact' }, { key: SA_MODULE, value: 'people' }, { key: SA_ACTOR, value: randomUUID() },
      ] }),
      echoed: 'c',
    },
    'memo (4 fields)': {
      extra: () => ({ memo: { argsHash: 'a'.repeat(64), tool: 'people_get_contact', credentialId: randomUUID(), scopes: ['people:read', 'people:write', 'giving:read'] } }),
      echoed: 'c',
    },
    [`payloads of ${PAYLOAD_BYTES} bytes`]: { extra: () => ({}), echoed: 'x'.repeat(PAYLOAD_BYTES) },
    'reuse policy + execution timeout': { extra: () => ({ workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowExecutionTimeout: '10 minutes' }), echoed: 'c' },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-options-'));
  // As bench/run.ts: the dev server's dynamic config, `default` for the CLI's own; unset, what npm start uses.
  const dynamicConfig = parseDevServerSettings(process.env.BENCH_DEV_SERVER_CONFIG);
  const dev = await startDevServer({ headless: true, dbFile: path.join(dir, 'temporal.db'), dynamicConfig });
  const connection = await NativeConnection.connect({ address: dev.address });
  try {
    const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'floor', 'workflows.ts'), logger: new DefaultLogger('ERROR') });
    const worker = await Worker.create({
      connection, namespace: 'default', taskQueue: TASK_QUEUE, workflowBundle: { code }, ...workerTuning(),
      // The floor's activity without its database read: the contact id comes back as the result.
      activities: { floorReadContact: async (_orgId: string, contactId: string) => ({ id: contactId, firstName: 'Ada' }) },
    });
    const running = worker.run();
    const client = new Client({ connection, namespace: 'default' });
    const orgId = randomUUID();
    const all = variants(orgId);
    const names = process.env.BENCH_OPTIONS_VARIANTS ? process.env.BENCH_OPTIONS_VARIANTS.split(',') : Object.keys(all);
    const callOf = (name: string) => async () => {
      const variant = all[name];
      const row = await client.workflow.execute('floorReadWorkflow', {
        taskQueue: TASK_QUEUE, workflowId: `bench-options-${randomUUID()}`, args: [orgId, variant.echoed], requestEagerStart: true, ...variant.extra(),
      }) as { id?: string };
      if (row.id !== variant.echoed) throw new Error(`${name}: unexpected result`);
    };
    const sources: CpuSource[] = [{ name: 'Temporal dev server', pids: () => (dev.process.pid ? [dev.process.pid] : []) }];
    for (const name of names) await measureThroughput(Array.from({ length: CONCURRENCY }, () => callOf(name)), CONCURRENCY * 5);
    const rounds: Record<string, Array<{ server: number; node: number; callsPerSecond: number; errors: number }>> = {};
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const name of names) {
        const before = await cpuSnapshot(sources);
        const result = await measureThroughput(Array.from({ length: CONCURRENCY }, () => callOf(name)), CALLS);
        const cpu = cpuPerCall(before, await cpuSnapshot(sources), result.calls);
        const node = Object.entries(cpu.byGroup).filter(([group]) => group.startsWith('node')).reduce((sum, [, ms]) => sum + ms, 0);
        (rounds[name] ??= []).push({ server: cpu.byGroup['Temporal dev server'] ?? 0, node, callsPerSecond: result.callsPerSecond, errors: result.errors });
        console.error(`round ${round + 1} ${name}: server ${cpu.byGroup['Temporal dev server']} ms, node ${node.toFixed(2)} ms, ${result.callsPerSecond} calls/s`);
      }
    }
    const bare = median(rounds[names[0]].map((r) => r.server));
    const rows = names.map((name) => {
      const server = median(rounds[name].map((r) => r.server));
      return { variant: name, serverMs: server, overFirstMs: Math.round((server - bare) * 100) / 100, nodeMs: Math.round(median(rounds[name].map((r) => r.node)) * 100) / 100,
        callsPerSecond: median(rounds[name].map((r) => r.callsPerSecond)), errors: rounds[name].reduce((sum, r) => sum + r.errors, 0), rounds: rounds[name] };
    });
    console.log(`${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} at the end; ${ROUNDS} rounds of ${CALLS} workflows at concurrency ${CONCURRENCY}, medians\n`);
    console.log('| start option | dev server CPU ms/workflow | above the first row | Node process CPU ms/workflow | calls/s | errors |\n|---|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(`| ${row.variant} | ${row.serverMs.toFixed(2)} | ${row.overFirstMs.toFixed(2)} | ${row.nodeMs.toFixed(2)} | ${row.callsPerSecond.toFixed(1)} | ${row.errors} |`);
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-temporal-options.json`);
    fs.writeFileSync(file, JSON.stringify({ timestamp: new Date().toISOString(), cpus: os.cpus().length, loadAverageEnd: os.loadavg(), rounds: ROUNDS, calls: CALLS, concurrency: CONCURRENCY, devServerConfig: dynamicConfig ?? DEV_SERVER_DYNAMIC_CONFIG, rows }, null, 2));
    console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
    worker.shutdown();
    await running;
  } finally {
    await connection.close();
    await dev.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
