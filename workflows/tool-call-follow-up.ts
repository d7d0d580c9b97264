import { proxyActivities } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approval-activities';
import { automationIdOfResult, outreachIdsOfResult } from '../core/approvals';
import { followUpOf, type ToolPlan } from '../core/tool-plan';
import { startOutreachChild } from './outreach';
import { toolCallWorkflow } from './tool-call';

const { syncAgentSchedules, syncAutomationSchedule } = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * A tool call with one durable step after it, the one its plan's policy names
 * (declared as `followUp` on the tool): new outreach items get their approval
 * workflow, agent and automation changes get their schedule brought in line.
 * Being one workflow, the step happens even if a process dies in between.
 */
export async function toolCallWithFollowUpWorkflow(plan: ToolPlan): Promise<unknown> {
  const result = await toolCallWorkflow(plan);
  const orgId = plan.principal.orgId;
  const followUp = followUpOf(plan);
  switch (followUp?.kind) {
    case 'start_outreach':
      for (const itemId of outreachIdsOfResult(result)) await startOutreachChild(orgId, itemId);
      break;
    case 'sync_agent_schedules':
      await syncAgentSchedules(orgId, followUp.ifMissing);
      break;
    case 'sync_automation_schedule': {
      const automationId = automationIdOfResult(result);
      if (automationId) await syncAutomationSchedule(orgId, automationId);
      break;
    }
    default:
      break;
  }
  return result;
}
