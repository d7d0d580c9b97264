/**
 * `npx tsx bench/spaces-availability.ts`: spaces_search_availability over 200 rooms and a year of
 * bookings, on the test stack (API and worker in one process, a fresh database, the Temporal server
 * on TEMPORAL_ADDRESS, else one of its own).
 *
 * Seeds BENCH_SPACES_ROOMS rooms (200) in 10 buildings, each with BENCH_SPACES_WEEKLY (5) weekly
 * bookings materialised over the coming 52 weeks (200 × 5 × 52 = 52,000 occurrences), written straight
 * to the tables, then measures sequential calls of spaces_search_availability:
 *   - one evening (a single window) for 30 people;
 *   - every Friday evening for a year (an RRULE: 52 windows against every room), with set-up and clear-up;
 * each through the HTTP bridge (the whole durable call) and in process (the tool's run() alone in a
 * tenant transaction). Writes bench/results/<yyyy-mm-dd>-spaces-availability.json and prints a Markdown table.
 * Knobs: BENCH_SPACES_SAMPLES (30), BENCH_SPACES_ROOMS (200), BENCH_SPACES_WEEKLY (5), BENCH_OUT_DIR (bench/results).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { withTenantTransaction, type Pool } from '../db/pool';
import { transactionOf } from '../db/sequelize';
import { catalogue, findTool } from '../modules/catalogue';
import { principalForApiKey } from '../kernel/api-keys';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { Harness } from '../test/helpers/harness';
import { startDevServer, type DevServer } from '../scripts/lib/temporal-dev-server';
import { measureSequential, type LatencySummary } from './stats';

const SAMPLES = Number(process.env.BENCH_SPACES_SAMPLES ?? 30);
const ROOMS = Number(process.env.BENCH_SPACES_ROOMS ?? 200);
const WEEKLY = Number(process.env.BENCH_SPACES_WEEKLY ?? 5);
const BUILDINGS = 10;
const ZONE = 'Europe/London';

interface Row { tool: string; query: string; path: 'bridge' | 'in-process run()'; latency: LatencySummary }

/** Rooms across buildings, and WEEKLY weekly bookings per room over 52 weeks with their occurrences, straight into the tables. */
async function seed(pool: Pool, orgId: string): Promise<number> {
  const campus = randomUUID();
  await pool.query(`INSERT INTO spaces_campuses (id, org_id, name) VALUES ($1, $2, 'Bench campus')`, [campus, orgId]);
  const buildings = Array.from({ length: BUILDINGS }, () => randomUUID());
  await pool.query(`INSERT INTO spaces_buildings (id, org_id, campus_id, name) SELECT b.id, $1, $2, 'Building ' || b.n FROM unnest($3::uuid[]) WITH ORDINALITY AS b(id, n)`, [orgId, campus, buildings]);
  const rooms = Array.from({ length: ROOMS }, () => randomUUID());
  await pool.query(`INSERT INTO spaces_rooms (id, org_id, building_id, name, capacity, features)
    SELECT r.id, $1, ($3::uuid[])[1 + (r.n % ${BUILDINGS})], 'Room ' || r.n, 10 + (r.n % 20) * 10, CASE WHEN r.n % 3 = 0 THEN ARRAY['projector'] ELSE ARRAY[]::text[] END
      FROM unnest($2::uuid[]) WITH ORDINALITY AS r(id, n)`, [orgId, rooms, buildings]);
  // Booking k of a room: weekday k % 7, from 09:00 + 2h * (k % 6) for 90 minutes, every week for a year.
  const start = DateTime.now().setZone(ZONE).plus({ days: 1 }).startOf('day');
  await pool.query(`
    WITH b AS (
      SELECT gen_random_uuid() AS id, r.id AS room_id, k FROM unnest($2::uuid[]) AS r(id), generate_series(0, $3 - 1) AS k
    ), ins AS (
      INSERT INTO spaces_bookings (id, org_id, room_id, title, status, time_zone, start_date, start_time, duration_minutes, rrule, materialised_until)
      SELECT b.id, $1, b.room_id, 'Bench booking ' || b.k, 'approved', $4, ($5::date + (b.k % 7)), lpad((9 + 2 * (b.k % 6))::text, 2, '0') || ':00', 90, 'FREQ=WEEKLY', now() + interval '365 days'
        FROM b RETURNING id, room_id, start_date, start_time
    )
    INSERT INTO spaces_occurrences (id, org_id, booking_id, room_id, original_local_date, local_date, local_start_time, starts_at, ends_at, busy_from, busy_to, status)
    SELECT gen_random_uuid(), $1, ins.id, ins.room_id, d, d, ins.start_time, (d + ins.start_time::time) AT TIME ZONE $4, (d + ins.start_time::time + interval '90 minutes') AT TIME ZONE $4,
           (d + ins.start_time::time) AT TIME ZONE $4, (d + ins.start_time::time + interval '90 minutes') AT TIME ZONE $4, 'approved'
      FROM ins, generate_series(0, 51) AS w, LATERAL (SELECT (ins.start_date + 7 * w) AS d) AS day`,
  [orgId, rooms, WEEKLY, ZONE, start.toISODate()]);
  await pool.query('ANALYZE');
  return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM spaces_occurrences WHERE org_id = $1', [orgId])).rows[0].n;
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
    const principal = (await principalForApiKey(harness.pool, org.apiKey))!;
    console.error(`bench:spaces: seeding ${ROOMS} rooms with ${WEEKLY} weekly bookings each over a year`);
    const occurrences = await seed(harness.pool, org.orgId);
    const inProcess = (tool: string, args: unknown) => withTenantTransaction(harness.pool, org.orgId, async (db) => {
      const definition = findTool(tool)!;
      const ctx: ToolContext = { db, transaction: transactionOf(db), principal, org: await getOrgSettings(db, org.orgId), workflowId: `bench-${randomUUID()}`, catalogue: catalogue() };
      return definition.output.parse(await definition.run(ctx, definition.input.parse(args)));
    });
    const bridge = async (tool: string, args: unknown) => {
      const { body } = await harness.invoke(org.apiKey, tool, args);
      if (!body.ok) throw new Error(`${tool}: ${JSON.stringify(body.error)}`);
    };
    const friday = DateTime.now().setZone(ZONE).plus({ weeks: 1 }).set({ weekday: 5 }).toISODate()!;
    const once = { localDate: friday, startTime: '19:00', durationMinutes: 120, minCapacity: 30, limit: 100 };
    const weekly = { ...once, rrule: 'FREQ=WEEKLY;BYDAY=FR', setupMinutes: 30, teardownMinutes: 15 };
    const queries: Array<[string, Record<string, unknown>]> = [['one evening, capacity >= 30', once], ['every Friday for a year (52 windows), buffers', weekly]];
    const rows: Row[] = [];
    for (const [query, args] of queries) {
      rows.push({ tool: 'spaces_search_availability', query, path: 'in-process run()', latency: await measureSequential(async () => void await inProcess('spaces_search_availability', args), SAMPLES, 2) });
      rows.push({ tool: 'spaces_search_availability', query, path: 'bridge', latency: await measureSequential(() => bridge('spaces_search_availability', args), SAMPLES, 2) });
    }
    const setup = `${ROOMS} rooms in ${BUILDINGS} buildings, ${occurrences} booked occurrences over a year`;
    const report = { timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) }, setup, samples: SAMPLES, rows };
    const dir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${report.timestamp.slice(0, 10)}-spaces-availability.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.join(' / ')}; ${setup}; ${SAMPLES} sequential calls each\n`);
    console.log('| tool | query | path | p50 ms | p95 ms |\n|---|---|---|---:|---:|');
    for (const row of rows) console.log(`| ${row.tool} | ${row.query} | ${row.path} | ${row.latency.p50} | ${row.latency.p95} |`);
  } finally {
    await harness.close();
    await devServer?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
