/**
 * `npx tsx bench/guests-checkin.ts`: check-in latency and the live roster read with 500 children
 * checked in, on the test stack (API and worker in one process, a fresh database, the Temporal
 * server on TEMPORAL_ADDRESS, else one of its own).
 *
 * Seeds one service instance with 500 children already checked in across 10 rooms (50 each, a
 * leader per room), then measures sequential calls:
 *   - guests_check_in of one more child, through the HTTP bridge (the whole durable call: workflow,
 *     allowance check under the metering lock, gates under the room's row lock) and in process (the
 *     tool's run() alone in a tenant transaction);
 *   - guests_get_live_roster of the whole instance (every room, every person), both ways.
 * Writes bench/results/<yyyy-mm-dd>-guests-checkin.json and prints a Markdown table.
 * Knobs: BENCH_CHECKIN_SAMPLES (30), BENCH_CHECKIN_CHILDREN (500), BENCH_OUT_DIR (bench/results).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withTenantTransaction, type Pool } from '../db/pool';
import { transactionOf } from '../db/sequelize';
import { catalogue, findTool } from '../modules/catalogue';
import { SECURITY_CODE_ALPHABET, randomSecurityCode } from '../modules/guests/checkin/codes';
import { principalForApiKey } from '../kernel/api-keys';
import { getOrgSettings } from '../modules/platform/orgs';
import type { ToolContext } from '../modules/tool';
import { Harness } from '../test/helpers/harness';
import { measureSequential, type LatencySummary } from './stats';
import { startingIn } from '../test/helpers/service-times';

const SAMPLES = Number(process.env.BENCH_CHECKIN_SAMPLES ?? 30);
const CHILDREN = Number(process.env.BENCH_CHECKIN_CHILDREN ?? 500);
const ROOMS = 10;

interface Row { tool: string; path: 'bridge' | 'in-process run()'; setup: string; latency: LatencySummary }

/** Rooms, a leader each, and CHILDREN checked in with distinct open codes, written straight to the tables. */
async function seed(pool: Pool, orgId: string, instance: { id: string; localDate: string; endsAt: string }, stationId: string, rooms: string[]): Promise<void> {
  const children = Array.from({ length: CHILDREN }, () => randomUUID());
  const leaders = rooms.map(() => randomUUID());
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name) SELECT u.id, $1, 'Child', 'Number ' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, children]);
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name) SELECT u.id, $1, 'Leader', 'Number ' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, leaders]);
  const codes = new Set<string>();
  while (codes.size < CHILDREN + ROOMS) codes.add(randomSecurityCode(4));
  const groups = [...codes].map((code) => ({ id: randomUUID(), code }));
  const people = [
    ...leaders.map((contactId, index) => ({ contactId, room: rooms[index], kind: 'volunteer', group: groups[CHILDREN + index] })),
    ...children.map((contactId, index) => ({ contactId, room: rooms[index % ROOMS], kind: 'child', group: groups[index] })),
  ];
  await pool.query(`INSERT INTO guests_checkin_groups (id, org_id, instance_id, local_date, security_code, station_id)
    SELECT g.id, $1, $2, $3, CASE WHEN g.n <= $6 THEN g.code END, $4 FROM unnest($5::uuid[], $7::text[]) WITH ORDINALITY AS g(id, code, n)`,
  [orgId, instance.id, instance.localDate, stationId, groups.map((g) => g.id), CHILDREN, groups.map((g) => g.code)]);
  await pool.query(`INSERT INTO guests_checkins (id, org_id, group_id, instance_id, local_date, instance_ends_at, location_id, station_id, contact_id, person_kind, first_time)
    SELECT gen_random_uuid(), $1, p.group_id, $2, $3, $4, p.room, $5, p.contact_id, p.kind, true
    FROM unnest($6::uuid[], $7::uuid[], $8::uuid[], $9::text[]) AS p(group_id, room, contact_id, kind)`,
  [orgId, instance.id, instance.localDate, instance.endsAt, stationId, people.map((p) => p.group.id), people.map((p) => p.room), people.map((p) => p.contactId), people.map((p) => p.kind)]);
  await pool.query('ANALYZE');
}

async function main(): Promise<void> {
  const harness = await Harness.start();
  try {
    const org = await harness.createOrg({ name: 'Bench Church', planCode: 'enterprise' });
    const principal = (await principalForApiKey(harness.pool, org.apiKey))!;
    const instance = (await harness.call(org.apiKey, 'schedule_create_series', {
      // Starting in half an hour, so its check-in window (from an hour before) is open while the bench runs.
      title: 'Bench service', rrule: 'FREQ=WEEKLY', ...startingIn(30, 'Europe/London'), durationMinutes: 90, timeZone: 'Europe/London',
    })).upcoming[0];
    const rooms: string[] = [];
    for (let i = 0; i < ROOMS; i += 1) {
      rooms.push((await harness.call(org.apiKey, 'guests_create_location', { name: `Room ${i + 1}`, capacity: 1000, childrenPerAdult: 100 })).location.id);
    }
    const desk = (await harness.call(org.apiKey, 'guests_create_check_in_station', { name: 'Desk', kind: 'manned' })).station.id;
    console.error(`bench:guests-checkin: seeding ${CHILDREN} children checked in across ${ROOMS} rooms`);
    await seed(harness.pool, org.orgId, instance, desk, rooms);

    const extra = Array.from({ length: 2 * (SAMPLES + 2) * 2 }, () => randomUUID());
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name) SELECT u.id, $1, 'Late', 'Arrival ' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [org.orgId, extra]);
    let next = 0;
    const arrival = () => ({ instanceId: instance.id, stationId: desk, contactId: extra[next++], locationId: rooms[next % ROOMS], personKind: 'child' });
    const inProcess = (tool: string, args: unknown) => withTenantTransaction(harness.pool, org.orgId, async (db) => {
      const definition = findTool(tool)!;
      const ctx: ToolContext = { db, transaction: transactionOf(db), principal, org: await getOrgSettings(db, org.orgId), workflowId: `bench-${randomUUID()}`, catalogue: catalogue() };
      return definition.output.parse(await definition.run(ctx, definition.input.parse(args)));
    });
    const bridge = async (tool: string, args: unknown) => {
      const { body } = await harness.invoke(org.apiKey, tool, args);
      if (!body.ok) throw new Error(`${tool}: ${JSON.stringify(body.error)}`);
    };
    const setup = `${CHILDREN} children and ${ROOMS} leaders checked in across ${ROOMS} rooms`;
    const rows: Row[] = [
      { tool: 'guests_check_in', path: 'in-process run()', setup, latency: await measureSequential(async () => void await inProcess('guests_check_in', arrival()), SAMPLES, 2) },
      { tool: 'guests_check_in', path: 'bridge', setup, latency: await measureSequential(() => bridge('guests_check_in', arrival()), SAMPLES, 2) },
      { tool: 'guests_get_live_roster', path: 'in-process run()', setup, latency: await measureSequential(async () => void await inProcess('guests_get_live_roster', { instanceId: instance.id }), SAMPLES, 2) },
      { tool: 'guests_get_live_roster', path: 'bridge', setup, latency: await measureSequential(() => bridge('guests_get_live_roster', { instanceId: instance.id }), SAMPLES, 2) },
    ];
    const report = { timestamp: new Date().toISOString(), machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100) }, alphabet: SECURITY_CODE_ALPHABET, samples: SAMPLES, rows };
    const dir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${report.timestamp.slice(0, 10)}-guests-checkin.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.join(' / ')}; ${setup}; ${SAMPLES} sequential calls each\n`);
    console.log('| tool | path | p50 ms | p95 ms |\n|---|---|---:|---:|');
    for (const row of rows) console.log(`| ${row.tool} | ${row.path} | ${row.latency.p50} | ${row.latency.p95} |`);
  } finally {
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
