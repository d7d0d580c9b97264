import type { Model, ModelStatic } from 'sequelize';
import type { Migration } from '../db/migrate';
import type { RequestHandler } from 'express';
import type { Client } from '@temporalio/client';
import type { OutboxPort, OutboxSource } from './outbox-source';
import type { z } from 'zod';
import type { AgentKey, ProposalDecider, ProposalProposer, ProposalStatus } from '../core/approvals';
import type { MeteredFeature } from '../core/billing';
import type { Scope } from '../core/scopes';
import type { Pool, Queryable } from '../db/pool';
import type { AnyTool, OrgSettings, ToolContext } from './tool';
import type { AnyRoute } from './routes';
import type { Playbook } from './playbooks';
import type { WidgetDefinition } from './widget';
import { checkMetrics, type AnyMetric } from './metrics';

/**
 * One product module: everything the rest of the system needs to know about it,
 * declared in its folder's `index.ts`. Catalogue, migrations and the invariant tests
 * read these values through the registry (`modules/index.ts`); nothing outside the
 * folder names the module's tools or tables.
 */
/**
 * Extension points a module declares for others to fill, where it needs them to act in its own
 * direction (channels keeping people's consent projection, attendance feeding people's care
 * signals). Empty here: the receiving module adds its points with `declare module` in its
 * extension-points.ts, so the kernel knows none of them. Read them with contributionsTo (registry.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ModuleContributions {}

export interface ModuleDefinition {
  /** snake_case; every tool name starts with `<name>_`, and it doubles as the MCP toolset name. */
  name: string;
  title: string;
  /** One sentence for toolset listings. */
  description: string;
  /**
   * The module's tools; a function when some are built from the registry (platform_overview
   * composes every module's overview contribution). Read them through `toolsOf`.
   */
  tools: readonly AnyTool[] | ((modules: readonly ModuleDefinition[]) => readonly AnyTool[]);
  /** Umzug migrations, named by timestamp; every module's are applied together in name order. */
  migrations: readonly Migration[];
  /** Records whose approved messages leave through the shared outbox (lease, idempotency key, counted once), found by their kind. */
  outboxSources?: readonly OutboxSource[];
  /** Sequelize models of the module's tables (`models/`), defined on the process's instance; only this module imports them. */
  models?: readonly ModelStatic<Model>[];
  /**
   * Every column of this module's tables that names a contact, so merging two contacts and
   * erasing one reach them without anyone keeping a list elsewhere (a test fails for a
   * `contact_id` column not declared here).
   */
  contactRefs?: readonly ContactRef[];
  /**
   * The modules whose api.ts this one imports. The registry refuses a cycle among them, and the
   * boundary lint refuses an import of a module not named here: calls run one way, and the other
   * way goes through an extension point (`contributes`).
   */
  uses?: readonly string[];
  /** What this module adds to other modules' extension points (see ModuleContributions). */
  contributes?: ModuleContributions;
  /** Short-lived records this module deletes once they have served their purpose (daily maintenance). */
  retention?: readonly RetentionRule[];
  /**
   * Named queries platform_analytics_query answers (`modules/metrics.ts`): each with the scope it
   * needs, the parameters it takes, its output shape and a sentence for the person. Names are
   * unique across modules.
   */
  metrics?: readonly AnyMetric[];
  /** What the module adds to platform_overview: fields of its output, computed in the read's snapshot. */
  overview?: OverviewContribution;
  /** What the module adds to platform_usage (billing: the subscription's entitlements), the same way. */
  usage?: OverviewContribution;
  /** The scopes this module's tools require; a tool asking for any other is refused at load time. */
  scopes: readonly Scope[];
  /** Dashboard API routes this module serves (`modules/routes.ts`), reached through `<module>_invoke_api_*`, `/api/<module>/…` and /api/openapi.json. */
  routes: readonly AnyRoute[];
  /** Metered features this module owns, with each plan's allowance (seeded into plan_allowances when missing). */
  meters?: readonly MeterDefinition[];
  /**
   * Checks the kernel's allowance check (`assertAllowance`, kernel/billing.ts) runs after the
   * plan's own limit, for every metered use: each may refuse the use with a StewardError (a spend
   * cap reached, a subscription that no longer allows it). Billing fills it.
   */
  allowanceGuards?: readonly AllowanceGuard[];
  /**
   * Told of every proposal that leaves pending (`decideProposal`, kernel/proposals.ts: approved,
   * rejected or expired, by a person, an agent in auto mode or the expiry timer), in the transaction
   * that records the decision, so what it writes commits with the decision or not at all; called once
   * per decision, never for a retry that finds it already made. Audit fills it.
   */
  proposalDecided?: ProposalDecidedListener;
  /**
   * Told of every proposal created (`insertProposal`, kernel/proposals.ts: a gated call, an agent's
   * run), in the transaction that inserts it; called once per proposal, never for an insert that found
   * the row already there (a retried activity, the workflow after the API). Audit fills it.
   */
  proposalCreated?: ProposalCreatedListener;
  /** Multi-step procedures served as MCP prompts (`modules/playbooks.ts`). */
  playbooks?: readonly Playbook[];
  /** Planning for the autonomous agents this module owns (keys from core/approvals AGENTS). */
  agents?: readonly AgentPlanner[];
  /** In-chat widgets (MCP Apps, `modules/widget.ts`) that show its tools' results; each names only this module's tools. */
  widgets?: readonly WidgetDefinition[];
  /** Explainable rules over the module's own data that platform_proactive_alerts evaluates (ids `<module>.<what>`). */
  alerts?: readonly AlertRule[];
  /**
   * Periodic work (materialising upcoming instances, an end-of-service sweep, a Monday follow-up run):
   * each job gets its own Temporal Schedule starting moduleJobWorkflow, with no edit outside the module.
   */
  jobs?: readonly ModuleJob[];
  /**
   * The module's workflows: the resolved path of its `workflows/index.ts` (`require.resolve('./workflows')`).
   * Every function that index exports is a workflow type in the worker's bundle, whose entry is
   * generated from the registry (worker/bundle.ts); its export `followUps` maps the follow-up kinds
   * the module's tools name (`<module>.<what>`) to their planners. Code there is workflow code: the
   * boundary lint keeps it deterministic.
   */
  workflows?: string;
  /** Factories of the module's activities (`activities/`), given the worker's pool and the shared outbox; names are unique across the worker. */
  activities?: readonly ActivityFactory[];
  /** Signed inbound routes (provider callbacks, links in messages), mounted by the kernel before the JSON parser, so each sees the raw body it verifies. */
  webhooks?: readonly ModuleWebhook[];
  /** Temporal Schedules starting one of the module's workflows for the whole deployment (one per task queue), kept in line at every worker start. */
  schedules?: readonly ModuleSchedule[];
}

/** What a module's activity factories are given by the worker. */
export interface ActivityDeps {
  pool: Pool;
  /** The shared outbox, serving every registered module's outbox sources. */
  outbox: OutboxPort;
}

export type ActivityFunctions = Record<string, (...args: any[]) => Promise<unknown>>;
export type ActivityFactory = (deps: ActivityDeps) => ActivityFunctions;

/** What a module's webhook router is given by the API. */
export interface WebhookDeps {
  pool: Pool;
  temporal: Client;
  /** The task queue the worker serves, for a route that starts one of the module's workflows (a link answered in a message). */
  taskQueue: string;
}

/**
 * A module's inbound routes. The router sees the raw request (no JSON parser before it) and
 * verifies each request's signature itself before reading anything from it; it answers only
 * under its `paths`, and leaves every other request to the next handler.
 */
export interface ModuleWebhook {
  /** Path prefixes it serves: `/webhooks/<module>/…`, or `/<module>/…` for a page a person opens from a message. */
  paths: readonly string[];
  router: (deps: WebhookDeps) => RequestHandler;
}

/** A Temporal Schedule for one of the module's workflows: ids are `<id>-<taskQueue>` (schedule) and `<id>-run-<taskQueue>` (its runs). */
export interface ModuleSchedule {
  /** Stable: the schedule's id is derived from it, so renaming it would leave the old schedule running. */
  id: string;
  workflowType: string;
  everyMs: number;
  /** One sentence, shown as the schedule's note. */
  note: string;
}

/**
 * One periodic job of a module, run by a Temporal Schedule (workflows/module-job.ts) as one activity.
 * A run must be idempotent: the activity is retried after a failure, and a run that follows an outage
 * or repeats an earlier one changes nothing more than one run would have (key what it creates).
 */
export interface ModuleJob {
  /** `<module>.<what>`, stable: the schedule id is derived from it. */
  name: string;
  /** One sentence, shown as the schedule's note. */
  description: string;
  /** How often it runs (at least one minute). */
  everyMs: number;
  /** The run's work as of `now` (the workflow's start time), for every organisation or only `orgId`; returns counts for the run's result. */
  run: (pool: Pool, input: { now: Date; orgId?: string }) => Promise<Record<string, number>>;
}

/** Where a contact id lives, and what merge and erasure do with the row. */
export interface ContactRef {
  table: string;
  column: string;
  /**
   * Merge: 'move' repoints the row at the kept contact; 'custom' when the module's own
   * merge step handles it (rows with uniqueness across contacts).
   */
  onMerge: 'move' | 'custom';
  /** Erasure: 'delete' the row, or set the column to 'null' and keep the row (a money record that must stay). */
  onErase: 'delete' | 'null' | 'custom';
  /**
   * The column is a list of contact ids (`uuid[]`, such as a child's authorised pickups) rather than one.
   * Merge ('move') replaces the merged id in every list with the kept one (once, where it is not there
   * already); erasure 'null' takes the id out of every list and keeps the row, 'delete' deletes the rows naming it.
   */
  list?: boolean;
  /**
   * With onErase 'null': other columns of the same row that describe the same person (a name typed
   * beside the id), cleared together with the id. Plain identifiers only.
   */
  alsoClear?: readonly string[];
  /**
   * What the owning module's own writers take before they lock rows of this table (spaces: its
   * organisation's spaces lock). Merge and erasure take every such lock before they rewrite other
   * modules' declared rows (after the contact rows and people's own), so rewriting this table cannot
   * close a wait cycle with those writers. Sound only while the lock's holders never wait for a contact
   * row: no foreign key to contacts among the rows they insert or change, no lock on contacts.
   */
  lockFirst?: (db: Queryable, orgId: string) => Promise<void>;
}

export interface RetentionRule {
  /** Reported in the maintenance result. */
  name: string;
  purge: (db: Queryable) => Promise<number>;
}

export interface OverviewContribution {
  /** Output fields this module adds; merged into platform_overview's strict output schema. */
  shape: z.ZodRawShape;
  compute: (ctx: ToolContext) => Promise<Record<string, unknown>>;
}

/** How much an alert asks for attention, most pressing first in the list. */
export const ALERT_SEVERITIES = ['urgent', 'warning', 'info'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** One thing that needs attention, found by a rule; the tool adds the rule's id and module. */
export interface Alert {
  severity: AlertSeverity;
  /** A short headline ("3 people are due a welfare check"). */
  title: string;
  /** Why the rule fired, in plain words with the figures it used, so a person can check it. */
  reason: string;
  /** How many things the alert is about (people, messages, gifts); 1 for a single thing. */
  count: number;
  /** The tool to act with, and arguments that narrow it to what the alert is about. */
  actWith: { tool: string; args?: Record<string, unknown> };
}

/**
 * An explainable rule platform_proactive_alerts evaluates in the caller's read transaction. It
 * reads only its own module's data (or that module's services) and must compute what it reports
 * under the caller's view: a rule touching restricted pastoral records counts them only for a
 * principal holding people:safeguarding, exactly as the module's own lists do.
 */
export interface AlertRule {
  /** `<module>.<what>`, stable: callers filter and tests assert by it. */
  id: string;
  /** One sentence: what the rule looks for and its thresholds (listed in the tool's description). */
  description: string;
  /** The scope a caller needs for this rule to be evaluated at all; callers without it simply get none of its alerts. */
  scope: Scope;
  /** The alerts the rule finds now; empty when all is well. */
  evaluate: (ctx: ToolContext) => Promise<readonly Alert[]>;
}

export interface MeterDefinition {
  feature: MeteredFeature;
  /** Each plan's limit; an operator's later change to the table is kept, only missing rows are added. */
  allowances: Readonly<Record<PlanCode, number>>;
  /**
   * For a standing feature (how many exist at once, such as contacts): counts them from the
   * module's own rows. Without it the feature is counted from this month's usage events.
   */
  standingCount?: (db: Queryable, orgId: string) => Promise<number>;
  /**
   * A feature held for a module not built yet: seeded and reported by platform_usage, but left
   * off public pages (pricing) until a module of that name is registered.
   */
  forModule?: string;
}

/** A metered use about to happen: what `allowanceGuards` are asked about (the plan's limit already passed). */
export interface AllowanceCheck {
  orgId: string;
  feature: MeteredFeature;
  units: number;
  /** Used so far this period (or standing), before this use. */
  used: number;
  /** The plan's (or override's) limit; null when unmetered for the org. */
  limit: number | null;
  /** The tool the use is counted against, when known. */
  tool?: string;
  /** A message's purpose, when the use is a message (marketing, service…). */
  purpose?: string;
}

export type AllowanceGuard = (db: Queryable, check: AllowanceCheck) => Promise<void>;

/** The proposed action and who asked for it, as the proposals row keeps them: what both proposal hooks hear. */
export interface ProposedAction {
  orgId: string;
  proposalId: string;
  /** The action proposed: its tool and arguments, pinned by their hash. */
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
  summary: string;
  /** The row's own record of who asked: the proposing agent, else the person and credential whose call needed approval. */
  agentKey: string | null;
  proposedByUserId: string | null;
  proposedByCredentialId: string | null;
}

/** A proposal that has just left pending: what `proposalDecided` hears. */
export interface ProposalDecided extends ProposedAction {
  status: Exclude<ProposalStatus, 'pending'>;
  reason: string | null;
  decidedBy: ProposalDecider;
}

export type ProposalDecidedListener = (db: Queryable, decided: ProposalDecided) => Promise<void>;

/** A proposal that has just been inserted, pending: what `proposalCreated` hears. */
export interface ProposalCreated extends ProposedAction {
  /** Who asked, as the audit event names them; null when the inserting code knew no more than the row holds. */
  proposer: ProposalProposer | null;
  /** The agent's run that proposed it, if any. */
  sourceRun: string | null;
  expiresAt: Date;
}

export type ProposalCreatedListener = (db: Queryable, created: ProposalCreated) => Promise<void>;

/** Plans every organisation is on one of (seeded by the first migration). */
export const PLAN_CODES = ['starter', 'growth', 'enterprise'] as const;
export type PlanCode = (typeof PLAN_CODES)[number];

export interface AgentPlanner {
  key: AgentKey;
  plan: (db: Queryable, org: OrgSettings) => Promise<AgentAction[]>;
}

/** How many actions one agent run may propose; planners may find more, the rest wait for the next run. */
export const MAX_AGENT_ACTIONS_PER_RUN = 20;

/** One thing an agent wants done: a tool call, explained, with a key that stops it being proposed twice. */
export interface AgentAction {
  tool: string;
  args: Record<string, unknown>;
  summary: string;
  dedupeKey: string;
}

/** A module's tools, built against the registry when they depend on it; checked either way. */
export function toolsOf(module: ModuleDefinition, modules: readonly ModuleDefinition[]): readonly AnyTool[] {
  const tools = typeof module.tools === 'function' ? module.tools(modules) : module.tools;
  checkTools(module, tools);
  return tools;
}

function checkTools(module: ModuleDefinition, tools: readonly AnyTool[]): void {
  for (const tool of tools) {
    if (tool.module !== module.name) throw new Error(`Tool ${tool.name} says module ${tool.module}, but is declared by ${module.name}`);
    if (!tool.name.startsWith(`${module.name}_`)) throw new Error(`Tool ${tool.name} must be named ${module.name}_<verb>_<noun>`);
    if (!module.scopes.includes(tool.scope)) throw new Error(`Tool ${tool.name} requires ${tool.scope}, which module ${module.name} does not declare`);
  }
}

/** Declares a module; checks at load time what the type system cannot (tool names, modules, migration names). */
export function defineModule(definition: ModuleDefinition): ModuleDefinition {
  if (Array.isArray(definition.tools)) checkTools(definition, definition.tools);
  for (const migration of definition.migrations) {
    if (!/^\d{4}\.\d{2}\.\d{2}T\d{2}\.\d{2}\.\d{2}\.[a-z0-9-]+$/.test(migration.name)) {
      throw new Error(`Migration ${migration.name} of ${definition.name} must be named <yyyy.mm.ddThh.mm.ss>.<what>`);
    }
  }
  for (const route of definition.routes) {
    if (route.module !== definition.name) throw new Error(`Route ${route.method} ${route.path} says module ${route.module}, but is declared by ${definition.name}`);
    if (!route.path.startsWith(`/api/${definition.name}/`)) throw new Error(`Route ${route.path} of ${definition.name} must be under /api/${definition.name}/`);
    if (!definition.scopes.includes(route.scope)) throw new Error(`Route ${route.method} ${route.path} requires ${route.scope}, which module ${definition.name} does not declare`);
  }
  for (const widget of definition.widgets ?? []) {
    if (widget.module !== definition.name) throw new Error(`Widget ${widget.id} says module ${widget.module}, but is declared by ${definition.name}`);
  }
  checkMetrics(definition);
  for (const rule of definition.alerts ?? []) {
    if (!rule.id.startsWith(`${definition.name}.`)) throw new Error(`Alert rule ${rule.id} must be named ${definition.name}.<what>`);
    if (!definition.scopes.includes(rule.scope)) throw new Error(`Alert rule ${rule.id} requires ${rule.scope}, which module ${definition.name} does not declare`);
  }
  for (const job of definition.jobs ?? []) {
    if (!job.name.startsWith(`${definition.name}.`)) throw new Error(`Job ${job.name} must be named ${definition.name}.<what>`);
    if (!(job.everyMs >= 60_000)) throw new Error(`Job ${job.name} must run at most once a minute`);
  }
  for (const webhook of definition.webhooks ?? []) {
    for (const prefix of webhook.paths) {
      if (!prefix.startsWith(`/webhooks/${definition.name}/`) && !prefix.startsWith(`/${definition.name}/`)) {
        throw new Error(`Webhook path ${prefix} of ${definition.name} must be under /webhooks/${definition.name}/ or /${definition.name}/`);
      }
    }
  }
  for (const schedule of definition.schedules ?? []) {
    if (!(schedule.everyMs >= 60_000)) throw new Error(`Schedule ${schedule.id} of ${definition.name} must run at most once a minute`);
  }
  for (const source of definition.outboxSources ?? []) {
    if (!source.kind.startsWith(`${definition.name}.`)) throw new Error(`Outbox source ${source.kind} must be named ${definition.name}.<record>`);
  }
  return definition;
}

/**
 * A slice of a module kept in a folder of its own (people's pastoral care, platform's media
 * library): the same lists a module declares, joined into it by `withParts`. The module stays
 * one value with one name, scopes and schema lock; parts only keep large modules navigable.
 */
export type ModulePart = { name: string; tools?: ModuleDefinition['tools']; overview?: OverviewContribution } & Partial<Pick<ModuleDefinition,
  'models' | 'migrations' | 'contactRefs' | 'retention' | 'metrics' | 'routes' | 'playbooks' | 'outboxSources' | 'agents' | 'widgets' | 'meters' | 'alerts' | 'jobs' | 'activities' | 'webhooks' | 'schedules'>>;

type ListKey = 'models' | 'migrations' | 'contactRefs' | 'retention' | 'metrics' | 'routes' | 'playbooks' | 'outboxSources' | 'agents' | 'widgets' | 'meters' | 'alerts' | 'jobs' | 'activities' | 'webhooks' | 'schedules';
const PART_LISTS: readonly ListKey[] = ['models', 'migrations', 'contactRefs', 'retention', 'metrics', 'routes', 'playbooks', 'outboxSources', 'agents', 'widgets', 'meters', 'alerts', 'jobs', 'activities', 'webhooks', 'schedules'];

/** The module with each part's lists appended and overview contributions merged; check with defineModule afterwards. */
export function withParts(base: ModuleDefinition, parts: readonly ModulePart[]): ModuleDefinition {
  const joined: Record<string, unknown> = { ...base };
  for (const key of PART_LISTS) {
    const lists = [base[key] ?? [], ...parts.map((part) => part[key] ?? [])] as unknown[][];
    joined[key] = lists.flat();
  }
  const toolLists = [base.tools, ...parts.map((part) => part.tools ?? [])];
  joined.tools = toolLists.every((tools) => Array.isArray(tools))
    ? toolLists.flat()
    : (modules: readonly ModuleDefinition[]) => toolLists.flatMap((tools) => (typeof tools === 'function' ? tools(modules) : tools));
  joined.overview = mergeOverviews([base.overview, ...parts.map((part) => part.overview)]);
  return joined as unknown as ModuleDefinition;
}

function mergeOverviews(contributions: readonly (OverviewContribution | undefined)[]): OverviewContribution | undefined {
  const present = contributions.filter((contribution): contribution is OverviewContribution => contribution !== undefined);
  if (present.length <= 1) return present[0];
  return {
    shape: Object.assign({}, ...present.map((contribution) => contribution.shape)) as z.ZodRawShape,
    async compute(ctx) {
      const results = [];
      for (const contribution of present) results.push(await contribution.compute(ctx));
      return Object.assign({}, ...results) as Record<string, unknown>;
    },
  };
}
