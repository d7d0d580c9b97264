import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TestDatabase } from '../../../test/helpers/database';
import { type CrashTestApi, startCrashTestApi, startWorkerProcess } from '../../../test/helpers/worker-process';
import { seedTaggedContacts } from './broadcast-seed';
import { startSmsServer, type SmsServer } from './broadcast-sms-server';

/**
 * A 1,000-recipient SMS broadcast with the worker (a separate `node worker/main.ts` process)
 * SIGKILLed twice while a provider call is in flight: every consenting recipient gets exactly one
 * message at the provider (one per Idempotency-Key and one per number), the suppressed get none,
 * and each message is metered once.
 */
describe('a broadcast survives its worker being killed twice', () => {
  let db: TestDatabase;
  let sms: SmsServer;
  let api: CrashTestApi;
  let temporal: Client;
  let url: string;
  let apiKey: string;
  let orgId: string;
  const taskQueue = `broadcast-crash-${randomBytes(6).toString('hex')}`;
  const workers: ChildProcess[] = [];

  function startWorker(): Promise<ChildProcess> {
    return startWorkerProcess(workers, {
      databaseUrl: db.url, taskQueue,
      env: {
        ...sms.env(),
        // A provider call may take 2 s, so the lease of a killed attempt runs out 12 s later.
        STEWARD_SEND_TIMEOUT_MS: '2000',
      },
    });
  }

  async function kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  }

  async function invoke(tool: string, args: unknown) {
    const response = await fetch(`${url}/api/agent/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ tool, arguments: args }),
    });
    return (await response.json()) as { ok: boolean; result?: any; error?: any };
  }

  beforeAll(async () => {
    sms = await startSmsServer();
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Crash Cathedral', planCode: 'enterprise' });
    ({ db, url, temporal, apiKey, orgId } = api);
  });

  afterAll(async () => {
    await api?.close();
    await sms?.close();
  });

  it('1,000 recipients, two SIGKILLs mid-send: one message to each consenting number, none to the suppressed, metered once each', async () => {
    let worker = await startWorker();
    const { tagId, contacts } = await seedTaggedContacts(db.pool, orgId, { tag: 'Everyone', count: 1000 });
    const suppressed = contacts.filter((_, i) => i % 50 === 7).map((c) => c.phone);
    for (const phone of suppressed) expect((await invoke('channels_add_suppression', { channel: 'sms', address: phone })).ok).toBe(true);

    const preview = await invoke('channels_preview_broadcast', {
      name: 'Christmas services', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId },
      body: 'Christmas services: carols Sun 6pm, midnight mass 11:30pm.', ratePerMinute: 100_000,
    });
    expect(preview.result.preview).toMatchObject({ total: 1000, eligible: 980, excluded: { suppressed: 20 } });
    const broadcastId = preview.result.broadcast.id as string;
    const gated = await invoke('channels_schedule_broadcast', { broadcastId, previewHash: preview.result.previewHash });
    expect(gated.error.code).toBe('approval_required');

    // Killed with a provider call in flight, twice.
    sms.holdAfter = 150;
    expect((await invoke('platform_approve_proposal', { proposalId: gated.error.details.proposalId })).result.execution.status).toBe('succeeded');
    await sms.waitFor(150, 120_000);
    await kill(worker);
    sms.release();
    sms.holdAfter = 600;
    worker = await startWorker();
    await sms.waitFor(600, 180_000);
    await kill(worker);
    sms.release();
    worker = await startWorker();

    await temporal.workflow.getHandle(`broadcast-${broadcastId}`).result();
    const done = await invoke('channels_get_broadcast', { broadcastId });
    expect(done.result.broadcast.status).toBe('completed');
    expect(done.result.recipients.byStatus).toMatchObject({ sent: 980, skipped: 20, failed: 0 });

    expect(sms.messages).toHaveLength(980);
    expect(new Set(sms.messages.map((m) => m.key)).size).toBe(980);
    expect(new Set(sms.messages.map((m) => m.to)).size).toBe(980);
    for (const phone of suppressed) expect(sms.messages.map((m) => m.to)).not.toContain(phone);
    // The calls in flight at each kill were made again with their key; the provider took each once.
    expect(sms.requests).toBeGreaterThanOrEqual(980);
    const metered = await db.pool.query("SELECT count(*)::int AS n, sum(units)::int AS units FROM usage_events WHERE org_id = $1 AND feature = 'messaging_credits'", [orgId]);
    expect(metered.rows[0]).toEqual({ n: 980, units: 980 });
    await kill(worker);
  }, 600_000);
});
