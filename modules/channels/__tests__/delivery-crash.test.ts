import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { withTransaction } from '../../../db/pool';
import { recordConsent } from '../audience/consent';
import type { MessagingSandbox } from '../../../sandbox/messaging/server';
import type { TestDatabase } from '../../../test/helpers/database';
import { type CrashTestApi, exited, startCrashTestApi, startWorkerProcess } from '../../../test/helpers/worker-process';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';

/**
 * A channel message survives its worker dying mid-send, with real processes: the worker is a
 * separate `node worker/main.ts`, SIGKILLed after the sandbox provider took the SMS but before the
 * worker heard back, then started again. The HTTP provider de-duplicates on the Idempotency-Key, so
 * the restarted worker's retry (once the dead attempt's lease ran out) is recognised: one message
 * at the provider, the message marked sent, its segments metered once.
 */
jest.setTimeout(180_000);

describe('channel message send survives a worker crash', () => {
  let db: TestDatabase;
  let api: CrashTestApi;
  let url: string;
  let apiKey: string;
  let orgId: string;
  let sandbox: MessagingSandbox;
  const taskQueue = `crash-${randomBytes(6).toString('hex')}`;
  const workers: ChildProcess[] = [];
  // One provider call may take 5 s here, so a lease lasts 15 s and a dead attempt's lease runs out quickly.
  const SEND_TIMEOUT_MS = 5000;

  function startWorker(): Promise<ChildProcess> {
    return startWorkerProcess(workers, {
      databaseUrl: db.url, taskQueue,
      env: {
        ...sandbox.env(),
        CHANNELS_WEBHOOK_BASE_URL: url,
        STEWARD_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
      },
    });
  }

  async function invoke(tool: string, args: unknown) {
    const response = await fetch(`${url}/api/agent/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ tool, arguments: args }),
    });
    return (await response.json()) as { ok: boolean; result?: any; error?: any };
  }

  async function messageStatusWithin(messageId: string, status: string, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = (await db.pool.query('SELECT status FROM channel_messages WHERE id = $1', [messageId])).rows[0];
      if (row?.status === status || Date.now() > deadline) return row?.status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Crash Chapel' });
    ({ db, url, apiKey, orgId } = api);
    sandbox = await startTestMessagingSandbox(url);
  });

  afterAll(async () => {
    await sandbox?.close();
    await api?.close();
  });

  it('killed after the provider took the SMS: the restarted worker retries with the same key, one message arrives, metered once', async () => {
    let worker = await startWorker();
    const phone = '+447700900555';
    const contact = await invoke('people_create_contact', { firstName: 'Crash', lastName: 'Test', phone });
    expect(contact.ok).toBe(true);
    await withTransaction(db.pool, (tx) => recordConsent(tx, orgId, {
      contactId: contact.result.contact.id, channel: 'sms', purpose: 'service', basis: 'consent', source: 'test', wording: 'Texts about rotas',
    }, null));

    sandbox.holdResponses(60_000);
    const recorded = sandbox.nextRecorded();
    const sent = await invoke('channels_send_sms', { contactId: contact.result.contact.id, purpose: 'service', body: 'Your rota slot is 10:30 on Sunday' });
    expect(sent.ok).toBe(true);
    const atProvider = await recorded;
    // The provider has the message; the worker is waiting for its answer. Kill it there.
    worker.kill('SIGKILL');
    await exited(worker);
    sandbox.holdResponses(0);
    expect(await messageStatusWithin(sent.result.message.id, 'sent', 1000)).toBe('sending');

    worker = await startWorker();
    expect(await messageStatusWithin(sent.result.message.id, 'sent', 90_000)).toBe('sent');
    expect(sandbox.messages().filter((m) => m.to === phone)).toHaveLength(1);
    expect(sandbox.requestCount()).toBe(2);
    const row = (await db.pool.query('SELECT provider_message_id FROM channel_messages WHERE id = $1', [sent.result.message.id])).rows[0];
    expect(row.provider_message_id).toBe(atProvider.id);
    const usage = await db.pool.query("SELECT units FROM usage_events WHERE feature = 'messaging_credits' AND idempotency_key = $1", [`channel-message-${sent.result.message.id}`]);
    expect(usage.rows).toEqual([{ units: 1 }]);
    worker.kill('SIGTERM');
    await exited(worker);
  });
});
