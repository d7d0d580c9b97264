/**
 * What each surface costs the API per call, apart from the durable call behind it: the API as
 * `npm start` serves it (credential lookup, scope check, body parsing, MCP or the bridge, the
 * answer's JSON), with `ToolCaller.call` answering a canned contact at once, so no workflow, no
 * activity and no Temporal server run. The full stack bench (bench/run.ts) shows the surfaces'
 * share only as the difference of two noisy cells; here it is the whole measurement, and the
 * API's main thread is the only busy thread in the process.
 *
 * The callers run in a process of their own (bench/load-client.ts), as in the stack bench. Each
 * round measures every surface in turn; the table shows, for each surface, the median of its
 * rounds figure by figure.
 *
 *   npx tsx bench/surfaces.ts
 *
 * Knobs: BENCH_SURFACES (mcp,bridge), BENCH_SURFACES_ROUNDS, _CALLS, _CONCURRENCY, BENCH_LABEL, and
 * BENCH_PROFILE, a folder for a main-thread CPU profile of each surface's measured rounds.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { listen } from '../api/server';
import { ToolCaller } from '../api/tool-caller';
import { createPool } from '../db/pool';
import { createTestDatabase } from '../test/helpers/database';
import { backendPids, cpuPerCall, cpuSnapshot, startProfiler, watchGarbageCollection, type CpuPerCall, type CpuSource } from './cpu';
import { READ_TOOL, startLoadClient, type RemotePath } from './load-client';
import { createBenchOrg } from './seed';
import { median } from './stats';

const SURFACES = (process.env.BENCH_SURFACES ?? 'mcp,bridge').split(',').filter((name): name is RemotePath => name === 'mcp' || name === 'bridge');
const ROUNDS = Number(process.env.BENCH_SURFACES_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_SURFACES_CALLS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_SURFACES_CONCURRENCY ?? 32);
const WARMUP_CALLS = 500;
const PROFILE_DIR = process.env.BENCH_PROFILE;
const OUT_DIR = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');

interface Round { surface: RemotePath; callsPerSecond: number; errors: number; cpu: CpuPerCall }

/** The read's answer as people_get_contact gives it, fixed: the surfaces carry it, nothing computes it. */
function cannedContact(id: string) {
  return {
    contact: {
      id, firstName: 'Ada', lastName: 'Lovelace', preferredName: null, email: 'ada@example.org', phone: '+447700900001',
      dateOfBirth: '1985-12-10', status: 'active', membershipStatus: 'member', tags: [], householdId: null,
      address: { line1: null, line2: null, city: null, postcode: null, country: 'GB' },
      consents: { email: true, sms: false, whatsapp: false }, createdAt: '2026-11-29T10:00:00.000Z', updatedAt: '2026-11-29T10:00:00.000Z', version: 1,
    },
  };
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const pool = createPool(db.url);
  const contactId = '0b9c8e4e-5d0e-4a57-9b55-7d2f0f0c1a11';
  // The durable call is what this bench leaves out: every tool call answers the canned read.
  ToolCaller.prototype.call = async () => cannedContact(contactId);
  const { apiKey } = await createBenchOrg(pool, 'Surfaces Church');
  // No Temporal client is used: the call never reaches one.
  const { server, url } = await listen({ pool, temporal: {} as never, eagerStart: true }, 0);
  const postgres: CpuSource = {
    name: 'Postgres',
    // Every backend of this database, the asking one too: it is one of the API's own pooled connections.
    pids: () => backendPids(pool),
  };
  // orgId and floorUrl serve only the floor's path, which this bench does not call.
  const client = await startLoadClient({ url, apiKey, contactId, orgId: '', floorUrl: url }, CONCURRENCY);
  const rounds: Round[] = [];
  try {
    const args = { contactId };
    for (const surface of SURFACES) await client.throughput(surface, READ_TOOL, args, CONCURRENCY, WARMUP_CALLS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const surface of SURFACES) {
        const gc = watchGarbageCollection();
        const profiler = PROFILE_DIR ? await startProfiler() : undefined;
        const before = await cpuSnapshot([postgres]);
        const result = await client.throughput(surface, READ_TOOL, args, CONCURRENCY, CALLS);
        const after = await cpuSnapshot([postgres]);
        await profiler?.stopInto(path.join(PROFILE_DIR!, `surfaces-${surface}-round${round + 1}.cpuprofile`));
        const cpu = { ...cpuPerCall(before, after, CALLS), mainThreadGcMs: Math.round(((await gc.stop()) / CALLS) * 1000) / 1000 };
        rounds.push({ surface, callsPerSecond: result.callsPerSecond, errors: result.errors, cpu });
        console.log(`round ${round + 1} ${surface}: ${cpu.byGroup['node: main thread'] ?? 0} ms main thread, ${cpu.totalMs} ms in all, ${result.callsPerSecond.toFixed(0)} calls/s, ${result.errors} errors`);
      }
    }
  } finally {
    await client.close();
    server.closeAllConnections();
    server.close();
    await pool.end();
    await db.drop();
  }
  report(rounds);
}

function report(rounds: readonly Round[]): void {
  const summary = SURFACES.map((surface) => {
    const mine = rounds.filter((round) => round.surface === surface);
    return {
      surface,
      mainThreadCpuMsPerCall: median(mine.map((round) => round.cpu.byGroup['node: main thread'] ?? 0)),
      totalCpuMsPerCall: median(mine.map((round) => round.cpu.totalMs)),
      postgresCpuMsPerCall: median(mine.map((round) => round.cpu.byGroup.Postgres ?? 0)),
      mainThreadGcMsPerCall: median(mine.map((round) => round.cpu.mainThreadGcMs ?? 0)),
      callsPerSecond: median(mine.map((round) => round.callsPerSecond)),
      errors: mine.reduce((sum, round) => sum + round.errors, 0),
    };
  });
  console.log(`\n| surface | main thread CPU ms/call | all CPU ms/call (Postgres) | main-thread GC ms/call | calls/s | errors |\n|---|---:|---:|---:|---:|---:|`);
  for (const row of summary) {
    console.log(`| ${row.surface} | ${row.mainThreadCpuMsPerCall} | ${row.totalCpuMsPerCall} (${row.postgresCpuMsPerCall}) | ${row.mainThreadGcMsPerCall} | ${row.callsPerSecond.toFixed(0)} | ${row.errors} |`);
  }
  console.log(`\nEach figure the median of ${ROUNDS} rounds of ${CALLS} calls at concurrency ${CONCURRENCY}, the durable call answered at once.`);
  const label = process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : '';
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const file = path.join(OUT_DIR, `${new Date().toISOString().slice(0, 10)}-surfaces${label}.json`);
  fs.writeFileSync(file, JSON.stringify({
    timestamp: new Date().toISOString(), label: process.env.BENCH_LABEL ?? null,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    // A profiled run's CPU includes the profiler's own.
    config: { rounds: ROUNDS, calls: CALLS, concurrency: CONCURRENCY, tool: READ_TOOL, profiled: PROFILE_DIR !== undefined }, summary, rounds,
  }, null, 2));
  console.log(`Written to ${path.relative(process.cwd(), file)}`);
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
