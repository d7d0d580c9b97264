import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import type { MeteredFeature } from '../core/billing';
import { StewardError } from '../core/errors';
import type { ToolPlan } from '../core/tool-plan';
import { queryOne, withTransaction, type Pool, type Queryable } from '../db/pool';
import { findTool } from '../modules/catalogue';
import { assertAllowance, lockFeature, recordUsage } from '../modules/platform/billing';
import { getOrgSettings } from '../modules/platform/orgs';
import { syncTimelineEntries } from '../modules/people/timeline';
import type { AnyTool, ToolContext } from '../modules/tool';

/**
 * Postgres errors that no retry can cure: bad data (class 22), a NOT NULL or CHECK
 * violation, and statement errors (class 42). Unique and foreign-key violations,
 * serialization failures, deadlocks and lost connections stay retryable: a race
 * that caused them may be gone on the next attempt.
 */
export function isDeterministicDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return code.startsWith('22') || code.startsWith('42') || code === '23502' || code === '23514';
}

/**
 * Expected failures cross into the workflow as non-retryable ApplicationFailures typed by their stable code.
 * Bugs that would fail the same way on every attempt (a result that breaks the tool's output schema,
 * a deterministic database error) fail at once as internal_error, without their details, instead of
 * holding the caller through every retry.
 */
function describeDatabaseError(error: unknown): string {
  const { code, constraint, table } = error as { code?: string; constraint?: string; table?: string };
  return `pg ${code ?? '?'}${constraint ? ` (constraint ${constraint})` : ''}${table ? ` on ${table}` : ''}`;
}

export function toFailure(error: unknown): unknown {
  if (error instanceof StewardError) {
    return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true, details: [error.toBody()] });
  }
  if (error instanceof ZodError || isDeterministicDatabaseError(error)) {
    // Postgres messages quote the offending value (caller data): log the SQLSTATE and constraint only.
    console.error('tool activity failed deterministically:', error instanceof ZodError ? 'output did not match its schema' : describeDatabaseError(error));
    const body = new StewardError('internal_error', 'The tool call failed unexpectedly', {
      hint: 'This is a fault on our side, not in your arguments; retrying will not help.',
    }).toBody();
    return ApplicationFailure.create({ type: 'internal_error', message: body.message, nonRetryable: true, details: [body] });
  }
  return error;
}

/** Runs an activity's work, turning what it throws into the failure the workflow should see (see toFailure). */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toFailure(error);
  }
}

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

/** What a call needs before any transaction: its parsed input, the organisation, and the tool's `prepare` result. */
interface PreparedCall {
  input: Parameters<AnyTool['run']>[1];
  org: ToolContext['org'];
  prepared: unknown;
}

/**
 * Parses the arguments once (the API validated them; parsing again applies defaults and guards
 * against a stale plan), reads the organisation once, and runs `prepare` (outside services)
 * before a transaction opens, so none is held while waiting on the network.
 */
async function prepareCall(pool: Pool, plan: ToolPlan, tool: AnyTool): Promise<PreparedCall> {
  const input = tool.input.parse(plan.args);
  const org = await getOrgSettings(pool, plan.principal.orgId);
  const prepared = tool.prepare ? await tool.prepare(input, { db: pool, org }) : undefined;
  return { input, org, prepared };
}

async function runInside(db: Queryable, plan: ToolPlan, tool: AnyTool, workflowId: string, call: PreparedCall): Promise<unknown> {
  const ctx: ToolContext = { db, principal: plan.principal, org: call.org, workflowId, prepared: call.prepared };
  return tool.output.parse(await tool.run(ctx, call.input));
}

export function createToolActivities(deps: { pool: Pool }) {
  const { pool } = deps;

  return {
    /** Early refusal before any work; runTool checks again under a lock for writes. */
    async checkAllowance(plan: ToolPlan): Promise<void> {
      await guarded(async () => {
        if (plan.policy.meter) await assertAllowance(pool, plan.principal.orgId, plan.policy.meter.feature as MeteredFeature, plan.policy.meter.units);
      });
    },

    /**
     * Runs the tool. Reads run as they are. Writes run in one transaction that also
     * stores the result under the workflow id, so a retry after a lost
     * acknowledgement returns the stored result instead of writing twice.
     */
    async runTool(plan: ToolPlan): Promise<unknown> {
      return guarded(async () => {
        const tool = toolOf(plan);
        const workflowId = currentWorkflowId();
        const call = await prepareCall(pool, plan, tool);
        if (tool.effect === 'read') {
          // One snapshot for every query of the read, and a read tool cannot write even by mistake.
          return withTransaction(pool, (db) => runInside(db, plan, tool, workflowId, call), { readOnly: true });
        }
        return withTransaction(pool, async (db) => {
          const done = await queryOne<{ result: unknown }>(db, 'SELECT result FROM tool_call_results WHERE workflow_id = $1', [workflowId]);
          if (done) return done.result;
          if (tool.meter) {
            await lockFeature(db, plan.principal.orgId, tool.meter.feature);
            await assertAllowance(db, plan.principal.orgId, tool.meter.feature, tool.meter.units);
          }
          const result = await runInside(db, plan, tool, workflowId, call);
          await db.query('INSERT INTO tool_call_results (workflow_id, org_id, tool, result) VALUES ($1, $2, $3, $4)', [
            workflowId, plan.principal.orgId, plan.tool, JSON.stringify(result),
          ]);
          await db.query(`INSERT INTO audit_events (org_id, actor_user_id, credential_id, credential_kind, tool, workflow_id, action_summary)
            VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
            plan.principal.orgId, plan.principal.userId, plan.principal.credentialId, plan.principal.credentialKind,
            plan.tool, workflowId, typeof plan.args.actionSummary === 'string' ? plan.args.actionSummary : null,
          ]);
          return result;
        });
      });
    },

    /** Counted once per workflow id, however many times this activity is retried. */
    async recordUsage(plan: ToolPlan): Promise<boolean> {
      return guarded(async () => {
        const meter = toolOf(plan).meter;
        if (!meter) return false;
        return recordUsage(pool, {
          orgId: plan.principal.orgId, feature: meter.feature, units: meter.units, idempotencyKey: currentWorkflowId(), tool: plan.tool,
        });
      });
    },

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
