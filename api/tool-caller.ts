import { randomUUID } from 'node:crypto';
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { z } from 'zod';
import { QUOTE_LIMIT, StewardError, quoteInput, type ErrorIssue } from '../core/errors';
import { unstorableTextIssues } from '../core/input-text';
import { MAX_ARGS_BYTES, describeBytes, jsonFits } from '../core/payload-limits';
import { causeNamesOf, stewardErrorBodyOf } from '../core/failures';
import { log } from '../core/log';
import type { Principal } from '../core/principal';
import type { Scope } from '../core/scopes';
import { holdsPower, powerNotHeld } from '../core/intents';
import { SA_ACTOR, SA_MODULE, SA_ORG, SA_TOOL } from '../core/search-attributes';
import { workflowTypeForPlan, type ToolPlan } from '../core/tool-plan';
import { IDEMPOTENCY_KEY_PATTERN, TOOL_TASK_QUEUE, isReservedIdempotencyKey, toolCallWorkflowId } from '../core/workflow-ids';
import { withTenantTransaction } from '../db/pool';
import { resultOf, waitForEarlyResult } from '../temporal/early-results';
import { noteEagerStart } from '../temporal/eager-starts';
import { watchCallProgress, type CallProgress } from '../temporal/call-progress';
import type { CallProgressFeed } from '../temporal/call-progress-relay';
import { findTool, isInvokeApiTool } from '../modules/catalogue';
import { argsHashOf, policyOf, type AnyTool } from '../modules/tool';
import type { ApprovalCaller, ApprovalWaitOptions } from './approvals';

export interface CallOptions extends ApprovalWaitOptions {
  idempotencyKey?: string;
  /** Hears how far a long call has come (rows imported, exported, scanned) while it runs (temporal/call-progress.ts). */
  onWorkProgress?: (progress: CallProgress) => void;
}

/** A path as issues print it; keys are the caller's text, so each is cut to a short prefix. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.map((key) => {
    const text = String(key);
    return text.length <= QUOTE_LIMIT ? text : `${text.slice(0, QUOTE_LIMIT)}…`;
  }).join('.');
}

function issuesOf(error: z.ZodError): ErrorIssue[] {
  return error.issues.flatMap((issue) => {
    // An unknown key's path is the key itself, so a client can point at the offending field.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: 'Unknown argument; not part of this tool\'s input schema' }));
    }
    return [{ path: pathOf(issue.path) || '(arguments)', message: issue.message }];
  });
}

export function validationError(toolName: string, error: z.ZodError | undefined, textIssues: ErrorIssue[] = []): StewardError {
  const issues = [...textIssues, ...(error ? issuesOf(error) : [])];
  return new StewardError('validation_failed', `Invalid arguments for ${toolName}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    issues,
    hint: `platform_inspect_tools with names ["${toolName}"] shows the expected arguments.`,
  });
}

function payloadTooLarge(toolName: string): StewardError {
  return new StewardError('payload_too_large', `The arguments for ${toolName} are larger than ${describeBytes(MAX_ARGS_BYTES)} as JSON`, {
    hint: 'Split the work into smaller calls.',
  });
}

/** The refusal for a tool this credential may not use: its scope first, then its intent's power (see mayUseTool). */
function accessRefusal(principal: Principal, tool: AnyTool): StewardError | undefined {
  if (!principal.scopes.includes(tool.scope)) return insufficientScope(tool);
  if (!holdsPower(principal, tool.power)) return powerNotHeld(tool.name, principal.intent, tool.power!);
  return undefined;
}

function insufficientScope(tool: AnyTool): StewardError {
  return new StewardError('insufficient_scope', `${tool.name} needs the scope ${tool.scope}, which this credential does not hold`, {
    details: { requiredScope: tool.scope },
    hint: 'platform_session_tools lists what this credential can do.',
  });
}

/** Finds the stable error a workflow failed with, wherever it sits in the cause chain. */
export function errorFromFailure(error: unknown, workflowId?: string): StewardError {
  const body = stewardErrorBodyOf(error);
  if (body) return StewardError.fromBody(body);
  // Not a refusal the tool made: the log keeps where it came from (a timeout, a termination, an exhausted retry).
  log('error', 'tool call failed without a stable error', { workflowId, causes: causeNamesOf(error) });
  return new StewardError('internal_error', 'The tool call failed unexpectedly', { hint: 'Try again; if it keeps failing, report it with platform_report_capability_gap.' });
}

/**
 * The run's memo, shown beside it in the Temporal UI, or none: a memo is stored with the run and
 * copied into its visibility record, which costs the Temporal server about 2 ms of CPU per call
 * (bench/README.md), so a run carries one only where it serves:
 * - a call made under an idempotency key keeps who made it, with which scopes and arguments, so a
 *   replay of the key can be refused to anyone else (see existingCall); a call without a key has a
 *   random workflow id that nobody can replay;
 * - a write made with an OAuth token keeps the actionSummary the assistant showed in the person's
 *   approval dialog (spec 4.2), so operators see what the person agreed to.
 */
export function memoOf(plan: ToolPlan, keyed: boolean): Record<string, unknown> | undefined {
  const memo: Record<string, unknown> = keyed
    ? { argsHash: plan.argsHash, tool: plan.tool, credentialId: plan.principal.credentialId, scopes: [...plan.principal.scopes].sort() }
    : {};
  const summary = plan.args.actionSummary;
  if (plan.principal.credentialKind === 'oauth' && plan.policy.effect !== 'read' && typeof summary === 'string') memo.actionSummary = summary;
  return Object.keys(memo).length > 0 ? memo : undefined;
}

/** The caller's idempotency key, refused with a clear error when it is malformed or reserved. */
function checkedIdempotencyKey(idempotencyKey: string | undefined): string | undefined {
  if (idempotencyKey === undefined) return undefined;
  if (isReservedIdempotencyKey(idempotencyKey)) {
    throw new StewardError('validation_failed', 'Idempotency keys starting with "proposal-" are reserved', {
      issues: [{ path: 'Idempotency-Key', message: 'reserved prefix' }],
    });
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw new StewardError('validation_failed', 'Idempotency key must be 1-128 characters of letters, digits, . _ : -', {
      issues: [{ path: 'Idempotency-Key', message: 'invalid format' }],
    });
  }
  return idempotencyKey;
}

/**
 * Turns (principal, tool name, raw arguments) into a finished tool call: checks
 * the tool and scope, validates, then runs toolCallWorkflow and waits for it.
 */
export class ToolCaller {
  /**
   * `eagerStart`: the client shares a NativeConnection with a worker in this
   * process, so the server can hand the first workflow task straight back in
   * the start response instead of routing it through task-queue matching.
   */
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string = TOOL_TASK_QUEUE,
    private readonly eagerStart = false,
  ) {}

  /** Set by buildApp: carries out approval decisions and gated tools. */
  approvals?: ApprovalCaller;

  /** Set by buildApp: brings progress reported by a worker in another process (temporal/call-progress-relay.ts). */
  progressFeed?: CallProgressFeed;

  /** Set by buildApp: leaves the audit event of a write refused for its scope or intent (api/refusal-trail.ts). */
  refusalTrail?: (principal: Principal, toolName: string, rawArgs: unknown, refusal: StewardError) => Promise<void>;

  /** Called wherever a scope refusal is answered (here, or earlier by the auth middleware). */
  async recordRefusal(principal: Principal, toolName: string, rawArgs: unknown, refusal: StewardError): Promise<void> {
    if (refusal.code === 'insufficient_scope') await this.refusalTrail?.(principal, toolName, rawArgs, refusal);
  }

  /**
   * The insufficient_scope refusal `call` would meet, found without parsing the
   * arguments: for a tool (other than the dispatch tool) refusals come in the
   * order unknown tool, scope, arguments, so the scope verdict never depends on them.
   */
  scopeRefusal(principal: Principal, toolName: string, rawArgs: unknown): StewardError | undefined {
    const tool = findTool(toolName);
    if (!tool) return undefined;
    const refusal = accessRefusal(principal, tool);
    if (refusal || !tool.dispatch) return refusal;
    // The dispatch tool names its inner tool in its arguments: only a full resolve can tell (rare, so not worth a shortcut).
    try {
      this.resolve(principal, toolName, rawArgs);
      return undefined;
    } catch (error) {
      return error instanceof StewardError && error.code === 'insufficient_scope' ? error : undefined;
    }
  }

  resolve(principal: Principal, toolName: string, rawArgs: unknown): { tool: AnyTool; args: Record<string, unknown> } {
    const tool = findTool(toolName);
    if (!tool) {
      throw new StewardError('unknown_tool', `There is no tool named ${quoteInput(toolName)}`, { hint: 'Find tools with platform_search_tools or platform_list_tools.' });
    }
    const refusal = accessRefusal(principal, tool);
    if (refusal) throw refusal;
    const parsed = tool.input.safeParse(rawArgs ?? {});
    // Text Postgres cannot store is refused for every tool alike, whatever its schema says (see core/input-text.ts).
    const textIssues = unstorableTextIssues(rawArgs);
    if (!parsed.success || textIssues.length > 0) throw validationError(tool.name, parsed.success ? undefined : parsed.error, textIssues);
    // Arguments travel in the workflow's input: past the limit Temporal would refuse them (see core/payload-limits.ts).
    if (!jsonFits(parsed.data, MAX_ARGS_BYTES)) throw payloadTooLarge(tool.name);
    if (tool.dispatch === 'execute_inner_tool') return this.resolveInner(principal, parsed.data as { toolName: string; arguments: unknown });
    return { tool, args: parsed.data as Record<string, unknown> };
  }

  private async resolveOrRecord(principal: Principal, toolName: string, rawArgs: unknown): Promise<{ tool: AnyTool; args: Record<string, unknown> }> {
    try {
      return this.resolve(principal, toolName, rawArgs);
    } catch (error) {
      if (error instanceof StewardError) await this.recordRefusal(principal, toolName, rawArgs, error);
      throw error;
    }
  }

  private resolveInner(principal: Principal, outer: { toolName: string; arguments: unknown }) {
    if (isInvokeApiTool(outer.toolName)) {
      throw new StewardError('use_invoke_bridge', `${outer.toolName} is a route bridge; call it directly, not through platform_execute_workflow_tool`);
    }
    // Checked before resolving: resolve() unwraps a nested dispatch tool, so afterwards it could no longer be seen.
    if (findTool(outer.toolName)?.dispatch) {
      throw new StewardError('validation_failed', 'platform_execute_workflow_tool cannot run itself', {
        issues: [{ path: 'toolName', message: 'must name a workflow tool other than platform_execute_workflow_tool' }],
      });
    }
    return this.resolve(principal, outer.toolName, outer.arguments);
  }

  planFor(principal: Principal, tool: AnyTool, args: Record<string, unknown>): ToolPlan {
    return { tool: tool.name, module: tool.module, args, principal, policy: policyOf(tool, args), argsHash: argsHashOf(tool.name, args) };
  }

  async call(principal: Principal, toolName: string, rawArgs: unknown, options: CallOptions = {}): Promise<unknown> {
    const { tool, args } = await this.resolveOrRecord(principal, toolName, rawArgs);
    // Decisions and gated tools belong to the approval workflows (api/approvals.ts); never run them as plain calls,
    // except a conditionally gated tool whose condition does not apply to these arguments.
    if (tool.approval && !(await this.gateLifted(principal, tool, args))) {
      if (!this.approvals) throw new StewardError('unavailable', `${tool.name} needs the approval service, which this server has not enabled`);
      return this.approvals.call(principal, tool, args, options);
    }
    const plan = this.planFor(principal, tool, args);
    const workflowId = toolCallWorkflowId(plan.principal.orgId, checkedIdempotencyKey(options.idempotencyKey) ?? randomUUID());
    const early = this.offersEarlyResult(plan) ? waitForEarlyResult(workflowId) : undefined;
    // Before the start: an eager start may run the whole activity before start() returns.
    const stopWatching = options.onWorkProgress ? watchCallProgress(workflowId, options.onWorkProgress) : undefined;
    // Listening before the start too, for a worker in another process that reports at once.
    const stopFeed = options.onWorkProgress && this.progressFeed ? await this.progressFeed.watch() : undefined;
    try {
      const { handle, replayed } = await this.start(plan, workflowId, options.idempotencyKey);
      // A replayed key's call ran before (or runs in another request): no activity of this call will offer
      // its result, so the answer comes straight from the workflow instead of after the grace period.
      const result = await resultOf(handle, replayed ? undefined : early);
      return args.awaitDecision === true && this.approvals ? await this.approvals.awaitOutreach(principal, result, options) : result;
    } catch (error) {
      if (error instanceof WorkflowFailedError) throw errorFromFailure(error, workflowId);
      throw error;
    } finally {
      early?.cancel();
      stopWatching?.();
      stopFeed?.();
    }
  }

  /**
   * With the worker in this process (eager starts), a call whose last step is the tool's own
   * transaction answers as soon as that commits (temporal/early-results.ts); the workflow's
   * result still answers failures and calls a worker elsewhere ran.
   */
  private offersEarlyResult(plan: ToolPlan): boolean {
    return this.eagerStart && !plan.policy.meter && workflowTypeForPlan(plan) === 'toolCallWorkflow';
  }

  /** True when a conditionally gated tool's condition does not apply to this call (read in one snapshot of the caller's organisation). */
  private async gateLifted(principal: Principal, tool: AnyTool, args: Record<string, unknown>): Promise<boolean> {
    const route = tool.approval;
    if (route?.kind !== 'gated' || !route.when || !this.approvals) return false;
    const condition = route.when;
    const applies = await withTenantTransaction(this.approvals.pool, principal.orgId,
      (db) => condition.applies(args, { db, orgId: principal.orgId }), { readOnly: true });
    return !applies;
  }

  /** Starts the call's workflow; `replayed` when the idempotency key names a call already started. */
  private async start(plan: ToolPlan, workflowId: string, idempotencyKey: string | undefined): Promise<{ handle: WorkflowHandle; replayed: boolean }> {
    try {
      const handle = await this.client.workflow.start(workflowTypeForPlan(plan), {
        taskQueue: this.taskQueue,
        workflowId,
        args: [plan],
        // A finished call's id is never reused, so replaying a key returns the first outcome.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowExecutionTimeout: '10 minutes',
        requestEagerStart: this.eagerStart,
        memo: memoOf(plan, idempotencyKey !== undefined),
        typedSearchAttributes: [
          { key: SA_ORG, value: plan.principal.orgId },
          { key: SA_TOOL, value: plan.tool },
          { key: SA_MODULE, value: plan.module },
          { key: SA_ACTOR, value: plan.principal.userId },
        ],
      });
      if (this.eagerStart) noteEagerStart(handle.eagerlyStarted);
      return { handle, replayed: false };
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError) || idempotencyKey === undefined) throw error;
      return { handle: await this.existingCall(workflowId, plan), replayed: true };
    }
  }

  /**
   * A replayed key returns the first call's outcome only to the credential that
   * made it, still holding every scope it held then, with the same arguments:
   * otherwise a reader could replay another caller's key, or their own from
   * before a permission was withdrawn, and receive what they may not now see.
   */
  private async existingCall(workflowId: string, plan: ToolPlan): Promise<WorkflowHandle> {
    const handle = this.client.workflow.getHandle(workflowId);
    const { memo } = await handle.describe();
    if (memo?.credentialId !== plan.principal.credentialId) {
      throw new StewardError('idempotency_conflict', 'This idempotency key was already used by another credential', {
        hint: 'Use a new idempotency key.',
      });
    }
    const heldThen = Array.isArray(memo?.scopes) ? (memo.scopes as string[]) : [];
    if (heldThen.some((scope) => !plan.principal.scopes.includes(scope as Scope))) {
      // The first result may hold what this credential may no longer see (say, notes behind people:safeguarding).
      throw new StewardError('idempotency_conflict', 'This credential has lost permissions since it used this idempotency key', {
        hint: 'Use a new idempotency key; the call then runs with the permissions held now.',
      });
    }
    if (memo?.argsHash !== plan.argsHash) {
      throw new StewardError('idempotency_conflict', 'This idempotency key was already used with different arguments', {
        hint: 'Use a new idempotency key for a different request.',
      });
    }
    return handle;
  }
}
