import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { Harness, type TestOrg } from '../helpers/harness';
import { mcpCall } from '../helpers/mcp-calls';
import { eventually } from '../helpers/sandbox-stack';
import { expectApprovalStages, expectStepScale, monthAhead, previewedCampaign, proposalFor, stagesOf } from '../helpers/campaign-progress';
import { seedConsentedEmailAudience, seedTaggedContacts } from '../../modules/channels/__tests__/broadcast-seed';

/**
 * Long work says how far it has come: an MCP client that sends a progress token (the SDK does when
 * given `onprogress`) hears notifications/progress while its tools/call is open, each further on
 * than the last, ending at the total; a client that sends none gets a plain answer.
 */
describe('MCP progress notifications for long calls', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Progress Parish', planCode: 'enterprise' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  const contactsCsv = (rows: number, prefix: string) => ['First Name,Last Name,Email', ...Array.from({ length: rows }, (_, i) => `${prefix}${i},Importer,${prefix.toLowerCase()}${i}@example.org`)].join('\n');

  it('a 400-row contact import sends several increasing progress notifications ending at 400 of 400', async () => {
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'people_import_contacts', arguments: { csv: contactsCsv(400, 'Row'), mode: 'commit' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ committed: true, rows: 400, toCreate: 400 });
    const count = await harness.pool.query("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND last_name = 'Importer' AND deleted_at IS NULL", [org.orgId]);
    expect(count.rows[0].n).toBe(400);

    expect(progress.length).toBeGreaterThanOrEqual(3);
    const values = progress.map((p) => p.progress);
    // Strictly increasing, as the protocol requires, each within the total.
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect(progress.every((p) => p.total === 400)).toBe(true);
    expect(progress[progress.length - 1]).toEqual({ progress: 400, total: 400, message: 'Imported 400 of 400 rows' });
    // The lines name rows, never a person.
    expect(progress.every((p) => /^Imported \d+ of 400 rows$/.test(p.message ?? ''))).toBe(true);
  }, 180_000);

  it('a donation import reports each gift recorded', async () => {
    const csv = ['Date,Amount,Reference', ...Array.from({ length: 120 }, (_, i) => `2026-01-${String((i % 28) + 1).padStart(2, '0')},${(i + 1)}.00,REF-${i}`)].join('\n');
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'giving_import_donations', arguments: { csv, source: 'bank', mode: 'commit' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).counts).toMatchObject({ rows: 120, recorded: 120 });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[progress.length - 1]).toEqual({ progress: 120, total: 120, message: 'Recorded 120 of 120 gifts' });
  }, 180_000);

  /** The protocol's rules for one call's notifications, and the lines this server writes for them. */
  function expectProgression(progress: Progress[], total: number, line: RegExp): void {
    expect(progress.length).toBeGreaterThanOrEqual(1);
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect(progress.every((p) => p.total === total && p.progress <= total)).toBe(true);
    // The lines count units, never name a person.
    expect(progress.every((p) => line.test(p.message ?? ''))).toBe(true);
  }

  it('a contact export reports rows exported of the page, ending at all of them', async () => {
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Export Progress', count: 600, firstNumber: 1000 });
    const tag = await harness.pool.query<{ name: string }>('SELECT name FROM tags WHERE id = $1', [tagId]);
    const progress: Progress[] = [];
    const result = await mcp.callTool(
      { name: 'people_export_contacts', arguments: { tag: tag.rows[0]!.name, columns: ['firstName', 'lastName', 'phone'] } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ rowCount: 600, nextOffset: null });
    expectProgression(progress, 600, /^Exported \d+ of 600 rows$/);
    expect(progress[progress.length - 1]).toEqual({ progress: 600, total: 600, message: 'Exported 600 of 600 rows' });
  }, 180_000);

  it('a broadcast reports recipients checked while previewed and recipients queued while scheduled', async () => {
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Broadcast Progress', count: 40, firstNumber: 2000 });
    const checked: Progress[] = [];
    const previewed = await mcp.callTool(
      { name: 'channels_preview_broadcast', arguments: { name: 'Rota change', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'The rota changes on Sunday.' } },
      CallToolResultSchema,
      { onprogress: (p) => checked.push(p), timeout: 120_000 },
    );
    expect(previewed.isError).toBeFalsy();
    const { broadcast, previewHash, preview } = previewed.structuredContent as any;
    expect(preview).toMatchObject({ total: 40, eligible: 40 });
    expectProgression(checked, 40, /^Checked \d+ of 40 recipients$/);
    expect(checked[checked.length - 1]).toEqual({ progress: 40, total: 40, message: 'Checked 40 of 40 recipients' });

    const queued: Progress[] = [];
    // A month ahead: the sending workflow waits, and the suite cancels it before anything goes.
    const sendAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const scheduled = await mcp.callTool(
      { name: 'channels_schedule_broadcast', arguments: { broadcastId: broadcast.id, previewHash, sendAt } },
      CallToolResultSchema,
      { onprogress: (p) => queued.push(p), timeout: 120_000 },
    );
    expect(scheduled.isError).toBeFalsy();
    expect((scheduled.structuredContent as any).broadcast).toMatchObject({ status: 'scheduled', totalRecipients: 40 });
    expectProgression(queued, 40, /^Queued \d+ of 40 recipients$/);
    expect(queued[queued.length - 1]).toEqual({ progress: 40, total: 40, message: 'Queued 40 of 40 recipients' });
    const cancelled = await mcp.callTool({ name: 'channels_cancel_broadcast', arguments: { broadcastId: broadcast.id } });
    expect(cancelled.isError).toBeFalsy();
  }, 180_000);

  it('an email campaign preview reports recipients checked, ending at its whole audience', async () => {
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Campaign Progress', count: 30, firstNumber: 3000 });
    const created = await mcp.callTool({ name: 'grow_create_campaign', arguments: {
      name: 'Harvest news', audience: { kind: 'tag', id: tagId }, purpose: 'charitable_purpose', subject: 'Harvest', body: 'Harvest supper on Saturday.',
    } });
    expect(created.isError).toBeFalsy();
    const progress: Progress[] = [];
    const previewed = await mcp.callTool(
      { name: 'grow_preview_campaign', arguments: { campaignId: (created.structuredContent as any).campaign.id } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(previewed.isError).toBeFalsy();
    // Seeded with phones only: every one is checked, and left out for having no address.
    expect((previewed.structuredContent as any).preview).toMatchObject({ recipients: 0, excluded: [{ reason: 'no_address', count: 30 }] });
    expectProgression(progress, 30, /^Checked \d+ of 30 recipients$/);
    expect(progress[progress.length - 1]).toEqual({ progress: 30, total: 30, message: 'Checked 30 of 30 recipients' });
  }, 180_000);

  it('scheduling an email campaign reports recipients scheduled, ending at all of them', async () => {
    const { tagId } = await seedConsentedEmailAudience(harness.pool, org.orgId, { tag: 'Campaign Schedule Progress', count: 12, purpose: 'marketing' });
    // An earlier campaign went to this audience, so scheduling needs no approval (a new audience would).
    const earlier = await mcpCall(mcp, 'grow_create_campaign', { name: 'Earlier news', audience: { kind: 'tag', id: tagId }, subject: 'Earlier', body: 'Sent last month.' });
    await harness.pool.query("UPDATE grow_campaigns SET status = 'sent' WHERE org_id = $1 AND id = $2", [org.orgId, earlier.campaign.id]);
    const { campaignId, previewHash, recipients } = await previewedCampaign(mcp, 'Advent news', tagId);
    expect(recipients).toBe(12);

    const progress: Progress[] = [];
    const scheduled = await mcp.callTool(
      { name: 'grow_schedule_campaign', arguments: { campaignId, previewHash, sendAt: monthAhead() } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    expect(scheduled.isError).toBeFalsy();
    expect((scheduled.structuredContent as any).campaign).toMatchObject({ id: campaignId, status: 'scheduled' });
    expectProgression(progress, 12, /^Scheduled \d+ of 12 recipients$/);
    expect(progress[progress.length - 1]).toEqual({ progress: 12, total: 12, message: 'Scheduled 12 of 12 recipients' });
    await mcpCall(mcp, 'grow_cancel_campaign', { campaignId });
  }, 180_000);

  it('a gated call says it waits for approval, then that it was approved and runs, the action\'s own progress, and done', async () => {
    const approver = await harness.mcpClient(org.apiKey);
    try {
      await expectApprovalStages({ mcp, approver, pool: harness.pool, orgId: org.orgId, tag: 'Gift Day', count: 10 });
    } finally {
      await approver.close();
    }
  }, 180_000);

  it('a gated call that is rejected says so, and answers that nothing was carried out', async () => {
    const { tagId } = await seedConsentedEmailAudience(harness.pool, org.orgId, { tag: 'Campaign Rejection Progress', count: 5, purpose: 'marketing' });
    const { campaignId, previewHash } = await previewedCampaign(mcp, 'Fete reminder', tagId);
    const progress: Progress[] = [];
    const waiting = mcp.callTool(
      { name: 'grow_schedule_campaign', arguments: { campaignId, previewHash }, _meta: { approvalWaitMs: 60_000 } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), timeout: 120_000 },
    );
    const proposalId = await proposalFor(mcp, campaignId);
    await eventually(async () => progress.length, (n) => n >= 1);
    await mcpCall(mcp, 'platform_reject_proposal', { proposalId, reason: 'Not this week' });
    const result = await waiting;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as any)[0].text).error).toMatchObject({ code: 'forbidden', details: { proposalId, status: 'rejected' } });
    expect(stagesOf(progress)).toEqual(['waiting', 'Rejected by an owner or admin: grow_schedule_campaign was not carried out']);
    expectStepScale(progress);
    expect(progress[progress.length - 1]!.progress).toBe(1);
    expect(await mcpCall(mcp, 'grow_get_campaign', { campaignId })).toMatchObject({ campaign: { status: 'previewed' } });
  }, 180_000);

  it('a data quality scan answers at once with its queued job, whose own progress says how far the scan has come', async () => {
    // The scan runs as a background job once the call has committed, so the call has nothing to report
    // while it is open: the job carries done of total (people_get_data_quality_job).
    const progress: Progress[] = [];
    const result = await mcp.callTool({ name: 'people_run_data_quality_scan', arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p), timeout: 120_000 });
    expect(result.isError).toBeFalsy();
    const { job } = result.structuredContent as any;
    expect(job.progress).toEqual({ done: expect.any(Number), total: expect.any(Number), percent: expect.any(Number) });
    expect(progress).toEqual([]);
  }, 180_000);

  it('a call without a progress token gets its answer with no notifications', async () => {
    const seen: unknown[] = [];
    mcp.fallbackNotificationHandler = async (notification) => { seen.push(notification); };
    try {
      const result = await mcp.callTool({ name: 'people_import_contacts', arguments: { csv: contactsCsv(30, 'Quiet'), mode: 'commit' } });
      expect(result.structuredContent).toMatchObject({ committed: true, toCreate: 30 });
      const exported = await mcp.callTool({ name: 'people_export_contacts', arguments: { columns: ['firstName'] } });
      expect(exported.isError).toBeFalsy();
      expect((exported.structuredContent as any).rowCount).toBeGreaterThan(400);
      expect(seen).toEqual([]);
    } finally {
      mcp.fallbackNotificationHandler = undefined;
    }
  }, 120_000);
});
