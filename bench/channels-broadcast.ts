/**
 * `npx tsx bench/channels-broadcast.ts`: broadcast fan-out rate to an SMS provider over HTTP and the
 * per-message overhead, on the test stack (API and worker in one process, a fresh database, the
 * Temporal server on TEMPORAL_ADDRESS).
 *
 * Seeds BENCH_BROADCAST_RECIPIENTS (500) contacts under one tag, previews an SMS broadcast to them at
 * the highest rate (100,000 a minute, so the throttle is not what is measured), approves it and
 * times from the approval to the end of the sending workflow. Each message is queued (rendered and
 * snapshotted), checked at dispatch (consent, suppression, quiet hours under locks), metered once
 * and handed to the provider with its Idempotency-Key. The same provider is then called directly,
 * as many times, for the baseline: overhead per message = broadcast time per message − direct call.
 * Writes bench/results/<yyyy-mm-dd>-channels-broadcast.json and prints the figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Harness } from '../test/helpers/harness';
import { seedTaggedContacts } from '../modules/channels/__tests__/broadcast-seed';
import { startSmsServer } from '../modules/channels/__tests__/broadcast-sms-server';

const RECIPIENTS = Number(process.env.BENCH_BROADCAST_RECIPIENTS ?? 500);

async function main(): Promise<void> {
  const sms = await startSmsServer();
  Object.assign(process.env, sms.env());
  const harness = await Harness.start();
  try {
    const org = await harness.createOrg({ name: 'Bench Basilica', planCode: 'enterprise' });
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Bench', count: RECIPIENTS });
    const previewStarted = performance.now();
    const preview = await harness.call(org.apiKey, 'channels_preview_broadcast', {
      name: 'Bench', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Bench message: service times change next week.', ratePerMinute: 100_000,
    });
    const previewMs = performance.now() - previewStarted;
    const gated = await harness.invoke(org.apiKey, 'channels_schedule_broadcast', { broadcastId: preview.broadcast.id, previewHash: preview.previewHash });
    const proposalId = (gated.body as { error?: { details?: { proposalId?: string } } }).error?.details?.proposalId;
    const started = performance.now();
    if (proposalId) await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
    await harness.temporal.workflow.getHandle(`broadcast-${preview.broadcast.id}`).result();
    const broadcastMs = performance.now() - started;
    if (sms.messages.length !== RECIPIENTS) throw new Error(`expected ${RECIPIENTS} messages, the provider got ${sms.messages.length}`);

    // The provider alone: the same number of calls, one at a time, as the broadcast makes them.
    const directStarted = performance.now();
    for (let i = 0; i < RECIPIENTS; i += 1) {
      const response = await fetch(`${sms.url}/2010-04-01/Accounts/ACtest/Messages.json`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `direct-${i}` },
        body: new URLSearchParams({ To: '+447700900001', From: '+447700900000', Body: 'direct' }).toString(),
      });
      await response.arrayBuffer();
    }
    const directMs = performance.now() - directStarted;

    const report = {
      timestamp: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))) },
      recipients: RECIPIENTS,
      previewMs: Math.round(previewMs),
      broadcastMs: Math.round(broadcastMs),
      messagesPerSecond: Number((RECIPIENTS / (broadcastMs / 1000)).toFixed(1)),
      msPerMessage: Number((broadcastMs / RECIPIENTS).toFixed(2)),
      providerCallMs: Number((directMs / RECIPIENTS).toFixed(2)),
      overheadMsPerMessage: Number(((broadcastMs - directMs) / RECIPIENTS).toFixed(2)),
    };
    const outDir = process.env.BENCH_OUT_DIR ?? path.join(__dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `${report.timestamp.slice(0, 10)}-channels-broadcast.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`| recipients | preview ms | send s | messages/s | ms per message | provider call ms | overhead ms per message |`);
    console.log(`|---:|---:|---:|---:|---:|---:|---:|`);
    console.log(`| ${RECIPIENTS} | ${report.previewMs} | ${(broadcastMs / 1000).toFixed(1)} | ${report.messagesPerSecond} | ${report.msPerMessage} | ${report.providerCallMs} | ${report.overheadMsPerMessage} |`);
    console.log(`written ${file}`);
  } finally {
    await harness.close();
    await sms.close();
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
