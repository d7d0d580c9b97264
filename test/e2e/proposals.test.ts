import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ProposalDecisionResult } from '../../core/approvals';
import { actionHashOf, insertProposal } from '../../kernel/proposals';
import { Harness, type TestOrg } from '../helpers/harness';

/** Agent proposals: a merge needs an owner or admin; approval runs it exactly once, rejection never. */
describe('proposals', () => {
  let harness: Harness;
  let org: TestOrg;
  const saved = { ...process.env };
  /** Proposals whose expiry write is held back until the promise settles (to open the expiry race window). */
  const heldExpiries = new Map<string, { started: () => void; release: Promise<void> }>();

  beforeAll(async () => {
    process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS = '300';
    harness = await Harness.start({
      wrapActivities: (activities) => ({
        ...activities,
        decideProposalRecord: async (...args: Parameters<typeof activities.decideProposalRecord>) => {
          const held = args[2] === 'expired' ? heldExpiries.get(args[1]) : undefined;
          if (held) {
            held.started();
            await held.release;
          }
          return activities.decideProposalRecord(...args);
        },
      }),
    });
    org = await harness.createOrg();
  });

  afterAll(async () => {
    await harness?.close();
    process.env = saved;
  });

  /** Two contacts that are the same person. */
  async function duplicatePair(name: string): Promise<[string, string]> {
    const a = randomUUID();
    const b = randomUUID();
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
      ($1, $3, $4, 'Dup', $5, now() - interval '2 days'), ($2, $3, $4, 'Dup', $5, now() - interval '1 day')`,
    [a, b, org.orgId, name, `${name.toLowerCase()}@example.org`]);
    await harness.pool.query(`INSERT INTO notes (id, org_id, contact_id, content) VALUES ($1, $2, $3, 'Met after the service')`, [randomUUID(), org.orgId, b]);
    return [a, b];
  }

  async function merges(mergedId: string): Promise<number> {
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM contact_merges WHERE merged_contact_id = $1', [mergedId]);
    return rows[0].n;
  }

  async function propose(keep: string, merge: string): Promise<string> {
    const response = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: merge, actionSummary: 'Merge the duplicate' });
    expect(response.status).toBe(202);
    expect(response.body.error).toMatchObject({ code: 'approval_required', details: { status: 'pending' } });
    expect(response.body.error?.hint).toContain('platform_get_proposal');
    return response.body.error!.details.proposalId;
  }

  it('turns a gated call into a proposal; approval executes it once and reports the outcome', async () => {
    const [keep, merge] = await duplicatePair('Anna');
    const proposalId = await propose(keep, merge);

    const { proposal } = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId });
    expect(proposal).toMatchObject({
      status: 'pending', summary: 'Merge the duplicate', agent: null,
      action: { tool: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge } },
    });
    const pending = await harness.call(org.apiKey, 'platform_pending_proposals', {});
    expect(pending.proposals.map((p: any) => p.id)).toContain(proposalId);
    expect(await merges(merge)).toBe(0);

    const decided = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
    expect(decided).toMatchObject({ proposalId, status: 'approved', execution: { status: 'succeeded', workflowId: `call-${org.orgId}-proposal-${proposalId}` } });
    expect(decided.execution.result.merge).toMatchObject({ keptContactId: keep, mergedContactId: merge, moved: { notes: 1 } });
    expect(await merges(merge)).toBe(1);
    const gone = await harness.invoke(org.apiKey, 'people_get_contact', { contactId: merge });
    expect(gone.status).toBe(404);
    const notes = await harness.call(org.apiKey, 'people_list_notes', { contactId: keep });
    expect(notes.notes).toHaveLength(1);

    // A decided proposal cannot be decided again; nothing runs twice.
    for (const tool of ['platform_approve_proposal', 'platform_reject_proposal']) {
      const again = await harness.invoke(org.apiKey, tool, { proposalId });
      expect(again.status).toBe(409);
      expect(again.body.error?.message).toContain('already approved');
    }
    expect(await merges(merge)).toBe(1);
    const stored = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId });
    expect(stored.proposal).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });
    expect(stored.proposal.decidedByUserId).toBe(org.ownerUserId);
  });

  it('never executes a rejected proposal', async () => {
    const [keep, merge] = await duplicatePair('Ben');
    const proposalId = await propose(keep, merge);
    const decided = await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId, reason: 'They are twins' });
    expect(decided).toEqual({ proposalId, status: 'rejected', execution: null });
    const approve = await harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId });
    expect(approve.status).toBe(409);
    expect(await merges(merge)).toBe(0);
    await expect(harness.temporal.workflow.getHandle(`call-${org.orgId}-proposal-${proposalId}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await harness.call(org.apiKey, 'people_get_contact', { contactId: merge })).contact.id).toBe(merge);
  });

  it('lets only owner or admin credentials with platform:write decide', async () => {
    const [keep, merge] = await duplicatePair('Cara');
    const proposalId = await propose(keep, merge);
    const staff = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'people:read', 'people:write'], 'staff');
    const refused = await harness.invoke(staff.apiKey, 'platform_approve_proposal', { proposalId });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('forbidden');
    const adminReadOnly = await harness.createKey(org.orgId, ['platform:read', 'people:write'], 'admin');
    expect((await harness.invoke(adminReadOnly.apiKey, 'platform_approve_proposal', { proposalId })).body.error?.code).toBe('insufficient_scope');
    const other = await harness.createOrg({ name: 'Elsewhere' });
    expect((await harness.invoke(other.apiKey, 'platform_approve_proposal', { proposalId })).status).toBe(404);
    expect(await merges(merge)).toBe(0);

    const admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'people:read', 'people:write'], 'admin');
    expect((await harness.call(admin.apiKey, 'platform_approve_proposal', { proposalId })).execution.status).toBe('succeeded');
  });

  it('gives concurrent approvals one execution and one refusal', async () => {
    const [keep, merge] = await duplicatePair('Dan');
    const proposalId = await propose(keep, merge);
    const results = await Promise.all([1, 2, 3].map(() => harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await merges(merge)).toBe(1);
  });

  it('over MCP: sends progress while waiting, then answers approval_required; a decision in time returns the result', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const [keep, merge] = await duplicatePair('Eve');
      const progress: Array<{ progress: number; total?: number; message?: string }> = [];
      const waited = await mcp.callTool(
        { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge }, _meta: { approvalWaitMs: 1500 } },
        CallToolResultSchema,
        { onprogress: (p) => progress.push(p) },
      );
      expect(waited.isError).toBe(true);
      const error = JSON.parse((waited.content as any)[0].text).error;
      expect(error).toMatchObject({ code: 'approval_required', details: { status: 'pending', check: { tool: 'platform_get_proposal' } } });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      // The wait is the first of four steps: its share of the budget used, below 1 (a decision) throughout.
      expect(progress[0]).toMatchObject({ progress: 0, total: 4 });
      expect(progress.every((p) => p.total === 4 && p.progress < 1)).toBe(true);
      expect(progress[progress.length - 1]!.progress).toBeGreaterThan(0);
      expect(progress[0].message).toContain(error.details.proposalId);

      // Same request again, decided by a person while the call waits: the call returns the action's result.
      const [keep2, merge2] = await duplicatePair('Fay');
      const call = mcp.callTool(
        { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep2, mergeContactId: merge2 }, _meta: { approvalWaitMs: 20000 } },
        CallToolResultSchema,
        { onprogress: () => undefined, timeout: 30000 },
      );
      let proposalId: string | undefined;
      for (let i = 0; i < 50 && !proposalId; i++) {
        const { proposals } = await harness.call(org.apiKey, 'platform_pending_proposals', {});
        proposalId = proposals.find((p: any) => p.action.arguments.mergeContactId === merge2)?.id;
        if (!proposalId) await new Promise((r) => setTimeout(r, 100));
      }
      await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as any).merge).toMatchObject({ keptContactId: keep2, mergedContactId: merge2 });
    } finally {
      await mcp.close();
    }
  });

  it('over MCP: a gated call can run as a task that completes when a person approves', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const { tools } = await mcp.listTools();
      expect(tools.find((t) => t.name === 'people_merge_data_quality_contacts')?.execution).toEqual({ taskSupport: 'optional' });
      const [keep, merge] = await duplicatePair('Hal');
      const created = await mcp.request({
        method: 'tools/call',
        params: { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge }, task: { ttl: 60_000 } },
      }, CreateTaskResultSchema);
      const taskId = created.task.taskId;
      expect(taskId).toMatch(/^proposal-/);
      expect(created.task.status).toBe('working');
      const proposalId = taskId.slice('proposal-'.length);
      expect((await mcp.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status).toBe('working');

      await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
      expect((await mcp.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status).toBe('completed');
      const result = await mcp.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
      expect((result.structuredContent as any).merge).toMatchObject({ keptContactId: keep, mergedContactId: merge });

      // Another organisation cannot see the task.
      const other = await harness.createOrg({ name: 'Task Elsewhere' });
      const foreign = await harness.mcpClient(other.apiKey);
      await expect(foreign.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(/not found/i);
      await foreign.close();
    } finally {
      await mcp.close();
    }
  });

  it('over MCP: a gated call answers approval_required at once, and tasks/result for an undecided task answers its status within seconds', async () => {
    const mcp = await harness.mcpClient(org.apiKey);
    const saved = process.env.STEWARD_MCP_TASK_RESULT_WAIT_MS;
    process.env.STEWARD_MCP_TASK_RESULT_WAIT_MS = '1000';
    try {
      // No approvalWaitMs asked: a proposal is never decided in the seconds a call could wait, so none is spent.
      const [keep, merge] = await duplicatePair('Lena');
      const started = Date.now();
      const answered = await mcp.callTool({ name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge } });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(JSON.parse((answered.content as any)[0].text).error).toMatchObject({ code: 'approval_required', details: { status: 'pending' } });

      const [keep2, merge2] = await duplicatePair('Mo');
      const created = await mcp.request({
        method: 'tools/call',
        params: { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep2, mergeContactId: merge2 }, task: { ttl: 60_000 } },
      }, CreateTaskResultSchema);
      const asked = Date.now();
      const pending = await mcp.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema, { timeout: 10_000 });
      expect(Date.now() - asked).toBeLessThan(5000);
      expect(pending.isError).toBe(true);
      expect(JSON.parse((pending.content as any)[0].text).error).toMatchObject({ code: 'approval_required', details: { taskId: created.task.taskId, status: 'working' } });

      // Once decided, tasks/result answers the action's result as before.
      await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: created.task.taskId.slice('proposal-'.length) });
      const done = await mcp.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
      expect((done.structuredContent as any).merge).toMatchObject({ keptContactId: keep2, mergedContactId: merge2 });
    } finally {
      if (saved === undefined) delete process.env.STEWARD_MCP_TASK_RESULT_WAIT_MS;
      else process.env.STEWARD_MCP_TASK_RESULT_WAIT_MS = saved;
      await mcp.close();
    }
  });

  it('shows a proposal only to credentials holding its action\'s scope; others, like another organisation, find nothing', async () => {
    const [keep, merge] = await duplicatePair('Ida');
    const proposalId = await propose(keep, merge);
    // people_merge_data_quality_contacts needs people:write: a platform:read credential without it must not see its arguments.
    const platformOnly = await harness.createKey(org.orgId, ['platform:read', 'people:read'], 'admin');
    const listed = await harness.call(platformOnly.apiKey, 'platform_pending_proposals', { status: 'all' });
    expect(listed.proposals.map((p: any) => p.id)).not.toContain(proposalId);
    const got = await harness.invoke(platformOnly.apiKey, 'platform_get_proposal', { proposalId });
    expect(got.status).toBe(404);
    expect(got.body.error?.code).toBe('not_found');

    // Deciding it is no different: an admin with platform:write but not people:write cannot approve or reject what they cannot see.
    const deciderWithoutActionScope = await harness.createKey(org.orgId, ['platform:read', 'platform:write', 'people:read'], 'admin');
    for (const tool of ['platform_approve_proposal', 'platform_reject_proposal']) {
      const refused = await harness.invoke(deciderWithoutActionScope.apiKey, tool, { proposalId });
      expect(refused.status).toBe(404);
      expect(refused.body.error?.code).toBe('not_found');
    }
    expect((await harness.call(org.apiKey, 'platform_get_proposal', { proposalId })).proposal.status).toBe('pending');

    const withScope = await harness.createKey(org.orgId, ['platform:read', 'people:write'], 'admin');
    expect((await harness.call(withScope.apiKey, 'platform_pending_proposals', {})).proposals.map((p: any) => p.id)).toContain(proposalId);
    expect((await harness.call(withScope.apiKey, 'platform_get_proposal', { proposalId })).proposal.id).toBe(proposalId);
  });

  it('over MCP: approval tasks need the scope of what they wait on (the action\'s for a proposal, people:read for a message)', async () => {
    const owner = await harness.mcpClient(org.apiKey);
    const platformOnly = await harness.createKey(org.orgId, ['platform:read', 'people:read'], 'admin');
    const noPeopleRead = await harness.createKey(org.orgId, ['platform:read', 'people:write'], 'admin');
    const reader = await harness.mcpClient(platformOnly.apiKey);
    const writer = await harness.mcpClient(noPeopleRead.apiKey);
    try {
      const [keep, merge] = await duplicatePair('Jo');
      const proposalTask = (await owner.request({
        method: 'tools/call',
        params: { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: keep, mergeContactId: merge }, task: { ttl: 60_000 } },
      }, CreateTaskResultSchema)).task.taskId;
      expect((await writer.request({ method: 'tasks/get', params: { taskId: proposalTask } }, GetTaskResultSchema)).status).toBe('working');
      await expect(reader.request({ method: 'tasks/get', params: { taskId: proposalTask } }, GetTaskResultSchema)).rejects.toThrow(/not found/i);
      await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId: proposalTask.slice('proposal-'.length) });
      await expect(reader.request({ method: 'tasks/result', params: { taskId: proposalTask } }, CallToolResultSchema)).rejects.toThrow(/not found/i);

      const contact = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Kit', lastName: 'Task', email: 'kit@example.org' })).contact;
      const outreachTask = (await owner.request({
        method: 'tools/call',
        params: { name: 'people_create_outreach', arguments: { contactId: contact.id, subject: 'Hello', body: 'Thinking of you' }, task: { ttl: 60_000 } },
      }, CreateTaskResultSchema)).task.taskId;
      expect(outreachTask).toMatch(/^outreach-/);
      expect((await reader.request({ method: 'tasks/get', params: { taskId: outreachTask } }, GetTaskResultSchema)).status).toBe('working');
      await expect(writer.request({ method: 'tasks/get', params: { taskId: outreachTask } }, GetTaskResultSchema)).rejects.toThrow(/not found/i);
      await harness.call(org.apiKey, 'people_cancel_outreach', { outreachId: outreachTask.slice('outreach-'.length) });
      await expect(writer.request({ method: 'tasks/result', params: { taskId: outreachTask } }, CallToolResultSchema)).rejects.toThrow(/not found/i);
      expect((await owner.request({ method: 'tasks/result', params: { taskId: outreachTask } }, CallToolResultSchema)).isError).toBe(true);
    } finally {
      await Promise.all([owner.close(), reader.close(), writer.close()]);
    }
  });

  it('refuses an approval that arrives after the timer fired but before the expiry is written', async () => {
    const [keep, merge] = await duplicatePair('Lou');
    const proposalId = randomUUID();
    let started!: () => void;
    const expiryStarted = new Promise<void>((resolve) => { started = resolve; });
    let release!: () => void;
    heldExpiries.set(proposalId, { started, release: new Promise<void>((resolve) => { release = resolve; }) });
    const args = { keepContactId: keep, mergeContactId: merge };
    const handle = await harness.temporal.workflow.start('proposalWorkflow', {
      taskQueue: harness.taskQueue,
      workflowId: `proposal-${proposalId}`,
      args: [{
        orgId: org.orgId, proposalId, ttlMs: 1000,
        create: {
          action: { tool: 'people_merge_data_quality_contacts', args, argsHash: actionHashOf('people_merge_data_quality_contacts', args) },
          summary: 'Merge Lou', agent: 'people', proposedBy: null, dedupeKey: null,
        },
      }],
    });
    await expiryStarted;
    const late = await harness.invoke(org.apiKey, 'platform_approve_proposal', { proposalId });
    release();
    expect(late.status).toBe(409);
    expect(late.body.error?.message).toContain('expired');
    expect(await handle.result() as ProposalDecisionResult).toEqual({ proposalId, status: 'expired', execution: null });
    expect(await merges(merge)).toBe(0);
    const { rows } = await harness.pool.query('SELECT status FROM proposals WHERE id = $1', [proposalId]);
    expect(rows[0].status).toBe('expired');
  });

  it('never reports a proposal id owned by another organisation as inserted, and leaves that row alone', async () => {
    const other = await harness.createOrg({ name: 'Id Thief' });
    const [keep, merge] = await duplicatePair('Max');
    const proposalId = await propose(keep, merge);
    const args = { keepContactId: randomUUID(), mergeContactId: randomUUID() };
    const inserted = await insertProposal(harness.pool, {
      id: proposalId, orgId: other.orgId, tool: 'people_merge_data_quality_contacts', args, argsHash: actionHashOf('people_merge_data_quality_contacts', args),
      summary: 'Not yours', agentKey: null, proposedByUserId: null, proposedByCredentialId: null, dedupeKey: null, sourceRun: null,
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(inserted).toBe(false);
    expect((await harness.invoke(other.apiKey, 'platform_get_proposal', { proposalId })).status).toBe(404);
    const { rows } = await harness.pool.query('SELECT org_id, summary FROM proposals WHERE id = $1', [proposalId]);
    expect(rows).toEqual([{ org_id: org.orgId, summary: 'Merge the duplicate' }]);
  });

  it('marks proposal workflows with org, kind and status for operators', async () => {
    const [keep, merge] = await duplicatePair('Gil');
    const proposalId = await propose(keep, merge);
    const query = `StewardOrg = '${org.orgId}' AND StewardKind = 'proposal' AND StewardStatus = 'pending'`;
    let ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids = [];
      for await (const run of harness.temporal.workflow.list({ query })) ids.push(run.workflowId);
      if (ids.includes(`proposal-${proposalId}`)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(ids).toContain(`proposal-${proposalId}`);
    await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId });
    const described = await harness.temporal.workflow.getHandle(`proposal-${proposalId}`).describe();
    expect(described.searchAttributes.StewardStatus).toEqual(['rejected']);
  });

  it('refuses a merge proposal naming the same contact twice or a contact it cannot see, creating nothing', async () => {
    const [keep] = await duplicatePair('Refused');
    const other = await harness.createOrg({ name: 'Elsewhere' });
    const foreign = (await harness.call(other.apiKey, 'people_create_contact', { email: 'elsewhere@example.org' })).contact.id;
    const count = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM proposals WHERE org_id = $1', [org.orgId])).rows[0].n as number;
    const before = await count();
    const same = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: keep });
    expect(same.status).toBe(400);
    expect(same.body.error?.issues?.[0].path).toBe('mergeContactId');
    const hidden = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: foreign });
    expect(hidden.status).toBe(404);
    expect(await count()).toBe(before);
  });

  it('binds a proposal idempotency key to the credential that used it', async () => {
    const [keep, merge] = await duplicatePair('Keyed');
    const key = `merge-${randomUUID()}`;
    const first = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: merge }, { 'Idempotency-Key': key });
    const admin = await harness.createKey(org.orgId, ['people:write', 'people:read'], 'admin');
    const second = await harness.invoke(admin.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: merge }, { 'Idempotency-Key': key });
    expect(first.body.error?.details.proposalId).toEqual(expect.any(String));
    expect(second.body.error?.details?.proposalId).not.toBe(first.body.error?.details.proposalId);
  });
});
