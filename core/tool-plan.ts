import type { Principal } from './principal';

export type Effect = 'read' | 'write' | 'send';

export interface MeterPolicy {
  feature: string;
  units: number;
}

/**
 * A durable step after a tool call, declared on the tool (`followUp`) and
 * carried in its plan: new outreach items get their approval workflow, agent
 * and automation changes get their schedules brought in line. A tool with one
 * runs as toolCallWithFollowUpWorkflow, so the step happens even if a process
 * dies between the call and the step.
 */
export type FollowUp =
  /** Start the approval workflow of every outreach item the result names (`item` or `items`). */
  | { kind: 'start_outreach' }
  /** Bring the organisation's agent schedules in line; `ifMissing` only creates the ones that do not exist yet. */
  | { kind: 'sync_agent_schedules'; ifMissing: boolean }
  /** Bring the schedule of the automation the result names in line. */
  | { kind: 'sync_automation_schedule' }
  /** Email the team invite the result names (`invite.inviteId`) through the outbox; a failed send leaves the call's result standing. */
  | { kind: 'send_team_invite' }
  /** Email the giving statements the result names (`statements`, `unchanged`) that still wait for it, through the outbox. */
  | { kind: 'send_statements' }
  /** Start, reschedule or end the grief-care plan of the bereavement the result names (`griefPlan: { lifeEventId, change }`). */
  | { kind: 'grief_plan' }
  /** Dispatch the channel message the result names (`message.id`) through the outbox, waiting out quiet hours (workflows/channels-message.ts). */
  | { kind: 'send_channel_message' }
  /** Start (once scheduled) or stop the sending workflow of the broadcast the result names (`followUp: { broadcastId, change }`; workflows/channels-broadcast.ts). */
  | { kind: 'broadcast' }
  /** Follow WhatsApp's review of the template version the result names (`version.id`) until it decides (workflows/templates-whatsapp-review.ts). */
  | { kind: 'whatsapp_template_review' };

/** What the workflow needs to know about a tool, as plain data (no functions cross into workflow code). */
export interface ToolPolicy {
  effect: Effect;
  meter: MeterPolicy | null;
  timeline: boolean;
  /** Absent only on plans made before follow-ups moved onto the tool (see followUpOf). */
  followUp?: FollowUp | null;
}

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
