import { z } from 'zod';
import { AGENTS, AUTONOMY_MODES, agentScheduleId, type AgentKey, type AutonomyMode } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { fn } from 'sequelize';
import type { Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { registeredModules } from '../registry';
import { MAX_AGENT_ACTIONS_PER_RUN, type AgentAction } from '../module';
import type { OrgSettings } from '../tool';
import { Agent as AgentModel } from './models';
import { blockedDedupeKeys } from '../../kernel/proposals';

/**
 * The eleven autonomous agents of spec 4.3, per organisation. Each runs on a
 * Temporal Schedule (paused when its autonomy is off). In `propose` mode a run
 * creates proposals; in `auto` it carries out the same actions and records them.
 */

export const agentSchema = z.object({
  key: z.string(),
  name: z.string(),
  module: z.string(),
  purpose: z.string(),
  autonomy: z.enum(AUTONOMY_MODES),
  intervalMinutes: z.number().int(),
  scheduleId: z.string(),
  lastRunAt: z.string().nullable(),
  lastRunStatus: z.string().nullable(),
  lastRunSummary: z.string().nullable(),
}).strict();
export type Agent = z.infer<typeof agentSchema>;

/** What an organisation's row says about one agent: a stored AgentModel, or `unconfigured`. */
type AgentState = Pick<AgentModel, 'agentKey' | 'autonomy' | 'intervalMinutes' | 'lastRunAt' | 'lastRunStatus' | 'lastRunSummary'>;

function agentView(orgId: string, state: AgentState): Agent {
  const meta = AGENTS.find((agent) => agent.key === state.agentKey)!;
  return {
    // autonomy holds only the modes (a CHECK constraint), which the model types as text.
    key: meta.key, name: meta.name, module: meta.module, purpose: meta.purpose, autonomy: state.autonomy as AutonomyMode,
    intervalMinutes: state.intervalMinutes, scheduleId: agentScheduleId(orgId, meta.key),
    lastRunAt: state.lastRunAt?.toISOString() ?? null, lastRunStatus: state.lastRunStatus, lastRunSummary: state.lastRunSummary,
  };
}

/** Every organisation has all eleven agents, off until someone turns them on. */
export async function ensureAgents(db: Queryable, orgId: string): Promise<void> {
  // One statement for all eleven, skipping those that exist: SQL (ON CONFLICT).
  await db.query(`INSERT INTO agents (org_id, agent_key) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [orgId, AGENTS.map((a) => a.key)]);
}

/** An agent nobody has configured yet: off, daily, never run (the table's defaults). */
function unconfigured(key: AgentKey): AgentState {
  return { agentKey: key, autonomy: 'off', intervalMinutes: 1440, lastRunAt: null, lastRunStatus: null, lastRunSummary: null };
}

/**
 * Reads only (it runs in a read tool's read-only transaction): agents without a
 * row yet are shown with their defaults. The platform_list_agents call does
 * write afterwards, in its follow-up step (toolCallWithFollowUpWorkflow →
 * syncAgentSchedules with ifMissing): the first time an organisation lists its
 * agents, their rows and their paused schedules are created.
 */
export async function listAgents(db: Queryable, orgId: string): Promise<Agent[]> {
  const stored = await withModels(db, (transaction) => AgentModel.findAll({ where: { orgId }, transaction }));
  const byKey = new Map<string, AgentState>(stored.map((agent) => [agent.agentKey, agent]));
  return AGENTS.map((agent) => agentView(orgId, byKey.get(agent.key) ?? unconfigured(agent.key)));
}

export async function getAgent(db: Queryable, orgId: string, key: AgentKey): Promise<Agent> {
  if (!AGENTS.some((agent) => agent.key === key)) throw new StewardError('not_found', `Agent ${key} was not found`);
  const stored = await withModels(db, (transaction) => AgentModel.findOne({ where: { orgId, agentKey: key }, transaction }));
  return agentView(orgId, stored ?? unconfigured(key));
}

export async function setAgentAutonomy(db: Queryable, orgId: string, key: AgentKey, autonomy: AutonomyMode, intervalMinutes?: number): Promise<Agent> {
  await ensureAgents(db, orgId);
  // The interval changes only when given; updated_at is the model's DEFAULT, the database's now().
  const changes: Partial<Pick<AgentModel, 'autonomy' | 'intervalMinutes'>> = { autonomy };
  if (intervalMinutes != null) changes.intervalMinutes = intervalMinutes;
  await withModels(db, (transaction) => AgentModel.update(changes, { where: { orgId, agentKey: key }, transaction }));
  return getAgent(db, orgId, key);
}

export async function recordAgentRun(db: Queryable, orgId: string, key: string, status: string, summary: string): Promise<void> {
  // A run is not a change of configuration: updated_at stays (silent), as it always has.
  await withModels(db, (transaction) => AgentModel.update({ lastRunAt: fn('now'), lastRunStatus: status, lastRunSummary: summary }, {
    where: { orgId, agentKey: key }, silent: true, transaction,
  }));
}

/** Every organisation's agents, for bringing schedules in line at start. */
export async function allAgentRows(db: Queryable): Promise<Array<{ orgId: string; key: string; autonomy: AutonomyMode; intervalMinutes: number }>> {
  const agents = await withModels(db, (transaction) => AgentModel.findAll({ attributes: ['orgId', 'agentKey', 'autonomy', 'intervalMinutes'], transaction }));
  return agents.map((agent) => ({ orgId: agent.orgId, key: agent.agentKey, autonomy: agent.autonomy as AutonomyMode, intervalMinutes: agent.intervalMinutes }));
}

export type { AgentAction } from '../module';

/** What an agent would do now, leaving out subjects already proposed (or rejected by a person). */
export async function planAgentActions(db: Queryable, org: OrgSettings, key: AgentKey): Promise<AgentAction[]> {
  // The module that owns the agent plans its work; agents with no planner yet find nothing to do.
  const planner = registeredModules().flatMap((module) => module.agents ?? []).find((agent) => agent.key === key);
  const actions = planner ? await planner.plan(db, org) : [];
  const blocked = await blockedDedupeKeys(db, org.id, actions.map((a) => a.dedupeKey));
  return actions.filter((a) => !blocked.has(a.dedupeKey)).slice(0, MAX_AGENT_ACTIONS_PER_RUN);
}
