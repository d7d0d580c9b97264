import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError } from '@temporalio/client';
import { Harness, type TestOrg } from '../helpers/harness';
import { triggerScheduleAfter } from '../helpers/schedule-trigger';
import { phaseOf } from '../../activities/schedules';

/** Autonomous agents and pastoral automations, each on its own Temporal Schedule. */
// Runs go through Temporal schedules; under load a test waiting on two of them needs more than the default minute.
jest.setTimeout(120_000);

describe('agents and pastoral automations', () => {
  let harness: Harness;
  let org: TestOrg;
  const ids: Record<string, string> = {};

  async function seed(key: string, fields: { first: string; last: string; email?: string; phone?: string; daysOld: number }) {
    const id = randomUUID();
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, phone, status, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, 'subscribed', now() - make_interval(days => $7))`,
    [id, org.orgId, fields.first, fields.last, fields.email ?? null, fields.phone ?? null, fields.daysOld]);
    ids[key] = id;
    return id;
  }

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Hope Chapel' });
    // Not contacted for 200+ days: due a welfare check.
    await seed('olive', { first: 'Olive', last: 'Old', email: 'olive@example.org', daysOld: 400 });
    await seed('percy', { first: 'Percy', last: 'Past', phone: '+44 7700 900333', daysOld: 250 });
    // Old, but visited recently (a note): not due.
    const visited = await seed('vera', { first: 'Vera', last: 'Visited', email: 'vera@example.org', daysOld: 500 });
    await harness.pool.query(`INSERT INTO notes (id, org_id, contact_id, content, created_at) VALUES ($1, $2, $3, 'Home visit', now() - interval '10 days')`,
      [randomUUID(), org.orgId, visited]);
    // New: not due.
    await seed('nina', { first: 'Nina', last: 'New', email: 'nina@example.org', daysOld: 5 });
    // A duplicate pair for the People agent (recent, so not welfare-due).
    await seed('dupA', { first: 'Dora', last: 'Double', email: 'dora@example.org', daysOld: 30 });
    await seed('dupB', { first: 'Dora', last: 'Double', email: 'DORA@example.org', daysOld: 20 });
  });

  afterAll(async () => {
    // Schedules outlive the test database; remove this org's.
    for await (const schedule of harness.temporal.schedule.list()) {
      if (schedule.scheduleId.includes(org.orgId)) await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
    }
    await harness?.close();
  });

  async function agentRow(key: string) {
    const { rows } = await harness.pool.query('SELECT last_run_at, last_run_status, last_run_summary FROM agents WHERE org_id = $1 AND agent_key = $2', [org.orgId, key]);
    return rows[0];
  }

  /** Runs the agent through its schedule (as the interval would) and waits for the run to be recorded. */
  async function runSchedule(key: string) {
    const before = (await agentRow(key))?.last_run_at?.getTime() ?? 0;
    await triggerScheduleAfter(harness.temporal, `agent-${org.orgId}-${key}`, before);
    // A deadline rather than a count of polls: on a loaded machine (parallel suites) a run can take tens of seconds to
    // start (a CI run once missed 45 s). It bounds only how long a failure takes to report.
    for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
      const row = await agentRow(key);
      if (row?.last_run_at && row.last_run_at.getTime() > before) return row;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`agent ${key} did not run`);
  }

  async function proposalsOf(agent: string) {
    const { rows } = await harness.pool.query('SELECT id, tool, args, status FROM proposals WHERE org_id = $1 AND agent_key = $2 ORDER BY created_at', [org.orgId, agent]);
    return rows;
  }

  it('lists the eleven agents, off, each with a paused schedule', async () => {
    const { agents } = await harness.call(org.apiKey, 'platform_list_agents', {});
    expect(agents.map((a: any) => a.name)).toEqual(['People', 'Pastoral Care', 'Giving', 'Grow', 'Spaces', 'Ticketing', 'Guests', 'Runsheet', 'MediaHub', 'Channels', 'Live']);
    expect(agents.every((a: any) => a.autonomy === 'off' && a.lastRunAt === null)).toBe(true);
    const schedule = await harness.temporal.schedule.getHandle(`agent-${org.orgId}-pastoral_care`).describe();
    expect(schedule.state.paused).toBe(true);
    expect(schedule.policies.overlap).toBe('SKIP');
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'agentRunWorkflow', taskQueue: harness.taskQueue });
    // Daily, each at its own second of the day: organisations' agents do not all start at 00:00 UTC.
    const day = 24 * 3_600_000;
    const offsets = await Promise.all(['pastoral_care', 'giving', 'spaces'].map(async (key) => {
      const scheduleId = `agent-${org.orgId}-${key}`;
      const { spec } = await harness.temporal.schedule.getHandle(scheduleId).describe();
      expect(spec.intervals).toEqual([{ every: day, offset: phaseOf(scheduleId, day) }]);
      return spec.intervals![0].offset;
    }));
    expect(new Set(offsets).size).toBeGreaterThan(1);
  });

  it('an agent that is off creates nothing when it runs', async () => {
    const row = await runSchedule('pastoral_care');
    expect(row.last_run_status).toBe('skipped');
    expect(await proposalsOf('pastoral_care')).toHaveLength(0);
  });

  it('Pastoral Care in propose mode proposes welfare outreach for exactly the people due', async () => {
    const staff = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'staff');
    expect((await harness.invoke(staff.apiKey, 'platform_set_agent_autonomy', { agent: 'pastoral_care', autonomy: 'propose' })).status).toBe(403);

    const set = await harness.call(org.apiKey, 'platform_set_agent_autonomy', { agent: 'pastoral_care', autonomy: 'propose' });
    expect(set.agent).toMatchObject({ key: 'pastoral_care', autonomy: 'propose' });
    expect((await harness.temporal.schedule.getHandle(`agent-${org.orgId}-pastoral_care`).describe()).state.paused).toBe(false);

    const row = await runSchedule('pastoral_care');
    expect(row).toMatchObject({ last_run_status: 'succeeded', last_run_summary: 'Proposed 2 actions' });
    const proposals = await proposalsOf('pastoral_care');
    expect(proposals.map((p) => p.args.contactId).sort()).toEqual([ids.olive, ids.percy].sort());
    expect(proposals.every((p) => p.tool === 'people_create_outreach' && p.status === 'pending')).toBe(true);
    expect(proposals.find((p) => p.args.contactId === ids.percy).args.channel).toBe('sms');
    // Each is a running proposal workflow.
    for (const p of proposals) expect((await harness.temporal.workflow.getHandle(`proposal-${p.id}`).describe()).status.name).toBe('RUNNING');

    // Running again proposes nothing new while those are open.
    await runSchedule('pastoral_care');
    expect(await proposalsOf('pastoral_care')).toHaveLength(2);
    // Each proposal's creation is one event, by the agent with its own credential and the one scope its action needs, for
    // the owner, in the agent's run; the second run, which inserted nothing, recorded nothing.
    for (const p of proposals) {
      const { events } = await harness.call(org.apiKey, 'audit_list_events', { targetType: 'proposal', targetId: p.id });
      expect(events).toEqual([expect.objectContaining({
        action: 'platform.proposal.create', operation: 'create', tool: 'job:agent_run', outcome: 'success', scopes: ['people:write'], category: 'general',
        actor: expect.objectContaining({ kind: 'agent', userId: null, onBehalfOfUserId: org.ownerUserId, credentialKind: 'agent', credentialId: expect.any(String) }),
      })]);
      expect(events[0].workflowId).not.toBe(`proposal-${p.id}`);
      // It names the contact the proposed action is about (so erasing them redacts it), as the action's own event would.
      const { rows: named } = await harness.pool.query('SELECT contact_ids FROM audit_events WHERE id = $1', [events[0].id]);
      expect(named[0].contact_ids).toEqual([p.args.contactId]);
    }

    // Approving one creates the outreach item, which waits in its own approval queue (nothing is sent).
    const olive = proposals.find((p) => p.args.contactId === ids.olive);
    const decided = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: olive.id });
    expect(decided.execution).toMatchObject({ status: 'succeeded', result: { item: { contactId: ids.olive, status: 'pending_review' } } });
    const itemId = decided.execution.result.item.id;
    expect((await harness.temporal.workflow.getHandle(`outreach-${itemId}`).describe()).status.name).toBe('RUNNING');
    const listed = await harness.call(org.apiKey, 'platform_list_agents', {});
    expect(listed.agents.find((a: any) => a.key === 'pastoral_care')).toMatchObject({ autonomy: 'propose', lastRunStatus: 'succeeded' });
  });

  it('People in propose mode proposes merging the duplicate; in auto mode it merges and records it', async () => {
    await harness.call(org.apiKey, 'platform_set_agent_autonomy', { agent: 'people', autonomy: 'propose' });
    await runSchedule('people');
    const proposed = await proposalsOf('people');
    expect(proposed).toHaveLength(1);
    expect(proposed[0]).toMatchObject({ tool: 'people_merge_data_quality_contacts', status: 'pending', args: { keepContactId: ids.dupA, mergeContactId: ids.dupB } });
    await harness.call(org.apiKey, 'platform_reject_proposal', { proposalId: proposed[0].id });

    // A rejected merge is not proposed again, not even in auto mode.
    // Raising an agent to auto is approved by a person with another credential than the one proposing it.
    const autoProposal = await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', { agent: 'people', autonomy: 'auto' });
    expect(autoProposal.body.error?.code).toBe('approval_required');
    const approver = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'owner');
    await harness.call(approver.apiKey, 'platform_approve_proposal', { proposalId: autoProposal.body.error!.details.proposalId });
    const rejectedRun = await runSchedule('people');
    expect(rejectedRun.last_run_summary).toBe('Carried out 0 actions');

    await seed('dupC', { first: 'Carl', last: 'Copy', phone: '+44 7700 900444', daysOld: 15 });
    await seed('dupD', { first: 'Carlos', last: 'Copy', phone: '07700 900444', daysOld: 10 });
    const auto = await runSchedule('people');
    expect(auto).toMatchObject({ last_run_status: 'succeeded', last_run_summary: 'Carried out 1 action' });
    const done = (await proposalsOf('people')).find((p) => p.args.mergeContactId === ids.dupD);
    expect(done.status).toBe('approved');
    const { rows } = await harness.pool.query('SELECT deleted_at FROM contacts WHERE id = $1', [ids.dupD]);
    expect(rows[0].deleted_at).not.toBeNull();
    const record = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId: done.id });
    expect(record.proposal.execution).toMatchObject({ status: 'succeeded' });
    expect(record.proposal.decisionReason).toContain('auto mode');

    // The trail: the person's rejection under their credential; the agent's own approval with the system as actor, its
    // credential and scopes, for the owner; each once.
    const eventsOf = async (proposalId: string) => (await harness.call(org.apiKey, 'audit_list_events', { targetType: 'proposal', targetId: proposalId })).events;
    const decisions = async (proposalId: string) => (await eventsOf(proposalId)).filter((event: any) => event.action !== 'platform.proposal.create');
    expect(await decisions(proposed[0].id)).toEqual([expect.objectContaining({
      action: 'platform.proposal.reject', tool: 'platform_reject_proposal', actor: expect.objectContaining({ kind: 'agent', userId: org.ownerUserId, credentialKind: 'api_key' }),
    })]);
    const [autoApproval] = await decisions(done.id);
    expect(await decisions(done.id)).toHaveLength(1);
    expect(autoApproval).toMatchObject({
      action: 'platform.proposal.approve', tool: 'job:agent_run', outcome: 'success', scopes: ['people:write'], target: { type: 'proposal', id: done.id },
      actor: { kind: 'system', userId: null, onBehalfOfUserId: org.ownerUserId, credentialKind: 'agent', credentialId: expect.any(String) },
    });
    expect(autoApproval.workflowId).not.toBe(`proposal-${done.id}`);
    // Its creation came first, by the agent itself with the same credential, in the same run.
    const created = (await eventsOf(done.id)).filter((event: any) => event.action === 'platform.proposal.create');
    expect(created).toEqual([expect.objectContaining({
      tool: 'job:agent_run', workflowId: autoApproval.workflowId, scopes: ['people:write'],
      actor: expect.objectContaining({ kind: 'agent', onBehalfOfUserId: org.ownerUserId, credentialKind: 'agent', credentialId: autoApproval.actor.credentialId }),
    })]);
    expect(created[0].seq).toBeLessThan(autoApproval.seq);
    // The merge it carried out names the proposal, under the same agent credential.
    const merge = (await harness.call(org.apiKey, 'audit_list_agent_actions', { approvedOnly: true, limit: 100 })).events.filter((event: any) => event.approvalId === done.id);
    expect(merge).toEqual([expect.objectContaining({ tool: 'people_merge_data_quality_contacts', actor: expect.objectContaining({ credentialId: autoApproval.actor.credentialId }) })]);
  });

  it('pastoral automations queue outreach for review on their own schedule, never sending', async () => {
    const created = await harness.call(org.apiKey, 'people_create_pastoral_automation', { name: 'Welfare checks', type: 'welfare_check', daysWithoutContact: 180, channel: 'email' });
    const automation = created.automation;
    expect(automation).toMatchObject({ type: 'welfare_check', enabled: true, subjectTemplate: 'Thinking of you, {{firstName}}' });
    const scheduleId = `automation-${org.orgId}-${automation.id}`;
    const described = await harness.temporal.schedule.getHandle(scheduleId).describe();
    expect(described.state.paused).toBe(false);
    expect(described.spec.intervals).toEqual([{ every: automation.intervalHours * 3_600_000, offset: phaseOf(scheduleId, automation.intervalHours * 3_600_000) }]);

    const due = await harness.call(org.apiKey, 'people_list_welfare_due_contacts', {});
    expect(due.contacts.map((c: any) => c.contactId).sort()).toEqual([ids.olive, ids.percy].sort());

    const run = await harness.call(org.apiKey, 'people_run_pastoral_generation', { automationId: automation.id });
    // Olive already has an open message from the approved proposal; Percy has no email.
    expect(run.items).toHaveLength(0);
    expect(run.skipped.map((s: any) => s.contactId).sort()).toEqual([ids.olive, ids.percy].sort());

    const sms = await harness.call(org.apiKey, 'people_set_pastoral_automation', { automationId: automation.id, channel: 'sms', subjectTemplate: null });
    expect(sms.changedFields.sort()).toEqual(['channel', 'subjectTemplate']);
    const second = await harness.call(org.apiKey, 'people_run_pastoral_generation', { automationId: automation.id });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]).toMatchObject({ contactId: ids.percy, channel: 'sms', status: 'pending_review', source: 'automation' });
    expect(second.items[0].body).toContain('Hi Percy');
    expect(second.items[0].body).toContain('Hope Chapel');
    expect((await harness.temporal.workflow.getHandle(`outreach-${second.items[0].id}`).describe()).status.name).toBe('RUNNING');

    // Its schedule runs the same generation; nothing is queued twice.
    const before = (await harness.pool.query('SELECT count(*)::int AS n FROM outreach_items WHERE org_id = $1', [org.orgId])).rows[0].n;
    await harness.temporal.schedule.getHandle(scheduleId).trigger('ALLOW_ALL');
    for (let i = 0; i < 100; i++) {
      const { rows } = await harness.pool.query('SELECT last_run_at FROM pastoral_automations WHERE id = $1', [automation.id]);
      if (rows[0].last_run_at) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = (await harness.pool.query('SELECT count(*)::int AS n FROM outreach_items WHERE org_id = $1', [org.orgId])).rows[0].n;
    expect(after).toBe(before);
    const { rows: sent } = await harness.pool.query("SELECT count(*)::int AS n FROM outbox_messages WHERE org_id = $1", [org.orgId]);
    expect(sent[0].n).toBe(0);

    const copy = await harness.call(org.apiKey, 'people_duplicate_pastoral_automation', { automationId: automation.id });
    expect(copy.automation).toMatchObject({ name: 'Welfare checks (copy)', enabled: false, channel: 'sms' });
    expect((await harness.temporal.schedule.getHandle(`automation-${org.orgId}-${copy.automation.id}`).describe()).state.paused).toBe(true);
    const list = await harness.call(org.apiKey, 'people_list_pastoral_automations', {});
    expect(list.automations).toHaveLength(2);
    expect((await harness.call(org.apiKey, 'people_get_pastoral_automation', { automationId: copy.automation.id })).automation.id).toBe(copy.automation.id);

    await harness.call(org.apiKey, 'people_remove_pastoral_automation', { automationId: copy.automation.id });
    await expect(harness.temporal.schedule.getHandle(`automation-${org.orgId}-${copy.automation.id}`).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await harness.invoke(org.apiKey, 'people_get_pastoral_automation', { automationId: copy.automation.id })).status).toBe(404);
  });
});
