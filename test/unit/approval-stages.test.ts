import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ProposalDecisionResult } from '../../core/approvals';
import { ProposalStages, type ApprovalStage } from '../../api/approval-stages';
import { proposalProgressOf } from '../../api/mcp/proposal-progress';

/**
 * A gated call's stages are told once each and in order however the reports arrive (the decision
 * and the action's progress travel apart, best effort), and go out over MCP on one scale that only
 * increases.
 */
describe('the stages of a gated call', () => {
  const succeeded: ProposalDecisionResult = { proposalId: 'p', status: 'approved', execution: { status: 'succeeded', workflowId: 'w', result: {} } };

  function heard() {
    const told: ApprovalStage[] = [];
    const stages = new ProposalStages('grow_schedule_campaign', (stage) => {
      told.push(stage);
    });
    return { told, stages, lines: () => told.map((s) => s.stage) };
  }

  it('tells the decision, the start, the action\'s progress and the end, in order', async () => {
    const { stages, lines, told } = heard();
    expect(stages.waiting).toBe(true);
    stages.decided('approved');
    expect(stages.waiting).toBe(false);
    stages.work({ done: 5, total: 10, message: 'Scheduled 5 of 10 recipients' });
    stages.work({ done: 10, total: 10 });
    await stages.finish(succeeded);
    expect(lines()).toEqual(['approved', 'running', 'work', 'work', 'done']);
    expect(told[3]).toEqual({ stage: 'work', done: 10, total: 10, message: 'grow_schedule_campaign: 10 of 10' });
    expect(told[4]!.message).toBe('Done: grow_schedule_campaign was carried out');
  });

  it('takes the action\'s first report for the approval it missed, and a late decision changes nothing', async () => {
    const { stages, lines } = heard();
    stages.work({ done: 3, total: 10, message: 'Scheduled 3 of 10 recipients' });
    stages.decided('approved');
    await stages.finish(succeeded);
    expect(lines()).toEqual(['approved', 'running', 'work', 'done']);
  });

  it('tells from the outcome alone every stage no report brought', async () => {
    const { stages, lines } = heard();
    await stages.finish({ ...succeeded, execution: { status: 'failed', workflowId: 'w', error: { code: 'conflict', message: 'stale' } } });
    expect(lines()).toEqual(['approved', 'running', 'failed']);
    stages.work({ done: 1, total: 1 });
    expect(lines()).toEqual(['approved', 'running', 'failed']);
  });

  it('ends at a rejection or an expiry with nothing run', async () => {
    for (const status of ['rejected', 'expired'] as const) {
      const { stages, lines, told } = heard();
      stages.decided(status);
      await stages.finish({ proposalId: 'p', status, execution: null });
      expect(lines()).toEqual([status]);
      expect(told[0]!.message).toMatch(/grow_schedule_campaign was not carried out$/);
    }
  });

  it('goes out over MCP as one increasing value of four steps, dropping what would go back', async () => {
    const sent: ServerNotification[] = [];
    const { onProgress, onStage } = proposalProgressOf('token', async (n) => {
      sent.push(n);
    });
    await onProgress!({ elapsedMs: 0, budgetMs: 1000, message: 'Waiting' });
    await onProgress!({ elapsedMs: 500, budgetMs: 1000, message: 'Waiting' });
    await onStage!({ stage: 'approved', message: 'Approved' });
    await onProgress!({ elapsedMs: 900, budgetMs: 1000, message: 'Waiting' });
    await onStage!({ stage: 'running', message: 'Running' });
    await onStage!({ stage: 'work', done: 1, total: 4, message: 'One of four' });
    await onStage!({ stage: 'work', done: 4, total: 4, message: 'Four of four' });
    await onStage!({ stage: 'done', message: 'Done' });
    const progress = sent.filter((n) => n.method === 'notifications/progress').map((n) => n.params as { progress: number; total: number; message: string });
    expect(progress.map((p) => [p.progress, p.message])).toEqual([
      [0, 'Waiting'], [0.5, 'Waiting'], [1, 'Approved'], [2, 'Running'], [2.25, 'One of four'], [3, 'Four of four'], [4, 'Done'],
    ]);
    expect(progress.every((p) => p.total === 4)).toBe(true);
    // The wait and the stages but not each report of the action's own go out as log messages too.
    const logged = sent.filter((n) => n.method === 'notifications/message').map((n) => (n.params as { data: { message: string } }).data.message);
    expect(logged).toEqual(['Waiting', 'Waiting', 'Approved', 'Running', 'Done']);
  });
});
