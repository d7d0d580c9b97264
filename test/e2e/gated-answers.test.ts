import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type TestOrg } from '../helpers/harness';
import { monthAhead, previewedCampaign, proposalFor } from '../helpers/campaign-progress';
import { mcpCall, mcpRefusal } from '../helpers/mcp-calls';
import { eventually } from '../helpers/sandbox-stack';
import { seedConsentedEmailAudience } from '../../modules/channels/__tests__/broadcast-seed';

/**
 * What a gated call answers when its wait for a person ends: where its proposal stands at that
 * moment. Approved with the action still running is not "pending"; approved and failed, or
 * rejected, is that outcome. Shown with grow_schedule_campaign to a new audience (it waits for an
 * owner or admin), its action held on the campaign's row where it must not finish in time.
 */
describe('a gated call answers where its proposal stands when the wait ends', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let approver: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Gated Answers Parish', planCode: 'enterprise' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
    approver = await harness.mcpClient(org.apiKey, '?toolsets=all');
  });

  afterAll(async () => {
    await approver?.close();
    await mcp?.close();
    await harness?.close();
  });

  const errorOf = (result: unknown) => JSON.parse((result as any).content[0].text).error;
  const proposalState = async (proposalId: string) => (await mcpCall(mcp, 'platform_get_proposal', { proposalId })).proposal;

  async function campaignFor(tag: string) {
    const { tagId } = await seedConsentedEmailAudience(harness.pool, org.orgId, { tag, count: 4, purpose: 'marketing' });
    return previewedCampaign(mcp, `${tag} letter`, tagId);
  }

  it('approved within the budget but still running: approval_required with status approved, never pending; the proposal then shows the result', async () => {
    const { campaignId, previewHash } = await campaignFor('Running Answer');
    const key = `running-${campaignId}`;
    const args = { campaignId, previewHash, sendAt: monthAhead() };
    const hold = await harness.pool.connect();
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await hold.query('COMMIT');
      hold.release();
    };
    try {
      // The campaign's row is held before anything is approved, so the approved action cannot finish within the budget.
      await hold.query('BEGIN');
      expect((await hold.query('SELECT 1 FROM grow_campaigns WHERE org_id = $1 AND id = $2 FOR UPDATE', [org.orgId, campaignId])).rowCount).toBe(1);
      const waiting = mcp.callTool(
        { name: 'grow_schedule_campaign', arguments: args, _meta: { approvalWaitMs: 8000, idempotencyKey: key } }, CallToolResultSchema, { timeout: 60_000 },
      );
      const proposalId = await proposalFor(mcp, campaignId);
      const approving = approver.callTool({ name: 'platform_approve_proposal', arguments: { proposalId } }, CallToolResultSchema, { timeout: 120_000 });
      approving.catch(() => undefined);
      // Approved (recorded) well within the budget, with the action still held.
      await eventually(() => proposalState(proposalId), (p) => p.status === 'approved', 7000, 100);

      const answered = await waiting;
      expect(answered.isError).toBe(true);
      const error = errorOf(answered);
      expect(error).toMatchObject({
        code: 'approval_required',
        details: {
          proposalId, workflowId: `proposal-${proposalId}`, status: 'approved',
          execution: { status: 'running' }, check: { tool: 'platform_get_proposal', arguments: { proposalId } },
        },
      });
      expect(error.message).toContain(proposalId);
      expect(error.message).toMatch(/approved .* still running/);
      expect(error.message).not.toMatch(/pending/);
      expect(error.hint).toContain('platform_get_proposal');
      // What the answer says is what the named check shows: approved, no outcome yet.
      expect(await proposalState(proposalId)).toMatchObject({ status: 'approved', execution: null });

      // The same call as an MCP task (same key) follows the same proposal, working while the action runs.
      const created = await mcp.request({
        method: 'tools/call', params: { name: 'grow_schedule_campaign', arguments: args, task: { ttl: 60_000 }, _meta: { idempotencyKey: key } },
      }, CreateTaskResultSchema);
      expect(created.task).toMatchObject({ taskId: `proposal-${proposalId}`, status: 'working', statusMessage: 'Approved; being carried out' });
      const unfinished = await mcp.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
      expect(errorOf(unfinished)).toMatchObject({
        code: 'approval_required', message: 'Approved; being carried out', details: { status: 'working', proposalId, proposalStatus: 'approved' },
      });

      await release();
      const approved = await approving;
      expect(approved.isError).toBeFalsy();

      // The named way to follow it now shows the action's result.
      const after = await proposalState(proposalId);
      expect(after).toMatchObject({ status: 'approved', execution: { status: 'succeeded', result: { campaign: { id: campaignId, status: 'scheduled' } } } });
      expect(await mcpCall(mcp, 'grow_get_campaign', { campaignId })).toMatchObject({ campaign: { status: 'scheduled' } });

      // Its task, followed by id, is completed with that result.
      const taskId = `proposal-${proposalId}`;
      expect((await mcp.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status).toBe('completed');
      const taskResult = await mcp.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
      expect((taskResult.structuredContent as any).campaign).toMatchObject({ id: campaignId, status: 'scheduled' });
    } finally {
      await release();
    }
    await mcpCall(mcp, 'grow_cancel_campaign', { campaignId });
  }, 180_000);

  // audit_export_events always waits for an owner or admin; its action runs under the approver's credential.
  const exportArgs = { limit: 5 };

  /** An audit export proposed under an idempotency key, its call answered at once (pending); its proposal's id. */
  async function proposedExport(key: string): Promise<string> {
    const pending = await mcpRefusal(mcp, 'audit_export_events', exportArgs, { idempotencyKey: key });
    expect(pending).toMatchObject({ code: 'approval_required', details: { status: 'pending' } });
    return pending.details.proposalId as string;
  }

  const asTask = (key: string) => mcp.request({
    method: 'tools/call', params: { name: 'audit_export_events', arguments: exportArgs, task: { ttl: 60_000 }, _meta: { idempotencyKey: key } },
  }, CreateTaskResultSchema);

  it('approved and carried out before the call is answered: the call answers the result, and its task is completed', async () => {
    const key = `done-${randomUUID()}`;
    const proposalId = await proposedExport(key);
    expect(await mcpCall(approver, 'platform_approve_proposal', { proposalId })).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });

    // The same call again (same key, no wait): the proposal's outcome, not "pending".
    const answered = await mcpCall(mcp, 'audit_export_events', exportArgs, { idempotencyKey: key });
    expect(answered.events).toEqual((await proposalState(proposalId)).execution.result.events);
    const task = await asTask(key);
    expect(task.task).toMatchObject({ taskId: `proposal-${proposalId}`, status: 'completed' });
  }, 120_000);

  it('approved and the action failed: the call answers the action\'s error with the proposal, approved, execution failed', async () => {
    const key = `failed-${randomUUID()}`;
    const proposalId = await proposedExport(key);
    // An admin who may approve it but lacks audit:read, under whose credential the export then fails.
    const admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'audit:export'], 'admin');
    const adminMcp = await harness.mcpClient(admin.apiKey, '?toolsets=all');
    try {
      expect(await mcpRefusal(adminMcp, 'platform_approve_proposal', { proposalId })).toMatchObject({ code: 'insufficient_scope' });
    } finally {
      await adminMcp.close();
    }

    const answered = await mcpRefusal(mcp, 'audit_export_events', exportArgs, { idempotencyKey: key });
    expect(answered).toMatchObject({
      code: 'insufficient_scope', details: { proposalId, status: 'approved', execution: { status: 'failed' } },
    });
    expect(answered.message).toMatch(/audit:read/);
    expect(await proposalState(proposalId)).toMatchObject({ status: 'approved', execution: { status: 'failed', error: { code: 'insufficient_scope' } } });
    // As a task: the same proposal, failed.
    const task = await asTask(key);
    expect(task.task).toMatchObject({ taskId: `proposal-${proposalId}`, status: 'failed' });
    expect((await mcp.request({ method: 'tasks/get', params: { taskId: task.task.taskId } }, GetTaskResultSchema)).status).toBe('failed');
  }, 120_000);

  it('rejected: the call answers that it was rejected and not carried out', async () => {
    const key = `rejected-${randomUUID()}`;
    const proposalId = await proposedExport(key);
    await mcpCall(approver, 'platform_reject_proposal', { proposalId, reason: 'Not this month' });

    const answered = await mcpRefusal(mcp, 'audit_export_events', exportArgs, { idempotencyKey: key });
    expect(answered).toMatchObject({ code: 'forbidden', details: { proposalId, status: 'rejected' } });
    expect(answered.message).toMatch(/rejected; the action was not carried out/);
  }, 120_000);
});
