import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { notFound, type RowOf } from '../../kit';
import { displayNameOf, requireContact } from '../../people/api';
import { getInstance, listInstances, type ServiceInstance } from '../../schedule/api';
import { requireLocation } from '../checkin/setup';
import type { VolunteerAssignment } from './models';

export const VOLUNTEER_STATUSES = ['scheduled', 'confirmed', 'declined'] as const;
export type VolunteerStatus = (typeof VOLUNTEER_STATUSES)[number];
/** The team guests meet first; copying a service's welcome team copies this one by default. */
export const WELCOME_TEAM = 'welcome';

export interface VolunteerAssignmentView {
  id: string;
  instanceId: string;
  serviceTitle: string;
  serviceStartsAt: string;
  localDate: string;
  contactId: string;
  volunteerName: string;
  team: string;
  role: string | null;
  locationId: string | null;
  status: VolunteerStatus;
  notes: string | null;
  copiedFromId: string | null;
}

type AssignmentRow = Pick<RowOf<VolunteerAssignment>, 'id' | 'instance_id' | 'contact_id' | 'team' | 'role' | 'location_id' | 'status' | 'notes' | 'copied_from_id'> & {
  first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null;
};

const SELECT = `SELECT a.id, a.instance_id, a.contact_id, a.team, a.role, a.location_id, a.status, a.notes, a.copied_from_id,
    d.first_name, d.last_name, d.preferred_name, d.email
  FROM guests_volunteer_assignments a JOIN people_directory d ON d.id = a.contact_id AND d.org_id = a.org_id WHERE a.org_id = $1`;

function view(row: AssignmentRow, instance: ServiceInstance): VolunteerAssignmentView {
  return {
    id: row.id, instanceId: row.instance_id, serviceTitle: instance.title, serviceStartsAt: instance.startsAt, localDate: instance.localDate,
    contactId: row.contact_id, volunteerName: displayNameOf(row), team: row.team, role: row.role, locationId: row.location_id, status: row.status,
    notes: row.notes, copiedFromId: row.copied_from_id,
  };
}

async function assignmentsOf(db: Queryable, orgId: string, instances: readonly ServiceInstance[], filter: { contactId?: string; team?: string; id?: string }): Promise<VolunteerAssignmentView[]> {
  if (instances.length === 0) return [];
  const byId = new Map(instances.map((instance) => [instance.id, instance]));
  const rows = await queryRows<AssignmentRow>(db, `${SELECT} AND a.instance_id = ANY($2::text[]) AND ($3::uuid IS NULL OR a.contact_id = $3) AND ($4::text IS NULL OR a.team = $4)
    AND ($5::uuid IS NULL OR a.id = $5) ORDER BY a.team, a.role NULLS LAST, d.last_name, d.first_name, a.id`,
  [orgId, [...byId.keys()], filter.contactId ?? null, filter.team ?? null, filter.id ?? null]);
  return rows.map((row) => view(row, byId.get(row.instance_id)!)).sort((a, b) => a.serviceStartsAt.localeCompare(b.serviceStartsAt));
}

/** Who serves at one service, or at every service in a range of dates. */
export async function listVolunteerSchedules(
  db: Queryable, orgId: string, filter: { instanceId?: string; from?: string; to?: string; contactId?: string; team?: string },
): Promise<VolunteerAssignmentView[]> {
  const instances = filter.instanceId
    ? [await getInstance(db, orgId, filter.instanceId)]
    : await listInstances(db, orgId, { from: filter.from!, to: filter.to!, includeCancelled: true });
  return assignmentsOf(db, orgId, instances, filter);
}

export async function requireAssignment(db: Queryable, orgId: string, id: string, lock = false): Promise<VolunteerAssignmentView> {
  const row = await queryOne<{ instance_id: string }>(db, `SELECT instance_id FROM guests_volunteer_assignments WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, id]);
  if (!row) throw notFound('Volunteer assignment', id, 'guests_list_volunteer_schedules lists them.');
  const [assignment] = await assignmentsOf(db, orgId, [await getInstance(db, orgId, row.instance_id)], { id });
  if (!assignment) throw notFound('Volunteer assignment', id, 'guests_list_volunteer_schedules lists them.');
  return assignment;
}

export interface AssignInput {
  instanceId: string;
  contactId: string;
  team: string;
  role?: string;
  locationId?: string;
  status?: VolunteerStatus;
  notes?: string;
}

/** Puts a person on a service's team; the same person twice on one team of one service is a conflict. */
export async function assignVolunteer(db: Queryable, orgId: string, actorUserId: string | null, input: AssignInput): Promise<VolunteerAssignmentView> {
  const instance = await getInstance(db, orgId, input.instanceId);
  if (instance.status === 'cancelled') throw new StewardError('conflict', `${instance.title} on ${instance.localDate} is cancelled`, { hint: 'Choose another service instance.' });
  await requireContact(db, orgId, input.contactId);
  if (input.locationId) await requireLocation(db, orgId, input.locationId);
  const id = randomUUID();
  const row = await queryOne<{ id: string }>(db, `INSERT INTO guests_volunteer_assignments (id, org_id, instance_id, contact_id, team, role, location_id, status, notes, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (org_id, instance_id, contact_id, team) DO NOTHING RETURNING id`,
  [id, orgId, instance.id, input.contactId, input.team, input.role ?? null, input.locationId ?? null, input.status ?? 'scheduled', input.notes ?? null, actorUserId]);
  if (!row) {
    throw new StewardError('conflict', `This person is already on the ${input.team} team for ${instance.title} on ${instance.localDate}`, { hint: 'guests_update_volunteer_schedule changes their role or status.' });
  }
  return requireAssignment(db, orgId, id);
}

export async function updateVolunteerAssignment(
  db: Queryable, orgId: string, id: string, patch: { role?: string | null; locationId?: string | null; status?: VolunteerStatus; notes?: string | null },
): Promise<VolunteerAssignmentView> {
  const before = await requireAssignment(db, orgId, id, true);
  if (patch.locationId) await requireLocation(db, orgId, patch.locationId);
  const next = {
    role: patch.role === undefined ? before.role : patch.role,
    locationId: patch.locationId === undefined ? before.locationId : patch.locationId,
    status: patch.status ?? before.status,
    notes: patch.notes === undefined ? before.notes : patch.notes,
  };
  await db.query('UPDATE guests_volunteer_assignments SET role = $3, location_id = $4, status = $5, notes = $6, updated_at = now() WHERE org_id = $1 AND id = $2',
    [orgId, id, next.role, next.locationId, next.status, next.notes]);
  return requireAssignment(db, orgId, id);
}

export async function deleteVolunteerAssignment(db: Queryable, orgId: string, id: string): Promise<VolunteerAssignmentView> {
  const before = await requireAssignment(db, orgId, id, true);
  await db.query('DELETE FROM guests_volunteer_assignments WHERE org_id = $1 AND id = $2', [orgId, id]);
  return before;
}

/**
 * Copies one service's team (welcome by default) to another: every volunteer not declined, with
 * their role and location, as scheduled. Someone already on that team there is left as they are and
 * reported, so copying twice adds nobody twice.
 */
export async function copyTeam(
  db: Queryable, orgId: string, actorUserId: string | null, input: { fromInstanceId: string; toInstanceId: string; team: string },
): Promise<{ copied: VolunteerAssignmentView[]; alreadyThere: number; declinedSkipped: number }> {
  if (input.fromInstanceId === input.toInstanceId) {
    throw new StewardError('validation_failed', 'Copy from one service instance to another', { issues: [{ path: 'toInstanceId', message: 'must differ from fromInstanceId' }] });
  }
  const from = await getInstance(db, orgId, input.fromInstanceId);
  const to = await getInstance(db, orgId, input.toInstanceId);
  if (to.status === 'cancelled') throw new StewardError('conflict', `${to.title} on ${to.localDate} is cancelled`, { hint: 'Choose another service instance.' });
  const source = await assignmentsOf(db, orgId, [from], { team: input.team });
  const copiedIds: string[] = [];
  let alreadyThere = 0;
  for (const assignment of source.filter((a) => a.status !== 'declined')) {
    const row = await queryOne<{ id: string }>(db, `INSERT INTO guests_volunteer_assignments (id, org_id, instance_id, contact_id, team, role, location_id, status, copied_from_id, created_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'scheduled', $8, $9) ON CONFLICT (org_id, instance_id, contact_id, team) DO NOTHING RETURNING id`,
    [randomUUID(), orgId, to.id, assignment.contactId, assignment.team, assignment.role, assignment.locationId, assignment.id, actorUserId]);
    if (row) copiedIds.push(row.id);
    else alreadyThere += 1;
  }
  const copied = (await assignmentsOf(db, orgId, [to], { team: input.team })).filter((a) => copiedIds.includes(a.id));
  return { copied, alreadyThere, declinedSkipped: source.filter((a) => a.status === 'declined').length };
}

/** Volunteers scheduled (not declined) per instance, for attendance's volunteer counts. */
export async function volunteersByInstance(db: Queryable, orgId: string, instanceIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = instanceIds.length === 0 ? [] : await queryRows<{ instance_id: string; contact_id: string }>(db, `SELECT DISTINCT instance_id, contact_id FROM guests_volunteer_assignments
    WHERE org_id = $1 AND instance_id = ANY($2::text[]) AND status <> 'declined'`, [orgId, instanceIds]);
  const map = new Map<string, string[]>();
  for (const row of rows) map.set(row.instance_id, [...(map.get(row.instance_id) ?? []), row.contact_id]);
  return map;
}
