import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { TestDatabase } from '../../../test/helpers/database';
import { type CrashTestApi, exited, startCrashTestApi, startWorkerProcess } from '../../../test/helpers/worker-process';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';

/**
 * Crash safety with real processes: the worker is a separate `node worker/main.ts`
 * process, SIGKILLed in the middle of an SMTP send, then started again.
 *
 * SMTP cannot de-duplicate, and a worker that died mid-send left no record of
 * how far it got, so the restarted worker must not resend on its own: the item
 * waits in needs_review until a person decides. Two windows are tested: the
 * kill before the server acknowledged the message (this test server then drops
 * it, so the person's retry delivers the only copy) and the kill after the
 * server acknowledged it (it arrived once and is not sent again).
 */
describe('outreach send survives a worker crash', () => {
  let db: TestDatabase;
  let smtp: TestSmtpServer;
  let api: CrashTestApi;
  let url: string;
  let apiKey: string;
  const taskQueue = `crash-${randomBytes(6).toString('hex')}`;
  const workers: ChildProcess[] = [];
  // One provider call may take 5 s here, so an outbox lease lasts 15 s and a dead attempt's lease runs out quickly.
  const SEND_TIMEOUT_MS = 5000;

  function startWorker(): Promise<ChildProcess> {
    return startWorkerProcess(workers, {
      databaseUrl: db.url, taskQueue,
      env: {
        STEWARD_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_FROM: 'Steward <office@crash.example>',
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

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await sleep(200);
      value = await read();
    }
    return value;
  }

  async function outbox(itemId: string): Promise<{ status: string; attempts: number; reviewed_by_user_id: string | null } | undefined> {
    return (await db.pool.query('SELECT status, attempts, reviewed_by_user_id FROM outbox_messages WHERE outreach_id = $1', [itemId])).rows[0];
  }

  async function itemStatus(itemId: string): Promise<string> {
    return (await db.pool.query('SELECT status FROM outreach_items WHERE id = $1', [itemId])).rows[0].status;
  }

  async function usage(itemId: string) {
    return (await db.pool.query("SELECT idempotency_key, units FROM usage_events WHERE feature = 'email_sends' AND idempotency_key = $1", [`outreach-${itemId}`])).rows;
  }

  async function queueMessage(firstName: string, email: string): Promise<string> {
    const contact = await invoke('people_create_contact', { firstName, lastName: 'Crash', email });
    expect(contact.ok).toBe(true);
    const queued = await invoke('people_create_outreach', { contactId: contact.result.contact.id, subject: `Hello ${firstName}`, body: 'Thinking of you this week.' });
    expect(queued.ok).toBe(true);
    return queued.result.item.id;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Crash Chapel' });
    ({ db, url, apiKey } = api);
  });

  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  it('SIGKILL before the server acknowledged: nothing resent automatically (needs_review); the person retries and exactly one message arrives, counted once', async () => {
    let worker = await startWorker();
    const itemId = await queueMessage('Cora', 'cora@example.org');

    // The SMTP server takes the message but holds its 250 back; meanwhile the worker dies.
    smtp.setAckDelay(4000);
    const dataArrived = smtp.nextData();
    const approval = invoke('people_approve_outreach', { outreachId: itemId, contentVersion: 1 });
    const inFlight = await dataArrived;
    expect(inFlight.idempotencyKey).toBe(`outreach-${itemId}`);
    worker.kill('SIGKILL');
    await exited(worker);
    smtp.setAckDelay(0);

    // Nothing was delivered: the connection died before the acknowledgement.
    await sleep(4500);
    expect(smtp.delivered).toHaveLength(0);
    expect(smtp.aborted).toHaveLength(1);
    expect(await itemStatus(itemId)).toBe('approved');
    expect(await outbox(itemId)).toMatchObject({ status: 'sending', attempts: 1 });

    // The restarted worker cannot tell this from a lost 250, so it does not resend: a person decides.
    worker = await startWorker();
    const parked = await waitFor(() => outbox(itemId), (row) => row?.status === 'needs_review', 60_000);
    expect(parked?.status).toBe('needs_review');
    const shown = await invoke('people_get_outreach_item', { outreachId: itemId });
    expect(shown.result.item).toMatchObject({ status: 'approved', sendError: { code: 'needs_review' } });
    expect(shown.result.item.sendError.message).toContain('may already have been delivered');
    expect(smtp.delivered).toHaveLength(0);
    expect((await approval).ok).toBe(true);

    // The person chooses to send it again: exactly one copy arrives, with the same Message-ID, counted once.
    const retried = await invoke('people_approve_outreach', { outreachId: itemId, contentVersion: 1 });
    expect(retried.ok).toBe(true);
    expect(await waitFor(() => itemStatus(itemId), (status) => status === 'sent', 30_000)).toBe('sent');
    expect(smtp.delivered).toHaveLength(1);
    expect(smtp.delivered[0]).toMatchObject({ to: ['cora@example.org'], idempotencyKey: `outreach-${itemId}`, messageId: `<outreach-${itemId}@crash.example>` });
    expect(await usage(itemId)).toEqual([{ idempotency_key: `outreach-${itemId}`, units: 1 }]);
    const done = await outbox(itemId);
    expect(done).toMatchObject({ status: 'sent', attempts: 2 });
    expect(done?.reviewed_by_user_id).toBeTruthy();

    // A restart after it was sent sends nothing more.
    worker.kill('SIGKILL');
    await exited(worker);
    worker = await startWorker();
    await sleep(1500);
    expect(smtp.delivered).toHaveLength(1);
    worker.kill('SIGTERM');
    await exited(worker);
  }, 150_000);

  it('SIGKILL after the server acknowledged (250) but before the worker recorded it: delivered once, not sent again, left needs_review', async () => {
    let worker = await startWorker();
    const itemId = await queueMessage('Dora', 'dora@example.org');
    const mine = () => smtp.delivered.filter((mail) => mail.idempotencyKey === `outreach-${itemId}`);

    // The server accepts the message and writes its 250; the worker is frozen just before the 250 goes out
    // and killed just after, so it dies with the 250 unread and nothing recorded (SIGKILL alone races the
    // worker's UPDATE, which Postgres would finish even after the client died).
    const doomed = worker;
    smtp.setAckDelay(0);
    smtp.aroundAcknowledgement({
      before: (mail) => {
        if (mail.idempotencyKey === `outreach-${itemId}`) doomed.kill('SIGSTOP');
      },
      after: (mail) => {
        if (mail.idempotencyKey !== `outreach-${itemId}`) return;
        doomed.kill('SIGKILL');
        smtp.aroundAcknowledgement(null);
      },
    });
    const approval = invoke('people_approve_outreach', { outreachId: itemId, contentVersion: 1 });
    await exited(doomed);
    expect(doomed.signalCode).toBe('SIGKILL');
    expect(mine()).toHaveLength(1);
    // The worker never learned of the 250: the row still shows the attempt in flight.
    expect(await outbox(itemId)).toMatchObject({ status: 'sending', attempts: 1 });
    expect(await itemStatus(itemId)).toBe('approved');

    // After the restart, the retry waits out the dead attempt's lease and then parks the item for a person.
    worker = await startWorker();
    const parked = await waitFor(() => outbox(itemId), (row) => row?.status === 'needs_review', 60_000);
    expect(parked).toMatchObject({ status: 'needs_review', attempts: 1 });
    const shown = await invoke('people_get_outreach_item', { outreachId: itemId });
    expect(shown.result.item).toMatchObject({ status: 'approved', sendError: { code: 'needs_review' } });
    expect(shown.result.item.sendError.message).toContain('not sent again automatically');
    expect((await approval).ok).toBe(true);

    // Nothing more is sent while it waits; it was delivered exactly once and counted once.
    await sleep(3000);
    expect(mine()).toHaveLength(1);
    expect(mine()[0].messageId).toBe(`<outreach-${itemId}@crash.example>`);
    expect(await usage(itemId)).toEqual([{ idempotency_key: `outreach-${itemId}`, units: 1 }]);

    // The person, having checked it arrived, cancels instead of resending.
    const cancelled = await invoke('people_cancel_outreach', { outreachId: itemId });
    expect(cancelled.ok).toBe(true);
    expect(cancelled.result.item.status).toBe('cancelled');
    await sleep(1000);
    expect(mine()).toHaveLength(1);
    worker.kill('SIGTERM');
    await exited(worker);
  }, 150_000);
});
