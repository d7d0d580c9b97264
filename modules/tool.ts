import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Transaction } from 'sequelize';
import type { Queryable } from '../db/pool';
import type { Catalogue } from './tool-catalogue';
import type { MeteredFeature } from '../core/billing';
import type { Principal } from '../core/principal';
import type { Scope } from '../core/scopes';
import type { Power } from '../core/intents';
import type { ApprovalRoute } from '../core/approvals';
import type { Effect, FollowUp, ToolPolicy } from '../core/tool-plan';
import { strictInput } from './strict-input';

export interface OrgSettings {
  id: string;
  name: string;
  country: string;
  dateFormat: 'DMY' | 'MDY' | 'YMD';
  planCode: string;
}

/** What a tool's `run` receives: one transaction, the caller, and their organisation. */
export interface ToolContext {
  db: Queryable;
  /**
   * The Sequelize transaction bound to `db`'s connection: pass it as `{ transaction }` to every model
   * call so models and raw SQL share the snapshot. Set by runTool; services that take only `db` get it with transactionOf/withModels.
   */
  transaction?: Transaction;
  principal: Principal;
  org: OrgSettings;
  workflowId: string;
  /** What the tool's `prepare` step returned, if it has one. */
  prepared?: unknown;
  /** Every registered module's tools, routes and widgets: handed in, since no module imports the registry above it. */
  catalogue: Catalogue;
  /**
   * Says how far a long call has come (rows imported or exported, people scanned): an MCP client
   * that asked for progress hears it as notifications/progress while the call is open. Cheap to call
   * on every row (reports are thinned); `message` is read by people, so it names no person.
   */
  progress?: ProgressReport;
}

/** A long call's report of how far it has come (see ToolContext.progress). */
export type ProgressReport = (done: number, total?: number, message?: string) => void;

/** A care-timeline entry a tool asks to have synced after it succeeds. */
export interface TimelineSync {
  contactId: string;
  kind: string;
  sourceKind: string;
  sourceId: string;
  summary: string;
  occurredAt?: string;
  /** The source record is private or confidential: the entry is shown only to callers holding people:safeguarding. */
  restricted?: boolean;
}

/**
 * Makes a gated tool's approval conditional (`approval: { kind: 'gated', when }`): only calls for
 * which `applies` answers true become proposals; the others run as plain calls. It is asked twice:
 * by the API, in a read-only snapshot, to route the call, and again inside the plain call's own
 * transaction before `run`; if it applies by then, the call is refused with `conflict` and nothing is
 * written. A call carried out as an approved proposal's action is not asked again. `applies` only
 * reads (its connection is the caller's organisation, under row-level security); `args` are parsed.
 * A tool whose `run` takes locks should check again under them (see giving_commit_batch).
 */
export interface ApprovalCondition {
  applies: (args: Record<string, unknown>, deps: { db: Queryable; orgId: string }) => Promise<boolean>;
  /** Which calls need approval, for the caller and the approver (e.g. "a batch whose total passes the organisation's threshold"). */
  reason: string;
}

export type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

/** The changed fields an audit event keeps: each field's value after the call, and before it where known. */
export interface AuditChanges {
  fields: Record<string, { before?: unknown; after: unknown }>;
}

/**
 * What a write tool tells the audit trail beyond what it derives by itself (modules/audit/record.ts:
 * the target from the id arguments or the created record, the arguments as after values, `amount`
 * as money). `before` reads, inside the call's transaction and before it runs, the previous values of
 * the fields `after` names.
 */
export interface ToolAudit<I = unknown, O = unknown> {
  target?: (input: I, output: O) => { type: string; id: string } | null;
  before?: (db: Queryable, orgId: string, input: I) => Promise<Record<string, unknown> | null>;
  after?: (input: I, output: O) => Record<string, unknown>;
  money?: (input: I, output: O) => { amountMinor: number | null; currency: string | null } | null;
  category?: 'general' | 'finance' | 'pastoral' | 'access' | 'export';
  /**
   * For a read tool: the restricted records a call showed (private or confidential pastoral notes),
   * or null when it showed none. The kernel then records an access event after the read, in a short
   * transaction of its own (only such calls pay for it).
   */
  access?: (input: I, output: O) => { target: { type: string; id: string }; records: string[] } | null;
}

export interface ToolDefinition<I extends AnyObjectSchema = AnyObjectSchema, O extends AnyObjectSchema = AnyObjectSchema> {
  name: string;
  module: string;
  title: string;
  /** Written for a model: what it does and when to use it instead of a neighbour. */
  description: string;
  /** Extra words people use for this tool; they only feed tool search. */
  keywords?: string[];
  /**
   * Requests as people make them ("take the newcomer label off Emma"); they only feed tool search,
   * so a tool is found by what someone wants done, in their words, not only by its own name.
   */
  examples?: string[];
  scope: Scope;
  /**
   * Power over the organisation the tool exercises (team, API keys, agents, settings, billing):
   * besides its scope, an OAuth credential's intent must carry it (core/intents.ts, holdsPower).
   */
  power?: Power;
  effect: Effect;
  input: I;
  output: O;
  /** Shown in the default tools/list; unlisted tools are still callable and searchable. */
  listed: boolean;
  /** MCP hints; default from the effect. */
  destructive?: boolean;
  idempotent?: boolean;
  meter?: { feature: MeteredFeature; units: number };
  /**
   * For a tool that records several metered things in one call (a bulk add, an import): how many
   * this call records, from its parsed input; the call is metered `meter.units` times that (zero for
   * a dry run). Fixed in the call's plan before it runs, so the allowance check and the usage
   * recorded agree; a count of zero meters nothing. Without it a call counts `meter.units` once.
   */
  meterCount?: (input: z.output<I>) => number;
  /**
   * How many metered things the call actually recorded, from its result (a repeat of a gift
   * already recorded records nothing). The usage recorded after the call is `meter.units` times
   * this, never more than the plan's units, which the allowance check before the run used as an
   * upper bound; zero records no usage.
   */
  meterUsed?: (output: z.output<O>) => number;
  timeline?: (input: z.output<I>, output: z.output<O>) => TimelineSync[];
  /**
   * Work outside the transaction before `run`, such as calls to outside services,
   * so no database transaction is held open while waiting on the network.
   */
  prepare?: (input: z.output<I>, deps: PrepareDeps) => Promise<unknown>;
  /** Set on tools the API resolves before starting a workflow (they run another tool). */
  dispatch?: 'execute_inner_tool';
  /** Set on tools an approval workflow carries out (a decision on an item, or a call that becomes a proposal); `run` is then never called directly. */
  approval?: ApprovalRoute<ApprovalCondition>;
  /** A durable step after the call; the tool then runs as toolCallWithFollowUpWorkflow. */
  followUp?: FollowUp;
  /** What the audit trail records beyond what it derives (previous values, target, money); see ToolAudit. */
  audit?: ToolAudit<z.output<I>, z.output<O>>;
  /** Set on tools whose result waits on a person, so they may run as MCP tasks (gated tools may without it: see taskOf). */
  task?: ToolTask;
  run: (ctx: ToolContext, input: z.output<I>) => Promise<z.input<O>>;
}

/**
 * What running a tool as an MCP task (tools/call with `task`) needs. The task
 * is the approval workflow the call starts, followed with tasks/get.
 */
export interface ToolTask {
  /** A scope, besides the tool's own, without which the task could not be followed; checked before anything is queued. */
  followScope?: Scope;
  /** The arguments the call runs with as a task (e.g. asking it to answer approval_required instead of the queued item). */
  argsForTask?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** The approval a result names when the call answered without approval_required. */
  pendingOf?: (result: unknown) => { proposalId?: string; outreachId?: string } | undefined;
}

export type AnyTool = ToolDefinition<AnyObjectSchema, AnyObjectSchema>;

/** What a tool's `prepare` step is given: the pool (no transaction), the organisation and the caller (a bridge checks a route's scope before any outside call). */
export interface PrepareDeps {
  db: Queryable; org: OrgSettings; principal: Principal;
  /** The call's workflow id, the same on every attempt: a key for outside work a retried attempt must not repeat. */
  workflowId: string;
  /**
   * When the call began (its workflow's start, in whole seconds), the same on every attempt: the time
   * to reckon outside work's parameters from (a checkout's expiry), so a retried attempt asks the
   * provider for exactly what the first did under the same idempotency key.
   */
  callStartedAt: Date;
}

/**
 * Declares a tool. Every object in its input is made strict here (strictInput), so a misspelt or
 * unknown argument is refused, at the top level and nested, whether or not the declaration says `.strict()`.
 */
export function defineTool<I extends AnyObjectSchema, O extends AnyObjectSchema>(tool: ToolDefinition<I, O>): AnyTool {
  return { ...tool, input: strictInput(tool.input) } as unknown as AnyTool;
}

/**
 * For inputs that name a thing one of two ways (an id or a name): exactly one
 * must be given. Checked with the schema, so the call is refused before any workflow starts.
 */
export function exactlyOne<T extends Record<string, unknown>>(first: keyof T & string, second: keyof T & string, message = `give exactly one of ${first} or ${second}`) {
  const check = (value: T) => (value[first] === undefined) !== (value[second] === undefined);
  return [check, { message, path: [first] as PropertyKey[] }] as const;
}

/** The plan's policy for a call; `args` (parsed) fix a per-call meter count (see `meterCount`). */
export function policyOf(tool: AnyTool, args?: Record<string, unknown>): ToolPolicy {
  return { effect: tool.effect, meter: meterPolicyOf(tool, args), timeline: Boolean(tool.timeline), followUp: tool.followUp ?? null };
}

function meterPolicyOf(tool: AnyTool, args: Record<string, unknown> | undefined): ToolPolicy['meter'] {
  if (!tool.meter) return null;
  if (!tool.meterCount || !args) return tool.meter;
  // Plans carry parsed arguments; an agent's proposed action may not be, so parse (defaults applied) before counting.
  const parsed = tool.input.safeParse(args);
  const count = tool.meterCount((parsed.success ? parsed.data : args) as never);
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`${tool.name}: meterCount gave ${count}, not a whole number of at least zero`);
  // A call that records nothing (a dry run) is not metered at all: usage events count at least one unit.
  return count === 0 ? null : { feature: tool.meter.feature, units: tool.meter.units * count };
}

/** How the tool runs as an MCP task, if it can: as it declares, and every unconditionally gated tool (its call answers with a proposal to follow). */
export function taskOf(tool: AnyTool): ToolTask | undefined {
  // A conditionally gated tool may answer at once, with no proposal to follow: it runs as a task only if it says how.
  return tool.task ?? (tool.approval?.kind === 'gated' && !tool.approval.when ? {} : undefined);
}

/** Canonical JSON: object keys sorted, so equal arguments always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** sha-256 of a tool name and its canonical arguments: tells a replayed request, or an unchanged proposal action, from a different one. */
/** A description's first sentence (through its first full stop followed by a space or the end): a tool's one-line summary. */
export function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

export function argsHashOf(tool: string, args: unknown): string {
  return createHash('sha256').update(`${tool}\n${canonical(args)}`).digest('hex');
}
