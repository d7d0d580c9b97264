import { ActivityFailure, ApplicationFailure, patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { TOOL_CALL_RETRY, type ToolPlan } from '../core/tool-plan';
import type { ToolActivities } from '../activities/tool-activities';

// Short database work runs as local activities: no extra round trip through the server.
const { checkAllowance, runTool, recordUsage, syncTimeline } = proxyLocalActivities<ToolActivities>({
  startToCloseTimeout: '30 seconds',
  retry: TOOL_CALL_RETRY,
});

/**
 * Runs started before runTool took over the allowance check and the timeline sync
 * scheduled them as local activities of their own; their histories must still replay.
 */
const ALLOWANCE_AND_TIMELINE_IN_RUN_TOOL = 'allowance-and-timeline-in-run-tool';

/** Re-throws an activity's typed failure as the workflow's own, so callers see the stable code directly. */
function unwrap(error: unknown): never {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) throw error.cause;
  throw error;
}

/**
 * One tool call: the operation (for metered tools with its allowance check under a
 * lock, for timeline tools with its care-timeline entries, all in one transaction)
 * → usage recorded once (keyed by this workflow's id) → the result.
 */
export async function toolCallWorkflow(plan: ToolPlan): Promise<unknown> {
  try {
    // Only plans whose command sequence changed ask, so plain reads record no patch marker.
    const inOneStep = plan.policy.meter || plan.policy.timeline ? patched(ALLOWANCE_AND_TIMELINE_IN_RUN_TOOL) : true;
    if (!inOneStep && plan.policy.meter) await checkAllowance(plan);
    // The call's start, from this workflow's history: the same for every attempt, even one scheduled
    // again after a crashed worker's task is replayed, so outside work keyed by the call asks alike.
    const result = await runTool(plan, { startedAt: workflowInfo().startTime.getTime() });
    if (plan.policy.meter) await recordUsage(plan);
    if (!inOneStep && plan.policy.timeline) await syncTimeline(plan, result);
    return result;
  } catch (error) {
    unwrap(error);
  }
}
