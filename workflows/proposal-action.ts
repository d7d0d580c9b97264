import { executeChild } from '@temporalio/workflow';
import { proposalActionWorkflowId, type ProposalExecution } from '../core/approvals';
import { SA_ACTOR, SA_MODULE, SA_ORG, SA_TOOL } from '../core/search-attributes';
import { workflowTypeForPlan, type ToolPlan } from '../core/tool-plan';
import { errorBodyOf } from '../core/failures';

/**
 * Carries out a proposal's action as a child tool call. The child's id is fixed
 * by the proposal, so however often this is reached the action runs once.
 */
export async function executeProposalAction(orgId: string, proposalId: string, plan: ToolPlan, actor: string): Promise<ProposalExecution> {
  const workflowId = proposalActionWorkflowId(orgId, proposalId);
  try {
    const result = await executeChild(workflowTypeForPlan(plan), {
      workflowId,
      args: [plan],
      typedSearchAttributes: [
        { key: SA_ORG, value: orgId }, { key: SA_TOOL, value: plan.tool }, { key: SA_MODULE, value: plan.module }, { key: SA_ACTOR, value: actor },
      ],
    });
    return { status: 'succeeded', workflowId, result };
  } catch (error) {
    return { status: 'failed', workflowId, error: errorBodyOf(error) };
  }
}
