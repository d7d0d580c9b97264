import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { displayNameOf } from '../people/api';

/** Shared lookups of the runsheet module: rows by id within the organisation (another organisation's id is not found). */

export interface PlanRow {
  id: string;
  org_id: string;
  service_type_id: string;
  instance_id: string | null;
  plan_date: string;
  time_zone: string;
  title: string | null;
  series_title: string | null;
  notes: string | null;
  status: 'draft' | 'scheduled' | 'locked';
  starts_at: Date;
  ends_at: Date;
  copied_from_plan_id: string | null;
  locked_at: Date | null;
  created_by_user_id: string | null;
  created_at: Date;
}

export type PlanState = 'draft' | 'scheduled' | 'locked' | 'live' | 'past';

/** Where a plan stands now: its stored state until its first service starts, live until its last ends, past (read-only) after. */
export function planState(plan: Pick<PlanRow, 'status' | 'starts_at' | 'ends_at'>, now = new Date()): PlanState {
  if (now >= plan.ends_at) return 'past';
  if (now >= plan.starts_at) return 'live';
  return plan.status;
}

export async function requirePlan(db: Queryable, orgId: string, planId: string, lock = false): Promise<PlanRow> {
  const row = await queryOne<PlanRow>(db, `SELECT * FROM runsheet_plans WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, planId]);
  if (!row) throw notFound('Plan', planId, 'runsheet_list_plans lists the plans there are.');
  return row;
}

/** A plan that may still change: not past (history is read-only) and, for running order and rota changes, not locked unless allowed. */
export async function requireEditablePlan(db: Queryable, orgId: string, planId: string, options: { allowLocked?: boolean } = {}): Promise<PlanRow> {
  const plan = await requirePlan(db, orgId, planId, true);
  const state = planState(plan);
  if (state === 'past') {
    throw new StewardError('conflict', `Plan ${planId} is past and read-only`, { hint: 'Copy it to a new date with runsheet_copy_plan to reuse it.' });
  }
  if (plan.status === 'locked' && !options.allowLocked) {
    throw new StewardError('conflict', `Plan ${planId} is locked`, { hint: 'Unlock it with runsheet_lock_plan (locked: false) first.' });
  }
  return plan;
}

export async function requireServiceType(db: Queryable, orgId: string, id: string): Promise<{ id: string; name: string; schedule_series_id: string | null }> {
  const row = await queryOne<{ id: string; name: string; schedule_series_id: string | null }>(db,
    'SELECT id, name, schedule_series_id FROM runsheet_service_types WHERE org_id = $1 AND id = $2', [orgId, id]);
  if (!row) throw notFound('Service type', id, 'runsheet_list_plans names service types; runsheet_create_service_type adds one.');
  return row;
}

export interface PositionRow {
  id: string;
  team_id: string;
  team_name: string;
  name: string;
  requires_clearance: boolean;
  clearance_check_type: string | null;
  auto_replace: boolean;
  offer_expires_seconds: number;
}

export async function requirePosition(db: Queryable, orgId: string, positionId: string): Promise<PositionRow> {
  const row = await queryOne<PositionRow>(db, `SELECT p.id, p.team_id, t.name AS team_name, p.name, p.requires_clearance, p.clearance_check_type, t.auto_replace, t.offer_expires_seconds
    FROM runsheet_positions p JOIN runsheet_teams t ON t.id = p.team_id AND t.org_id = p.org_id WHERE p.org_id = $1 AND p.id = $2`, [orgId, positionId]);
  if (!row) throw notFound('Position', positionId, 'runsheet_list_teams lists teams and their positions.');
  return row;
}

export async function requireTeam(db: Queryable, orgId: string, teamId: string) {
  const row = await queryOne<{ id: string; name: string; service_type_id: string | null; auto_replace: boolean; offer_expires_seconds: number }>(db,
    'SELECT id, name, service_type_id, auto_replace, offer_expires_seconds FROM runsheet_teams WHERE org_id = $1 AND id = $2', [orgId, teamId]);
  if (!row) throw notFound('Team', teamId, 'runsheet_list_teams lists the teams there are.');
  return row;
}

/** Display names of live contacts (through people's published directory); an erased or missing contact reads as "A former contact". */
export async function namesOf(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(contactIds)];
  if (unique.length === 0) return new Map();
  const rows = await queryRows<{ id: string; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    'SELECT id, preferred_name, first_name, last_name, email FROM people_directory WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, unique]);
  return new Map(rows.map((row) => [row.id, displayNameOf(row)]));
}

export const nameOr = (names: Map<string, string>, id: string) => names.get(id) ?? 'A former contact';

/** The instant a plan time starts, moved to another date keeping its wall-clock time and its day offset from the plan's date. */
export function rebase(instant: Date, fromDate: string, toDate: string, zone: string): Date {
  const local = DateTime.fromJSDate(instant, { zone });
  const shift = DateTime.fromISO(toDate, { zone }).diff(DateTime.fromISO(fromDate, { zone }), 'days').days;
  return local.plus({ days: Math.round(shift) }).toUTC().toJSDate();
}

export const iso = (value: Date | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

export function todayIn(zone: string, now = new Date()): string {
  return DateTime.fromJSDate(now, { zone }).toISODate()!;
}

/** The key of rows kept per plan time (needed positions, plan people), the whole plan counting as a time of its own. */
export const PER_TIME_KEY = "(COALESCE(plan_time_id, '00000000-0000-0000-0000-000000000000'::uuid))";

/** One of a plan's times; a time of another plan (or organisation) is not found. */
export async function requirePlanTime(db: Queryable, orgId: string, planId: string, planTimeId: string): Promise<{ id: string; kind: string; starts_at: Date; ends_at: Date }> {
  const row = await queryOne<{ id: string; kind: string; starts_at: Date; ends_at: Date }>(db,
    'SELECT id, kind, starts_at, ends_at FROM runsheet_plan_times WHERE org_id = $1 AND plan_id = $2 AND id = $3', [orgId, planId, planTimeId]);
  if (!row) throw notFound('Plan time', planTimeId, 'runsheet_get_plan lists the plan\'s times with their ids.');
  return row;
}

/**
 * Whether a position is needed per time on a plan, for the whole plan, or not at all yet. A position
 * is needed one way or the other, never both, so its places are counted one way.
 */
export async function neededGranularity(db: Queryable, orgId: string, planId: string, positionId: string): Promise<'per_time' | 'whole_plan' | 'none'> {
  const row = await queryOne<{ per_time: number; whole: number }>(db, `SELECT count(*) FILTER (WHERE plan_time_id IS NOT NULL)::int AS per_time, count(*) FILTER (WHERE plan_time_id IS NULL)::int AS whole
    FROM runsheet_needed_positions WHERE org_id = $1 AND plan_id = $2 AND position_id = $3`, [orgId, planId, positionId]);
  return row!.per_time > 0 ? 'per_time' : row!.whole > 0 ? 'whole_plan' : 'none';
}

/** Refuses a plan time that does not match how the position is needed on the plan. */
export async function assertTimeFitsNeed(db: Queryable, orgId: string, planId: string, position: { id: string; name: string }, planTimeId: string | null): Promise<void> {
  if (planTimeId) await requirePlanTime(db, orgId, planId, planTimeId);
  const granularity = await neededGranularity(db, orgId, planId, position.id);
  if (granularity === 'per_time' && !planTimeId) {
    throw new StewardError('validation_failed', `${position.name} is needed per time on this plan: name the time`, {
      hint: 'runsheet_get_plan lists the plan\'s times (times[].id) and what each needs.', issues: [{ path: 'planTimeId', message: 'required for a position needed per time' }],
    });
  }
  if (granularity === 'whole_plan' && planTimeId) {
    throw new StewardError('validation_failed', `${position.name} is needed for the whole plan, not per time`, {
      hint: 'Leave planTimeId out, or set the need per time with runsheet_set_needed_positions (quantity 0 for the whole plan first).', issues: [{ path: 'planTimeId', message: 'the position is needed for every time of the plan' }],
    });
  }
}
