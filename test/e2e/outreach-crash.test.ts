import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { listen } from '../../api/server';
import { ALL_SCOPES } from '../../core/scopes';
import { PROJECT_ROOT } from '../../db/config';
import { withTransaction } from '../../db/pool';
import { createApiKey } from '../../modules/platform/api-keys';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { BUNDLE_PATH_ENV } from '../helpers/env';
import { startSmtpServer, type TestSmtpServer } from '../helpers/message-servers';

/**
 * Crash safety with real processes: the worker is a separate `npm run worker`
 * process, SIGKILLed while the SMTP server holds back its acknowledgement of
 * the message, then started again. Exactly one message must arrive, counted once.
 */
describe('outreach send survives a worker crash', () => {
  let db: TestDatabase;
  let smtp: TestSmtpServer;
  let connection: Connection;
  let server: Server;
  let url: string;
  let apiKey: string;
  const taskQueue = `crash-${randomBytes(6).toString('hex')}`;
  const workers: ChildProcess[] = [];

  /** `node --import tsx worker/main.ts`: one process, so SIGKILL kills the worker itself. */
  function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'worker', 'main.ts')], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
        STEWARD_TASK_QUEUE: taskQueue,
        STEWARD_WORKFLOW_BUNDLE: process.env[BUNDLE_PATH_ENV],
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_FROM: 'Steward <office@crash.example>',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    return new Promise((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('worker polling')) resolve(child);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`worker exited (${code}) before polling: ${output}`)));
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

  beforeAll(async () => {
    db = await createTestDatabase();
    smtp = await startSmtpServer();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const temporal = new Client({ connection, namespace: 'default' });
    ({ server, url } = await listen({ pool: db.pool, temporal, taskQueue }, 0));
    apiKey = await withTransaction(db.pool, async (tx) => {
      const org = await createOrganisation(tx, { name: 'Crash Chapel' });
      const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner' });
      return (await createApiKey(tx, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] })).apiKey;
    });
  });

  afterAll(async () => {
    for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await new Promise<void>((resolve) => {
      server?.closeAllConnections();
      server ? server.close(() => resolve()) : resolve();
    });
    await connection?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('delivers exactly one message and counts it once after SIGKILL mid-send', async () => {
    let worker = await startWorker();
    const contact = await invoke('people_create_contact', { firstName: 'Cora', lastName: 'Crash', email: 'cora@example.org' });
    expect(contact.ok).toBe(true);
    const queued = await invoke('people_create_outreach', { contactId: contact.result.contact.id, subject: 'Hello Cora', body: 'Thinking of you this week.' });
    expect(queued.ok).toBe(true);
    const itemId: string = queued.result.item.id;

    // The SMTP server takes the message but holds its 250 back; meanwhile the worker dies.
    smtp.setAckDelay(4000);
    const dataArrived = smtp.nextData();
    const approval = invoke('people_approve_outreach', { outreachId: itemId, contentVersion: 1 });
    const inFlight = await dataArrived;
    expect(inFlight.idempotencyKey).toBe(`outreach-${itemId}`);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    smtp.setAckDelay(0);

    // Nothing was delivered: the connection died before the acknowledgement.
    await new Promise((r) => setTimeout(r, 4500));
    expect(smtp.delivered).toHaveLength(0);
    expect(smtp.aborted).toHaveLength(1);
    const mid = await db.pool.query('SELECT status FROM outreach_items WHERE id = $1', [itemId]);
    expect(mid.rows[0].status).toBe('approved');

    worker = await startWorker();
    let status = 'approved';
    for (let i = 0; i < 150 && status !== 'sent'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await db.pool.query('SELECT status FROM outreach_items WHERE id = $1', [itemId])).rows[0].status;
    }
    expect(status).toBe('sent');
    expect(smtp.delivered).toHaveLength(1);
    expect(smtp.delivered[0]).toMatchObject({ to: ['cora@example.org'], idempotencyKey: `outreach-${itemId}`, messageId: `<outreach-${itemId}@crash.example>` });

    const usage = await db.pool.query("SELECT idempotency_key, units FROM usage_events WHERE feature = 'email_sends'");
    expect(usage.rows).toEqual([{ idempotency_key: `outreach-${itemId}`, units: 1 }]);
    const outbox = await db.pool.query('SELECT status, attempts FROM outbox_messages WHERE outreach_id = $1', [itemId]);
    expect(outbox.rows[0].status).toBe('sent');
    expect(outbox.rows[0].attempts).toBeGreaterThanOrEqual(2);
    const answered = await approval;
    expect(answered.ok).toBe(true);

    // A restart after it was sent sends nothing more.
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    worker = await startWorker();
    await new Promise((r) => setTimeout(r, 1500));
    expect(smtp.delivered).toHaveLength(1);
    worker.kill('SIGTERM');
  }, 150_000);
});
