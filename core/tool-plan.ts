import type { Principal } from './principal';

export type Effect = 'read' | 'write' | 'send';

export interface MeterPolicy {
  feature: string;
  units: number;
}

/**
 * A durable step after a tool call, declared on the tool (`followUp`) and carried in its plan as
 * plain data: a kind, and parameters of the tool's own. The kind names a planner
 * (`FollowUpPlanner`) that the kernel or the tool's module keeps in its workflows folder; the
 * planner reads the call's result and answers the steps to take (start a workflow, signal or
 * cancel one, run an activity), which toolCallWithFollowUpWorkflow carries out. A module's kinds
 * are `<module>.<what>`; the kernel's (agent and automation schedules) have no prefix. Being one
 * workflow with the call, the steps happen even if a process dies in between.
 */
export interface FollowUp {
  kind: string;
  /** Parameters the planner reads (e.g. `ifMissing`); plain JSON. */
  [parameter: string]: unknown;
}

/** Search attributes a started workflow carries besides its organisation. */
export interface FollowUpSearchAttributes {
  kind: string;
  status?: string;
}

/** Plain-data activity options for an activity step (what proxyActivities takes: durations as strings). */
export interface FollowUpActivityOptions {
  startToCloseTimeout: string;
  heartbeatTimeout?: string;
  retry?: { initialInterval?: string; backoffCoefficient?: number; maximumInterval?: string; maximumAttempts?: number };
}

/** One step a follow-up takes, as plain data: what crosses from a planner to the workflow that runs it. */
export type FollowUpStep =
  /** Start `workflow` as a child that outlives the call (ABANDON); one already started under `id` is left alone. */
  | { start: string; id: string; args: unknown[]; searchAttributes: FollowUpSearchAttributes }
  /** Signal a running workflow; one that finished or never started has nothing left to hear. */
  | { signal: string; id: string; args?: unknown[] }
  /** Cancel a running workflow; one that finished or never started is left as it is. */
  | { cancel: string }
  /** Run an activity and wait for it; with `ignoreFailure` a failure leaves the call's result standing (a resend is the remedy). */
  | { activity: string; args: unknown[]; options: FollowUpActivityOptions; ignoreFailure?: boolean };

/** Reads a finished call's result (and the follow-up's parameters) and answers its steps; pure, as it runs in workflow code. */
export type FollowUpPlanner = (result: unknown, context: { orgId: string; followUp: FollowUp }) => FollowUpStep[];

/**
 * Follow-up kinds as plans carried them before modules owned their follow-ups: a plan made then
 * (in a running workflow's history, a proposal's action, an agent run's planned actions) still
 * names the old kind, so it is read as the kind the module declares today. Frozen, never extended.
 */
export const FOLLOW_UP_KINDS_OF_EARLIER_PLANS: Readonly<Record<string, string>> = Object.freeze({
  start_outreach: 'people.start_outreach',
  send_team_invite: 'platform.send_team_invite',
  send_statements: 'giving.send_statements',
  grief_plan: 'people.grief_plan',
  send_channel_message: 'channels.send_message',
  broadcast: 'channels.broadcast',
  whatsapp_template_review: 'templates.whatsapp_review',
});

/** The kind a follow-up is planned under today (see FOLLOW_UP_KINDS_OF_EARLIER_PLANS). */
export function currentFollowUpKind(kind: string): string {
  return Object.prototype.hasOwnProperty.call(FOLLOW_UP_KINDS_OF_EARLIER_PLANS, kind) ? FOLLOW_UP_KINDS_OF_EARLIER_PLANS[kind] : kind;
}

/** What the workflow needs to know about a tool, as plain data (no functions cross into workflow code). */
export interface ToolPolicy {
  effect: Effect;
  meter: MeterPolicy | null;
  timeline: boolean;
  /** Absent only on plans made before follow-ups moved onto the tool (see followUpOf). */
  followUp?: FollowUp | null;
}

/**
 * How the tool-call workflow retries its tool: shared with the activity so a failure that has used the
 * last attempt (nothing will try again) is known where it happens. Plain data, as it crosses into workflow code.
 */
export const TOOL_CALL_RETRY = Object.freeze({ initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 10 });

/** The plan a tool-call workflow executes. */
export interface ToolPlan {
  tool: string;
  module: string;
  args: Record<string, unknown>;
  principal: Principal;
  policy: ToolPolicy;
  /** sha-256 of the canonical arguments, to tell a replayed idempotency key from a reused one. */
  argsHash: string;
}

export interface ToolOutcome {
  result: unknown;
}

/**
 * Follow-ups of plans made before the policy carried them, when the step was
 * looked up by tool name. Such plans sit in the histories of workflows started
 * before (a tool call's input, a proposal decision's update, an agent run's
 * planned actions), which a worker replays whenever it picks one up again, so a
 * plan without `followUp` is read through this table: frozen, never extended;
 * new tools declare `followUp` on their value. The catalogue test checks that
 * each entry still equals what its tool declares.
 */
export const FOLLOW_UPS_OF_EARLIER_PLANS: Readonly<Record<string, FollowUp>> = Object.freeze({
  people_create_outreach: { kind: 'start_outreach' },
  people_run_pastoral_generation: { kind: 'start_outreach' },
  platform_list_agents: { kind: 'sync_agent_schedules', ifMissing: true },
  platform_set_agent_autonomy: { kind: 'sync_agent_schedules', ifMissing: false },
  people_create_pastoral_automation: { kind: 'sync_automation_schedule' },
  people_set_pastoral_automation: { kind: 'sync_automation_schedule' },
  people_remove_pastoral_automation: { kind: 'sync_automation_schedule' },
  people_duplicate_pastoral_automation: { kind: 'sync_automation_schedule' },
});

/** The plan's follow-up: from its policy, or for a plan made before policies carried it, from the frozen table above. */
export function followUpOf(plan: Pick<ToolPlan, 'tool' | 'policy'>): FollowUp | null {
  if (plan.policy.followUp !== undefined) return plan.policy.followUp;
  return Object.prototype.hasOwnProperty.call(FOLLOW_UPS_OF_EARLIER_PLANS, plan.tool) ? FOLLOW_UPS_OF_EARLIER_PLANS[plan.tool] : null;
}

/** Workflow type that carries out a plan: every tool is a tool call, those with a follow-up in the variant that runs it. */
export function workflowTypeForPlan(plan: Pick<ToolPlan, 'tool' | 'policy'>): 'toolCallWorkflow' | 'toolCallWithFollowUpWorkflow' {
  return followUpOf(plan) ? 'toolCallWithFollowUpWorkflow' : 'toolCallWorkflow';
}
