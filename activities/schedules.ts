import { createHash } from 'node:crypto';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleOptions } from '@temporalio/client';
import { agentScheduleId, automationScheduleId, type AgentRunInput, type AutomationRunInput, type AutonomyMode } from '../core/approvals';
import { SA_KIND, SA_ORG, SA_STATUS } from '../core/search-attributes';
import { queryOne, queryRows, type Queryable } from '../db/pool';
import { ensureAgents } from '../modules/platform/agents';
import { MODULES } from '../modules';
import type { ModuleJob, ModuleSchedule } from '../modules/module';
import type { ModuleJobRunInput } from '../workflows/module-job';
import { moduleJobsByName } from './module-jobs';

/**
 * Each agent and each pastoral automation is a Temporal Schedule: it starts
 * agentRunWorkflow / automationRunWorkflow on an interval, skips a run while the
 * previous one is still going, and is paused when the agent is off or the
 * automation disabled. These functions bring a schedule in line with its row.
 */

interface DesiredSchedule {
  scheduleId: string;
  /** The kernel's, or a module's (ModuleSchedule). */
  workflowType: string;
  workflowId: string;
  args: [AgentRunInput] | [AutomationRunInput] | [ModuleJobRunInput] | [];
  everyMs: number;
  paused: boolean;
  note: string;
  orgId: string;
  kind: 'agent' | 'automation' | 'maintenance';
}

/**
 * Where in its interval an organisation's schedule fires, in ms. Temporal places an interval's times at
 * whole multiples of it from the Unix epoch, so every organisation's daily agent would start in the same
 * second (00:00 UTC), and their reads and model calls with it: a burst that grows with every
 * organisation, in which a run the scheduler reaches more than the catch-up window late is skipped. Each
 * is shifted by whole seconds derived from its schedule id: the same on every update, spread evenly.
 */
export function phaseOf(scheduleId: string, everyMs: number): number {
  const seconds = Math.floor(everyMs / 1000);
  if (seconds <= 1) return 0;
  return (createHash('sha256').update(scheduleId).digest().readUIntBE(0, 6) % seconds) * 1000;
}

function optionsOf(desired: DesiredSchedule, taskQueue: string): ScheduleOptions {
  // Deployment-wide schedules are few and keep the epoch's times (a daily one at 00:00 UTC); an organisation's are spread.
  const offset = desired.kind === 'maintenance' ? 0 : phaseOf(desired.scheduleId, desired.everyMs);
  return {
    scheduleId: desired.scheduleId,
    spec: { intervals: [{ every: desired.everyMs, offset }] },
    action: {
      type: 'startWorkflow',
      workflowType: desired.workflowType,
      workflowId: desired.workflowId,
      args: desired.args,
      taskQueue,
      typedSearchAttributes: [
        { key: SA_ORG, value: desired.orgId },
        { key: SA_KIND, value: desired.kind },
        { key: SA_STATUS, value: 'running' },
      ],
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
    state: { paused: desired.paused, note: desired.note },
    typedSearchAttributes: [{ key: SA_ORG, value: desired.orgId }, { key: SA_KIND, value: desired.kind }],
  } as ScheduleOptions;
}

/** Creates the schedule, or updates its interval, action and paused state to match. */
async function upsertSchedule(client: Client, desired: DesiredSchedule, taskQueue: string): Promise<'created' | 'updated'> {
  const options = optionsOf(desired, taskQueue);
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (error) {
    const name = (error as Error | undefined)?.name ?? (error as object | undefined)?.constructor?.name;
    if (!(error instanceof ScheduleAlreadyRunning) && name !== 'ScheduleAlreadyRunning') throw error;
  }
  const handle = client.schedule.getHandle(desired.scheduleId);
  await handle.update((previous) => ({
    ...previous,
    spec: options.spec,
    action: options.action,
    policies: { ...previous.policies, overlap: 'SKIP' },
    state: { ...previous.state, paused: desired.paused, note: desired.note },
  } as typeof previous));
  return 'updated';
}

/** The activity-context client (over a NativeConnection) does not always map NOT_FOUND to ScheduleNotFoundError. */
function isNotFound(error: unknown): boolean {
  if (error instanceof ScheduleNotFoundError) return true;
  const { code, message, name } = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown };
  return name === 'ScheduleNotFoundError' || error?.constructor?.name === 'ScheduleNotFoundError' || code === 5
    || (typeof message === 'string' && /not found/i.test(message));
}

async function deleteSchedule(client: Client, scheduleId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleId).delete();
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

export function agentSchedule(orgId: string, key: string, autonomy: AutonomyMode, intervalMinutes: number): DesiredSchedule {
  return {
    scheduleId: agentScheduleId(orgId, key),
    workflowType: 'agentRunWorkflow',
    workflowId: `agent-run-${orgId}-${key}`,
    args: [{ orgId, agentKey: key }],
    everyMs: intervalMinutes * 60_000,
    paused: autonomy === 'off',
    note: autonomy === 'off' ? 'Agent is off' : `Agent runs in ${autonomy} mode`,
    orgId,
    kind: 'agent',
  };
}

/**
 * All of an organisation's agent schedules (and agent rows), brought in line.
 * `ifMissing` (after a read such as platform_list_agents) writes nothing unless
 * the org has no schedules yet, and then creates rows and schedules: they are
 * made together, so one describe tells.
 */
export async function syncAgentSchedules(client: Client, db: Queryable, orgId: string, taskQueue: string, ifMissing = false): Promise<number> {
  if (ifMissing) {
    try {
      await client.schedule.getHandle(agentScheduleId(orgId, 'people')).describe();
      return 0;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await ensureAgents(db, orgId);
  const rows = await queryRows<{ agent_key: string; autonomy: AutonomyMode; interval_minutes: number }>(db,
    'SELECT agent_key, autonomy, interval_minutes FROM agents WHERE org_id = $1', [orgId]);
  for (const row of rows) await upsertSchedule(client, agentSchedule(orgId, row.agent_key, row.autonomy, row.interval_minutes), taskQueue);
  return rows.length;
}

export async function syncAutomationSchedule(client: Client, db: Queryable, orgId: string, automationId: string, taskQueue: string): Promise<'upserted' | 'deleted'> {
  const row = await queryOne<{ enabled: boolean; interval_hours: number; deleted_at: Date | null; name: string }>(db,
    'SELECT enabled, interval_hours, deleted_at, name FROM pastoral_automations WHERE org_id = $1 AND id = $2', [orgId, automationId]);
  const scheduleId = automationScheduleId(orgId, automationId);
  if (!row || row.deleted_at) {
    await deleteSchedule(client, scheduleId);
    return 'deleted';
  }
  await upsertSchedule(client, {
    scheduleId,
    workflowType: 'automationRunWorkflow',
    workflowId: `automation-run-${orgId}-${automationId}`,
    args: [{ orgId, automationId }],
    everyMs: row.interval_hours * 3_600_000,
    paused: !row.enabled,
    note: row.enabled ? `Pastoral automation "${row.name}"` : `Pastoral automation "${row.name}" is disabled`,
    orgId,
    kind: 'automation',
  }, taskQueue);
  return 'upserted';
}

/** Daily housekeeping for the deployment (one per task queue, so separate deployments on one cluster keep their own). */
export function maintenanceSchedule(taskQueue: string): DesiredSchedule {
  return {
    scheduleId: `maintenance-${taskQueue}`,
    workflowType: 'maintenanceWorkflow',
    workflowId: `maintenance-run-${taskQueue}`,
    args: [],
    everyMs: 24 * 3_600_000,
    paused: false,
    note: 'Removes records that have outlived their purpose',
    orgId: 'system',
    kind: 'maintenance',
  };
}

/** A module's own schedule (ModuleSchedule), one per task queue: ids keep the names they had when the kernel declared them. */
export function moduleSchedule(schedule: ModuleSchedule, taskQueue: string): DesiredSchedule {
  return {
    scheduleId: `${schedule.id}-${taskQueue}`,
    workflowType: schedule.workflowType,
    workflowId: `${schedule.id}-run-${taskQueue}`,
    args: [],
    everyMs: schedule.everyMs,
    paused: false,
    note: schedule.note,
    orgId: 'system',
    kind: 'maintenance',
  };
}

/** A module's periodic job (ModuleJob), one schedule per task queue, starting moduleJobWorkflow at the job's interval. */
export function moduleJobSchedule(job: ModuleJob, taskQueue: string): DesiredSchedule {
  return {
    scheduleId: `job-${job.name}-${taskQueue}`,
    workflowType: 'moduleJobWorkflow',
    workflowId: `job-${job.name}-run-${taskQueue}`,
    args: [{ job: job.name }],
    everyMs: job.everyMs,
    paused: false,
    note: job.description,
    orgId: 'system',
    kind: 'maintenance',
  };
}

/** At start: every organisation's agent and automation schedules, so a fresh cluster catches up with the database. */
export async function syncAllSchedules(client: Client, db: Queryable, taskQueue: string): Promise<{ agents: number; automations: number }> {
  const orgs = await queryRows<{ org_id: string }>(db, 'SELECT DISTINCT org_id FROM agents');
  let agents = 0;
  for (const { org_id } of orgs) agents += await syncAgentSchedules(client, db, org_id, taskQueue);
  const automations = await queryRows<{ org_id: string; id: string }>(db, 'SELECT org_id, id FROM pastoral_automations WHERE deleted_at IS NULL');
  for (const row of automations) await syncAutomationSchedule(client, db, row.org_id, row.id, taskQueue);
  await upsertSchedule(client, maintenanceSchedule(taskQueue), taskQueue);
  for (const schedule of MODULES.flatMap((module) => module.schedules ?? [])) await upsertSchedule(client, moduleSchedule(schedule, taskQueue), taskQueue);
  for (const job of moduleJobsByName().values()) await upsertSchedule(client, moduleJobSchedule(job, taskQueue), taskQueue);
  return { agents, automations: automations.length };
}
