import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { ToolPlan } from '../core/tool-plan';
import type { ToolActivities } from '../activities/tool-activities';

// Short database work runs as local activities: no extra round trip through the server.
const { checkAllowance, runTool, recordUsage, syncTimeline } = proxyLocalActivities<ToolActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 10 },
});

/** Re-throws an activity's typed failure as the workflow's own, so callers see the stable code directly. */
function unwrap(error: unknown): never {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) throw error.cause;
  throw error;
}

/**
 * One tool call: allowance check (metered tools) → the operation → usage recorded
 * once (keyed by this workflow's id) → care-timeline sync → the result.
 */
export async function toolCallWorkflow(plan: ToolPlan): Promise<unknown> {
  try {
    if (plan.policy.meter) await checkAllowance(plan);
    const result = await runTool(plan);
    if (plan.policy.meter) await recordUsage(plan);
    if (plan.policy.timeline) await syncTimeline(plan, result);
    return result;
  } catch (error) {
    unwrap(error);
  }
}
