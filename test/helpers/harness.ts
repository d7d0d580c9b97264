import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Worker } from '@temporalio/worker';
import type { AppOptions } from '../../api/app';
import { listen } from '../../api/server';
import { ALL_SCOPES, type Scope } from '../../core/scopes';
import type { Role } from '../../core/roles';
import { withTransaction, type Pool } from '../../db/pool';
import { createApiKey } from '../../modules/platform/api-keys';
import { createOrganisation } from '../../modules/platform/orgs';
import { createMember } from '../../modules/platform/users';
import { createStewardWorker, type StewardWorkerOptions } from '../../worker/create-worker';
import { createTestDatabase, type TestDatabase } from './database';
import { BUNDLE_PATH_ENV } from './env';
import { createTemporalClient } from '../../temporal/client';
import { installWorkerLogging } from '../../worker/logging';

// Expected tool errors (not_found, validation) fail calls by design; only real errors are worth printing.
// The worker logs through the service's log (core/log.ts), as in production, so a test can capture it.
process.env.STEWARD_LOG_LEVEL ??= 'error';
try {
  installWorkerLogging();
} catch {
  // Already installed by an earlier file in this process.
}

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

/**
 * A whole Steward stack for one test file: its own database, a worker on its
 * own task queue against the shared dev server, and the API on a free port.
 */
export class Harness {
  private constructor(
    readonly db: TestDatabase,
    readonly temporal: Client,
    readonly url: string,
    readonly taskQueue: string,
    private readonly worker: Worker,
    private readonly running: Promise<void>,
    private readonly server: Server,
    private readonly closers: Array<() => Promise<void>>,
  ) {}

  get pool(): Pool {
    return this.db.pool;
  }

  static async start(options: { wrapActivities?: StewardWorkerOptions['wrapActivities']; app?: Pick<AppOptions, 'oauthRateLimits'>; bundlePath?: string } = {}): Promise<Harness> {
    const address = process.env.TEMPORAL_ADDRESS!;
    const db = await createTestDatabase();
    const taskQueue = `test-${randomBytes(6).toString('hex')}`;
    const { worker, connection: workerConnection } = await createStewardWorker({
      address, namespace: 'default', pool: db.pool, taskQueue, bundlePath: options.bundlePath ?? process.env[BUNDLE_PATH_ENV], wrapActivities: options.wrapActivities,
    });
    const running = worker.run();
    // As npm start runs it: the API's client on the worker's connection, so starts are eager and a call
    // whose transaction has committed answers at once (temporal/early-results.ts).
    const temporal = createTemporalClient(workerConnection, 'default');
    const { server, url } = await listen({ pool: db.pool, temporal, taskQueue, eagerStart: true, ...options.app }, 0);
    return new Harness(db, temporal, url, taskQueue, worker, running, server, [
      () => workerConnection.close(),
    ]);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
    this.worker.shutdown();
    await this.running;
    for (const close of this.closers) await close();
    await this.db.drop();
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
