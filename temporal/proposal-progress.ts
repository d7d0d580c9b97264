import { PROPOSAL_STATUSES, proposalWorkflowId, type ProposalStatus } from '../core/approvals';
import type { CallProgress } from './call-progress';

/**
 * A proposal's decision, told to a caller waiting on it (a gated tool's call that asked for
 * progress). It travels as a call report (temporal/call-progress.ts, and through Postgres when the
 * worker runs apart), keyed by the proposal's workflow id: tool calls' ids start `call-`, so the
 * two never meet, and only the API that opened the proposal for its caller listens on that id.
 * A report carries figures and a line, so the line is the decision itself.
 */
export type ProposalDecisionStatus = Exclude<ProposalStatus, 'pending'>;

export const proposalDecisionKey = proposalWorkflowId;

export function decisionReport(status: ProposalDecisionStatus): CallProgress {
  return { done: 1, message: status };
}

/** The decision a report on a proposal's key tells, or undefined for anything else. */
export function decisionOfReport(report: CallProgress): ProposalDecisionStatus | undefined {
  const status = PROPOSAL_STATUSES.find((s) => s === report.message);
  return status === undefined || status === 'pending' ? undefined : status;
}
