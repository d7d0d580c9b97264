import { outreachWorkflowId } from '../../../core/approvals';
import type { FollowUpPlanner, FollowUpStep } from '../../../core/tool-plan';
import { contactsBulkOperationWorkflowId } from './contacts-bulk-operation';
import { griefPlanChangedSignal, griefPlanWorkflowId } from './grief-plan';

/** Data-quality jobs a result names (`job` or `jobs`) that are still queued: each gets its workflow. */
function queuedDataQualityJobs(result: unknown): string[] {
  const value = result as { job?: { id?: unknown; status?: unknown }; jobs?: Array<{ id?: unknown; status?: unknown }> } | null;
  const jobs = [...(value?.job ? [value.job] : []), ...(value?.jobs ?? [])];
  return jobs.filter((job) => typeof job?.id === 'string' && job.status === 'queued').map((job) => job.id as string);
}

/** Outreach item ids a result names (`item` or `items`). */
function outreachIdsOfResult(result: unknown): string[] {
  const out: string[] = [];
  const value = result as { item?: { id?: unknown }; items?: Array<{ id?: unknown }> } | null;
  if (value?.item && typeof value.item.id === 'string') out.push(value.item.id);
  for (const item of value?.items ?? []) if (typeof item?.id === 'string') out.push(item.id);
  return out;
}

/** The plan change a life-event tool's result names (`griefPlan: { lifeEventId, change }`), if any. */
function griefPlanChangeOfResult(result: unknown): { lifeEventId: string; change: 'opened' | 'rescheduled' | 'ended' } | undefined {
  const plan = (result as { griefPlan?: { lifeEventId?: unknown; change?: unknown } | null } | null)?.griefPlan;
  if (!plan || typeof plan.lifeEventId !== 'string') return undefined;
  return plan.change === 'opened' || plan.change === 'rescheduled' || plan.change === 'ended' ? { lifeEventId: plan.lifeEventId, change: plan.change } : undefined;
}

/** The portal invites a send or resend result names (`sent[].inviteId`). */
function portalInviteIdsOfResult(result: unknown): string[] {
  const sent = (result as { sent?: unknown } | null)?.sent;
  if (!Array.isArray(sent)) return [];
  return sent.map((entry) => (entry as { inviteId?: unknown }).inviteId).filter((id): id is string => typeof id === 'string');
}

/** The people module's follow-ups, by kind (see FollowUpPlanner in core/tool-plan.ts). */
export const followUps: Readonly<Record<string, FollowUpPlanner>> = {
  /** A bulk operation on contacts that was started (not a preview, not an empty one) gets its job workflow. */
  'people.contacts_bulk_operation': (result, { orgId }): FollowUpStep[] => {
    const operation = (result as { operation?: { id?: unknown; status?: unknown } } | null)?.operation;
    const started = (result as { mode?: unknown } | null)?.mode === 'run';
    if (!started || typeof operation?.id !== 'string' || operation.status !== 'running') return [];
    return [{
      start: 'contactsBulkOperationWorkflow', id: contactsBulkOperationWorkflowId(orgId, operation.id),
      args: [{ orgId, operationId: operation.id }], searchAttributes: { kind: 'contacts_bulk_operation', status: 'running' },
    }];
  },
  /**
   * Sends each portal invite the result names (`sent[].inviteId`) through the outbox
   * (portal/activities.ts). The invite stands whether or not the message went (it records why not);
   * a resend is the remedy, so a failure leaves the call's result standing.
   */
  'people.send_portal_invites': (result, { orgId }) => portalInviteIdsOfResult(result).map((inviteId) => ({
    activity: 'sendPortalInvite',
    args: [orgId, inviteId],
    options: {
      startToCloseTimeout: '2 minutes',
      heartbeatTimeout: '5 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3 },
    },
    ignoreFailure: true,
  })),

  /** Every outreach item the result names gets its approval workflow (outreach.ts), outliving the call. */
  'people.start_outreach': (result, { orgId }) => outreachIdsOfResult(result).map((itemId) => ({
    start: 'outreachWorkflow', id: outreachWorkflowId(itemId), args: [{ orgId, itemId }], searchAttributes: { kind: 'outreach', status: 'pending_review' },
  })),

  /**
   * A bereavement's grief-care plan (grief-plan.ts): started when recorded, told when its date
   * moved, ended when the bereavement (or the person) was removed.
   */
  'people.grief_plan': (result, { orgId }): FollowUpStep[] => {
    const change = griefPlanChangeOfResult(result);
    if (!change) return [];
    const id = griefPlanWorkflowId(change.lifeEventId);
    if (change.change === 'opened') {
      return [{ start: 'griefPlanWorkflow', id, args: [{ orgId, lifeEventId: change.lifeEventId }], searchAttributes: { kind: 'grief_plan', status: 'running' } }];
    }
    return change.change === 'ended' ? [{ cancel: id }] : [{ signal: griefPlanChangedSignal.name, id }];
  },

  /** A data-quality job (scan, fix, undo) the call recorded runs as its own workflow (data-quality.ts), outliving the call; one already started is left alone. */
  'people.data_quality_job': (result, { orgId }): FollowUpStep[] => queuedDataQualityJobs(result).map((jobId) => ({
    start: 'dataQualityJobWorkflow', id: `data-quality-job-${jobId}`, args: [{ orgId, jobId }], searchAttributes: { kind: 'data_quality_job', status: 'running' },
  })),
};
