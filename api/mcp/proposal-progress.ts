import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalProgress, ApprovalWaitOptions } from '../approvals';
import type { ApprovalStage } from '../approval-stages';

/**
 * A gated call's notifications/progress, on one scale of four steps, as the protocol wants one
 * progress value that only increases: waiting for a person (0 up to 1, the share of the wait
 * used), decided (1), the action running (2), the action's own progress (from 2 up to 3, its done
 * of total), and done (4 of 4). Each carries its line; the wait, the decision, the start and the
 * end also go out as log messages (notifications/message), for clients that show those instead.
 */
export const PROPOSAL_PROGRESS_TOTAL = 4;

type Send = (notification: ServerNotification) => Promise<void>;

function positionOf(stage: ApprovalStage): number {
  switch (stage.stage) {
    case 'approved':
    case 'rejected':
    case 'expired':
      return 1;
    case 'running':
      return 2;
    case 'work':
      return 2 + workShare(stage.done, stage.total);
    case 'done':
    case 'failed':
      return PROPOSAL_PROGRESS_TOTAL;
  }
}

/** How much of the action's work is done, from 0 to 1; without a total, nearer 1 with each report. */
function workShare(done: number, total: number | undefined): number {
  if (total === undefined) return done / (done + 1);
  return total > 0 ? Math.min(Math.max(done / total, 0), 1) : 1;
}

export function proposalProgressOf(progressToken: string | number, send: Send): Pick<ApprovalWaitOptions, 'onProgress' | 'onStage'> {
  let last = -1;
  let queue = Promise.resolve();
  const notify = (progress: number, message: string, log?: Record<string, unknown>): Promise<void> => {
    if (!(progress > last)) return queue;
    last = progress;
    const notifications: ServerNotification[] = [
      { method: 'notifications/progress', params: { progressToken, progress, total: PROPOSAL_PROGRESS_TOTAL, message } },
      ...(log ? [{ method: 'notifications/message' as const, params: { level: 'info' as const, logger: 'steward.approvals', data: log } }] : []),
    ];
    // One after another, so the client receives them in the order they were made.
    queue = queue.then(() => Promise.all(notifications.map(send))).then(() => undefined, () => undefined);
    return queue;
  };
  return {
    onProgress: (p: ApprovalProgress) => notify(p.elapsedMs / p.budgetMs, p.message, { message: p.message, elapsedMs: p.elapsedMs, budgetMs: p.budgetMs }),
    onStage: (stage: ApprovalStage) => notify(positionOf(stage), stage.message, stage.stage === 'work' ? undefined : { message: stage.message, stage: stage.stage }),
  };
}
