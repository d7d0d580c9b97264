import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Connection, type Client } from '@temporalio/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AppOptions } from '../../api/app';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import type { Role } from '../../core/roles';
import { createPool, withTransaction, type Pool } from '../../db/pool';
import { createApiKey } from '../../kernel/api-keys';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import type { StewardWorkerOptions, createStewardWorker as CreateStewardWorker } from '../../worker/create-worker';
import { createTestDatabase, type TestDatabase } from './database';
import { BUNDLE_PATH_ENV } from './env';
import { sharedStack, type SharedStack } from './shared-stack';
import { createTemporalClient } from '../../temporal/client';
import { installWorkerLogging } from '../../worker/logging';

// Expected tool errors (not_found, validation) fail calls by design; only real errors are worth printing.
process.env.STEWARD_LOG_LEVEL ??= 'error';

export interface TestOrg {
  orgId: string;
  ownerUserId: string;
  /** A key holding every scope. */
  apiKey: string;
}

export interface InvokeResponse {
  status: number;
  body: { ok: boolean; result?: any; error?: { code: string; message: string; hint?: string; issues?: Array<{ path: string; message: string }>; details?: any } };
}

export interface HarnessOptions {
  /**
   * A stack of the suite's own (its own database, worker and API, in this process) instead of its jest
   * worker's shared one. For a suite that changes what the stack does (environment set before it
   * starts, jest mocks of modules the worker or API use, in-process providers or counters it reads,
   * a module it registers), stops or crashes it, or looks across organisations (a job or sweep run
   * for every organisation, a count over a whole table). wrapActivities and app imply it.
   */
  own?: boolean;
  wrapActivities?: StewardWorkerOptions['wrapActivities'];
  app?: Pick<AppOptions, 'oauthRateLimits'>;
  /** A workflow bundle of the suite's own (built after it registered a module); implies `own`. */
  bundlePath?: string;
}

/**
 * A Steward stack for one test file: the API, a worker on a task queue against the run's dev server,
 * and a database, with helpers to make organisations and call tools.
 *
 * By default the suite's jest worker's shared stack (test/helpers/shared-stack.ts): one API + worker
 * process and database for every suite that worker runs, each suite in organisations of its own;
 * `close` closes only what the harness opened and shows what the stack printed while the suite ran.
 * With `own` (see HarnessOptions) a whole stack of the suite's own, closed and dropped with it; so
 * too outside a jest run (benches).
 */
/** Stopping and starting an own stack's worker, as a deploy or a crashed process would. */
interface WorkerControl {
  stop(): Promise<void>;
  start(): Promise<void>;
}

export class Harness {
  private constructor(
    readonly db: TestDatabase,
    readonly temporal: Client,
    readonly url: string,
    readonly taskQueue: string,
    private readonly closers: Array<() => Promise<void>>,
    private readonly worker: WorkerControl | null = null,
  ) {}

  /**
   * Stops the suite's own worker (a stack started with `own`): workflows stay where they are in
   * Temporal, their timers keep running, and nothing runs them until `startWorker`. The API keeps
   * answering. For tests that a run survives a worker going away (a deploy, a crash).
   */
  async stopWorker(): Promise<void> {
    await this.ownWorker().stop();
  }

  /** Starts a new worker on the suite's task queue (after `stopWorker`): it replays the workflows from their histories and carries on. */
  async startWorker(): Promise<void> {
    await this.ownWorker().start();
  }

  private ownWorker(): WorkerControl {
    if (!this.worker) throw new Error('Only a stack of the suite\'s own (Harness.start({ own: true })) has a worker the test may stop and start');
    return this.worker;
  }

  get pool(): Pool {
    return this.db.pool;
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const own = options.own || options.wrapActivities || options.app || options.bundlePath;
    const stack = own ? undefined : await sharedStack();
    return stack ? Harness.attach(stack) : Harness.startOwn(options);
  }

  /** Attaches to a running shared stack: a pool on its database and a Temporal client, both closed with the harness. */
  private static async attach(stack: SharedStack): Promise<Harness> {
    const pool = createPool(stack.databaseUrl, { max: 5 });
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const temporal = createTemporalClient(connection, 'default');
    const logFrom = fs.statSync(stack.logFile).size;
    // The stack's database outlives the suite: "dropping" it closes this harness's pool only.
    const db: TestDatabase = { pool, url: stack.databaseUrl, drop: () => pool.end() };
    return new Harness(db, temporal, stack.url, stack.taskQueue, [
      () => connection.close(),
      () => db.drop(),
      async () => {
        // What the stack printed while this suite ran (errors from the API and worker), as an own stack's would show.
        const size = fs.statSync(stack.logFile).size;
        if (size <= logFrom) return;
        const output = Buffer.alloc(size - logFrom);
        const fd = fs.openSync(stack.logFile, 'r');
        try {
          fs.readSync(fd, output, 0, output.length, logFrom);
        } finally {
          fs.closeSync(fd);
        }
        console.log(`The shared stack (${stack.url}, pid ${stack.pid}) printed while this suite ran:\n${output.toString('utf8')}`);
      },
    ]);
  }

  private static async startOwn(options: HarnessOptions): Promise<Harness> {
    // Loaded only for a stack of the suite's own: a suite on the shared stack needs neither in its process.
    const { listen } = require('../../api/server') as typeof import('../../api/server');
    const { createStewardWorker } = require('../../worker/create-worker') as typeof import('../../worker/create-worker');
    // The worker logs through the service's log (core/log.ts), as in production, so a suite can capture it.
    try {
      installWorkerLogging();
    } catch {
      // Already installed by an earlier suite in this process.
    }
    const address = process.env.TEMPORAL_ADDRESS!;
    const db = await createTestDatabase();
    const taskQueue = `test-${randomBytes(6).toString('hex')}`;
    const workerOptions: StewardWorkerOptions = {
      address, namespace: 'default', pool: db.pool, taskQueue, bundlePath: options.bundlePath ?? process.env[BUNDLE_PATH_ENV], wrapActivities: options.wrapActivities,
    };
    const { worker, connection: workerConnection } = await createStewardWorker(workerOptions);
    // As npm start runs it: the API's client on the worker's connection, so starts are eager and a call
    // whose transaction has committed answers at once (temporal/early-results.ts). That connection stays
    // open while the worker is stopped; a restarted worker has a connection of its own.
    const temporal = createTemporalClient(workerConnection, 'default');
    const control = ownWorkerControl(createStewardWorker, workerOptions, worker);
    const { server, url } = await listen({ pool: db.pool, temporal, taskQueue, eagerStart: true, ...options.app }, 0);
    return new Harness(db, temporal, url, taskQueue, [
      () => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
      () => control.close(),
      () => workerConnection.close(),
      () => db.drop(),
    ], control);
  }

  async close(): Promise<void> {
    for (const close of this.closers) await close();
  }

  async createOrg(options: { name?: string; country?: string; planCode?: string } = {}): Promise<TestOrg> {
    return withTransaction(this.pool, async (db) => {
      const org = await createOrganisation(db, { name: options.name ?? 'Test Church', country: options.country, planCode: options.planCode });
      const owner = await createMember(db, { orgId: org.id, email: `owner-${org.id}@test.local`, role: 'owner', safeguarding: true });
      const key = await createApiKey(db, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] });
      return { orgId: org.id, ownerUserId: owner.userId, apiKey: key.apiKey };
    });
  }

  /** A key for a new member of `orgId` with the given role and scopes. */
  /** A key for a new member with `role`; `safeguarding` gives the member safeguarding permission. */
  async createKey(orgId: string, scopes: Scope[], role: Role = 'staff', options: { safeguarding?: boolean } = {}): Promise<{ apiKey: string; keyId: string; userId: string }> {
    return withTransaction(this.pool, async (db) => {
      const member = await createMember(db, { orgId, email: `${role}-${randomBytes(4).toString('hex')}@test.local`, role, safeguarding: options.safeguarding });
      const key = await createApiKey(db, { orgId, userId: member.userId, scopes });
      return { apiKey: key.apiKey, keyId: key.id, userId: member.userId };
    });
  }

  /** A new member of `orgId` who can sign in with the returned email and password. */
  async createMember(orgId: string, options: { role?: Role; safeguarding?: boolean; password?: string; email?: string } = {}): Promise<{ userId: string; email: string; password: string }> {
    const role = options.role ?? 'staff';
    const email = options.email ?? `${role}-${randomBytes(4).toString('hex')}@test.local`;
    const password = options.password ?? `pw-${randomBytes(12).toString('base64url')}`;
    const member = await createMember(this.pool, { orgId, email, password, role, safeguarding: options.safeguarding ?? false });
    return { userId: member.userId, email, password };
  }

  async invoke(apiKey: string | null, tool: string, args: unknown, headers: Record<string, string> = {}): Promise<InvokeResponse> {
    const response = await fetch(`${this.url}/api/agent/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
      body: JSON.stringify({ tool, arguments: args }),
    });
    return { status: response.status, body: (await response.json()) as InvokeResponse['body'] };
  }

  /** Calls a tool and returns its result, failing the test with the error body otherwise. */
  async call<T = any>(apiKey: string, tool: string, args: unknown): Promise<T> {
    const { status, body } = await this.invoke(apiKey, tool, args);
    if (!body.ok) throw new Error(`${tool} failed (${status}): ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  /**
   * Runs a module's periodic job now, through Temporal as its schedule would (workflows/module-job.ts),
   * as of `now` and for `orgId` only when given; resolves with the run's counts.
   */
  async runJob(job: string, options: { now?: Date; orgId?: string } = {}): Promise<Record<string, number>> {
    const result = await this.temporal.workflow.execute('moduleJobWorkflow', {
      taskQueue: this.taskQueue,
      workflowId: `test-job-${job}-${randomBytes(6).toString('hex')}`,
      args: [{ job, now: options.now?.toISOString(), orgId: options.orgId }],
    });
    return (result as { counts: Record<string, number> }).counts;
  }

  async mcpClient(apiKey: string, query = ''): Promise<McpClient> {
    const transport = new StreamableHTTPClientTransport(new URL(`${this.url}/api/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    });
    const client = new McpClient({ name: 'steward-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }
}

type StewardWorker = Awaited<ReturnType<typeof CreateStewardWorker>>['worker'];

/** An own stack's worker, stopped and started again by a test; `close` stops it and closes the connections later workers opened. */
function ownWorkerControl(create: typeof CreateStewardWorker, options: StewardWorkerOptions, first: StewardWorker): WorkerControl & { close(): Promise<void> } {
  let current: { worker: StewardWorker; running: Promise<void> } | null = { worker: first, running: first.run() };
  const laterConnections: Array<{ close(): Promise<void> }> = [];
  const stop = async () => {
    if (!current) return;
    const { worker, running } = current;
    current = null;
    worker.shutdown();
    await running;
  };
  return {
    stop,
    async start() {
      if (current) return;
      const next = await create(options);
      laterConnections.push(next.connection);
      current = { worker: next.worker, running: next.worker.run() };
    },
    async close() {
      await stop();
      for (const connection of laterConnections) await connection.close();
    },
  };
}
