import { proxyActivities } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approval-activities';
import type { OutboxActivities } from '../activities/outbox-activities';
import { automationIdOfResult, outreachIdsOfResult } from '../core/approvals';
import { followUpOf, type ToolPlan } from '../core/tool-plan';
import { startOutreachChild } from './outreach';
import { changeGriefPlan, griefPlanChangeOfResult, startGriefPlanChild } from './pastoral-grief';
import { channelMessageIdOfResult, startChannelMessageChild } from './channels-message';
import { broadcastChangeOfResult, signalBroadcastCancelled, startBroadcastChild } from './channels-broadcast';
import { startWhatsAppReviewChild, templateVersionIdOfResult } from './templates-whatsapp-review';
import { toolCallWorkflow } from './tool-call';

const { syncAgentSchedules, syncAutomationSchedule } = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});

// Heartbeats, as the outreach send, so a worker dying mid-send is noticed and the send retried under the outbox's lease.
// Few attempts: the caller waits for this call, and a send that keeps failing is remedied by a resend, not by waiting.
const { sendTeamInvite } = proxyActivities<OutboxActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3 },
});

// One activity emails a whole run, statement by statement, so it may take a while; it heartbeats throughout.
const { sendStatements } = proxyActivities<OutboxActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** The statements a statements result names (`statements` and `unchanged`) that are waiting for their email. */
function waitingStatementIdsOfResult(result: unknown): string[] {
  const named = result as { statements?: unknown; unchanged?: unknown } | null;
  const all = [named?.statements, named?.unchanged].flatMap((list) => (Array.isArray(list) ? list : [])) as Array<{ id?: unknown; delivery?: { status?: unknown } }>;
  return all.filter((s) => typeof s.id === 'string' && (s.delivery?.status === 'queued' || s.delivery?.status === 'failed')).map((s) => s.id as string);
}

/** The invite a team-invite result names. */
function inviteIdOfResult(result: unknown): string | undefined {
  const invite = (result as { invite?: { inviteId?: unknown } } | null)?.invite;
  return typeof invite?.inviteId === 'string' ? invite.inviteId : undefined;
}

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
    case 'send_team_invite': {
      const inviteId = inviteIdOfResult(result);
      // The invite stands whether or not the email went (it records why not); resending is the remedy.
      if (inviteId) await sendTeamInvite(orgId, inviteId).catch(() => undefined);
      break;
    }
    case 'send_statements': {
      const statementIds = waitingStatementIdsOfResult(result);
      // Each statement records its own delivery; a failed send leaves the call's result standing, and a resend is the remedy.
      if (statementIds.length > 0) await sendStatements(orgId, statementIds).catch(() => undefined);
      break;
    }
    case 'grief_plan': {
      const change = griefPlanChangeOfResult(result);
      if (change?.change === 'opened') await startGriefPlanChild(orgId, change.lifeEventId);
      else if (change) await changeGriefPlan(change.lifeEventId, change.change);
      break;
    }
    case 'send_channel_message': {
      const messageId = channelMessageIdOfResult(result);
      if (messageId) await startChannelMessageChild(orgId, messageId);
      break;
    }
    case 'broadcast': {
      const change = broadcastChangeOfResult(result);
      if (change?.change === 'scheduled') await startBroadcastChild(orgId, change.broadcastId);
      else if (change) await signalBroadcastCancelled(change.broadcastId);
      break;
    }
    case 'whatsapp_template_review': {
      const versionId = templateVersionIdOfResult(result);
      if (versionId) await startWhatsAppReviewChild(orgId, versionId);
      break;
    }
    default:
      break;
  }
  return result;
}
