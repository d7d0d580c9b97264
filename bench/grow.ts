/**
 * `npm run bench:grow`: two figures for the grow module, on the test stack (API and worker in one
 * process, a fresh database, the Temporal server on TEMPORAL_ADDRESS), with a local SMTP server as
 * the email provider.
 *
 * 1. A BENCH_GROW_RECIPIENTS (5,000) recipient email campaign: contacts seeded under one tag with
 *    marketing consent (SQL, as seeding through tools would take minutes), previewed (each person
 *    checked as channels will), scheduled, approved, and timed from the approval until every
 *    recipient has been handed to the channels outbox (the campaign workflow ends).
 * 2. Public form submissions at concurrency 1 and 32 (BENCH_GROW_SUBMISSIONS_PER_WORKER, 10): each a
 *    real POST of the form with its token, matching or creating a contact.
 * Writes bench/results/<yyyy-mm-dd>-grow.json and prints the figures.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startDevServer } from '../scripts/lib/temporal-dev-server';
import { Harness } from '../test/helpers/harness';
import { startSmtpServer } from '../test/helpers/message-servers';
import { formToken, postForm } from '../modules/grow/__tests__/forms-http';
import { measureThroughput, type ThroughputResult } from './stats';

const RECIPIENTS = Number(process.env.BENCH_GROW_RECIPIENTS ?? 5000);
const PER_WORKER = Number(process.env.BENCH_GROW_SUBMISSIONS_PER_WORKER ?? 10);
const CONCURRENCY = [1, 32];

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-bench-grow-'));
  const dev = process.env.TEMPORAL_ADDRESS ? null : await startDevServer({ headless: true, dbFile: path.join(dataDir, 'temporal.db'), port: await freePort() });
  if (dev) process.env.TEMPORAL_ADDRESS = dev.address;
  const smtp = await startSmtpServer();
  Object.assign(process.env, { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_FROM: 'Bench <news@bench.example.org>', GROW_PUBLIC_SUBMISSIONS_PER_MINUTE: '100000' });
  const harness = await Harness.start({ own: true });
  process.env.PUBLIC_URL = harness.url;
  try {
    const org = await harness.createOrg({ name: 'Bench Basilica', planCode: 'enterprise' });
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'Bench list']);
    const ids = Array.from({ length: RECIPIENTS }, () => randomUUID());
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email)
      SELECT id, $1, 'Member', 'No ' || ord, 'member' || ord || '@bench.example.org' FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, ord)`, [org.orgId, ids]);
    await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) SELECT $1, id, $3 FROM unnest($2::uuid[]) AS t(id)', [org.orgId, ids, tagId]);
    await harness.pool.query(`INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at)
      SELECT gen_random_uuid(), $1, id, 'email', 'marketing', 'consent', 'bench', 'Send me news', now() FROM unnest($2::uuid[]) AS t(id)`, [org.orgId, ids]);

    const { campaign } = await harness.call(org.apiKey, 'grow_create_campaign', {
      name: 'Bench campaign', audience: { kind: 'tag', id: tagId }, subject: 'Bench news', body: 'News this week: https://example.org/news',
    });
    const previewStarted = performance.now();
    const previewed = await harness.call(org.apiKey, 'grow_preview_campaign', { campaignId: campaign.id });
    const previewMs = performance.now() - previewStarted;
    const gated = await harness.invoke(org.apiKey, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash: previewed.previewHash });
    const proposalId = (gated.body as { error?: { details?: { proposalId?: string } } }).error?.details?.proposalId;
    const started = performance.now();
    if (proposalId) await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
    await harness.temporal.workflow.getHandle(`grow-campaign-${campaign.id}`).result();
    const sendMs = performance.now() - started;
    const handed = (await harness.pool.query("SELECT count(*)::int AS n FROM grow_campaign_recipients WHERE campaign_id = $1 AND status = 'handed'", [campaign.id])).rows[0].n as number;

    const { form } = await harness.call(org.apiKey, 'grow_create_form', {
      name: 'Bench form', fields: [{ key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
        { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' }, { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' }],
    });
    await harness.call(org.apiKey, 'grow_publish_form', { formId: form.id });
    const url = `${harness.url}/grow/f/${org.orgId}/${form.id}`;
    const token = await formToken(url);
    let n = 0;
    const submit = () => async () => {
      n += 1;
      const result = await postForm(url, { first_name: 'Visitor', last_name: `No ${n}`, email: `visitor${n}@bench.example.org` }, { token });
      if (result.status !== 200) throw new Error(`status ${result.status} ${result.refusal ?? ''}`);
    };
    await measureThroughput(Array.from({ length: 4 }, submit), 8);
    const rows: ThroughputResult[] = [];
    for (const concurrency of CONCURRENCY) rows.push(await measureThroughput(Array.from({ length: concurrency }, submit), concurrency * PER_WORKER));

    const report = {
      bench: 'grow', at: new Date().toISOString(), cpus: os.cpus().length, loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
      campaign: { recipients: RECIPIENTS, previewMs: Math.round(previewMs), scheduleToAllHandedMs: Math.round(sendMs), handed, smtpDelivered: smtp.delivered.length, perSecond: Number((handed / (sendMs / 1000)).toFixed(1)) },
      submissions: rows,
    };
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${report.at.slice(0, 10)}-grow.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log('| recipients | preview ms | approval → all handed s | handed | handed/s | SMTP received |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    console.log(`| ${RECIPIENTS} | ${report.campaign.previewMs} | ${(sendMs / 1000).toFixed(1)} | ${handed} | ${report.campaign.perSecond} | ${smtp.delivered.length} |`);
    console.log('\n| form submissions: concurrency | calls | errors | p50 ms | p95 ms | calls/s |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.concurrency} | ${r.calls} | ${r.errors} | ${r.latency.p50} | ${r.latency.p95} | ${r.callsPerSecond} |`);
    console.log(`written ${file}`);
  } finally {
    await harness.close();
    await smtp.close();
    await dev?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
