import {
  ParentClosePolicy, proxyActivities, startChild, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ApprovalActivities } from '../activities/approval-activities';
import { proposalWorkflowId, type AgentRunInput, type ProposalExecution } from '../core/approvals';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import { errorBodyOf } from '../core/failures';
import { executeProposalAction } from './proposal-action';
import { proposalWorkflow } from './proposal';

const activities = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

export interface AgentRunResult {
  autonomy: string;
  proposed: string[];
  executed: Array<{ proposalId: string; status: ProposalExecution['status'] }>;
}

/**
 * One run of an autonomous agent, started by its schedule. Off: records a
 * skipped run. Propose: each finding becomes a proposal with its own workflow.
 * Auto: each finding is carried out now as a tool call and recorded.
 */
export async function agentRunWorkflow(input: AgentRunInput): Promise<AgentRunResult> {
  const setStatus = (status: string) => upsertSearchAttributes([
    { key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'agent' }, { key: SA_STATUS, value: status },
  ]);
  setStatus('running');
  const runId = workflowInfo().workflowId;
  try {
    const work = await activities.planAgentRun({ orgId: input.orgId, agentKey: input.agentKey, runId });
    if (work.autonomy === 'off') {
      await activities.recordAgentRun(input.orgId, input.agentKey, 'skipped', 'Agent is off');
      setStatus('skipped');
      return { autonomy: 'off', proposed: [], executed: [] };
    }
    for (const proposal of work.proposals) {
      try {
        await startChild(proposalWorkflow, {
          workflowId: proposalWorkflowId(proposal.proposalId),
          args: [{ orgId: input.orgId, proposalId: proposal.proposalId, ttlMs: work.ttlMs }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: [{ key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'proposal' }, { key: SA_STATUS, value: 'pending' }],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
    const executed: AgentRunResult['executed'] = [];
    for (const { plan, proposalId } of work.plans) {
      const execution = await executeProposalAction(input.orgId, proposalId, plan, `agent:${input.agentKey}`);
      await activities.recordProposalExecution(input.orgId, proposalId, execution);
      executed.push({ proposalId, status: execution.status });
    }
    const failed = executed.filter((e) => e.status === 'failed').length;
    const summary = work.autonomy === 'propose'
      ? `Proposed ${work.proposals.length} action${work.proposals.length === 1 ? '' : 's'}`
      : `Carried out ${executed.length - failed} action${executed.length - failed === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}`;
    await activities.recordAgentRun(input.orgId, input.agentKey, failed ? 'partial' : 'succeeded', summary);
    setStatus('completed');
    return { autonomy: work.autonomy, proposed: work.proposals.map((p) => p.proposalId), executed };
  } catch (error) {
    await activities.recordAgentRun(input.orgId, input.agentKey, 'failed', errorBodyOf(error).message);
    setStatus('failed');
    throw error;
  }
}
