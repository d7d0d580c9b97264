import { randomUUID } from 'node:crypto';
import {
  ActivityFailure, WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError, type Client, type WorkflowHandle,
} from '@temporalio/client';
import {
  DEFAULT_PROPOSAL_TTL_MS, credentialActorOf, mayDecideOutreach, mayDecideProposals, outreachWorkflowId, proposalActionWorkflowId, proposalWorkflowId,
  type OutreachDecision, type ProposalDecision, type ProposalDecisionResult, type ProposalWorkflowInput,
} from '../core/approvals';
import { decideProposalUpdate, outreachDecisionUpdate } from '../core/approval-messages';
import { StewardError, isErrorCode } from '../core/errors';
import { causeChainOf, stewardErrorBodyOf } from '../core/failures';
import type { Principal } from '../core/principal';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import type { Pool } from '../db/pool';
import { findTool } from '../modules/catalogue';
import {
  getOutreachItem, recordRefusedOutreachDecision, repeatsStandingDecision, type OutreachItem,
} from '../modules/people/outreach';
import { actionHashOf, getProposalRow, insertProposal, stableUuid } from '../kernel/proposals';
import { policyOf, type AnyTool } from '../modules/tool';
import { mayUseTool } from '../modules/tool-catalogue';
import { watchCallProgress, type CallProgress } from '../temporal/call-progress';
import type { CallProgressFeed } from '../temporal/call-progress-relay';
import { decisionOfReport, proposalDecisionKey } from '../temporal/proposal-progress';
import { ProposalStages, type ApprovalStageListener } from './approval-stages';

/** Progress while a call waits for a person (MCP sends these as notifications/progress). */
export interface ApprovalProgress {
  elapsedMs: number;
  budgetMs: number;
  message: string;
}

export interface ApprovalWaitOptions {
  /** How long the caller is willing to wait for a human decision; 0 answers approval_required at once. */
  approvalWaitMs?: number;
  onProgress?: (progress: ApprovalProgress) => Promise<void> | void;
  progressIntervalMs?: number;
  /** A gated call that waits: what happens once a person has decided (api/approval-stages.ts); the waiting reports then stop. */
  onStage?: ApprovalStageListener;
}

/** What an approval route's call may be given besides its wait. */
type ApprovalCallOptions = ApprovalWaitOptions & {
  idempotencyKey?: string;
  /** An approval's call: hears the approved action's own progress while it runs. */
  onWorkProgress?: (progress: CallProgress) => void;
};

/** How long an approve waits to report how the send went before answering with the approved item. */
const SEND_WAIT_MS = Number(process.env.STEWARD_SEND_WAIT_MS ?? 15_000);
const MAX_WAIT_MS = 10 * 60_000;

/** Resolves after `ms`, or at once when `signal` aborts: a finished wait leaves no timer behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Waits for `work` for at most `budgetMs`, reporting progress every interval.
 * Resolves with the value, or 'timeout' when the budget ran out first; the
 * wait itself (a long poll on the workflow) is then aborted, not left running.
 */
export async function waitWithProgress<T>(work: (signal: AbortSignal) => Promise<T>, options: ApprovalWaitOptions, message: string): Promise<T | 'timeout'> {
  const budgetMs = Math.min(Math.max(0, options.approvalWaitMs ?? 0), MAX_WAIT_MS);
  if (budgetMs === 0) return 'timeout';
  const abort = new AbortController();
  const waiting = work(abort.signal);
  waiting.catch(() => undefined);
  const started = Date.now();
  const interval = Math.max(100, options.progressIntervalMs ?? 2000);
  let done = false;
  const ticker = (async () => {
    while (!done) {
      const elapsedMs = Date.now() - started;
      if (elapsedMs >= budgetMs) return 'timeout' as const;
      await options.onProgress?.({ elapsedMs, budgetMs, message });
      await sleep(Math.min(interval, budgetMs - elapsedMs), abort.signal);
    }
    return 'timeout' as const;
  })();
  try {
    return await Promise.race([waiting, ticker]);
  } finally {
    done = true;
    abort.abort();
  }
}

/**
 * Whether approving would let a credential grant power over the organisation to itself: a gated
 * tool exercising a power (an owner or admin role, full autonomy) is approved by a person, never
 * by the credential (an assistant's token or key) that proposed it. A person signed in to the
 * dashboard is that person, whoever proposed it.
 */
function grantsPowerAlone(action: AnyTool, proposedBy: string | null, approver: Principal): boolean {
  if (action.power === undefined || action.approval?.kind !== 'gated') return false;
  return approver.credentialKind !== 'dashboard' && proposedBy === approver.credentialId;
}

/**
 * What a decision answers: the outcome, unless the approved action then failed. That is no approval
 * carried out, so it answers the action's own error (code, message, hint), with the proposal and its
 * recorded state (approved, execution failed) in the details; platform_get_proposal shows the same.
 */
function answerOfDecision(result: ProposalDecisionResult): ProposalDecisionResult {
  const execution = result.execution;
  if (execution?.status !== 'failed') return result;
  const cause = execution.error ?? { code: 'internal_error', message: 'The approved action failed' };
  throw new StewardError(isErrorCode(cause.code) ? cause.code : 'internal_error', cause.message, {
    hint: cause.hint ?? 'platform_get_proposal shows the proposal and how its action failed.',
    details: { proposalId: result.proposalId, status: result.status, execution: { status: 'failed', workflowId: execution.workflowId, error: cause } },
  });
}

/** The proposal a gated call with an idempotency key opens, and finds again when the key is used again. */
export function gatedProposalIdOf(orgId: string, toolName: string, idempotencyKey: string): string {
  return stableUuid(`${orgId}:${toolName}:${idempotencyKey}`);
}

/** How a gated call's caller follows its proposal: the tool that shows its decision and, once run, its outcome. */
function checkOf(proposalId: string) {
  return { tool: 'platform_get_proposal', arguments: { proposalId } };
}

/** The answer of a gated call whose proposal no one has decided yet. */
function pendingAnswer(tool: AnyTool, proposalId: string): StewardError {
  return new StewardError('approval_required', `${tool.name} needs approval by an owner or admin; proposal ${proposalId} is pending`, {
    details: { proposalId, workflowId: proposalWorkflowId(proposalId), status: 'pending', check: checkOf(proposalId), approveAt: '/dashboard/approvals' },
    hint: `Tell the user it awaits approval. Check with platform_get_proposal {"proposalId":"${proposalId}"}; an owner or admin decides with platform_approve_proposal / platform_reject_proposal or at /dashboard/approvals.`,
  });
}

/**
 * The answer of a gated call whose proposal was approved but whose action was still running when the
 * wait ended: still approval_required (no result to give yet), but with the approval in its status, so
 * the caller neither asks for approval again nor repeats the call, and follows the proposal instead.
 */
function runningAnswer(orgId: string, tool: AnyTool, proposalId: string): StewardError {
  return new StewardError('approval_required', `${tool.name} was approved (proposal ${proposalId}) and is still running; its outcome is not known yet`, {
    details: {
      proposalId, workflowId: proposalWorkflowId(proposalId), status: 'approved',
      execution: { status: 'running', workflowId: proposalActionWorkflowId(orgId, proposalId) }, check: checkOf(proposalId),
    },
    hint: `Tell the user it was approved and is being carried out; do not call it again. platform_get_proposal {"proposalId":"${proposalId}"} shows its outcome (execution) once it has run.`,
  });
}

/** The StewardError an update was refused or failed with (from its validator or handler), if it carries one. */
function stewardErrorOfUpdate(error: unknown): StewardError | undefined {
  const body = stewardErrorBodyOf(error);
  return body && StewardError.fromBody(body);
}

/** Whether an update failed in one of the workflow's activities (a decision's step), rather than in its validator or handler. */
function failedInStep(error: WorkflowUpdateFailedError): boolean {
  return [...causeChainOf(error.cause)].some((cause) => cause instanceof ActivityFailure);
}

/**
 * Refusals a decision's step met and recorded itself (modules/people/activities/outreach.ts): the API
 * records every other refusal of an outreach decision, so each is recorded once.
 */
const recordedByStep = new WeakSet<StewardError>();

/**
 * Tool calls that belong to the approval workflows: decisions become Temporal
 * updates on proposal-<id> / outreach-<id>; gated tools become proposals; a
 * call that must wait for a person waits within the caller's budget, then
 * answers approval_required with the id and how to check on it.
 */
export class ApprovalCaller {
  constructor(private readonly client: Client, readonly pool: Pool, private readonly taskQueue: string) {}

  /** Set by buildApp: brings the reports of a worker in another process (temporal/call-progress-relay.ts). */
  progressFeed?: CallProgressFeed;

  /** Carries out a tool that declares an `approval` route: a decision on an item's workflow, or a gated call that becomes a proposal. */
  async call(principal: Principal, tool: AnyTool, args: Record<string, unknown>, options: ApprovalCallOptions): Promise<unknown> {
    const route = tool.approval;
    if (!route) throw new Error(`${tool.name} is not an approval tool`);
    if (route.kind === 'gated') return this.propose(principal, tool, args, options);
    if (route.target === 'proposal') return this.decideProposal(principal, String(args[route.idArg]), route.decision, args, options.onWorkProgress);
    return this.decideOutreach(principal, String(args[route.idArg]), route.decision, args);
  }

  // ---- proposals ------------------------------------------------------------------

  private async decideProposal(
    principal: Principal, proposalId: string, decision: 'approve' | 'reject', args: Record<string, unknown>, onWorkProgress?: (progress: CallProgress) => void,
  ): Promise<ProposalDecisionResult> {
    const row = await getProposalRow(this.pool, principal.orgId, proposalId);
    const action = row && findTool(row.tool);
    // As in platform_get_proposal: a proposal whose action this credential could not run itself does not exist for it.
    if (!row || !action || !mayUseTool(principal, action)) {
      throw new StewardError('not_found', `Proposal ${proposalId} was not found`, { hint: 'platform_pending_proposals lists open proposals.' });
    }
    if (!mayDecideProposals(principal)) {
      throw new StewardError('forbidden', 'Only an owner or admin credential with platform:write can approve or reject proposals', {
        details: { proposalId, role: principal.role },
      });
    }
    if (decision === 'approve' && grantsPowerAlone(action, row.proposed_by_credential_id, principal)) {
      throw new StewardError('forbidden', `${action.name} grants power over the organisation: a person approves it with another credential than the one that proposed it`, {
        details: { proposalId }, hint: 'An owner or admin approves it on the dashboard approvals page, or with their own credential.',
      });
    }
    const payload: ProposalDecision = { decision, principal, reason: typeof args.reason === 'string' ? args.reason : undefined };
    if (decision === 'approve') {
      payload.plan = { tool: action.name, module: action.module, args: row.args, principal, policy: policyOf(action, row.args), argsHash: row.args_hash };
    }
    if (row.status !== 'pending') throw this.alreadyDecided(proposalId, row.status);
    const handle = await this.ensureProposalWorkflow(principal.orgId, proposalId);
    // An approval answers once the action has run, so its caller hears the action's own progress meanwhile.
    const stopHearing = decision === 'approve' && onWorkProgress
      ? await this.hear({ [proposalActionWorkflowId(principal.orgId, proposalId)]: onWorkProgress }) : undefined;
    try {
      return answerOfDecision(await handle.executeUpdate(decideProposalUpdate, { args: [payload] }));
    } catch (error) {
      if (error instanceof StewardError) throw error;
      if (error instanceof WorkflowUpdateFailedError) throw stewardErrorOfUpdate(error) ?? error;
      const again = await getProposalRow(this.pool, principal.orgId, proposalId);
      if (again && again.status !== 'pending') throw this.alreadyDecided(proposalId, again.status);
      throw error;
    } finally {
      stopHearing?.();
    }
  }

  /**
   * Hears the reports made under each workflow id, in this process and (through Postgres) from a
   * worker in another, until the returned function is called.
   */
  private async hear(listeners: Record<string, (progress: CallProgress) => void>): Promise<() => void> {
    const stops = Object.entries(listeners).map(([workflowId, listener]) => watchCallProgress(workflowId, listener));
    const stopFeed = await this.progressFeed?.watch();
    return () => {
      for (const stop of stops) stop();
      stopFeed?.();
    };
  }

  /** A gated call's stages, heard from the proposal's decision and its action's reports; none when the call does not wait or asked for none. */
  private async hearStages(orgId: string, tool: AnyTool, proposalId: string, options: ApprovalWaitOptions) {
    if (!options.onStage || !((options.approvalWaitMs ?? 0) > 0)) return undefined;
    const stages = new ProposalStages(tool.name, options.onStage);
    const stop = await this.hear({
      [proposalDecisionKey(proposalId)]: (report) => {
        const status = decisionOfReport(report);
        if (status) stages.decided(status);
      },
      [proposalActionWorkflowId(orgId, proposalId)]: (report) => stages.work(report),
    });
    return { stages, stop };
  }

  private alreadyDecided(proposalId: string, status: string): StewardError {
    return new StewardError('conflict', `Proposal was already ${status}`, {
      details: { proposalId, status }, hint: 'platform_get_proposal shows the decision and, for an approval, its outcome.',
    });
  }

  /** A gated tool: the call becomes a proposal for an owner or admin, and waits for the decision within the budget. */
  private async propose(principal: Principal, tool: AnyTool, args: Record<string, unknown>, options: ApprovalCallOptions): Promise<unknown> {
    const plan = { tool: tool.name, args };
    await assertNamedContactsExist(this.pool, principal.orgId, args);
    // One proposal per key in the organisation, as one call per key for plain tool calls: the key
    // belongs to the credential that first used it, so another credential's use is a conflict below.
    const proposalId = options.idempotencyKey ? gatedProposalIdOf(principal.orgId, tool.name, options.idempotencyKey) : randomUUID();
    const input: ProposalWorkflowInput = {
      orgId: principal.orgId,
      proposalId,
      ttlMs: DEFAULT_PROPOSAL_TTL_MS,
      create: {
        action: { tool: plan.tool, args, argsHash: actionHashOf(plan.tool, args) },
        summary: typeof args.actionSummary === 'string' && args.actionSummary ? args.actionSummary : `${tool.title}: ${JSON.stringify(args).slice(0, 300)}`,
        agent: null,
        proposedBy: { userId: principal.userId, credentialId: principal.credentialId, credentialKind: principal.credentialKind, scopes: [...principal.scopes] },
        dedupeKey: null,
      },
    };
    // The row exists before the call answers, so the id it returns can be decided at once; the workflow's own insert is then a no-op.
    await insertProposal(this.pool, {
      id: proposalId, orgId: principal.orgId, tool: tool.name, args, argsHash: input.create!.action.argsHash, summary: input.create!.summary,
      agentKey: null, proposedByUserId: principal.userId, proposedByCredentialId: principal.credentialId, dedupeKey: null, sourceRun: null,
      proposer: { kind: 'credential', ...credentialActorOf(principal) }, expiresAt: new Date(Date.now() + DEFAULT_PROPOSAL_TTL_MS),
    });
    const row = await getProposalRow(this.pool, principal.orgId, proposalId);
    if (!row || row.args_hash !== input.create!.action.argsHash || row.tool !== tool.name) {
      throw new StewardError('idempotency_conflict', 'This idempotency key was already used with different arguments', { hint: 'Use a new idempotency key for a different request.' });
    }
    if (row.proposed_by_credential_id !== principal.credentialId) {
      throw new StewardError('idempotency_conflict', 'This idempotency key was already used by another credential', { hint: 'Use a new idempotency key for this request.' });
    }
    // Listening before the workflow, which records the decision, starts (a decision missed all the same is told from the outcome).
    const hearing = await this.hearStages(principal.orgId, tool, proposalId, options);
    try {
      const handle = await this.ensureProposalWorkflow(principal.orgId, proposalId, input);
      return await this.awaitProposal(principal.orgId, tool, proposalId, handle, options, hearing?.stages);
    } finally {
      hearing?.stop();
    }
  }

  /** The proposal's workflow, started if it is not running yet (its start is idempotent by id). */
  private async ensureProposalWorkflow(orgId: string, proposalId: string, input?: ProposalWorkflowInput): Promise<WorkflowHandle> {
    let handle: WorkflowHandle;
    try {
      handle = await this.client.workflow.start('proposalWorkflow', {
        taskQueue: this.taskQueue,
        workflowId: proposalWorkflowId(proposalId),
        args: [input ?? { orgId, proposalId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [{ key: SA_ORG, value: orgId }, { key: SA_KIND, value: 'proposal' }, { key: SA_STATUS, value: 'pending' }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      handle = this.client.workflow.getHandle(proposalWorkflowId(proposalId));
    }
    return handle;
  }

  private async awaitProposal(
    orgId: string, tool: AnyTool, proposalId: string, handle: WorkflowHandle, options: ApprovalWaitOptions, stages?: ProposalStages,
  ): Promise<unknown> {
    // Once a decision is heard the stages say what happens; "waiting for a person" would no longer be true.
    const waitOptions = stages ? { ...options, onProgress: (p: ApprovalProgress) => (stages.waiting ? options.onProgress?.(p) : undefined) } : options;
    const waited = await waitWithProgress((signal) => this.client.withAbortSignal(signal, () => handle.result() as Promise<ProposalDecisionResult>), waitOptions,
      `Waiting for an owner or admin to approve ${tool.name} (proposal ${proposalId})`);
    // The budget ran out: the answer is where the proposal stands now, which a person may have changed during the wait.
    const outcome = waited === 'timeout' ? await this.proposalNow(orgId, proposalId) : waited;
    if (outcome.status === 'pending') throw pendingAnswer(tool, proposalId);
    if (outcome.status === 'approved' && !outcome.execution) throw runningAnswer(orgId, tool, proposalId);
    await stages?.finish(outcome);
    return this.resultOfDecision(outcome);
  }

  /** The proposal's recorded decision and execution, as platform_get_proposal shows them. */
  private async proposalNow(orgId: string, proposalId: string): Promise<ProposalDecisionResult> {
    const row = await getProposalRow(this.pool, orgId, proposalId);
    if (!row) throw new Error(`Proposal ${proposalId} has no record`);
    return { proposalId, status: row.status, execution: row.execution };
  }

  private resultOfDecision(outcome: ProposalDecisionResult): unknown {
    const execution = outcome.execution;
    if (outcome.status === 'approved' && execution?.status === 'succeeded') return execution.result;
    if (outcome.status === 'approved' && execution?.status === 'failed') {
      const body = execution.error ?? { code: 'internal_error', message: 'The approved action failed' };
      throw new StewardError(isErrorCode(body.code) ? body.code : 'internal_error', body.message, {
        hint: body.hint ?? 'platform_get_proposal shows the proposal and how its action failed.',
        details: { proposalId: outcome.proposalId, workflowId: execution.workflowId, status: 'approved', execution: { status: 'failed', workflowId: execution.workflowId } },
      });
    }
    throw new StewardError('forbidden', `The proposal was ${outcome.status}; the action was not carried out`, {
      details: { proposalId: outcome.proposalId, status: outcome.status },
    });
  }

  // ---- outreach -------------------------------------------------------------------

  /**
   * A decision on an outreach item. One refused with a stable error, after the credential passed the
   * tool's scope at the door, leaves one `denied` or `failed` event in the caller's organisation (an
   * item not found, another organisation's alike, a role that may not decide, a conflict with where
   * the item stands): written here unless the decision's own step met it and wrote it already.
   */
  private async decideOutreach(
    principal: Principal, outreachId: string, decision: OutreachDecision['decision'], args: Record<string, unknown>,
  ): Promise<{ item: OutreachItem }> {
    const contentVersion = typeof args.contentVersion === 'number' ? args.contentVersion : undefined;
    try {
      return await this.applyOutreachDecision(principal, outreachId, decision, args, contentVersion);
    } catch (error) {
      if (error instanceof StewardError && !recordedByStep.has(error)) {
        await recordRefusedOutreachDecision(this.pool, {
          orgId: principal.orgId, id: outreachId, decision, actor: credentialActorOf(principal), errorCode: error.code, contentVersion,
        });
      }
      throw error;
    }
  }

  private async applyOutreachDecision(
    principal: Principal, outreachId: string, decision: OutreachDecision['decision'], args: Record<string, unknown>, contentVersion: number | undefined,
  ): Promise<{ item: OutreachItem }> {
    const item = await getOutreachItem(this.pool, principal.orgId, outreachId);
    if (!item) throw new StewardError('not_found', `Outreach item ${outreachId} was not found`, { hint: 'people_list_pending_outreach lists the queue.' });
    if (!mayDecideOutreach(principal)) {
      throw new StewardError('forbidden', 'Only owners, admins and staff holding people:write can decide pastoral messages', { details: { role: principal.role } });
    }
    // The same person making the same decision again (a retried call): the item as it stands, and nothing recorded.
    if (await repeatsStandingDecision(this.pool, principal.orgId, item, decision, principal.userId, contentVersion)) return { item };
    const payload: OutreachDecision = {
      decision, principal, contentVersion,
      reason: typeof args.reason === 'string' ? args.reason : undefined,
    };
    if (decision === 'edit') {
      payload.changes = {};
      if (args.subject !== undefined) payload.changes.subject = args.subject as string | null;
      if (typeof args.body === 'string') payload.changes.body = args.body;
      if (typeof args.channel === 'string') payload.changes.channel = args.channel as 'email';
    }
    const handle = await this.outreachHandle(principal.orgId, item);
    try {
      if (decision !== 'approve') return { item: await handle.executeUpdate(outreachDecisionUpdate, { args: [payload] }) };
      // Approval returns once the send has been tried (sent, or approved with the reason it could not go), or after a short wait.
      const update = await handle.startUpdate(outreachDecisionUpdate, { args: [payload], waitForStage: 'ACCEPTED' });
      const outcome = await waitWithProgress((signal) => this.client.withAbortSignal(signal, () => update.result()), { approvalWaitMs: SEND_WAIT_MS }, 'Sending');
      if (outcome !== 'timeout') return { item: outcome };
      return { item: (await getOutreachItem(this.pool, principal.orgId, outreachId))! };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        const refusal = stewardErrorOfUpdate(error);
        if (refusal && failedInStep(error)) recordedByStep.add(refusal);
        throw refusal ?? error;
      }
      const now = await getOutreachItem(this.pool, principal.orgId, outreachId);
      if (now && ['sent', 'declined', 'cancelled'].includes(now.status)) {
        throw new StewardError('conflict', now.status === 'sent' ? 'The message has already been sent' : `The message is already ${now.status}`, {
          details: { outreachId, status: now.status },
        });
      }
      throw error;
    }
  }

  /** The item's workflow; one is started if an open item somehow lacks it (its start is idempotent). */
  private async outreachHandle(orgId: string, item: OutreachItem): Promise<WorkflowHandle> {
    const workflowId = outreachWorkflowId(item.id);
    if (item.status === 'pending_review' || item.status === 'approved') {
      try {
        await this.client.workflow.start('outreachWorkflow', {
          taskQueue: this.taskQueue, workflowId, args: [{ orgId, itemId: item.id }], workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [{ key: SA_ORG, value: orgId }, { key: SA_KIND, value: 'outreach' }, { key: SA_STATUS, value: item.status }],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
    return this.client.workflow.getHandle(workflowId);
  }

  /** people_create_outreach with awaitDecision: wait for the item's workflow to finish within the budget. */
  async awaitOutreach(principal: Principal, result: unknown, options: ApprovalWaitOptions): Promise<unknown> {
    const item = (result as { item?: OutreachItem }).item;
    if (!item) return result;
    const handle = this.client.workflow.getHandle(outreachWorkflowId(item.id));
    const outcome = await waitWithProgress((signal) => this.client.withAbortSignal(signal, () => handle.result() as Promise<OutreachItem>), options, `Waiting for a person to review the message to ${item.contactName}`);
    if (outcome !== 'timeout') return { item: outcome };
    const current = (await getOutreachItem(this.pool, principal.orgId, item.id)) ?? item;
    throw new StewardError('approval_required', `The message to ${item.contactName} is waiting for approval (outreach ${item.id}, ${current.status})`, {
      details: {
        outreachId: item.id, workflowId: outreachWorkflowId(item.id), status: current.status, contentVersion: current.contentVersion,
        check: { tool: 'people_get_outreach_item', arguments: { outreachId: item.id } }, approveAt: '/dashboard/approvals',
      },
      hint: `Tell the user it awaits approval. Check with people_get_outreach_item {"outreachId":"${item.id}"}; staff approve it with people_approve_outreach or at /dashboard/approvals.`,
    });
  }
}

/**
 * A proposal must name only live contacts of this organisation: otherwise a
 * pending item would sit on the dashboard that can only fail once approved.
 */
async function assertNamedContactsExist(pool: Pool, orgId: string, args: Record<string, unknown>): Promise<void> {
  const ids = Object.entries(args).filter(([key, value]) => /contactId$/i.test(key) && typeof value === 'string').map(([, value]) => value as string);
  if (ids.length === 0) return;
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM contacts WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL', [orgId, ids]);
  const found = new Set(rows.map((row) => row.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new StewardError('not_found', `Contact ${missing[0]} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  }
}
