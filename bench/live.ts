/**
 * `npm run bench:live`: 200 viewers voting at once in one live poll through the public vote endpoint
 * (what a stranger's browser calls), each voting twice, on the test stack (API and worker in one
 * process, a fresh database, the Temporal server on TEMPORAL_ADDRESS or a dev server it starts).
 * Reports the latency of the votes, how many counted (must be exactly one per viewer) and rounds/s.
 * Writes bench/results/<yyyy-mm-dd>-live-votes.json and prints a Markdown table.
 * Knobs: BENCH_LIVE_VIEWERS (200), BENCH_LIVE_ROUNDS (3), BENCH_OUT_DIR (bench/results).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { Harness } from '../test/helpers/harness';

const VIEWERS = Number(process.env.BENCH_LIVE_VIEWERS ?? 200);
const ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS ?? 3);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
};

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-live-'));
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const harness = await Harness.start({ own: true });
  const rows: Array<{ round: number; requests: number; counted: number; errors: number; p50: number; p95: number; max: number; wallMs: number }> = [];
  try {
    const org = await harness.createOrg({ name: 'Bench Live Church', planCode: 'enterprise' });
    const { stream } = await harness.call(org.apiKey, 'live_schedule_stream', { title: 'Bench stream', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 120 });
    for (let round = 1; round <= ROUNDS; round += 1) {
      const { poll } = await harness.call(org.apiKey, 'live_create_poll', { streamId: stream.id, question: `Round ${round}`, options: ['A', 'B', 'C'] });
      const url = `${harness.url}/live/api/${org.orgId}/${stream.id}/polls/${poll.id}/vote`;
      const latencies: number[] = [];
      let counted = 0;
      let errors = 0;
      const vote = async (viewer: number, optionId: string) => {
        const started = performance.now();
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ viewerToken: `bench-viewer-${round}-${String(viewer).padStart(6, '0')}`, optionId }) });
        const body = await response.json() as { ok: boolean; counted?: boolean };
        latencies.push(performance.now() - started);
        if (!body.ok) errors += 1;
        else if (body.counted) counted += 1;
      };
      const wall = performance.now();
      await Promise.all(Array.from({ length: VIEWERS }, (_, i) => [vote(i, `o${(i % 3) + 1}`), vote(i, 'o1')]).flat());
      const wallMs = Math.round(performance.now() - wall);
      const stored = (await harness.pool.query('SELECT count(*)::int AS n FROM live_poll_votes WHERE poll_id = $1', [poll.id])).rows[0].n as number;
      if (stored !== VIEWERS || counted !== VIEWERS) throw new Error(`Round ${round}: ${counted} counted, ${stored} stored for ${VIEWERS} viewers`);
      rows.push({ round, requests: VIEWERS * 2, counted, errors, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: percentile(latencies, 100), wallMs });
    }
    console.log(`| round | vote requests | counted | errors | p50 ms | p95 ms | max ms | all done in ms |`);
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.round} | ${r.requests} | ${r.counted} | ${r.errors} | ${r.p50} | ${r.p95} | ${r.max} | ${r.wallMs} |`);
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${new Date().toISOString().slice(0, 10)}-live-votes.json`);
    fs.writeFileSync(file, `${JSON.stringify({ viewers: VIEWERS, cpus: os.cpus().length, rows }, null, 2)}\n`);
    console.log(`\nWritten to ${file}`);
  } finally {
    await harness.close();
    await dev?.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
