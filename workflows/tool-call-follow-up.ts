import { proxyActivities } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approval-activities';
import { TOOL_FOLLOW_UPS, automationIdOfResult, outreachIdsOfResult } from '../core/approvals';
import type { ToolPlan } from '../core/tool-plan';
import { startOutreachChild } from './outreach';
import { toolCallWorkflow } from './tool-call';

const { syncAgentSchedules, syncAutomationSchedule } = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * A tool call with one durable step after it: new outreach items get their
 * approval workflow, agent and automation changes get their schedule brought in
 * line. Being one workflow, the step happens even if a process dies in between.
 */
export async function toolCallWithFollowUpWorkflow(plan: ToolPlan): Promise<unknown> {
  const result = await toolCallWorkflow(plan);
  const orgId = plan.principal.orgId;
  switch (TOOL_FOLLOW_UPS[plan.tool]) {
    case 'start_outreach':
      for (const itemId of outreachIdsOfResult(result)) await startOutreachChild(orgId, itemId);
      break;
    case 'sync_agent_schedules':
      // Listing only makes sure the schedules exist; changing autonomy brings them all in line.
      await syncAgentSchedules(orgId, plan.tool === 'platform_list_agents');
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
