import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../../activities';
import { PROJECT_ROOT } from '../../../db/config';
import { griefPlanWorkflowId } from '../workflows/grief-plan';
import { BUNDLE_PATH_ENV } from '../../../test/helpers/env';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * One person's pastoral story, told over MCP from start to finish, the way a church office would live
 * it: a bereavement is recorded, its grief plan starts, a touchpoint comes due (Temporal's
 * time-skipping server lets a week pass), it is completed, a visit is logged and the welfare-due list
 * follows; her prayer request reaches the prayer wall only after a person approves it; and when a
 * referral reads as a crisis, an automation's welfare message is held back for a person.
 * Each step's details are tested at length in their own files; this one shows they join up.
 */

const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(PROJECT_ROOT, '.venv', 'bin', 'temporal-test-server');

describe('a pastoral journey, end to end over MCP', () => {
  let harness: Harness;
  let env: TestWorkflowEnvironment;
  let org: TestOrg;
  let mcp: McpClient;
  const taskQueue = `journey-${randomUUID()}`;

  beforeAll(async () => {
    harness = await Harness.start();
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
    org = await harness.createOrg({ name: 'Journey Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await env?.teardown();
    await harness?.close();
  });

  /** Moves everything Margaret's record says happened half a year back, so only what happens next is recent contact. */
  const ageHistory = async (contactId: string) => {
    await harness.pool.query("UPDATE contacts SET created_at = now() - interval '200 days' WHERE id = $1", [contactId]);
    await harness.pool.query("UPDATE timeline_entries SET occurred_at = now() - interval '200 days' WHERE contact_id = $1", [contactId]);
  };
  const welfareDue = async () => (await mcpCall(mcp, 'people_list_welfare_due_contacts', { days: 180, limit: 500 })).contacts.map((c: any) => c.contactId);

  it('bereavement → grief plan → touchpoint due → completed → visit → welfare-due → prayer wall after moderation → crisis hold stops an automation', async () => {
    const margaret = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Margaret', lastName: 'Journey', email: 'margaret.journey@example.org' })).contact.id;

    // A bereavement is recorded: the grief plan opens and its workflow sleeps on the real server.
    const recorded = await mcpCall(mcp, 'people_record_life_event', { contactId: margaret, type: 'bereavement', title: 'Loss of her husband Frank', eventDate: dayFromToday(0) });
    const lifeEventId = recorded.lifeEvent.id;
    expect(recorded.griefPlan.change).toBe('opened');
    expect((await harness.temporal.workflow.getHandle(griefPlanWorkflowId(lifeEventId)).describe()).status.name).toBe('RUNNING');
    await ageHistory(margaret);
    expect(await welfareDue()).toContain(margaret);

    // A week passes (time-skipping server, the same workflow code and activities on the same database): the first touchpoint comes due.
    const worker = await Worker.create({
      connection: env.nativeConnection, taskQueue, workflowBundle: { codePath: process.env[BUNDLE_PATH_ENV]! },
      activities: createActivities({ pool: harness.pool }),
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('griefPlanWorkflow', {
        taskQueue, workflowId: `${griefPlanWorkflowId(lifeEventId)}-${randomUUID()}`, args: [{ orgId: org.orgId, lifeEventId }],
      });
      await env.sleep('8 days');
      await handle.terminate('the rest of the plan is not part of this story');
    });
    const due = (await mcpCall(mcp, 'people_list_grief_touchpoints', { lifeEventId, status: 'due' })).touchpoints;
    expect(due.map((t: any) => t.label)).toEqual(['One week']);

    // Completed: that is pastoral contact, so she leaves the welfare-due list.
    await mcpCall(mcp, 'people_complete_grief_touchpoint', { touchpointId: due[0].id, note: 'Rang her; her daughter is staying' });
    expect(await welfareDue()).not.toContain(margaret);

    // Months later she is due again, until a visit is logged.
    await ageHistory(margaret);
    expect(await welfareDue()).toContain(margaret);
    await mcpCall(mcp, 'people_log_pastoral_visit', { contactId: margaret, kind: 'home', summary: 'Tea with Margaret; looked at photographs of Frank' });
    expect(await welfareDue()).not.toContain(margaret);
    const timeline = (await mcpCall(mcp, 'people_list_care_timeline', { contactId: margaret })).entries.map((e: any) => e.kind);
    expect(timeline).toEqual(expect.arrayContaining(['grief_touchpoint_completed', 'pastoral_visit']));

    // Her prayer request reaches the wall only once a person has approved it.
    const request = (await mcpCall(mcp, 'people_add_prayer_request', { contactId: margaret, request: 'Strength for the first Christmas without Frank', visibility: 'congregation' })).prayerRequest.id;
    const { post } = await mcpCall(mcp, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true });
    expect(post.status).toBe('pending');
    expect((await mcpCall(mcp, 'community_list_prayer_wall', {})).items).toEqual([]);
    await mcpCall(mcp, 'community_approve_post', { postId: post.id });
    expect((await mcpCall(mcp, 'community_list_prayer_wall', {})).items.map((item: any) => item.id)).toEqual([post.id]);

    // A referral reads as a crisis: she is held, and a welfare automation that would write to her queues nothing for her.
    await ageHistory(margaret);
    expect(await welfareDue()).toContain(margaret);
    const referral = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Margaret told the visitor she does not want to live without Frank.', contactId: margaret });
    expect(referral.isCrisis).toBe(true);
    expect(referral.hold).not.toBeNull();
    const automation = (await mcpCall(mcp, 'people_create_pastoral_automation', { name: 'Welfare calls', type: 'welfare_check', daysWithoutContact: 180 })).automation;
    const run = await mcpCall(mcp, 'people_run_pastoral_generation', { automationId: automation.id });
    expect(run.items.map((item: any) => item.contactId)).not.toContain(margaret);
    expect(run.skipped).toContainEqual({ contactId: margaret, reason: expect.stringContaining('crisis hold') });
    const { rows: queued } = await harness.pool.query('SELECT id FROM outreach_items WHERE org_id = $1 AND contact_id = $2', [org.orgId, margaret]);
    expect(queued).toEqual([]);
  }, 180_000);
});
