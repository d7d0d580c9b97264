import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../helpers/sandbox-stack';
import { expectApprovalStages } from '../helpers/campaign-progress';
import { startCrashTestApi, startWorkerProcess, type CrashTestApi } from '../helpers/worker-process';

/**
 * Progress as a host runs Steward: the API in this process, the worker in a process of its own, so
 * the activity's reports cannot reach the waiting caller through the in-process listeners; they
 * travel through Postgres (temporal/call-progress-relay.ts). An MCP client with onprogress still
 * hears increasing notifications ending at the total, and a gated call hears its proposal's decision
 * (recorded by the worker) and its action's progress the same way.
 */
describe('MCP progress with the worker in another process', () => {
  const workers: ChildProcess[] = [];
  let api: CrashTestApi;
  let mcp: McpClient;

  beforeAll(async () => {
    const taskQueue = `progress-${randomBytes(4).toString('hex')}`;
    api = await startCrashTestApi(workers, { taskQueue, orgName: 'Separate Progress Parish', planCode: 'enterprise' });
    await startWorkerProcess(workers, { databaseUrl: api.db.url, taskQueue });
    mcp = new McpClient({ name: 'steward-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp?toolsets=all`), {
      requestInit: { headers: { authorization: `Bearer ${api.apiKey}` } },
    }));
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await api?.close();
  });

  it('a 400-row import run by the other process sends increasing notifications ending at 400 of 400', async () => {
    const csv = ['First Name,Last Name,Email', ...Array.from({ length: 400 }, (_, i) => `Far${i},Elsewhere,far${i}@example.org`)].join('\n');
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'people_import_contacts', arguments: { csv, mode: 'commit' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ committed: true, rows: 400, toCreate: 400 });

    expect(progress.length).toBeGreaterThanOrEqual(2);
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect(progress.every((p) => p.total === 400 && /^Imported \d+ of 400 rows$/.test(p.message ?? ''))).toBe(true);
    expect(progress[progress.length - 1]).toEqual({ progress: 400, total: 400, message: 'Imported 400 of 400 rows' });
  }, 180_000);

  it('a gated call run by the other process hears the approval, the action starting, its progress and its end as they happen', async () => {
    const approver = new McpClient({ name: 'steward-test-approver', version: '1.0.0' });
    await approver.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${api.apiKey}` } },
    }));
    try {
      await expectApprovalStages({ mcp, approver, pool: api.db.pool, orgId: api.orgId, tag: 'Far Gift Day', count: 8 });
    } finally {
      await approver.close();
    }
  }, 180_000);

  it('once no caller waits, the API holds no listening connection', async () => {
    // The connection is closed as the call answers; its server process may take a moment to leave.
    const listening = () => api.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN steward_call_progress%'",
    ).then((r) => r.rows[0]!.n);
    expect(await eventually(listening, (n) => n === 0)).toBe(0);
  });
});
