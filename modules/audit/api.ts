import { Context } from '@temporalio/activity';
import type { Queryable } from '../../db/pool';
import { proposalWorkflowId } from '../../core/approvals';
import type { ProposalCreated, ProposalDecided } from '../module';
import {
  insertAuditEvent, outsideChangeEventOf, proposalCreationEventOf, proposalDecisionEventOf, workflowDecisionEventOf, type OutsideChange, type WorkflowDecision,
} from './record';

export type { OutsideChange, WorkflowDecision } from './record';

/**
 * Records a change that no tool call made (a provider's webhook, one of Steward's own jobs) in the
 * trail, in the caller's transaction: it commits with the change or not at all. Tool calls need
 * nothing of this; the kernel records them (activities/tool-activities.ts).
 */
export async function recordOutsideChange(db: Queryable, change: OutsideChange): Promise<void> {
  await insertAuditEvent(db, outsideChangeEventOf(change));
}

/**
 * The workflow a job's change belongs to: the running activity's workflow id (so the event leads to the
 * run in Temporal's UI), else 'activity' when the code runs outside an activity (a script, a direct call).
 */
function jobSource(): string {
  try {
    return Context.current().info.workflowExecution?.workflowId ?? 'activity';
  } catch {
    return 'activity';
  }
}

/**
 * The same, for a change one of Steward's own timers or jobs made: the system is the actor, and the
 * activity's workflow id is the source.
 */
export async function recordJobChange(db: Queryable, change: Omit<OutsideChange, 'actorKind' | 'source'>): Promise<void> {
  await recordOutsideChange(db, { ...change, actorKind: 'system', source: jobSource() });
}

/**
 * A proposal's decision (kernel/proposals.ts tells the module kit's `proposalDecided` hook, in the
 * transaction that records it): one event. A person's decision and an expiry happen in the proposal's
 * own workflow, which names it; an agent's auto-approval happens in its run, the activity's workflow.
 */
export async function recordProposalDecision(db: Queryable, decided: ProposalDecided): Promise<void> {
  const source = decided.decidedBy.kind === 'auto' ? jobSource() : proposalWorkflowId(decided.proposalId);
  await insertAuditEvent(db, proposalDecisionEventOf(decided, source));
}

/**
 * A proposal's creation (kernel/proposals.ts tells the module kit's `proposalCreated` hook, in the
 * transaction that inserts it): one event. A gated call's proposal belongs to its own workflow, which
 * the API starts just after; an agent's proposal is made in its run, the activity's workflow.
 */
export async function recordProposalCreation(db: Queryable, created: ProposalCreated): Promise<void> {
  const source = created.proposer?.kind === 'agent' || (created.proposer === null && created.sourceRun !== null) ? jobSource() : proposalWorkflowId(created.proposalId);
  await insertAuditEvent(db, proposalCreationEventOf(created, source));
}

/**
 * A person's decision that a workflow applies rather than the tool activity (the outreach decisions),
 * recorded in the transaction that applies it and only when it changed the record, so a retried step
 * that finds it applied records nothing more.
 */
export async function recordWorkflowDecision(db: Queryable, decision: WorkflowDecision): Promise<void> {
  await insertAuditEvent(db, workflowDecisionEventOf(decision));
}
