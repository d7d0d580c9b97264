/**
 * `npm run bench:people-search`: people_search_contacts under 32 concurrent callers, on the test stack
 * (API and worker in one process, a fresh database, the Temporal server on TEMPORAL_ADDRESS, else one of
 * its own).
 *
 * Seeds BENCH_SEARCH_CONTACTS contacts (5,000) with varied names, emails and phones, then runs
 * BENCH_SEARCH_CALLS calls (320) of people_search_contacts through the HTTP bridge (each a whole
 * durable tool call: workflow, scope check, read transaction) from BENCH_SEARCH_CONCURRENCY loops (32),
 * each searching a different name fragment, and the same sequentially (concurrency 1) for comparison.
 * Writes bench/results/<yyyy-mm-dd>-people-search.json and prints a Markdown table.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../scripts/lib/temporal-dev-server';
import { Harness } from '../test/helpers/harness';
import { measureThroughput, type ThroughputResult } from './stats';

const CONTACTS = Number(process.env.BENCH_SEARCH_CONTACTS ?? 5000);
const CALLS = Number(process.env.BENCH_SEARCH_CALLS ?? 320);
const CONCURRENCY = Number(process.env.BENCH_SEARCH_CONCURRENCY ?? 32);
const FIRST = ['Ann', 'Ben', 'Cara', 'David', 'Ella', 'Finn', 'Grace', 'Harry', 'Isla', 'Jack', 'Kate', 'Liam', 'Mia', 'Noah', 'Olivia', 'Peter'];
const LAST = ['Adams', 'Brown', 'Clarke', 'Davies', 'Evans', 'Fisher', 'Green', 'Hughes', 'Jones', 'King', 'Lewis', 'Morris', 'Owen', 'Price', 'Smith', 'Taylor'];

async function main(): Promise<void> {
  // A Temporal dev server of its own unless TEMPORAL_ADDRESS names one.
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const harness = await Harness.start();
  try {
    const org = await harness.createOrg({ name: 'Search Bench Church', planCode: 'enterprise' });
    console.error(`bench:people-search: seeding ${CONTACTS} contacts`);
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, phone, status)
      SELECT gen_random_uuid(), $1, ($2::text[])[1 + n % 16], ($3::text[])[1 + (n / 16) % 16] || CASE WHEN n >= 256 THEN '-' || n ELSE '' END,
        'person' || n || '@bench.example', '07700 9' || lpad(n::text, 5, '0'), CASE WHEN n % 3 = 0 THEN 'subscribed' ELSE 'non_subscribed' END
      FROM generate_series(0, $4 - 1) AS n`, [org.orgId, FIRST, LAST, CONTACTS]);
    await harness.pool.query('ANALYZE contacts');
    const queries = [...FIRST.map((name) => name.toLowerCase()), ...LAST.map((name) => name.slice(0, 4))];
    let turn = 0;
    const caller = () => async () => {
      const query = queries[turn++ % queries.length]!;
      const { body } = await harness.invoke(org.apiKey, 'people_search_contacts', { query, limit: 25 });
      if (!body.ok) throw new Error(`${body.error?.code}: ${body.error?.message}`);
      if (!Array.isArray(body.result?.contacts) || body.result.contacts.length === 0) throw new Error(`no contacts for ${query}`);
    };
    // Warm the workflow cache and connection pool first.
    await measureThroughput([caller()], 10);
    const results: Record<string, ThroughputResult> = {};
    results['c=1'] = await measureThroughput([caller()], Math.max(20, Math.round(CALLS / 8)));
    results[`c=${CONCURRENCY}`] = await measureThroughput(Array.from({ length: CONCURRENCY }, caller), CALLS);
    const report = {
      bench: 'people-search', timestamp: new Date().toISOString(), contacts: CONTACTS,
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100) }, results,
    };
    const dir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${report.timestamp.slice(0, 10)}-people-search.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.join(' / ')}; ${CONTACTS} contacts; people_search_contacts through the HTTP bridge\n`);
    console.log('| concurrency | calls | errors | calls/s | p50 ms | p95 ms | p99 ms |\n|---:|---:|---:|---:|---:|---:|---:|');
    for (const result of Object.values(results)) {
      console.log(`| ${result.concurrency} | ${result.calls} | ${result.errors} | ${result.callsPerSecond} | ${result.latency.p50} | ${result.latency.p95} | ${result.latency.p99} |`);
    }
    for (const result of Object.values(results)) if (result.errorSamples.length > 0) console.log(`errors at c=${result.concurrency}: ${result.errorSamples.join(' | ')}`);
  } finally {
    await harness.close();
    await dev?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
