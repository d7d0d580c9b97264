import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  OutreachDecision, OutreachItemRecord, OutreachState, ProposalDecision, ProposalDecisionResult, ProposalSnapshot,
} from './approvals';

/**
 * The updates and queries of the approval workflows, defined once for both
 * sides: the workflow registers its handlers with these values and the API
 * sends them, so name, arguments and result type cannot drift apart.
 * Only definitions live here (plain objects, no I/O): the file is bundled into
 * the workflow code and imported by the API alike. The names are part of
 * running workflows' histories and must never change.
 */

/** approve or reject; the answer is definite: executed with its outcome, or refused with the reason. */
export const decideProposalUpdate = defineUpdate<ProposalDecisionResult, [ProposalDecision]>('decideProposal');
export const proposalStateQuery = defineQuery<ProposalSnapshot>('proposalState');

/** A decision on an outreach item: approve (naming the content version seen), edit, decline or cancel. */
export const outreachDecisionUpdate = defineUpdate<OutreachItemRecord, [OutreachDecision]>('outreachDecision');
export const outreachStateQuery = defineQuery<{ state: OutreachState; item: OutreachItemRecord }>('outreachState');
