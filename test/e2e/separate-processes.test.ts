import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config';
import { withTransaction } from '../../db/pool';
import { createApiKey } from '../../kernel/api-keys';
import { ALL_SCOPES } from '../../core/scopes';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { exited, startWorkerProcess } from '../helpers/worker-process';

/**
 * Steward as a host runs it: two API processes and two worker processes on one database and one
 * Temporal. Under a steady stream of calls, one worker and one API are killed (SIGKILL); a client
 * that loses its answer retries the same call, with the same Idempotency-Key, on the other API.
 * Every call must end with one contact, the one it asked for: none lost, none doubled, none wrong.
 */
describe('two APIs and two workers, one of each killed under load', () => {
  const children: ChildProcess[] = [];
  let db: TestDatabase;
  let apiKey: string;
  let orgId: string;
  const taskQueue = `separate-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ orgId, apiKey } = await withTransaction(db.pool, async (tx) => {
      const org = await createOrganisation(tx, { name: 'Separate Processes Parish', planCode: 'enterprise' });
      const owner = await createMember(tx, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner', safeguarding: true });
      return { orgId: org.id, apiKey: (await createApiKey(tx, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] })).apiKey };
    }));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.drop();
  });

  function startApi(): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'api', 'main.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: db.url, STEWARD_TASK_QUEUE: taskQueue, PORT: '0', HOST: '127.0.0.1', STEWARD_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /API (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve({ child, url: match[1]! });
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`API exited (${code}): ${output}`)));
    });
  }

  it('ends with exactly one right contact per call: 0 wrong, 0 lost, 0 doubled', async () => {
    const workers = [
      await startWorkerProcess(children, { databaseUrl: db.url, taskQueue }),
      await startWorkerProcess(children, { databaseUrl: db.url, taskQueue }),
    ];
    const apis = [await startApi(), await startApi()];
    const alive = new Set([0, 1]);
    const CALLS = 60;
    const marker = `Sep${randomBytes(3).toString('hex')}`;
    let retries = 0;

    async function callOnce(index: number): Promise<{ id: string; firstName: string }> {
      const key = `sep-${marker}-${index}`;
      let preferred = index % 2;
      for (let attempt = 0; attempt < 40; attempt++) {
        const api = alive.has(preferred) ? apis[preferred]! : apis[[...alive][0]!]!;
        try {
          const response = await fetch(`${api.url}/api/agent/invoke`, {
            method: 'POST', signal: AbortSignal.timeout(60_000),
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify({ tool: 'people_create_contact', arguments: { firstName: `N${index}`, lastName: marker } }),
          });
          if (response.status === 200) return ((await response.json()) as { result: { contact: { id: string; firstName: string } } }).result.contact;
        } catch {
          // The API died under the request: the same call, the same key, on the other one.
        }
        retries++;
        preferred = 1 - preferred;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`call ${index} never answered`);
    }

    const results: Array<Promise<{ id: string; firstName: string }>> = [];
    for (let index = 0; index < CALLS; index++) {
      results.push(callOnce(index));
      if (index === 20) workers[0]!.kill('SIGKILL');
      if (index === 30) {
        apis[0]!.child.kill('SIGKILL');
        alive.delete(0);
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const answered = await Promise.all(results);
    await exited(workers[0]!);

    // 0 wrong: each call's answer is the contact it asked for.
    const wrong = answered.filter((contact, index) => contact.firstName !== `N${index}`);
    // 0 lost and 0 doubled: exactly one row per call, and it is the one answered.
    const rows = (await db.pool.query<{ id: string; first_name: string }>('SELECT id, first_name FROM contacts WHERE org_id = $1 AND last_name = $2 AND deleted_at IS NULL', [orgId, marker])).rows;
    const byName = new Map<string, string[]>();
    for (const row of rows) byName.set(row.first_name, [...(byName.get(row.first_name) ?? []), row.id]);
    const lost = answered.filter((_, index) => !byName.has(`N${index}`));
    const doubled = [...byName.values()].filter((ids) => ids.length > 1);
    const mismatched = answered.filter((contact, index) => byName.get(`N${index}`)?.[0] !== contact.id);
    console.log(`separate processes: ${CALLS} calls, ${retries} retries after a kill, ${rows.length} contacts`);
    expect({ wrong: wrong.length, lost: lost.length, doubled: doubled.length, mismatched: mismatched.length, rows: rows.length })
      .toEqual({ wrong: 0, lost: 0, doubled: 0, mismatched: 0, rows: CALLS });
  }, 300_000);
});
