import { Context } from '@temporalio/activity';
import type { MeteredFeature } from '../core/billing';
import { StewardError } from '../core/errors';
import { MAX_RESULT_BYTES, jsonFits } from '../core/payload-limits';
import { isProposalActionWorkflowId } from '../core/approvals';
import { TOOL_CALL_RETRY, type ToolPlan } from '../core/tool-plan';
import { namedStatement, queryNamed, queryOne, withTenantTransaction, withTenantTransactionReading, type Pool, type PoolClient, type Queryable } from '../db/pool';
import { transactionOf } from '../db/sequelize';
import { catalogue, findTool } from '../modules/catalogue';
import { assertAllowance, lockFeature, recordUsage } from '../kernel/billing';
import { ORG_SETTINGS_READ, getOrgSettings, orgSettingsOf, type OrgRow } from '../modules/platform/orgs';
import { syncTimelineEntries } from '../modules/people/timeline';
import type { AnyTool, OrgSettings, ToolContext } from '../modules/tool';
import { offerEarlyResult, reportEarlyFailure } from '../temporal/early-results';
import { offerCallProgress, progressReporter } from '../temporal/call-progress';
import { relayCallProgress } from '../temporal/call-progress-relay';
import { finalErrorCodeOf, guarded } from '../modules/activity-kit';
import { accessEventOf, auditEventOf, insertAuditEvent, unsuccessfulEventOf } from '../modules/audit/record';
import { errorFields, log } from '../core/log';
import { sizeInWords } from '../core/sizes';

function toolOf(plan: ToolPlan): AnyTool {
  const tool = findTool(plan.tool);
  if (!tool) throw new StewardError('unknown_tool', `Unknown tool ${plan.tool}`);
  return tool;
}

function currentWorkflowId(): string {
  const execution = Context.current().info.workflowExecution;
  if (!execution) throw new Error('Tool activities only run inside a workflow');
  return execution.workflowId;
}

/**
 * The tool's progress reporter: each report goes to a caller waiting in this process
 * (temporal/call-progress.ts) and, when none here hears it, to one waiting in an API process of its
 * own (temporal/call-progress-relay.ts). A tool call running as a regular activity also heartbeats
 * it, so the Temporal UI shows how far the call has come; a local activity (how most calls run)
 * cannot heartbeat.
 */
function callProgressOf(pool: Pool, workflowId: string): ToolContext['progress'] {
  const activity = Context.current();
  const heartbeats = !activity.info.isLocal;
  const relay = relayCallProgress(pool, workflowId);
  return progressReporter((progress) => {
    offerCallProgress(workflowId, progress);
    relay(progress);
    if (heartbeats) activity.heartbeat(progress);
  });
}

/** What a tool's `prepare` step needs and gives: the organisation, read before any transaction, and its result. */
interface Prepared {
  org: ToolContext['org'];
  value: unknown;
}

/** What the workflow tells every attempt of its call: when the call began (its own start, from its history). */
export interface CallTiming {
  /** Milliseconds since the epoch. */
  startedAt?: number;
}

/**
 * When the call began, in whole seconds, the same on every attempt: the workflow's start as it
 * passes it. Else (a run scheduled by older workflow code) when this activity was first scheduled,
 * which Temporal keeps across the retries of one schedule but not across a workflow task that is
 * replayed after a crash, when the local activity is scheduled afresh.
 */
function callStartedAt(timing: CallTiming): Date {
  const ms = timing.startedAt ?? Context.current().info.scheduledTimestampMs;
  return new Date(Math.floor(ms / 1000) * 1000);
}

/**
 * Runs `prepare` (outside services, such as a postcode lookup) before a transaction opens,
 * so none is held while waiting on the network. Only tools with a `prepare` step read
 * the organisation here; every other tool reads it inside its transaction.
 */
async function prepareCall(pool: Pool, plan: ToolPlan, tool: AnyTool, input: ToolInput, workflowId: string, timing: CallTiming): Promise<Prepared | undefined> {
  if (!tool.prepare) return undefined;
  // A write retried after its commit (a lost acknowledgement) returns its stored result: its outside work is not done again.
  if (tool.effect !== 'read' && await queryOne(pool, 'SELECT 1 FROM tool_call_results WHERE workflow_id = $1', [workflowId])) return undefined;
  const org = await getOrgSettings(pool, plan.principal.orgId);
  return { org, value: await tool.prepare(input, { db: pool, org, principal: plan.principal, workflowId, callStartedAt: callStartedAt(timing) }) };
}

type ToolInput = Parameters<AnyTool['run']>[1];

/** Every write stores its result under its workflow id (a retry returns it); prepared once per connection. */
const STORE_RESULT = namedStatement('store-tool-result', 'INSERT INTO tool_call_results (workflow_id, org_id, tool, result) VALUES ($1, $2, $3, $4)');

/**
 * A tool call's transaction: the statement that makes it the caller organisation's also reads that
 * organisation's settings (ORG_SETTINGS_READ), so a call opens with as many round trips as any tenant transaction.
 */
function withCallTransaction<T>(pool: Pool, plan: ToolPlan, work: (db: PoolClient, org: OrgSettings) => Promise<T>, options: { readOnly?: boolean } = {}): Promise<T> {
  return withTenantTransactionReading<OrgRow, T>(pool, plan.principal.orgId, ORG_SETTINGS_READ, (db, _transaction, row) => work(db, orgSettingsOf(row)), options);
}

/**
 * Runs the tool on the transaction's connection; parses its output once (it is stored and returned as
 * it is). Its organisation is the one its `prepare` step saw, if it had one, else the transaction's.
 */
async function runInside(pool: Pool, db: Queryable, plan: ToolPlan, tool: AnyTool, workflowId: string, input: ToolInput, transactionOrg: OrgSettings, prepared: Prepared | undefined) {
  const org = prepared?.org ?? transactionOrg;
  const ctx: ToolContext = {
    db, transaction: transactionOf(db), principal: plan.principal, org, workflowId, prepared: prepared?.value, catalogue: catalogue(), progress: callProgressOf(pool, workflowId),
  };
  const result = tool.output.parse(await tool.run(ctx, input));
  // The result travels back through the workflow, twice in one task (the activity's marker and the completion):
  // one Temporal would refuse must fail the call here, where a write's transaction still rolls back.
  if (!jsonFits(result, MAX_RESULT_BYTES)) {
    throw new StewardError('payload_too_large', `The result of ${plan.tool} is larger than ${sizeInWords(MAX_RESULT_BYTES)} as JSON`, {
      hint: 'Ask for less at once: a smaller limit, fewer columns or a narrower filter.',
    });
  }
  return result;
}

/**
 * A conditionally gated tool runs as a plain call only while its condition does not apply: asked
 * again here, inside the call's transaction, because what it reads may have changed since the API
 * routed the call. An approved proposal's action is past the gate already.
 */
async function assertGateStillLifted(db: Queryable, plan: ToolPlan, tool: AnyTool, workflowId: string, input: ToolInput): Promise<void> {
  const route = tool.approval;
  if (route?.kind !== 'gated' || !route.when || isProposalActionWorkflowId(plan.principal.orgId, workflowId)) return;
  if (!(await route.when.applies(input as Record<string, unknown>, { db, orgId: plan.principal.orgId }))) return;
  throw new StewardError('conflict', `${tool.name} needs approval by an owner or admin for this call (${route.when.reason})`, {
    hint: 'Call it again: the call then becomes a proposal for an owner or admin to approve.',
  });
}

/**
 * The units a finished call used: the plan's, or, for a tool that says what it actually recorded
 * (`meterUsed`), that many times the tool's unit, read from the result stored under the call's id
 * (a repeat of an already recorded gift records nothing, so it counts nothing).
 */
async function usedUnits(pool: Pool, plan: ToolPlan, planned: number, workflowId: string): Promise<number> {
  const tool = findTool(plan.tool);
  if (!tool?.meterUsed || !tool.meter) return planned;
  const stored = await queryOne<{ result: unknown }>(pool, 'SELECT result FROM tool_call_results WHERE workflow_id = $1', [workflowId]);
  if (!stored) return planned;
  const used = tool.meter.units * tool.meterUsed(stored.result as never);
  // Never more than the allowance check let through.
  return Number.isSafeInteger(used) && used >= 0 ? Math.min(used, planned) : planned;
}

const meterOf = (plan: ToolPlan) => (plan.policy.meter ? { feature: plan.policy.meter.feature as MeteredFeature, units: plan.policy.meter.units } : null);

/**
 * The one log line of a failed call: code, tool, ids and attempt. Never the error's message: a
 * tool's message quotes what the caller sent (an email, a name, an age).
 */
function logFailedCall(plan: ToolPlan, workflowId: string, error: unknown): void {
  const { principal } = plan;
  log('warn', 'tool call failed', {
    ...errorFields(error), tool: plan.tool, orgId: principal.orgId, userId: principal.userId,
    credentialId: principal.credentialId, workflowId, attempt: Context.current().info.attempt,
  });
}

/**
 * A write whose failure is final leaves a `denied` or `failed` audit event, in a transaction of its
 * own since the call's rolled back. A failure that will be retried leaves nothing: it may yet succeed.
 */
async function recordUnsuccessfulWrite(pool: Pool, plan: ToolPlan, workflowId: string, failure: unknown): Promise<void> {
  if (plan.policy.effect === 'read') return;
  const errorCode = finalErrorCodeOf(failure, TOOL_CALL_RETRY.maximumAttempts);
  const tool = findTool(plan.tool);
  if (!errorCode || !tool) return;
  try {
    await withTenantTransaction(pool, plan.principal.orgId, (db) => insertAuditEvent(db, unsuccessfulEventOf(plan, tool, workflowId, errorCode)));
  } catch (error) {
    // The call's own answer matters more than its trail entry: say so in the log and go on.
    log('error', 'audit event of an unsuccessful call not written', { ...errorFields(error), tool: plan.tool, workflowId });
  }
}

export function createToolActivities(deps: { pool: Pool }) {
  const { pool } = deps;

  /** One attempt of a tool call: its transaction, committed or rolled back (see runTool). */
  function runToolOnce(plan: ToolPlan, workflowId: string, timing: CallTiming): Promise<unknown> {
    return guarded(async () => {
      const tool = toolOf(plan);
      // The API parsed the arguments; parsing once more here applies defaults and guards against a stale or altered plan.
      const input = tool.input.parse(plan.args);
      const prepared = await prepareCall(pool, plan, tool, input, workflowId, timing);
      if (tool.effect === 'read') {
        // One snapshot for every query of the read, and a read tool cannot write even by mistake;
        // as the application role, under row-level security for the caller's organisation.
        const read = await withCallTransaction(pool, plan, (db, org) => runInside(pool, db, plan, tool, workflowId, input, org, prepared), { readOnly: true });
        // A read that showed restricted records (ToolAudit.access) leaves an access event; every other read writes nothing.
        const access = tool.audit?.access?.(input, read);
        if (access) await withTenantTransaction(pool, plan.principal.orgId, (db) => insertAuditEvent(db, accessEventOf(plan, tool, workflowId, access)));
        return read;
      }
      return withCallTransaction(pool, plan, async (db, org) => {
        const done = await queryOne<{ result: unknown }>(db, 'SELECT result FROM tool_call_results WHERE workflow_id = $1', [workflowId]);
        if (done) return done.result;
        // The one allowance check: under the lock, so concurrent calls cannot both take the last unit.
        // It comes after `prepare`, which would otherwise hold the transaction and lock across its network call.
        const meter = meterOf(plan);
        if (meter) {
          await lockFeature(db, plan.principal.orgId, meter.feature);
          await assertAllowance(db, plan.principal.orgId, meter.feature, meter.units, { tool: plan.tool });
        }
        await assertGateStillLifted(db, plan, tool, workflowId, input);
        // Previous values, only for a tool that declares how to read them (ToolAudit.before).
        const before = tool.audit?.before ? await tool.audit.before(db, plan.principal.orgId, input) : null;
        const result = await runInside(pool, db, plan, tool, workflowId, input, org, prepared);
        // In the same transaction: the record and its timeline entry appear together or not at all.
        if (plan.policy.timeline && tool.timeline) await syncTimelineEntries(db, plan.principal.orgId, tool.timeline(input, result));
        await queryNamed(db, STORE_RESULT, [
          workflowId, plan.principal.orgId, plan.tool, JSON.stringify(result),
        ]);
        // Its audit event, in the same transaction: one INSERT, linked into the organisation's chain by its trigger.
        await insertAuditEvent(db, auditEventOf(plan, tool, workflowId, result, before));
        return result;
      });
    });
  }

  return {
    /**
     * Kept only for runs started before the allowance check moved into runTool: their
     * histories schedule it, and they must replay and finish (see workflows/tool-call.ts).
     */
    async checkAllowance(plan: ToolPlan): Promise<void> {
      await guarded(async () => {
        const meter = meterOf(plan);
        if (meter) await assertAllowance(pool, plan.principal.orgId, meter.feature, meter.units);
      });
    },

    /**
     * Runs the tool. Reads run in one read-only snapshot. Writes run in one transaction that
     * checks the allowance under a per-feature lock (metered tools), runs the tool, writes its
     * care-timeline entries, and stores the result under the workflow id, so a retry after a
     * lost acknowledgement returns the stored result instead of writing twice. `timing` is the
     * workflow's word on when the call began (absent from runs scheduled by older workflow code).
     */
    async runTool(plan: ToolPlan, timing: CallTiming = {}): Promise<unknown> {
      const workflowId = currentWorkflowId();
      let result: unknown;
      try {
        result = await runToolOnce(plan, workflowId, timing);
      } catch (error) {
        // A caller waiting in this process turns to the workflow's own outcome (temporal/early-results.ts).
        // Recorded before the caller hears of the failure, so the trail already holds it when it does.
        await recordUnsuccessfulWrite(pool, plan, workflowId, error);
        reportEarlyFailure(workflowId);
        logFailedCall(plan, workflowId, error);
        throw error;
      }
      // Committed: a caller waiting in this process may have it now (see temporal/early-results.ts).
      offerEarlyResult(workflowId, result);
      return result;
    },

    /** Counted once per workflow id, however many times this activity is retried. */
    async recordUsage(plan: ToolPlan): Promise<boolean> {
      return guarded(async () => {
        const meter = meterOf(plan);
        if (!meter) return false;
        const workflowId = currentWorkflowId();
        const units = await usedUnits(pool, plan, meter.units, workflowId);
        if (units === 0) return false;
        return recordUsage(pool, { orgId: plan.principal.orgId, feature: meter.feature, units, idempotencyKey: workflowId, tool: plan.tool });
      });
    },

    /**
     * Kept only for runs started before the timeline moved into runTool's transaction: their
     * histories schedule it after runTool (see workflows/tool-call.ts).
     */
    async syncTimeline(plan: ToolPlan, result: unknown): Promise<number> {
      return guarded(async () => {
        const tool = toolOf(plan);
        if (!tool.timeline) return 0;
        const entries = tool.timeline(tool.input.parse(plan.args), tool.output.parse(result));
        return syncTimelineEntries(pool, plan.principal.orgId, entries);
      });
    },
  };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
