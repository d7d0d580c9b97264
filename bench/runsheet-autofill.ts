/**
 * `npx tsx bench/runsheet-autofill.ts`: runsheet_autofill_positions for a plan needing 60 positions
 * from 300 volunteers, on the test stack (API and worker in one process, a fresh database, the
 * Temporal server on TEMPORAL_ADDRESS, else one of its own).
 *
 * Seeds 300 contacts and 6 teams of 10 positions (1 in 6 needing safeguarding clearance, held by
 * half the volunteers); each volunteer is on 4 positions (so 20 candidates a position), 1 in 10 is
 * blocked out on the plan's date, 1 in 5 has a monthly maximum, and four earlier plans give everyone
 * a serving history for the least-recently-served ranking. Then, BENCH_AUTOFILL_SAMPLES times: one
 * autofill of the whole plan through the HTTP bridge (the durable call), timed, and its undo (not timed).
 * Writes bench/results/<yyyy-mm-dd>-runsheet-autofill.json and prints a Markdown table.
 * Knobs: BENCH_AUTOFILL_SAMPLES (10), BENCH_AUTOFILL_VOLUNTEERS (300), BENCH_AUTOFILL_POSITIONS (60), BENCH_OUT_DIR (bench/results).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Pool } from '../db/pool';
import { Harness } from '../test/helpers/harness';
import { BUNDLE_PATH_ENV } from '../test/helpers/env';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { ensureWorkflowBundle } from '../worker/bundle';
import { summarise } from './stats';

const SAMPLES = Number(process.env.BENCH_AUTOFILL_SAMPLES ?? 10);
const VOLUNTEERS = Number(process.env.BENCH_AUTOFILL_VOLUNTEERS ?? 300);
const POSITIONS = Number(process.env.BENCH_AUTOFILL_POSITIONS ?? 60);
const PER_TEAM = 10;
const POSITIONS_EACH = 4;
const HISTORY_PLANS = 4;

/** Teams, positions, volunteers, memberships, clearances, blockouts, preferences and history, written straight to the tables. */
async function seed(pool: Pool, orgId: string, serviceTypeId: string, date: string): Promise<string[]> {
  const volunteers = Array.from({ length: VOLUNTEERS }, () => randomUUID());
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name) SELECT u.id, $1, 'Volunteer', 'Number ' || u.n FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, volunteers]);
  const positions: string[] = [];
  for (let t = 0; t < Math.ceil(POSITIONS / PER_TEAM); t += 1) {
    const team = randomUUID();
    await pool.query('INSERT INTO runsheet_teams (id, org_id, name) VALUES ($1, $2, $3)', [team, orgId, `Team ${t + 1}`]);
    for (let p = 0; p < PER_TEAM && positions.length < POSITIONS; p += 1) {
      const position = randomUUID();
      await pool.query('INSERT INTO runsheet_positions (id, org_id, team_id, name, requires_clearance) VALUES ($1, $2, $3, $4, $5)',
        [position, orgId, team, `Position ${positions.length + 1}`, positions.length % 6 === 0]);
      positions.push(position);
    }
  }
  const teamOf = new Map((await pool.query<{ id: string; team_id: string }>('SELECT id, team_id FROM runsheet_positions WHERE org_id = $1', [orgId])).rows.map((row) => [row.id, row.team_id]));
  for (const [index, volunteer] of volunteers.entries()) {
    for (let k = 0; k < POSITIONS_EACH; k += 1) {
      const position = positions[(index + k * Math.floor(POSITIONS / POSITIONS_EACH)) % POSITIONS];
      await pool.query('INSERT INTO runsheet_team_members (id, org_id, team_id, position_id, contact_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [randomUUID(), orgId, teamOf.get(position), position, volunteer]);
    }
    if (index % 2 === 0) {
      await pool.query(`INSERT INTO safeguarding_checks (id, org_id, contact_id, check_type, issued_on, expires_on, status)
        VALUES ($1, $2, $3, 'Enhanced DBS', CURRENT_DATE - 30, CURRENT_DATE + 700, 'completed')`, [randomUUID(), orgId, volunteer]);
    }
    if (index % 10 === 3) await pool.query('INSERT INTO runsheet_blockouts (id, org_id, contact_id, starts_on, ends_on) VALUES ($1, $2, $3, $4, $4)', [randomUUID(), orgId, volunteer, date]);
    if (index % 5 === 1) await pool.query('INSERT INTO runsheet_preferences (id, org_id, contact_id, max_per_month) VALUES ($1, $2, $3, 2)', [randomUUID(), orgId, volunteer]);
  }
  // Four earlier Sundays, each with every position filled: a serving history to rank by.
  for (let h = 1; h <= HISTORY_PLANS; h += 1) {
    const plan = randomUUID();
    const day = DateTime.fromISO(date).minus({ weeks: h });
    const starts = day.set({ hour: 10 }).toJSDate();
    const ends = day.set({ hour: 11, minute: 30 }).toJSDate();
    await pool.query(`INSERT INTO runsheet_plans (id, org_id, service_type_id, plan_date, time_zone, starts_at, ends_at) VALUES ($1, $2, $3, $4, 'Europe/London', $5, $6)`,
      [plan, orgId, serviceTypeId, day.toISODate(), starts, ends]);
    await pool.query(`INSERT INTO runsheet_plan_times (id, org_id, plan_id, kind, starts_at, ends_at) VALUES ($1, $2, $3, 'service', $4, $5)`, [randomUUID(), orgId, plan, starts, ends]);
    for (const [p, position] of positions.entries()) {
      await pool.query(`INSERT INTO runsheet_plan_people (id, org_id, plan_id, position_id, contact_id, status) VALUES ($1, $2, $3, $4, $5, 'accepted')`,
        [randomUUID(), orgId, plan, position, volunteers[(p * 5 + h * 7) % VOLUNTEERS]]);
    }
  }
  return positions;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-runsheet-'));
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  process.env[BUNDLE_PATH_ENV] ??= await ensureWorkflowBundle(path.join(os.tmpdir(), `steward-bench-workflow-bundle-${process.pid}.js`));
  const harness = await Harness.start();
  try {
    const org = await harness.createOrg({ name: 'Bench Cathedral', planCode: 'enterprise' });
    const { serviceType } = await harness.call(org.apiKey, 'runsheet_create_service_type', { name: 'Cathedral Eucharist' });
    const date = DateTime.now().plus({ days: 14 }).toISODate()!;
    const positions = await seed(harness.pool, org.orgId, serviceType.id, date);
    const plan = (await harness.call(org.apiKey, 'runsheet_create_plan', { serviceTypeId: serviceType.id, date, times: [{ kind: 'service', startTime: '10:00', durationMinutes: 90 }] })).plan.id;
    for (let i = 0; i < positions.length; i += 50) {
      await harness.call(org.apiKey, 'runsheet_set_needed_positions', { planId: plan, positions: positions.slice(i, i + 50).map((positionId) => ({ positionId, quantity: 1 })) });
    }
    const durations: number[] = [];
    let filled = 0;
    let unfilled = 0;
    for (let i = 0; i <= SAMPLES; i += 1) {
      const started = performance.now();
      const run = await harness.call(org.apiKey, 'runsheet_autofill_positions', { planId: plan });
      const elapsed = performance.now() - started;
      if (i > 0) durations.push(elapsed); // the first is a warm-up
      filled = run.filled.length;
      unfilled = run.unfilled.reduce((sum: number, row: { open: number }) => sum + row.open, 0);
      await harness.call(org.apiKey, 'runsheet_undo_autofill', { runId: run.runId });
    }
    const latency = summarise(durations);
    const report = {
      timestamp: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))) },
      volunteers: VOLUNTEERS, positions: POSITIONS, candidatesPerPosition: (VOLUNTEERS * POSITIONS_EACH) / POSITIONS, historyPlans: HISTORY_PLANS,
      filled, unfilled, latency,
    };
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${report.timestamp.slice(0, 10)}-runsheet-autofill.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.join(' / ')}; ${VOLUNTEERS} volunteers, ${POSITIONS} positions, ${SAMPLES} autofills through the bridge\n`);
    console.log('| filled | open after | p50 ms | p95 ms | max ms |\n|---:|---:|---:|---:|---:|');
    console.log(`| ${filled} | ${unfilled} | ${latency.p50} | ${latency.p95} | ${latency.max} |`);
    console.log(`written ${file}`);
  } finally {
    await harness.close();
    await dev?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
