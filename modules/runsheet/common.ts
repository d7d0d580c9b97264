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
