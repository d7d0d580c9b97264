/**
 * `npx tsx bench/store-checkout.ts`: store_create_checkout_link latency over MCP at concurrency 1 and 32,
 * on the test stack (API and worker in one process, a fresh database, the Temporal server on
 * TEMPORAL_ADDRESS) with the local payment sandbox (sandbox/payments/) as the provider.
 *
 * Every checkout is for one unit of the same variant at the same location, so every call takes the
 * same inventory level's row lock (the conditional update that never oversells): the worst case for
 * contention. Each call opens a checkout session at the sandbox (an HTTP call) before its
 * transaction, commits its unit, and starts the checkout's Temporal timer after the call.
 * Writes bench/results/<yyyy-mm-dd>-store-checkout.json and prints a Markdown table.
 * Knobs: BENCH_STORE_CALLS_PER_WORKER (10), BENCH_STORE_CONCURRENCY (1,32), BENCH_OUT_DIR (bench/results).
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

const CALLS_PER_WORKER = Number(process.env.BENCH_STORE_CALLS_PER_WORKER ?? 10);
const CONCURRENCY = (process.env.BENCH_STORE_CONCURRENCY ?? '1,32').split(',').map(Number);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-store-'));
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const sandbox = await startPaymentsSandbox(paymentsSandboxConfigFromEnv({}));
  Object.assign(process.env, sandbox.env());
  const harness = await Harness.start({ own: true });
  sandbox.setWebhookBaseUrl(harness.url);
  const clients: McpClient[] = [];
  try {
    const org = await harness.createOrg({ name: 'Bench Church', planCode: 'enterprise' });
    const shop = (await harness.call(org.apiKey, 'store_create_shop', { name: 'Bench bookstall', currency: 'GBP', fulfilmentModes: ['pickup'], checkoutMinutes: 1440 })).shop;
    const product = (await harness.call(org.apiKey, 'store_create_product', {
      shopId: shop.id, kind: 'physical', title: 'Bench devotional', status: 'active', variants: [{ sku: 'BENCH-1', price: 899, initialStock: 1_000_000 }],
    })).product;
    await harness.pool.query(`UPDATE store_shops SET status = 'open', opened_at = now() WHERE id = $1`, [shop.id]); // the approval is not what is measured
    const variantId = product.variants[0].id as string;
    for (let i = 0; i < Math.max(...CONCURRENCY); i += 1) clients.push(await harness.mcpClient(org.apiKey));

    const checkout = (client: McpClient) => async () => {
      const result = await client.callTool({ name: 'store_create_checkout_link', arguments: { shopId: shop.id, items: [{ variantId, quantity: 1 }] } }, CallToolResultSchema);
      if (result.isError) throw new Error((result.content as Array<{ text: string }>)[0]?.text ?? 'error');
    };
    await measureThroughput(clients.slice(0, 4).map(checkout), 8); // warm-up
    const rows: ThroughputResult[] = [];
    for (const concurrency of CONCURRENCY) rows.push(await measureThroughput(clients.slice(0, concurrency).map(checkout), concurrency * CALLS_PER_WORKER));
    const level = (await harness.pool.query('SELECT available, committed FROM store_inventory_levels WHERE variant_id = $1', [variantId])).rows[0] as { available: number; committed: number };

    console.log('| concurrency | calls | errors | p50 ms | p95 ms | calls/s |');
    console.log('|---|---|---|---|---|---|');
    for (const result of rows) console.log(`| ${result.concurrency} | ${result.calls} | ${result.errors} | ${result.latency.p50} | ${result.latency.p95} | ${result.callsPerSecond} |`);
    console.log(`\n${level.committed} units committed, ${level.available} available (sum ${level.committed + level.available}).`);
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-store-checkout.json`);
    fs.writeFileSync(file, `${JSON.stringify({
      bench: 'store-checkout', at: new Date().toISOString(), cpus: os.cpus().length, loadAverage: os.loadavg(),
      settings: { callsPerWorker: CALLS_PER_WORKER, concurrency: CONCURRENCY }, rows, inventory: level,
    }, null, 2)}\n`);
    console.error(`bench:store: wrote ${file}`);
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
