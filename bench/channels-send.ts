/**
 * `npx tsx bench/channels-send.ts`: how fast single messages leave through the channels outbox to
 * the local sandbox provider (sandbox/messaging/), on the test stack (API and worker in one
 * process, a fresh database, the Temporal server on TEMPORAL_ADDRESS, else one of its own).
 *
 * Seeds MESSAGES consenting contacts, then measures:
 *   - raw provider calls: the Twilio-style adapter straight to the sandbox (HTTP only), sequential;
 *   - dispatch: one outbox attempt per queued SMS (lock the message, consent and suppression under
 *     locks, meter its segments once, lease, the provider call, mark sent), sequential and with
 *     CONCURRENCY parallel loops, in messages/s; per-message overhead = dispatch p50 − raw p50;
 *   - the whole tool: channels_send_sms through the HTTP bridge (durable call, render, checks,
 *     queue) until its answer, and until the message is sent (the follow-up workflow's dispatch).
 * Writes bench/results/<yyyy-mm-dd>-channels-send.json and prints a Markdown table.
 * Knobs: BENCH_CHANNELS_MESSAGES (300), BENCH_CHANNELS_CONCURRENCY (8), BENCH_CHANNELS_SAMPLES (30), BENCH_OUT_DIR.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TwilioSmsProvider, twilioConfigFromEnv } from '../activities/channels-providers';
import { createOutbox } from '../activities/outbox';
import { withTransaction, type Pool } from '../db/pool';
import { recordConsent } from '../modules/channels/audience/consent';
import { queueMessage } from '../modules/channels/delivery/services';
import { Harness } from '../test/helpers/harness';
import { startTestMessagingSandbox } from '../test/helpers/messaging-sandbox';
import { measureSequential, measureThroughput, summarise, type LatencySummary } from './stats';

const MESSAGES = Number(process.env.BENCH_CHANNELS_MESSAGES ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CHANNELS_CONCURRENCY ?? 8);
const SAMPLES = Number(process.env.BENCH_CHANNELS_SAMPLES ?? 30);

async function seedContacts(pool: Pool, orgId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, phone)
    SELECT u.id, $1, 'Bench', 'Number ' || u.n, '+4477009' || lpad(u.n::text, 5, '0') FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`, [orgId, ids]);
  for (const contactId of ids) {
    await withTransaction(pool, (db) => recordConsent(db, orgId, {
      contactId, channel: 'sms', purpose: 'service', basis: 'consent', source: 'bench', wording: 'bench consent',
    }, null));
  }
  return ids;
}

async function queueAll(pool: Pool, orgId: string, contacts: string[], label: string): Promise<string[]> {
  const ids: string[] = [];
  for (const contactId of contacts) {
    const queued = await withTransaction(pool, (db) => queueMessage(db, orgId, {
      contactId, channel: 'sms', purpose: 'service', body: 'Choir practice moves to 7pm this Thursday.', idempotencyKey: `bench-${label}-${contactId}`, usageTool: 'channels_send_sms',
    }));
    ids.push(queued.messageId);
  }
  return ids;
}

async function main(): Promise<void> {
  const harness = await Harness.start();
  const sandbox = await startTestMessagingSandbox(harness.url);
  try {
    const org = await harness.createOrg({ name: 'Bench Church', planCode: 'enterprise' });
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'messaging_credits', 10000000)", [org.orgId]);
    const half = Math.floor(MESSAGES / 2);
    console.error(`bench:channels-send: seeding ${MESSAGES + SAMPLES + 5} consenting contacts`);
    const contacts = await seedContacts(harness.pool, org.orgId, MESSAGES + SAMPLES + 5);

    const provider = new TwilioSmsProvider(twilioConfigFromEnv()!);
    let raw = 0;
    const rawProvider = await measureSequential(async () => {
      raw += 1;
      await provider.send({ idempotencyKey: `bench-raw-${raw}`, channel: 'sms', to: '+447700800001', subject: null, body: 'raw', transport: { from: sandbox.config.smsFrom } });
    }, SAMPLES, 5);

    const outbox = createOutbox({ pool: harness.pool });
    const sequentialIds = await queueAll(harness.pool, org.orgId, contacts.slice(0, half), 'seq');
    let cursor = 0;
    const dispatchSequential = await measureSequential(async () => {
      const outcome = await outbox.send('channels.message', org.orgId, sequentialIds[cursor++]);
      if (outcome.status !== 'sent') throw new Error(`not sent: ${JSON.stringify(outcome)}`);
    }, half, 0);

    const parallelIds = await queueAll(harness.pool, org.orgId, contacts.slice(half, MESSAGES), 'par');
    let parallelCursor = 0;
    const dispatchParallel = await measureThroughput(Array.from({ length: CONCURRENCY }, () => async () => {
      const outcome = await outbox.send('channels.message', org.orgId, parallelIds[parallelCursor++]);
      if (outcome.status !== 'sent') throw new Error(`not sent: ${JSON.stringify(outcome)}`);
    }), parallelIds.length);

    const toolContacts = contacts.slice(MESSAGES, MESSAGES + SAMPLES);
    const answered: number[] = [];
    const sentAfter: number[] = [];
    for (const contactId of toolContacts) {
      const started = performance.now();
      const result = await harness.call(org.apiKey, 'channels_send_sms', { contactId, purpose: 'service', body: 'Rota reminder: coffee this Sunday.' });
      answered.push(performance.now() - started);
      for (;;) {
        const row = await harness.pool.query('SELECT status FROM channel_messages WHERE id = $1', [result.message.id]);
        if (row.rows[0].status === 'sent') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      sentAfter.push(performance.now() - started);
    }

    const distinct = sandbox.messages().length;
    const report = {
      timestamp: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100) },
      settings: { messages: MESSAGES, concurrency: CONCURRENCY, samples: SAMPLES },
      rawProvider,
      dispatchSequential,
      dispatchParallel: { ...dispatchParallel, errorSamples: dispatchParallel.errorSamples },
      perMessageOverheadP50Ms: Math.round((dispatchSequential.p50 - rawProvider.p50) * 100) / 100,
      toolAnswered: summarise(answered),
      toolUntilSent: summarise(sentAfter),
      sandboxDistinctMessages: distinct,
    };
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${report.timestamp.slice(0, 10)}-channels-send.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const row = (name: string, l: LatencySummary, rate: string) => `| ${name} | ${l.samples} | ${l.p50} | ${l.p95} | ${rate} |`;
    console.log([
      `channels send bench, ${report.machine.cpus} CPUs, load ${report.machine.loadAverage.join(' / ')}`,
      '',
      '| path | n | p50 ms | p95 ms | messages/s |',
      '|---|---:|---:|---:|---:|',
      row('raw provider call (HTTP to sandbox)', rawProvider, (1000 / rawProvider.mean).toFixed(1)),
      row('outbox dispatch, sequential', dispatchSequential, (1000 / dispatchSequential.mean).toFixed(1)),
      row(`outbox dispatch, ${CONCURRENCY} parallel`, dispatchParallel.latency, dispatchParallel.callsPerSecond.toFixed(1)),
      row('channels_send_sms via bridge: answer', report.toolAnswered, '–'),
      row('channels_send_sms via bridge: until sent', report.toolUntilSent, '–'),
      '',
      `per-message outbox overhead (p50 dispatch − p50 raw): ${report.perMessageOverheadP50Ms} ms; errors in parallel: ${dispatchParallel.errors}; sandbox distinct messages: ${distinct}`,
      `written to ${file}`,
    ].join('\n'));
  } finally {
    await sandbox.close();
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
