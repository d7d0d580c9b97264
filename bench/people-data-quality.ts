/**
 * `npm run bench:dq`: a data quality scan over 20,000 generated contacts on the stack `npm start`
 * runs (the embedded PostgreSQL server, a Temporal dev server on a SQLite file, API and worker in
 * this one process), started the way a person starts it: people_run_data_quality_scan over the
 * HTTP bridge, whose follow-up starts dataQualityJobWorkflow, followed with
 * people_get_data_quality_job until it has finished.
 *
 * Reported: the scan's wall time (tool call to job completed) and the time the job itself recorded,
 * the peak resident memory of this process (API + worker + the scan's activities) and of the
 * Postgres server processes, sampled every 100 ms, and the latency of people_get_contact calls made
 * over the bridge while the scan runs (p50/p95/max), against the same calls with nothing running:
 * the scan must not hold tool calls up.
 *
 * The generated contacts carry the defects a real list has: names in capitals, national phone
 * numbers, lower-case postcodes, gmial.com addresses, shared emails and phones, near-duplicate names
 * with the same date of birth, missing fields and old records.
 *
 * Knobs: BENCH_DQ_CONTACTS (20000), BENCH_DQ_BACKEND (embedded | url: a fresh database on
 * DATABASE_URL), BENCH_OUT_DIR (bench/results). Writes bench/results/<yyyy-mm-dd>-people-data-quality.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { listen } from '../api/server';
import { PROJECT_ROOT } from '../db/config';
import { startEmbeddedPostgres } from '../db/embedded';
import { createPool } from '../db/pool';
import { createBenchOrg } from './seed';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { createTemporalClient } from '../temporal/client';
import { createTestDatabase } from '../test/helpers/database';
import { prepareWorker } from '../worker/prepare-worker';
import { summarise, type LatencySummary } from './stats';

const CONTACTS = Number(process.env.BENCH_DQ_CONTACTS ?? 20_000);
const BACKEND = (process.env.BENCH_DQ_BACKEND ?? 'embedded') as 'embedded' | 'url';

function log(message: string): void {
  console.error(`bench:dq: ${message}`);
}

async function invoke(url: string, apiKey: string, tool: string, args: unknown): Promise<any> {
  const response = await fetch(`${url}/api/agent/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ tool, arguments: args }),
  });
  const body = await response.json() as { ok: boolean; result?: unknown; error?: unknown };
  if (!body.ok) throw new Error(`${tool}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Resident memory of a process tree in bytes (Linux /proc). */
function treeRss(rootPid: number): number {
  let pids: number[] = [rootPid];
  try {
    const out = execFileSync('ps', ['-o', 'pid=,ppid=,rss=', '-A'], { encoding: 'utf8' });
    const rows = out.trim().split('\n').map((line) => line.trim().split(/\s+/).map(Number));
    const children = (pid: number): number[] => rows.filter((r) => r[1] === pid).flatMap((r) => [r[0], ...children(r[0])]);
    pids = [rootPid, ...children(rootPid)];
    return rows.filter((r) => pids.includes(r[0])).reduce((sum, r) => sum + r[2] * 1024, 0);
  } catch {
    return 0;
  }
}

/** 20,000 contacts with realistic defects, in one statement (generate_series). */
async function seedContacts(pool: ReturnType<typeof createPool>, orgId: string, count: number): Promise<void> {
  await pool.query(`
    WITH first_names AS (SELECT ARRAY['John','Jon','Mary','Margaret','Peter','Paul','Sarah','Sara','James','Jane','David','Ruth','Michael','Rachel','Thomas',
      'Elizabeth','Andrew','Anne','Ann','Stephen','Steven','Katherine','Catherine','Joseph','Hannah','Simon','Grace','Daniel','Esther','Samuel',
      'Chloe','Oliver','Amelia','Harry','Olivia','George','Emily','Jack','Isla','Noah','Ava','Leo','Mia','Oscar','Ella','Arthur','Sophie','Henry',
      'Lucy','Charlie','Florence','Alfie','Evie','Freddie','Ivy','Theo','Alice','Archie','Rosie','Adebayo'] AS a),
    last_names AS (SELECT ARRAY['Smith','Smyth','Jones','Williams','Brown','Browne','Taylor','Davies','Davis','Evans','Wilson','Thomas','Johnson','Roberts',
      'Robinson','Thompson','Wright','Walker','White','Edwards','Hughes','Green','Hall','Lewis','Harris','Clarke','Clark','Patel','Jackson','Wood',
      'Turner','Martin','Cooper','Hill','Ward','Morris','Moore','Clark','Lee','King','Baker','Harrison','Morgan','Allen','James','Scott','Phillips',
      'Watson','Davis','Parker','Price','Bennett','Young','Griffiths','Mitchell','Kelly','Cook','Carter','Richardson','Bailey','Collins','Bell','Shaw',
      'Murphy','Miller','Cox','Richards','Khan','Marshall','Anderson','Simpson','Ellis','Adams','Singh','Begum','Wilkinson','Foster','Chapman','Powell'] AS a)
    INSERT INTO contacts (id, org_id, first_name, last_name, email, phone, date_of_birth, address_postcode, address_city, address_county, status,
      whatsapp_consent, created_at, updated_at)
    SELECT gen_random_uuid(), $1,
      CASE WHEN i % 41 = 0 THEN upper(f) WHEN i % 97 = 0 THEN f || ' ' || l ELSE f END,
      CASE WHEN i % 41 = 0 THEN upper(l) WHEN i % 97 = 0 THEN NULL ELSE l END,
      CASE WHEN i % 23 = 0 THEN NULL
           -- Pairs of rows sharing one address (exact email groups), one of them in capitals.
           WHEN i % 50 = 0 THEN 'shared' || (i / 100) || '@example.org'
           WHEN i % 50 = 25 THEN 'SHARED' || ((i - 25) / 100) || '@Example.org'
           WHEN i % 53 = 0 THEN lower(f) || '.' || lower(l) || i || '@gmial.com'
           WHEN i % 89 = 0 THEN lower(f) || i || '@example.org; ' || lower(l) || i || '@work.example'
           WHEN i % 17 = 0 THEN initcap(f) || '.' || l || i || '@Example.org'
           ELSE lower(f) || '.' || lower(l) || i || '@example.org' END,
      CASE WHEN i % 5 = 0 THEN NULL
           -- Pairs of rows with one number written two ways (exact phone groups).
           WHEN i % 90 = 3 THEN '07700 9' || lpad(((i - 3) / 90)::text, 5, '0')
           WHEN i % 90 = 48 THEN '+4477009' || lpad(((i - 48) / 90)::text, 5, '0')
           WHEN i % 71 = 0 THEN 'call office'
           WHEN i % 3 = 0 THEN '07' || lpad(((i * 7919) % 1000000000)::text, 9, '0')
           ELSE '+447' || lpad(((i * 104729) % 1000000000)::text, 9, '0') END,
      CASE WHEN i % 4 = 0 THEN NULL ELSE date '1940-01-01' + ((i * 37) % 25000) END,
      CASE WHEN i % 9 = 0 THEN NULL WHEN i % 7 = 0 THEN lower('LS' || (i % 28 + 1) || (i % 9) || 'AB') ELSE 'LS' || (i % 28 + 1) || ' ' || (i % 9) || 'AB' END,
      CASE WHEN i % 11 = 0 THEN NULL ELSE 'Leeds' END, CASE WHEN i % 11 = 0 THEN NULL ELSE 'West Yorkshire' END,
      CASE WHEN i % 6 = 0 THEN 'non_subscribed' WHEN i % 31 = 0 THEN 'unsubscribed' ELSE 'subscribed' END,
      i % 8 = 0,
      now() - make_interval(days => i % 1500),
      CASE WHEN i % 13 = 0 THEN now() - interval '3 years' ELSE now() - make_interval(days => i % 600) END
    FROM generate_series(1, $2) AS i,
      -- Names drawn by a hash of the row number, so they do not repeat in a short cycle.
      LATERAL (SELECT (SELECT a FROM first_names)[1 + abs(hashint4(i)) % 60] AS f,
        (SELECT a FROM last_names)[1 + abs(hashint4(i + 1000003)) % 80]
          || (ARRAY['', 'son', 'ers', 'ley', 'ton', 'ford', 'well', 'ham', 'by', 'er', 'kins', 'wood'])[1 + abs(hashint4(i + 2000003)) % 12] AS l) AS names`, [orgId, count]);
}

async function main(): Promise<void> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch((error) => console.error(`cleanup: ${String(error)}`));
  };
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-dq-'));
    fs.chmodSync(dataDir, 0o755);
    closers.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    let databaseUrl: string;
    let postgresPid: number | undefined;
    if (BACKEND === 'embedded') {
      log('starting the embedded Postgres');
      const embedded = await startEmbeddedPostgres({ dataRoot: dataDir, port: await freePort() });
      closers.push(() => embedded.stop());
      databaseUrl = embedded.databaseUrl;
      postgresPid = embedded.pid;
    } else {
      const db = await createTestDatabase();
      closers.push(() => db.drop());
      databaseUrl = db.url;
    }
    log('starting a Temporal dev server on a SQLite file');
    const dev = await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db') });
    closers.push(() => dev.stop());
    const pool = createPool(databaseUrl);
    closers.push(() => pool.end());
    log('migrating and starting the worker');
    const { worker, connection } = await prepareWorker({ pool, address: dev.address, namespace: 'default', taskQueue: 'steward-tools' });
    closers.push(() => connection.close());
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    const temporal = createTemporalClient(connection, 'default');
    const { server, url } = await listen({ pool, temporal, taskQueue: 'steward-tools', eagerStart: true }, 0);
    closers.push(() => new Promise<void>((resolve) => {
      (server as Server).closeAllConnections();
      (server as Server).close(() => resolve());
    }));

    const { apiKey, orgId } = await createBenchOrg(pool, 'Bench Church', 'enterprise');
    log(`seeding ${CONTACTS} contacts`);
    await seedContacts(pool, orgId, CONTACTS);
    await pool.query('ANALYZE contacts');
    const { rows: sample } = await pool.query<{ id: string }>('SELECT id FROM contacts WHERE org_id = $1 ORDER BY id LIMIT 50', [orgId]);

    const readOnce = async () => {
      const started = performance.now();
      await invoke(url, apiKey, 'people_get_contact', { contactId: sample[Math.floor(Math.random() * sample.length)].id });
      return performance.now() - started;
    };
    log('baseline: people_get_contact with nothing running');
    for (let i = 0; i < 5; i++) await readOnce();
    const idle: number[] = [];
    for (let i = 0; i < 40; i++) idle.push(await readOnce());

    let peakNode = process.memoryUsage().rss;
    let peakPostgres = postgresPid ? treeRss(postgresPid) : 0;
    const sampler = setInterval(() => {
      peakNode = Math.max(peakNode, process.memoryUsage().rss);
      if (postgresPid) peakPostgres = Math.max(peakPostgres, treeRss(postgresPid));
    }, 100);
    const nodeBefore = process.memoryUsage().rss;

    log('scan: people_run_data_quality_scan, then following the job');
    const started = performance.now();
    const { job } = await invoke(url, apiKey, 'people_run_data_quality_scan', {});
    const during: number[] = [];
    let finished: any;
    let progressSeen = 0;
    for (;;) {
      during.push(await readOnce());
      const { job: now } = await invoke(url, apiKey, 'people_get_data_quality_job', { jobId: job.id });
      if (now.status === 'running' && now.progress.done > 0 && now.progress.done < now.progress.total) progressSeen++;
      if (now.status === 'completed' || now.status === 'failed') {
        finished = now;
        break;
      }
    }
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    if (finished.status !== 'completed') throw new Error(`scan failed: ${finished.error}`);
    const summary = await invoke(url, apiKey, 'people_get_data_quality_summary', {});
    const pairs = await invoke(url, apiKey, 'people_list_data_quality_fuzzy_pairs', { limit: 1 });
    const groups = await invoke(url, apiKey, 'people_list_data_quality_duplicates', { limit: 1 });

    const result = {
      date: new Date().toISOString(),
      backend: BACKEND,
      contacts: CONTACTS,
      cpus: os.cpus().length,
      load: os.loadavg(),
      scan: {
        wallMs: Math.round(wallMs),
        jobMs: finished.result.durationMs,
        score: summary.score,
        categories: Object.fromEntries(summary.categories.map((c: any) => [c.category, c.score])),
        exactGroups: groups.total,
        fuzzyPairs: pairs.total,
        progressReadingsWhileRunning: progressSeen,
      },
      memory: {
        nodeRssBeforeMb: Math.round(nodeBefore / 1048576),
        nodePeakRssMb: Math.round(peakNode / 1048576),
        postgresPeakRssMb: postgresPid ? Math.round(peakPostgres / 1048576) : null,
      },
      getContact: { idle: summarise(idle) as LatencySummary, duringScan: summarise(during) as LatencySummary },
    };
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(PROJECT_ROOT, 'bench', 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${result.date.slice(0, 10)}-people-data-quality.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(`| contacts | backend | scan (call → done) | job's own time | score | exact groups | fuzzy pairs | node peak RSS | postgres peak RSS | get_contact p50/p95 idle | p50/p95 during scan |`);
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    console.log(`| ${CONTACTS} | ${BACKEND} | ${(wallMs / 1000).toFixed(1)} s | ${(finished.result.durationMs / 1000).toFixed(1)} s | ${summary.score} | ${groups.total} | ${pairs.total} | `
      + `${result.memory.nodePeakRssMb} MB | ${result.memory.postgresPeakRssMb ?? '–'} MB | ${ms(result.getContact.idle.p50)} / ${ms(result.getContact.idle.p95)} | `
      + `${ms(result.getContact.duringScan.p50)} / ${ms(result.getContact.duringScan.p95)} (max ${ms(result.getContact.duringScan.max)}, n=${during.length}) |`);
    log(`wrote ${file}`);
  } finally {
    await close();
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
