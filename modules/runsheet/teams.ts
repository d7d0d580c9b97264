import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { assertAllowance, lockFeature } from '../../kernel/billing';
import { requireContact } from '../people/api';
import { PER_TIME_KEY, nameOr, namesOf, neededGranularity, requireEditablePlan, requirePlanTime, requirePosition, requireServiceType, requireTeam } from './common';

export async function createTeam(db: Queryable, orgId: string, input: { name: string; serviceTypeId?: string; autoReplace?: boolean; offerExpiresSeconds?: number }): Promise<string> {
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_teams (id, org_id, service_type_id, name, auto_replace, offer_expires_seconds)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (org_id, lower(name)) DO NOTHING RETURNING id`,
  [randomUUID(), orgId, input.serviceTypeId ?? null, input.name, input.autoReplace ?? false, input.offerExpiresSeconds ?? 86_400]);
  if (!row) throw new StewardError('conflict', `A team named "${input.name}" exists already`, { hint: 'runsheet_list_teams shows it; use its id.' });
  return row.id;
}

/** The per-team switch for declines that fix themselves, and how long each substitute's offer stays open. */
export async function updateTeam(db: Queryable, orgId: string, teamId: string, input: { autoReplace?: boolean; offerExpiresSeconds?: number; name?: string }): Promise<void> {
  await requireTeam(db, orgId, teamId);
  try {
    await db.query(`UPDATE runsheet_teams SET auto_replace = COALESCE($3, auto_replace), offer_expires_seconds = COALESCE($4, offer_expires_seconds), name = COALESCE($5, name)
      WHERE org_id = $1 AND id = $2`, [orgId, teamId, input.autoReplace ?? null, input.offerExpiresSeconds ?? null, input.name ?? null]);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new StewardError('conflict', `A team named "${input.name}" exists already`, { hint: 'Choose another name.' });
    throw error;
  }
}

export async function addPosition(db: Queryable, orgId: string, input: { teamId: string; name: string; requiresClearance?: boolean; clearanceCheckType?: string }): Promise<string> {
  await requireTeam(db, orgId, input.teamId);
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_positions (id, org_id, team_id, name, requires_clearance, clearance_check_type)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (org_id, team_id, lower(name)) DO NOTHING RETURNING id`,
  [randomUUID(), orgId, input.teamId, input.name, input.requiresClearance ?? Boolean(input.clearanceCheckType), input.clearanceCheckType ?? null]);
  if (!row) throw new StewardError('conflict', `The team has a position named "${input.name}" already`, { hint: 'runsheet_list_teams shows it.' });
  return row.id;
}

/** Whether a contact already holds a runsheet seat (is on any team): adding them again to another position takes no new seat. */
export async function holdsSeat(db: Queryable, orgId: string, contactId: string): Promise<boolean> {
  return Boolean(await queryOne(db, 'SELECT 1 FROM runsheet_team_members WHERE org_id = $1 AND contact_id = $2 LIMIT 1', [orgId, contactId]));
}

/** Runsheet access seats held: distinct live contacts on any team. */
export async function countSeats(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(db, `SELECT count(DISTINCT m.contact_id)::int AS n FROM runsheet_team_members m
    JOIN people_directory d ON d.id = m.contact_id AND d.org_id = m.org_id WHERE m.org_id = $1`, [orgId]);
  return row?.n ?? 0;
}

export async function addTeamMember(db: Queryable, orgId: string, input: { positionId: string; contactId: string }): Promise<{ memberId: string; added: boolean; newSeat: boolean }> {
  const position = await requirePosition(db, orgId, input.positionId);
  await requireContact(db, orgId, input.contactId);
  // A person's first team takes a seat: seats are counted and checked under the feature's lock, so concurrent adds cannot pass the plan's allowance.
  await lockFeature(db, orgId, 'runsheet_access_seats');
  const newSeat = !(await holdsSeat(db, orgId, input.contactId));
  if (newSeat) await assertAllowance(db, orgId, 'runsheet_access_seats', 1);
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_team_members (id, org_id, team_id, position_id, contact_id) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (org_id, position_id, contact_id) DO NOTHING RETURNING id`, [randomUUID(), orgId, position.team_id, position.id, input.contactId]);
  if (row) return { memberId: row.id, added: true, newSeat };
  const existing = await queryOne<{ id: string }>(db, 'SELECT id FROM runsheet_team_members WHERE org_id = $1 AND position_id = $2 AND contact_id = $3', [orgId, position.id, input.contactId]);
  return { memberId: existing!.id, added: false, newSeat: false };
}

export async function listTeams(db: Queryable, orgId: string, input: { serviceTypeId?: string }) {
  if (input.serviceTypeId) await requireServiceType(db, orgId, input.serviceTypeId);
  const teams = await queryRows<{ id: string; name: string; service_type_id: string | null; auto_replace: boolean; offer_expires_seconds: number }>(db,
    `SELECT id, name, service_type_id, auto_replace, offer_expires_seconds FROM runsheet_teams WHERE org_id = $1 AND ($2::uuid IS NULL OR service_type_id = $2 OR service_type_id IS NULL)
     ORDER BY lower(name)`, [orgId, input.serviceTypeId ?? null]);
  const positions = await queryRows<{ id: string; team_id: string; name: string; requires_clearance: boolean; clearance_check_type: string | null }>(db,
    'SELECT id, team_id, name, requires_clearance, clearance_check_type FROM runsheet_positions WHERE org_id = $1 ORDER BY lower(name)', [orgId]);
  const members = await queryRows<{ position_id: string; contact_id: string }>(db, 'SELECT position_id, contact_id FROM runsheet_team_members WHERE org_id = $1', [orgId]);
  const names = await namesOf(db, orgId, members.map((member) => member.contact_id));
  return teams.map((team) => ({
    id: team.id, name: team.name, serviceTypeId: team.service_type_id, autoReplace: team.auto_replace, offerExpiresSeconds: team.offer_expires_seconds,
    positions: positions.filter((position) => position.team_id === team.id).map((position) => ({
      id: position.id, name: position.name, requiresClearance: position.requires_clearance, clearanceCheckType: position.clearance_check_type,
      members: members.filter((member) => member.position_id === position.id && names.has(member.contact_id))
        .map((member) => ({ contactId: member.contact_id, name: nameOr(names, member.contact_id) }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    })),
  }));
}

/**
 * Sets how many people each named position needs on a plan, for the whole plan or at one of its
 * times (0 removes that need); people already scheduled stay. A position is needed one way or the
 * other: naming a time for a position needed for the whole plan (or the reverse) is refused until the
 * other need is set to 0, which may come earlier in the same call.
 */
export async function setNeededPositions(db: Queryable, orgId: string, planId: string, needs: Array<{ positionId: string; planTimeId?: string; quantity: number }>): Promise<void> {
  await requireEditablePlan(db, orgId, planId);
  const seen = new Set<string>();
  for (const [index, need] of needs.entries()) {
    const planTimeId = need.planTimeId ?? null;
    const key = `${need.positionId}:${planTimeId ?? 'plan'}`;
    if (seen.has(key)) throw new StewardError('validation_failed', `Position ${need.positionId} is named twice${planTimeId ? ' for one time' : ''}`, { issues: [{ path: `positions.${index}`, message: 'name each position (and time) once' }] });
    seen.add(key);
    const position = await requirePosition(db, orgId, need.positionId);
    if (planTimeId) await requirePlanTime(db, orgId, planId, planTimeId);
    if (need.quantity === 0) {
      await db.query('DELETE FROM runsheet_needed_positions WHERE org_id = $1 AND plan_id = $2 AND position_id = $3 AND plan_time_id IS NOT DISTINCT FROM $4::uuid', [orgId, planId, need.positionId, planTimeId]);
      continue;
    }
    const granularity = await neededGranularity(db, orgId, planId, need.positionId);
    if ((granularity === 'whole_plan' && planTimeId) || (granularity === 'per_time' && !planTimeId)) {
      throw new StewardError('validation_failed', `${position.name} is needed ${granularity === 'whole_plan' ? 'for the whole plan' : 'per time'} on this plan`, {
        hint: `Set ${granularity === 'whole_plan' ? 'the whole plan\'s need (no planTimeId)' : 'each time\'s need'} to 0 first, in the same call.`,
        issues: [{ path: `positions.${index}.planTimeId`, message: granularity === 'whole_plan' ? 'the position is needed for every time' : 'the position is needed per time' }],
      });
    }
    await db.query(`INSERT INTO runsheet_needed_positions (id, org_id, plan_id, position_id, plan_time_id, quantity) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (org_id, plan_id, position_id, ${PER_TIME_KEY}) DO UPDATE SET quantity = EXCLUDED.quantity`, [randomUUID(), orgId, planId, need.positionId, planTimeId, need.quantity]);
  }
}
