import { followUpOf, type ToolPlan } from '../core/tool-plan';
import { followUpSteps, registerFollowUps, runFollowUpSteps } from './follow-ups';
import { kernelFollowUps } from './kernel-follow-ups';
import { toolCallWorkflow } from './tool-call';

registerFollowUps('kernel', kernelFollowUps);

/**
 * A tool call with durable steps after it: the follow-up its plan's policy names (declared as
 * `followUp` on the tool) is planned from the call's result by the kernel's or the module's
 * planner, and its steps run here. Being one workflow, they happen even if a process dies in between.
 */
export async function toolCallWithFollowUpWorkflow(plan: ToolPlan): Promise<unknown> {
  const result = await toolCallWorkflow(plan);
  const followUp = followUpOf(plan);
  if (followUp) await runFollowUpSteps(plan.principal.orgId, followUpSteps(followUp, result, plan.principal.orgId));
  return result;
}
