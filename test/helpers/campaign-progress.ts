import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Pool } from '../../db/pool';
import { seedConsentedEmailAudience } from '../../modules/channels/__tests__/broadcast-seed';
import { mcpCall } from './mcp-calls';
import { eventually } from './sandbox-stack';

/**
 * The progress a gated tool's call reports over MCP, shown with grow_schedule_campaign to a new
 * audience (which waits for an owner or admin): shared by the suite on one process and the one
 * with the worker in a process of its own.
 */

/** A month ahead: the sending workflow waits, and each test cancels the campaign before anything goes. */
export const monthAhead = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

/** A campaign to a tag, created and previewed. */
export async function previewedCampaign(mcp: McpClient, name: string, tagId: string) {
  const { campaign } = await mcpCall(mcp, 'grow_create_campaign', { name, audience: { kind: 'tag', id: tagId }, subject: name, body: `${name}: details to follow.` });
  const previewed = await mcpCall(mcp, 'grow_preview_campaign', { campaignId: campaign.id });
  return { campaignId: campaign.id as string, previewHash: previewed.previewHash as string, recipients: previewed.preview.recipients as number };
}

/** The proposal a gated grow_schedule_campaign call opened for this campaign, once it is listed. */
export async function proposalFor(mcp: McpClient, campaignId: string): Promise<string> {
  const found = await eventually(async () => {
    const { proposals } = await mcpCall(mcp, 'platform_pending_proposals', {});
    return proposals.find((p: any) => p.action.arguments.campaignId === campaignId)?.id as string | undefined;
  }, (id) => id !== undefined, 30_000, 100);
  return found!;
}

const WAITING = /^Waiting for an owner or admin to approve grow_schedule_campaign \(proposal [0-9a-f-]{36}\)$/;

/** The lines a gated call's progress told, its many waiting reports as one. */
export const stagesOf = (progress: Progress[]) => progress.map((p) => (WAITING.test(p.message ?? '') ? 'waiting' : p.message))
  .filter((line, i, lines) => line !== 'waiting' || lines[i - 1] !== 'waiting');

/** One value that only increases, on the documented scale of four steps, within it. */
export function expectStepScale(progress: Progress[]): void {
  const values = progress.map((p) => p.progress);
  for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]!);
  expect(progress.every((p) => p.total === 4 && p.progress >= 0 && p.progress <= 4)).toBe(true);
}

/**
 * A gated call with a progressToken, approved by a person while it waits: it hears the wait, the
 * approval, the action starting, the action's own progress and the end, in that order; the
 * approver's own call hears the action's progress in its units.
 */
export async function expectApprovalStages(input: { mcp: McpClient; approver: McpClient; pool: Pool; orgId: string; tag: string; count: number }): Promise<void> {
  const { mcp, approver, pool, orgId, count } = input;
  const { tagId } = await seedConsentedEmailAudience(pool, orgId, { tag: input.tag, count, purpose: 'marketing' });
  const { campaignId, previewHash } = await previewedCampaign(mcp, `${input.tag} letter`, tagId);
  const progress: Progress[] = [];
  const waiting = mcp.callTool(
    { name: 'grow_schedule_campaign', arguments: { campaignId, previewHash, sendAt: monthAhead() }, _meta: { approvalWaitMs: 60_000 } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p), timeout: 120_000 },
  );
  const proposalId = await proposalFor(mcp, campaignId);
  await eventually(async () => progress.length, (n) => n >= 1);
  expect(progress[0]!.message).toBe(`Waiting for an owner or admin to approve grow_schedule_campaign (proposal ${proposalId})`);

  // The action is held on the campaign's row meanwhile: the decision and the start are heard as they
  // happen, while the action cannot have finished, not told afterwards from its result.
  const approverProgress: Progress[] = [];
  let approving: ReturnType<McpClient['callTool']> | undefined;
  const hold = await pool.connect();
  try {
    await hold.query('BEGIN');
    const held = await hold.query('SELECT 1 FROM grow_campaigns WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, campaignId]);
    expect(held.rowCount).toBe(1);
    approving = approver.callTool(
      { name: 'platform_approve_proposal', arguments: { proposalId } }, CallToolResultSchema,
      { onprogress: (p) => approverProgress.push(p), timeout: 120_000 },
    );
    await eventually(async () => stagesOf(progress), (stages) => stages.includes('Running grow_schedule_campaign'));
    expect(stagesOf(progress)).toEqual(['waiting', 'Approved by an owner or admin', 'Running grow_schedule_campaign']);
  } finally {
    await hold.query('COMMIT');
    hold.release();
  }

  const result = await waiting;
  expect(result.isError).toBeFalsy();
  expect((result.structuredContent as any).campaign).toMatchObject({ id: campaignId, status: 'scheduled' });
  const scheduled = `Scheduled ${count} of ${count} recipients`;
  expect(stagesOf(progress)).toEqual([
    'waiting', 'Approved by an owner or admin', 'Running grow_schedule_campaign', scheduled, 'Done: grow_schedule_campaign was carried out',
  ]);
  expectStepScale(progress);
  expect(progress.find((p) => p.message === scheduled)!.progress).toBe(3);
  expect(progress[progress.length - 1]).toEqual({ progress: 4, total: 4, message: 'Done: grow_schedule_campaign was carried out' });

  const approved = await approving!;
  expect(approved.isError).toBeFalsy();
  expect(approved.structuredContent).toMatchObject({ proposalId, status: 'approved', execution: { status: 'succeeded' } });
  expect(approverProgress).toEqual([{ progress: count, total: count, message: scheduled }]);
  await mcpCall(mcp, 'grow_cancel_campaign', { campaignId });
}
