import { proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approval-activities';
import type { AutomationRunInput } from '../core/approvals';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import { errorBodyOf } from '../core/failures';
import { followUpSteps, runFollowUpSteps } from './follow-ups';

const activities = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * One scheduled run of a pastoral automation: queues outreach items for review
 * (each with its own approval workflow). It never sends anything.
 */
export async function automationRunWorkflow(input: AutomationRunInput): Promise<{ generated: number; skipped: number }> {
  const setStatus = (status: string) => upsertSearchAttributes([
    { key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'automation' }, { key: SA_STATUS, value: status },
  ]);
  setStatus('running');
  try {
    const run = await activities.runAutomation({ orgId: input.orgId, automationId: input.automationId, runId: workflowInfo().workflowId });
    if (!run.enabled) {
      setStatus('skipped');
      return { generated: 0, skipped: 0 };
    }
    // Each item gets its approval workflow as the people module's tools start them (its follow-up 'people.start_outreach').
    const items = run.itemIds.map((id) => ({ id }));
    await runFollowUpSteps(input.orgId, followUpSteps({ kind: 'people.start_outreach' }, { items }, input.orgId));
    await activities.recordAutomationRun(input.orgId, input.automationId, 'succeeded', run.itemIds.length);
    setStatus('completed');
    return { generated: run.itemIds.length, skipped: run.skipped };
  } catch (error) {
    await activities.recordAutomationRun(input.orgId, input.automationId, `failed: ${errorBodyOf(error).message}`.slice(0, 200), 0);
    setStatus('failed');
    throw error;
  }
}
