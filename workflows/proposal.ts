import {
  allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approval-activities';
import { decideProposalUpdate, proposalStateQuery } from '../core/approval-messages';
import {
  deciderOf, mayDecideProposals, type ProposalDecision, type ProposalDecisionResult,
  type ProposalSnapshot, type ProposalWorkflowInput,
} from '../core/approvals';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import { stewardFailure } from '../core/failures';
import { executeProposalAction } from './proposal-action';

const records = proxyActivities<ApprovalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * One agent proposal: pending until an owner or admin decides, or until it
 * expires. Approving runs the action as a child tool call with a fixed id, so
 * it runs exactly once however often approval is attempted; rejecting never runs it.
 */
export async function proposalWorkflow(input: ProposalWorkflowInput): Promise<ProposalDecisionResult> {
  // Handlers come first, so a decision that arrives before the proposal is loaded waits for it instead of being lost.
  let loaded = false;
  let state: ProposalSnapshot = {
    id: input.proposalId, orgId: input.orgId, status: 'pending', summary: '', agent: null,
    action: { tool: '', args: {}, argsHash: '' }, expiresAt: new Date(0).toISOString(),
  };
  const setStatus = () => input.searchAttributes !== false && upsertSearchAttributes([
    { key: SA_ORG, value: input.orgId }, { key: SA_KIND, value: 'proposal' }, { key: SA_STATUS, value: state.status },
  ]);

  let deciding = false;
  // Set the moment the timer fires, before the expiry is written: from then on no decision is accepted.
  let expiring = false;
  let outcome: ProposalDecisionResult | null = null;

  function problemWith(decision: ProposalDecision): Error | undefined {
    if (decision.principal.orgId !== input.orgId) return stewardFailure('not_found', `Proposal ${input.proposalId} was not found`);
    if (expiring) return stewardFailure('conflict', 'Proposal was already expired', { details: { status: 'expired' } });
    if (deciding || state.status !== 'pending') {
      return stewardFailure('conflict', `Proposal was already ${state.status === 'pending' ? 'being decided' : state.status}`, { details: { status: state.status } });
    }
    if (!mayDecideProposals(decision.principal)) {
      return stewardFailure('forbidden', 'Only an owner or admin credential with platform:write can decide proposals');
    }
    if (decision.decision === 'approve') {
      const plan = decision.plan;
      if (!plan || plan.tool !== state.action.tool || plan.argsHash !== state.action.argsHash || plan.principal.orgId !== input.orgId) {
        return stewardFailure('validation_failed', 'The approval does not match the proposed action');
      }
    }
    return undefined;
  }

  setHandler(proposalStateQuery, () => state);
  setHandler(decideProposalUpdate, async (decision) => {
    if (!loaded) {
      await condition(() => loaded);
      const problem = problemWith(decision);
      if (problem) throw problem;
    }
    deciding = true;
    const userId = decision.principal.userId;
    if (decision.decision === 'reject') {
      await records.decideProposalRecord(input.orgId, state.id, 'rejected', userId, decision.reason ?? null, deciderOf(decision.principal));
      state.status = 'rejected';
      setStatus();
      outcome = { proposalId: state.id, status: 'rejected', execution: null };
      return outcome;
    }
    await records.decideProposalRecord(input.orgId, state.id, 'approved', userId, decision.reason ?? null, deciderOf(decision.principal));
    state.status = 'approved';
    setStatus();
    // The approver's plan supplies the credential and policy; the arguments are always the ones
    // proposed (whose hash the decision was checked against), never whatever the update carried.
    const plan = { ...decision.plan!, args: state.action.args, argsHash: state.action.argsHash };
    const execution = await executeProposalAction(input.orgId, state.id, plan, plan.principal.userId);
    await records.recordProposalExecution(input.orgId, state.id, execution);
    outcome = { proposalId: state.id, status: 'approved', execution };
    return outcome;
  }, {
    validator: (decision) => {
      if (!loaded) return;
      const problem = problemWith(decision);
      if (problem) throw problem;
    },
  });

  const opened = await records.openProposal(input);
  if (!opened) throw stewardFailure('conflict', 'An equal proposal is already open');
  state = opened;
  loaded = true;
  setStatus();
  if (state.status !== 'pending') outcome = { proposalId: state.id, status: state.status, execution: null };

  if (state.status === 'pending') {
    // Workflow time: Date.now() is deterministic here, and the time-skipping test server fast-forwards this timer.
    const remaining = Math.max(1, Date.parse(state.expiresAt) - Date.now());
    const decidedInTime = await condition(() => deciding, remaining);
    if (!decidedInTime) {
      expiring = true;
      await records.decideProposalRecord(input.orgId, state.id, 'expired', null, 'Not decided before it expired', { kind: 'expiry' });
      state.status = 'expired';
      setStatus();
      outcome = { proposalId: state.id, status: 'expired', execution: null };
    }
  }
  await condition(() => outcome !== null && allHandlersFinished());
  return outcome!;
}
