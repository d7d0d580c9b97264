import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../../activities';
import { PROJECT_ROOT } from '../../../db/config';
import { griefPlanWorkflowId, type GriefPlanResult } from '../workflows/grief-plan';
import { BUNDLE_PATH_ENV } from '../../../test/helpers/env';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * Grief care end to end: a bereavement recorded over MCP opens its plan (touchpoint rows and the
 * grief-plan workflow on the real Temporal server); the same workflow code, run in Temporal's
 * time-skipping test server against the same database, sleeps a real week and surfaces the first
 * touchpoint as due; completing it over MCP is pastoral contact, so the welfare-due list changes.
 * Removal cancels the plan; an erased contact's plan ends on its own.
 */

const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(PROJECT_ROOT, '.venv', 'bin', 'temporal-test-server');

describe('grief care', () => {
  let harness: Harness;
  let env: TestWorkflowEnvironment;
  let org: TestOrg;
  let mcp: McpClient;
  let staff: McpClient;
  const taskQueue = `grief-${randomUUID()}`;

  const contact = async (firstName: string) =>
    (await mcpCall(mcp, 'people_create_contact', { firstName, lastName: 'Griefcare', email: `${firstName.toLowerCase()}-${randomUUID().slice(0, 8)}@example.org` })).contact.id as string;

  beforeAll(async () => {
    harness = await Harness.start();
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
    org = await harness.createOrg({ name: 'Grief Care Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
    const staffKey = await harness.createKey(org.orgId, ['people:read', 'people:write', 'platform:read', 'platform:write'], 'staff', { safeguarding: false });
    staff = await harness.mcpClient(staffKey.apiKey);
  }, 120_000);

  afterAll(async () => {
    for (const client of [mcp, staff]) await client?.close();
    await env?.teardown();
    await harness?.close();
  });

  /** A worker on the time-skipping server, running the real workflow bundle and activities against the harness's database. */
  async function withSkippingWorker<T>(work: () => Promise<T>): Promise<T> {
    const worker = await Worker.create({
      connection: env.nativeConnection, taskQueue, workflowBundle: { codePath: process.env[BUNDLE_PATH_ENV]! },
      activities: createActivities({ pool: harness.pool }),
    });
    return worker.runUntil(work);
  }

  const startSkipping = (lifeEventId: string) => env.client.workflow.start('griefPlanWorkflow', {
    taskQueue, workflowId: `${griefPlanWorkflowId(lifeEventId)}-${randomUUID()}`, args: [{ orgId: org.orgId, lifeEventId }],
  });

  it('bereavement → plan opened → first touchpoint due after a week → completed → no longer welfare-due', async () => {
    const margaret = await contact('Margaret');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: margaret, type: 'bereavement', title: 'Loss of her husband Frank', eventDate: dayFromToday(0) });
    const lifeEventId = recorded.lifeEvent.id;
    expect(recorded.lifeEvent.intent).toBe('support');
    expect(recorded.griefPlan.change).toBe('opened');
    // The plan is the pastoral settings' (their defaults here): one touchpoint per step, all pending.
    const settings = await mcpCall(mcp, 'people_get_pastoral_settings', {});
    expect(recorded.griefPlan.touchpoints.map((t: any) => [t.label, t.status])).toEqual(settings.settings.griefPlan.map((step: any) => [step.label, 'pending']));
    expect(recorded.griefPlan.touchpoints).toHaveLength(5);
    expect(recorded.griefPlan.touchpoints[0].dueOn).toBe(dayFromToday(7));
    expect(recorded.griefPlan.touchpoints[4].dueOn).toBe(`${Number(dayFromToday(0).slice(0, 4)) + 1}${dayFromToday(0).slice(4)}`.replace(/-02-29$/, '-02-28'));

    // The plan's workflow runs on the real server, asleep until the first date.
    const live = harness.temporal.workflow.getHandle(griefPlanWorkflowId(lifeEventId));
    expect((await live.describe()).status.name).toBe('RUNNING');

    // Her history is moved half a year back, so only what happens next can count as recent contact.
    await harness.pool.query("UPDATE contacts SET created_at = now() - interval '200 days' WHERE id = $1", [margaret]);
    await harness.pool.query("UPDATE timeline_entries SET occurred_at = now() - interval '200 days' WHERE contact_id = $1", [margaret]);
    const dueBefore = await mcpCall(mcp, 'people_list_welfare_due_contacts', { days: 180, limit: 500 });
    expect(dueBefore.contacts.map((c: any) => c.contactId)).toContain(margaret);

    await withSkippingWorker(async () => {
      const handle = await startSkipping(lifeEventId);
      await env.sleep('6 days');
      expect((await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' })).touchpoints).toHaveLength(0);
      await env.sleep('2 days');
      const due = await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' });
      expect(due.touchpoints.map((t: any) => t.label)).toEqual(['One week']);
      expect(due.touchpoints[0].surfacedAt).not.toBeNull();
      // The plan's surfacing is in the trail, the system as actor, kept as pastoral and naming no label.
      const trail = await harness.pool.query(`SELECT actor_kind, category, changes->'fields'->'status' AS status, contact_ids FROM audit_events
        WHERE org_id = $1 AND target_id = $2 AND action = 'people.grief_touchpoint.update'`, [org.orgId, due.touchpoints[0].id]);
      expect(trail.rows).toEqual([{ actor_kind: 'system', category: 'pastoral', status: { before: 'pending', after: 'due' }, contact_ids: [margaret] }]);
      await handle.terminate('the rest of the plan is not part of this test');
    });

    // What a person sees: the proactive alert, the radar, the care timeline; a surfaced touchpoint is a reminder, not contact.
    const alerts = (await mcpCall(mcp, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'people.grief_touchpoints_due');
    expect(alerts).toEqual([expect.objectContaining({ count: 1, actWith: { tool: 'people_list_grief_touchpoints', args: { status: 'due' } } })]);
    expect((await mcpCall(staff, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'people.grief_touchpoints_due')).toHaveLength(1);
    const radar = await mcpCall(mcp, 'people_get_life_events_radar', {});
    expect(radar.items.find((item: any) => item.reason === 'touchpoint_due' && item.lifeEventId === lifeEventId))
      .toMatchObject({ why: expect.stringContaining('touchpoint "One week" for Margaret Griefcare') });
    const timeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: margaret });
    expect(timeline.entries.map((e: any) => e.kind)).toContain('care_touchpoint_due');
    expect((await mcpCall(mcp, 'people_list_welfare_due_contacts', { days: 180, limit: 500 })).contacts.map((c: any) => c.contactId)).toContain(margaret);

    const touchpoint = (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' })).touchpoints[0];
    // Two people completing it at once: one completion, one conflict.
    const outcomes = await Promise.all([1, 2].map(() => mcp.callTool({ name: 'people_complete_grief_touchpoint', arguments: { touchpointId: touchpoint.id, note: 'Visited; tea and photographs' } })));
    expect(outcomes.filter((o) => !o.isError)).toHaveLength(1);
    expect(JSON.parse((outcomes.find((o) => o.isError)!.content as any)[0].text).error.code).toBe('conflict');
    const completed = (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'completed' })).touchpoints;
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ label: 'One week', completionNote: 'Visited; tea and photographs' });

    const dueAfter = await mcpCall(mcp, 'people_list_welfare_due_contacts', { days: 180, limit: 500 });
    expect(dueAfter.contacts.map((c: any) => c.contactId)).not.toContain(margaret);
    const event = (await mcpCall(mcp, 'people_list_pastoral_life_events', { contactId: margaret })).lifeEvents[0];
    expect(event.status).toBe('ongoing');
    expect((await mcpCall(mcp, 'people_get_life_events_radar', {})).items.some((item: any) => item.reason === 'touchpoint_due' && item.lifeEventId === lifeEventId)).toBe(false);

    // Removing the bereavement ends its plan on the real server.
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId });
    await waitFor(async () => (await live.describe()).status.name === 'CANCELLED');
    expect(await harness.pool.query('SELECT * FROM pastoral_grief_touchpoints WHERE life_event_id = $1', [lifeEventId])).toMatchObject({ rowCount: 0 });
  }, 120_000);

  it('a bereavement heard of late surfaces its latest passed touchpoint at once and skips the older ones', async () => {
    const tom = await contact('Tom');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: tom, type: 'bereavement', title: 'Loss of his sister', eventDate: dayFromToday(-40) });
    expect(recorded.griefPlan.touchpoints.map((t: any) => t.status)).toEqual(['skipped', 'pending', 'pending', 'pending', 'pending']);
    // The live plan surfaces the one-month touchpoint without waiting.
    await waitFor(async () => (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId: recorded.lifeEvent.id, status: 'due' })).touchpoints.length === 1);
    const due = await mcpCall(mcp, 'people_list_grief_touchpoints', { contactId: tom, status: 'due' });
    expect(due.touchpoints.map((t: any) => t.label)).toEqual(['One month']);
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: recorded.lifeEvent.id });
  }, 60_000);

  it('a restricted bereavement\'s plan, reminders and completion stay hidden without people:safeguarding', async () => {
    const rose = await contact('Rose');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: rose, type: 'bereavement', title: 'Stillbirth Quenby', eventDate: dayFromToday(-8), confidentialityLevel: 'red' });
    const lifeEventId = recorded.lifeEvent.id;
    await waitFor(async () => (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' })).touchpoints.length === 1);
    const touchpoint = (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' })).touchpoints[0];

    expect((await mcpCall(staff, 'people_list_grief_touchpoints', { contactId: rose, status: 'all' })).touchpoints).toEqual([]);
    expect((await mcpRefusal(staff, 'people_complete_grief_touchpoint', { touchpointId: touchpoint.id })).code).toBe('not_found');
    const staffTimeline = await mcpCall(staff, 'people_list_care_timeline', { contactId: rose });
    expect(staffTimeline.entries.map((e: any) => e.kind)).toEqual(['contact_created']);
    const grief = (client: McpClient) => mcpCall(client, 'platform_proactive_alerts', {})
      .then((result) => result.alerts.filter((a: any) => a.ruleId === 'people.grief_touchpoints_due').map((a: any) => a.count));
    expect(await grief(staff)).toEqual([]);
    expect(await grief(mcp)).toEqual([1]);
    const staffRadar = await mcpCall(staff, 'people_get_life_events_radar', { unattendedAfterDays: 0 });
    expect(JSON.stringify(staffRadar)).not.toContain(lifeEventId);

    await mcpCall(mcp, 'people_complete_grief_touchpoint', { touchpointId: touchpoint.id });
    const fullTimeline = await mcpCall(mcp, 'people_list_care_timeline', { contactId: rose });
    expect(fullTimeline.entries.map((e: any) => e.kind)).toEqual(expect.arrayContaining(['care_touchpoint_due', 'grief_touchpoint_completed']));
    const after = await mcpCall(staff, 'people_list_care_timeline', { contactId: rose });
    expect(after.entries.map((e: any) => e.kind)).toEqual(['contact_created']);
    expect(JSON.stringify(after)).not.toMatch(/Quenby|touchpoint|bereave/i);
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId });
  }, 60_000);

  it('moving a bereavement\'s date moves its pending touchpoints and tells the plan', async () => {
    const ada = await contact('Ada');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: ada, type: 'bereavement', title: 'Loss of her friend', eventDate: dayFromToday(0) });
    // The live plan has looked once and is asleep on its timer until the week touchpoint.
    const live = harness.temporal.workflow.getHandle(griefPlanWorkflowId(recorded.lifeEvent.id));
    await waitFor(async () => (await live.fetchHistory()).events!.some((event) => Boolean(event.timerStartedEventAttributes)));
    const updated = await mcpCall(mcp, 'people_update_life_event', { lifeEventId: recorded.lifeEvent.id, eventDate: dayFromToday(-10) });
    expect(updated.griefPlan.change).toBe('rescheduled');
    expect(updated.griefPlan.touchpoints[0].dueOn).toBe(dayFromToday(-3));
    // Told its dates moved, the live plan wakes and surfaces the week touchpoint now past.
    await waitFor(async () => (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId: recorded.lifeEvent.id, status: 'due' })).touchpoints.length === 1);
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: recorded.lifeEvent.id });
  }, 60_000);

  it('completing a touchpoint while its bereavement is removed ends one way or the other, never as a false conflict', async () => {
    const pat = await contact('Pat');
    for (let round = 0; round < 3; round += 1) {
      const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: pat, type: 'bereavement', title: `Loss ${round}`, eventDate: dayFromToday(0) });
      const touchpointId = recorded.griefPlan.touchpoints[0].id;
      const [completion, removal] = await Promise.all([
        mcp.callTool({ name: 'people_complete_grief_touchpoint', arguments: { touchpointId } }),
        mcp.callTool({ name: 'people_remove_life_event', arguments: { lifeEventId: recorded.lifeEvent.id } }),
      ]);
      expect(removal.isError).toBeFalsy();
      if (completion.isError) expect(JSON.parse((completion.content as any)[0].text).error.code).toBe('not_found');
    }
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM pastoral_life_events WHERE contact_id = $1', [pat])).rows[0].n).toBe(0);
  }, 60_000);

  it('an erased contact\'s plan finds nothing left and ends', async () => {
    const sam = await contact('Sam');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: sam, type: 'bereavement', title: 'Loss of his wife', eventDate: dayFromToday(0) });
    await harness.call(org.apiKey, 'people_delete_contact', { contactId: sam, permanent: true });
    const result = await withSkippingWorker(async () => {
      const handle = await startSkipping(recorded.lifeEvent.id);
      return handle.result() as Promise<GriefPlanResult>;
    });
    expect(result).toEqual({ lifeEventId: recorded.lifeEvent.id, surfaced: 0, outcome: 'ended' });
    // The live plan ends the same way when it next wakes; nothing of the bereavement is left for it.
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM pastoral_grief_touchpoints WHERE life_event_id = $1', [recorded.lifeEvent.id])).rows[0].n).toBe(0);
    await harness.temporal.workflow.getHandle(griefPlanWorkflowId(recorded.lifeEvent.id)).terminate('test cleanup').catch(() => undefined);
  }, 60_000);

  it('follows the organisation\'s own grief plan and default privacy from the pastoral settings', async () => {
    await mcpCall(mcp, 'people_set_pastoral_settings', {
      griefPlan: [{ label: 'Second anniversary', offsetDays: 730 }, { label: 'Phone call', offsetDays: 3 }], defaultPrivacy: 'private',
    });
    const ivy = await contact('Ivy');
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: ivy, type: 'bereavement', title: 'Loss of her grandson', eventDate: '2024-02-29' });
    expect(recorded.lifeEvent.privacy).toBe('private');
    // In date order; whole years fall on the date itself (28 February when the year has no 29th).
    expect(recorded.griefPlan.touchpoints.map((t: any) => [t.label, t.dueOn, t.status])).toEqual([
      ['Phone call', '2024-03-03', 'skipped'], ['Second anniversary', '2026-02-28', 'pending'],
    ]);
    expect((await mcpCall(staff, 'people_list_grief_touchpoints', { contactId: ivy, status: 'all' })).touchpoints).toEqual([]);
    await mcpCall(mcp, 'people_remove_life_event', { lifeEventId: recorded.lifeEvent.id });
  }, 60_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
