/**
 * `npx tsx bench/audit-events.ts`: audit_list_events over a large audit log, on the test stack (API
 * and worker in one process, a fresh database, the Temporal server on TEMPORAL_ADDRESS, else one of
 * its own).
 *
 * Seeds BENCH_AUDIT_EVENTS (1,000,000) events into one organisation with generate_series (50 actions,
 * 20 actors, 100,000 targets, one event a second back from now), written straight to the table with
 * the chain trigger bypassed (the listing reads no hash; the chain under real writes is tested in
 * modules/audit/__tests__), plus 100,000 events of another organisation, then measures sequential
 * calls of audit_list_events (first page; action prefix; one actor; one target's events; the last
 * hour; the fifth page by cursor) in process (the tool's run() in a tenant transaction, as the
 * application role under row-level security) and through the HTTP bridge (the whole durable call).
 * Writes bench/results/<yyyy-mm-dd>-audit-events.json and prints a Markdown table.
 * Knobs: BENCH_AUDIT_EVENTS (1000000), BENCH_AUDIT_SAMPLES (30), BENCH_OUT_DIR (bench/results).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withTenantTransaction, type Pool } from '../db/pool';
import { transactionOf } from '../db/sequelize';
import { catalogue, findTool } from '../modules/catalogue';
import { principalForApiKey } from '../kernel/api-keys';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { Harness } from '../test/helpers/harness';
import { startDevServer, type DevServer } from '../scripts/lib/temporal-dev-server';
import { measureSequential, type LatencySummary } from './stats';

const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_AUDIT_SAMPLES ?? 30);
const ACTIONS = ['giving.donation.record', 'giving.donation.adjust', 'giving.donation.refund', 'giving.batch.commit', 'people.contact.create', 'people.contact.update', 'people.note.add', 'channels.message.send', 'guests.in.check', 'attendance.headcount.record'];

interface Row { query: string; path: 'bridge' | 'in-process run()'; latency: LatencySummary }

/** `count` events of one organisation, one a second back from now, straight into the table (triggers off for the load). */
async function seed(pool: Pool, orgId: string, count: number, actors: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`
      INSERT INTO audit_events (org_id, seq, tool, workflow_id, action, operation, category, actor_kind, actor_user_id, on_behalf_of_user_id,
        credential_kind, scopes, target_type, target_id, outcome, created_at, personal_digest, prev_hash, hash)
      SELECT $1, g, replace(a.action, '.', '_'), 'call-bench-' || g, a.action, 'update', CASE WHEN a.action LIKE 'giving.%' THEN 'finance' ELSE 'general' END,
        CASE WHEN g % 4 = 0 THEN 'human' ELSE 'agent' END, ($3::uuid[])[1 + g % 20], ($3::uuid[])[1 + g % 20], 'api_key', ARRAY['giving:write'],
        split_part(a.action, '.', 2), md5((g % 100000)::text)::uuid::text, CASE WHEN g % 97 = 0 THEN 'denied' ELSE 'success' END,
        now() - make_interval(secs => $2 - g), md5(g::text), md5((g - 1)::text), md5(g::text)
      FROM generate_series(1, $2) AS g, LATERAL (SELECT ($4::text[])[1 + g % ${ACTIONS.length}] AS action) AS a`,
    [orgId, count, actors, ACTIONS]);
    await client.query(`INSERT INTO audit_chain_heads (org_id, seq, hash) VALUES ($1, $2::bigint, md5($2::bigint::text))
      ON CONFLICT (org_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash`, [orgId, count]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function main(): Promise<void> {
  let devServer: DevServer | undefined;
  if (!process.env.TEMPORAL_ADDRESS) {
    devServer = await startDevServer({ headless: true });
    process.env.TEMPORAL_ADDRESS = devServer.address;
  }
  const harness = await Harness.start();
  try {
    const org = await harness.createOrg({ name: 'Bench Diocese', planCode: 'enterprise' });
    const other = await harness.createOrg({ name: 'Bench Neighbour', planCode: 'enterprise' });
    const principal = (await principalForApiKey(harness.pool, org.apiKey))!;
    const actors = Array.from({ length: 20 }, () => randomUUID());
    console.error(`bench:audit: seeding ${EVENTS} events`);
    const started = Date.now();
    await seed(harness.pool, org.orgId, EVENTS, actors);
    await seed(harness.pool, other.orgId, Math.min(100_000, EVENTS), actors);
    await harness.pool.query('ANALYZE audit_events');
    const seedSeconds = Math.round((Date.now() - started) / 100) / 10;
    console.error(`bench:audit: seeded in ${seedSeconds}s`);

    const inProcess = (args: Record<string, unknown>) => withTenantTransaction(harness.pool, org.orgId, async (db) => {
      const definition = findTool('audit_list_events')!;
      const ctx: ToolContext = { db, transaction: transactionOf(db), principal, org: await getOrgSettings(db, org.orgId), workflowId: `bench-${randomUUID()}`, catalogue: catalogue() };
      return definition.output.parse(await definition.run(ctx, definition.input.parse(args))) as { events: unknown[]; nextCursor: string | null };
    }, { readOnly: true });
    const bridge = async (args: Record<string, unknown>) => {
      const { body } = await harness.invoke(org.apiKey, 'audit_list_events', args);
      if (!body.ok) throw new Error(`audit_list_events: ${JSON.stringify(body.error)}`);
    };
    let cursor: string | null = null;
    for (let page = 0; page < 4; page += 1) cursor = (await inProcess({ limit: 25, ...(cursor ? { cursor } : {}) })).nextCursor;
    const target = (await harness.pool.query<{ id: string }>("SELECT md5('4242')::uuid::text AS id")).rows[0].id;
    const queries: Array<[string, Record<string, unknown>]> = [
      ['first page (25)', { limit: 25 }],
      ['action prefix giving.donation.', { actionPrefix: 'giving.donation.', limit: 25 }],
      ['one actor', { actorUserId: actors[7], limit: 25 }],
      ['one target (its 10 events)', { targetId: target, limit: 25 }],
      ['last hour, denied only', { outcome: 'denied', from: new Date(Date.now() - 3_600_000).toISOString(), limit: 25 }],
      ['fifth page by cursor', { limit: 25, cursor }],
    ];
    const rows: Row[] = [];
    for (const [query, args] of queries) {
      rows.push({ query, path: 'in-process run()', latency: await measureSequential(async () => void await inProcess(args), SAMPLES, 2) });
      rows.push({ query, path: 'bridge', latency: await measureSequential(() => bridge(args), SAMPLES, 2) });
    }
    const setup = `${EVENTS} audit events in one organisation (and ${Math.min(100_000, EVENTS)} in another), seeded in ${seedSeconds}s`;
    const report = { timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) }, setup, samples: SAMPLES, rows };
    const dir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${report.timestamp.slice(0, 10)}-audit-events.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.join(' / ')}; ${setup}; ${SAMPLES} sequential calls each\n`);
    console.log('| tool | query | path | p50 ms | p95 ms |\n|---|---|---|---:|---:|');
    for (const row of rows) console.log(`| audit_list_events | ${row.query} | ${row.path} | ${row.latency.p50} | ${row.latency.p95} |`);
  } finally {
    await harness.close();
    await devServer?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
