/**
 * `npx tsx bench/ticketing-order.ts`: ticketing_create_order latency over MCP at concurrency 1 and 32,
 * on the test stack (API and worker in one process, a fresh database, the Temporal server on
 * TEMPORAL_ADDRESS) with the local payment sandbox (sandbox/payments/) as the provider.
 *
 * Every order is for the same event, so every call takes the same capacity pool's lock: the worst
 * case for contention. Two paths:
 *   - free: one free ticket, paid at once, its ticket issued in the call;
 *   - paid: one £12 ticket, a checkout session opened at the sandbox (an HTTP call) before the pool lock.
 * Each call is a whole durable tool call (workflow, allowance check, the tool's transaction, usage).
 * Writes bench/results/<yyyy-mm-dd>-ticketing-order.json and prints a Markdown table.
 * Knobs: BENCH_TICKETING_CALLS_PER_WORKER (10), BENCH_TICKETING_CONCURRENCY (1,32), BENCH_OUT_DIR (bench/results).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { paymentsSandboxConfigFromEnv, startPaymentsSandbox } from '../sandbox/payments/server';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { Harness } from '../test/helpers/harness';
import { measureThroughput, type ThroughputResult } from './stats';

const CALLS_PER_WORKER = Number(process.env.BENCH_TICKETING_CALLS_PER_WORKER ?? 10);
const CONCURRENCY = (process.env.BENCH_TICKETING_CONCURRENCY ?? '1,32').split(',').map(Number);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-ticketing-'));
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv({}));
  Object.assign(process.env, sandbox.env());
  const harness = await Harness.start({ own: true });
  sandbox.setWebhookBaseUrl(harness.url);
  const clients: McpClient[] = [];
  try {
    const org = await harness.createOrg({ name: 'Bench Church', planCode: 'enterprise' });
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = (await harness.call(org.apiKey, 'ticketing_create_event', { title: 'Bench concert', startsAt, timeZone: 'Europe/London', currency: 'GBP', capacity: 90_000 })).event;
    const free = (await harness.call(org.apiKey, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Free', price: 0 })).ticketType;
    const paid = (await harness.call(org.apiKey, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Adult', price: 1_200 })).ticketType;
    await harness.call(org.apiKey, 'ticketing_publish_event', { eventId: event.id });
    for (let i = 0; i < Math.max(...CONCURRENCY); i += 1) clients.push(await harness.mcpClient(org.apiKey));

    const order = (client: McpClient, typeId: string) => async () => {
      const result = await client.callTool({ name: 'ticketing_create_order', arguments: { eventId: event.id, items: [{ ticketTypeId: typeId, quantity: 1 }] } }, CallToolResultSchema);
      if (result.isError) throw new Error((result.content as Array<{ text: string }>)[0]?.text ?? 'error');
    };
    const rows: Array<{ path: string; result: ThroughputResult }> = [];
    for (const [label, typeId] of [['free (tickets issued in the call)', free.id], ['paid (checkout session at the sandbox)', paid.id]] as const) {
      await measureThroughput(clients.slice(0, 4).map((client) => order(client, typeId)), 8); // warm-up
      for (const concurrency of CONCURRENCY) {
        const result = await measureThroughput(clients.slice(0, concurrency).map((client) => order(client, typeId)), concurrency * CALLS_PER_WORKER);
        rows.push({ path: label, result });
      }
    }
    const sold = (await harness.pool.query(`SELECT count(*)::int AS n FROM ticketing_tickets WHERE event_id = $1`, [event.id])).rows[0].n as number;

    console.log('| path | concurrency | calls | errors | p50 ms | p95 ms | calls/s |');
    console.log('|---|---|---|---|---|---|---|');
    for (const { path: label, result } of rows) {
      console.log(`| ${label} | ${result.concurrency} | ${result.calls} | ${result.errors} | ${result.latency.p50} | ${result.latency.p95} | ${result.callsPerSecond} |`);
    }
    console.log(`\n${sold} free tickets issued; ${sandbox.sessions().length} checkout sessions opened.`);
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-ticketing-order.json`);
    fs.writeFileSync(file, `${JSON.stringify({
      bench: 'ticketing-order', at: new Date().toISOString(), cpus: os.cpus().length, loadAverage: os.loadavg(),
      settings: { callsPerWorker: CALLS_PER_WORKER, concurrency: CONCURRENCY }, rows,
    }, null, 2)}\n`);
    console.error(`bench:ticketing-order: wrote ${file}`);
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await harness.close();
    await sandbox.close();
    await dev?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
