import { z } from 'zod';
import { AGENTS, AUTONOMY_MODES, agentScheduleId, type AgentKey, type AutonomyMode } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listWelfareDueContacts } from '../people/automations';
import { findDuplicatePairs } from '../people/merge';
import { consentRefusal, loadDeliveryContact } from '../people/outreach';
import type { OrgSettings } from '../tool';
import { blockedDedupeKeys } from './proposals';

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

interface AgentRow {
  agent_key: AgentKey; autonomy: AutonomyMode; interval_minutes: number; last_run_at: Date | null;
  last_run_status: string | null; last_run_summary: string | null;
}

function toAgent(orgId: string, row: AgentRow): Agent {
  const meta = AGENTS.find((agent) => agent.key === row.agent_key)!;
  return {
    key: meta.key, name: meta.name, module: meta.module, purpose: meta.purpose, autonomy: row.autonomy,
    intervalMinutes: row.interval_minutes, scheduleId: agentScheduleId(orgId, meta.key),
    lastRunAt: row.last_run_at?.toISOString() ?? null, lastRunStatus: row.last_run_status, lastRunSummary: row.last_run_summary,
  };
}

/** Every organisation has all eleven agents, off until someone turns them on. */
export async function ensureAgents(db: Queryable, orgId: string): Promise<void> {
  await db.query(`INSERT INTO agents (org_id, agent_key) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [orgId, AGENTS.map((a) => a.key)]);
}

/** An agent nobody has configured yet: off, daily, never run (the table's defaults). */
function unconfigured(key: AgentKey): AgentRow {
  return { agent_key: key, autonomy: 'off', interval_minutes: 1440, last_run_at: null, last_run_status: null, last_run_summary: null };
}

/**
 * Reads only (it runs in a read tool's read-only transaction): agents without a
 * row yet are shown with their defaults. The platform_list_agents call does
 * write afterwards, in its follow-up step (toolCallWithFollowUpWorkflow →
 * syncAgentSchedules with ifMissing): the first time an organisation lists its
 * agents, their rows and their paused schedules are created.
 */
export async function listAgents(db: Queryable, orgId: string): Promise<Agent[]> {
  const rows = await queryRows<AgentRow>(db, 'SELECT * FROM agents WHERE org_id = $1', [orgId]);
  const byKey = new Map(rows.map((row) => [row.agent_key, row]));
  return AGENTS.map((agent) => toAgent(orgId, byKey.get(agent.key) ?? unconfigured(agent.key)));
}

export async function getAgent(db: Queryable, orgId: string, key: AgentKey): Promise<Agent> {
  if (!AGENTS.some((agent) => agent.key === key)) throw new StewardError('not_found', `Agent ${key} was not found`);
  const row = await queryOne<AgentRow>(db, 'SELECT * FROM agents WHERE org_id = $1 AND agent_key = $2', [orgId, key]);
  return toAgent(orgId, row ?? unconfigured(key));
}

export async function setAgentAutonomy(db: Queryable, orgId: string, key: AgentKey, autonomy: AutonomyMode, intervalMinutes?: number): Promise<Agent> {
  await ensureAgents(db, orgId);
  await db.query(`UPDATE agents SET autonomy = $3, interval_minutes = COALESCE($4, interval_minutes), updated_at = now()
    WHERE org_id = $1 AND agent_key = $2`, [orgId, key, autonomy, intervalMinutes ?? null]);
  return getAgent(db, orgId, key);
}

export async function recordAgentRun(db: Queryable, orgId: string, key: string, status: string, summary: string): Promise<void> {
  await db.query(`UPDATE agents SET last_run_at = now(), last_run_status = $3, last_run_summary = $4 WHERE org_id = $1 AND agent_key = $2`,
    [orgId, key, status, summary]);
}

/** Every organisation's agents, for bringing schedules in line at start. */
export async function allAgentRows(db: Queryable): Promise<Array<{ orgId: string; key: string; autonomy: AutonomyMode; intervalMinutes: number }>> {
  const rows = await queryRows<{ org_id: string; agent_key: string; autonomy: AutonomyMode; interval_minutes: number }>(db, 'SELECT org_id, agent_key, autonomy, interval_minutes FROM agents');
  return rows.map((row) => ({ orgId: row.org_id, key: row.agent_key, autonomy: row.autonomy, intervalMinutes: row.interval_minutes }));
}

/** One thing an agent wants done: a tool call, explained, with a key that stops it being proposed twice. */
export interface AgentAction {
  tool: string;
  args: Record<string, unknown>;
  summary: string;
  dedupeKey: string;
}

const MAX_ACTIONS_PER_RUN = 20;
const WELFARE_DAYS = 180;

async function peopleAgentActions(db: Queryable, orgId: string): Promise<AgentAction[]> {
  const pairs = await findDuplicatePairs(db, orgId, MAX_ACTIONS_PER_RUN * 3);
  // A contact in one proposed merge is left out of the others this run; they can follow once it is decided.
  const seen = new Set<string>();
  const actions: AgentAction[] = [];
  for (const pair of pairs) {
    if (seen.has(pair.keepContactId) || seen.has(pair.mergeContactId)) continue;
    seen.add(pair.keepContactId);
    seen.add(pair.mergeContactId);
    actions.push({
      tool: 'people_merge_data_quality_contacts',
      args: { keepContactId: pair.keepContactId, mergeContactId: pair.mergeContactId },
      summary: `Merge duplicate contact ${pair.mergeName} into ${pair.keepName} (same ${pair.matchedOn.join(' and ')})`,
      dedupeKey: `merge:${pair.keepContactId}:${pair.mergeContactId}`,
    });
  }
  return actions;
}

async function pastoralAgentActions(db: Queryable, org: OrgSettings): Promise<AgentAction[]> {
  const due = await listWelfareDueContacts(db, org.id, { days: WELFARE_DAYS, limit: MAX_ACTIONS_PER_RUN * 3 });
  const actions: AgentAction[] = [];
  for (const person of due) {
    const open = await queryOne(db, `SELECT 1 FROM outreach_items WHERE org_id = $1 AND contact_id = $2 AND status IN ('pending_review', 'approved')`, [org.id, person.contactId]);
    if (open) continue;
    const contact = await loadDeliveryContact(db, org.id, person.contactId);
    const channel = !consentRefusal(contact, 'email') ? 'email' : !consentRefusal(contact, 'sms') ? 'sms' : null;
    if (!channel) continue;
    const firstName = contact!.preferred_name ?? contact!.first_name ?? person.name;
    actions.push({
      tool: 'people_create_outreach',
      args: {
        contactId: person.contactId,
        channel,
        ...(channel === 'email' ? { subject: `Thinking of you, ${firstName}` } : {}),
        body: `Hi ${firstName}, it has been a while since we were last in touch and we wanted to check in. How are you doing? If there is anything we can do or pray about, just reply. With love from everyone at ${org.name}.`,
        reason: `${person.daysSinceContact} days since last pastoral contact`,
      },
      summary: `Welfare check for ${person.name}: ${person.daysSinceContact} days since last pastoral contact (${channel})`,
      dedupeKey: `welfare:${person.contactId}`,
    });
    if (actions.length >= MAX_ACTIONS_PER_RUN * 2) break;
  }
  return actions;
}

/** What an agent would do now, leaving out subjects already proposed (or rejected by a person). */
export async function planAgentActions(db: Queryable, org: OrgSettings, key: AgentKey): Promise<AgentAction[]> {
  let actions: AgentAction[] = [];
  if (key === 'people') actions = await peopleAgentActions(db, org.id);
  else if (key === 'pastoral_care') actions = await pastoralAgentActions(db, org);
  const blocked = await blockedDedupeKeys(db, org.id, actions.map((a) => a.dedupeKey));
  return actions.filter((a) => !blocked.has(a.dedupeKey)).slice(0, MAX_ACTIONS_PER_RUN);
}
