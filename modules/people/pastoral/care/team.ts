import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../../db/pool';
import { listTeam } from '../../../platform/api';
import type { RowOf } from '../../../kit';
import { displayNameOf } from '../../contacts';
import type { Contact } from '../../models/contacts';
import type { CareTeamAssignment, CareTeamRole } from './models';

/**
 * The care team: roles (Senior pastor, Pastoral visitor…) that team members hold, for the whole
 * congregation or for particular people.
 *
 * What a role permits, and how it is enforced:
 * - canApproveOutreach. Once any team member holds a role that may approve pastoral messages, the
 *   organisation has named its approvers: from then on a message is approved only by an owner, an
 *   admin, or a holder of such a role (requireMayApproveOutreach, checked inside the approval's own
 *   transaction whatever the surface: MCP, OAuth client, bridge or dashboard). Until then the general
 *   rule stands (staff and above holding people:write), so an organisation that never sets up a care
 *   team works as before. A volunteer can never be given such a role (volunteers never decide messages).
 * - canViewConfidential. Confidential material is only ever shown with people:safeguarding, which
 *   comes from the member's safeguarding permission on their membership. A role with this permission
 *   may only be held by a member who has it, so the care team never claims access a person lacks:
 *   assigning such a role (or granting it to a role already held) to anyone without it is refused.
 */

export const CARE_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type CarePriority = (typeof CARE_PRIORITIES)[number];

/** Roles people_seed_care_team_roles adds when missing (matched by name, case-insensitively). */
export const DEFAULT_CARE_ROLES: ReadonlyArray<{ name: string; description: string; canApproveOutreach: boolean; canViewConfidential: boolean }> = [
  { name: 'Senior pastor', description: 'Oversees pastoral care; approves pastoral messages and sees confidential records', canApproveOutreach: true, canViewConfidential: true },
  { name: 'Pastoral care lead', description: 'Coordinates the care team and follow-ups; approves pastoral messages and sees confidential records', canApproveOutreach: true, canViewConfidential: true },
  { name: 'Pastoral visitor', description: 'Visits and calls the people they are assigned to', canApproveOutreach: false, canViewConfidential: false },
  { name: 'Prayer team', description: 'Prays for requests shared with the team', canApproveOutreach: false, canViewConfidential: false },
];

export const careRoleSchema = z.object({
  roleId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  canApproveOutreach: z.boolean().describe('Holders approve pastoral messages (see people_seed_care_team_roles)'),
  canViewConfidential: z.boolean().describe('Holders must have safeguarding permission; they see private and confidential pastoral records'),
  memberCount: z.number().int().describe('Team members holding this role'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type CareRole = z.infer<typeof careRoleSchema>;

export const careAssignmentSchema = z.object({
  assignmentId: z.uuid(),
  roleId: z.uuid(),
  roleName: z.string(),
  userId: z.uuid(),
  memberEmail: z.string(),
  memberName: z.string().nullable(),
  contactId: z.uuid().nullable().describe('The person they care for; null for the whole congregation'),
  contactName: z.string().nullable(),
  createdAt: z.string(),
}).strict();
export type CareAssignment = z.infer<typeof careAssignmentSchema>;

type RoleRow = RowOf<CareTeamRole> & { member_count: number };

const SELECT_ROLE = `SELECT r.*, (SELECT count(DISTINCT a.user_id)::int FROM care_team_assignments a WHERE a.org_id = r.org_id AND a.role_id = r.id) AS member_count
  FROM care_team_roles r`;

function roleView(row: RoleRow): CareRole {
  return {
    roleId: row.id, name: row.name, description: row.description, canApproveOutreach: row.can_approve_outreach,
    canViewConfidential: row.can_view_confidential, memberCount: row.member_count, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export async function listCareRoles(db: Queryable, orgId: string): Promise<CareRole[]> {
  const rows = await queryRows<RoleRow>(db, `${SELECT_ROLE} WHERE r.org_id = $1 ORDER BY lower(r.name)`, [orgId]);
  return rows.map(roleView);
}

export async function requireCareRole(db: Queryable, orgId: string, roleId: string, lock = false): Promise<CareRole> {
  if (lock) await db.query('SELECT 1 FROM care_team_roles WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, roleId]);
  const row = await queryOne<RoleRow>(db, `${SELECT_ROLE} WHERE r.org_id = $1 AND r.id = $2`, [orgId, roleId]);
  if (!row) throw new StewardError('not_found', `Care team role ${roleId} was not found`, { hint: 'people_list_care_team_roles lists them.' });
  return roleView(row);
}

function duplicateName(name: string): StewardError {
  return new StewardError('conflict', `A care team role named "${name}" already exists`, { hint: 'Choose another name, or change the existing role with people_set_care_team_role.' });
}

async function roleNamed(db: Queryable, orgId: string, name: string, exceptId: string | null): Promise<string | undefined> {
  const row = await queryOne<{ id: string }>(db, 'SELECT id FROM care_team_roles WHERE org_id = $1 AND lower(name) = lower($2) AND ($3::uuid IS NULL OR id <> $3)', [orgId, name, exceptId]);
  return row?.id;
}

/** One writer of an organisation's role names at a time, so the unique name is checked before it is hit. */
async function lockRoleNames(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`care-team-roles:${orgId}`]);
}

export interface RoleFields {
  name?: string;
  description?: string | null;
  canApproveOutreach?: boolean;
  canViewConfidential?: boolean;
}

export async function createCareRole(db: Queryable, orgId: string, input: RoleFields & { name: string }): Promise<CareRole> {
  await lockRoleNames(db, orgId);
  if (await roleNamed(db, orgId, input.name, null)) throw duplicateName(input.name);
  const id = randomUUID();
  await db.query(`INSERT INTO care_team_roles (id, org_id, name, description, can_approve_outreach, can_view_confidential) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, orgId, input.name, input.description ?? null, input.canApproveOutreach ?? false, input.canViewConfidential ?? false]);
  return requireCareRole(db, orgId, id);
}

export async function setCareRole(db: Queryable, orgId: string, roleId: string, changes: RoleFields): Promise<{ role: CareRole; changed: string[] }> {
  await lockRoleNames(db, orgId);
  const current = await requireCareRole(db, orgId, roleId, true);
  const changed = (Object.keys(changes) as Array<keyof RoleFields>).filter((key) => changes[key] !== undefined && changes[key] !== current[key]);
  if (changed.length === 0) return { role: current, changed };
  if (changes.name !== undefined && await roleNamed(db, orgId, changes.name, roleId)) throw duplicateName(changes.name);
  const next = { ...current, ...Object.fromEntries(changed.map((key) => [key, changes[key]])) } as CareRole;
  const holders = await holdersOf(db, orgId, roleId);
  if (next.canViewConfidential && !current.canViewConfidential) await requireMayHold(db, orgId, next, holders);
  if (next.canApproveOutreach && !current.canApproveOutreach) await requireMayHold(db, orgId, next, holders);
  await db.query(`UPDATE care_team_roles SET name = $3, description = $4, can_approve_outreach = $5, can_view_confidential = $6, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, roleId, next.name, next.description, next.canApproveOutreach, next.canViewConfidential]);
  return { role: await requireCareRole(db, orgId, roleId), changed };
}

export async function removeCareRole(db: Queryable, orgId: string, roleId: string): Promise<{ role: CareRole; removedAssignments: number }> {
  const role = await requireCareRole(db, orgId, roleId, true);
  const removed = await db.query('DELETE FROM care_team_assignments WHERE org_id = $1 AND role_id = $2', [orgId, roleId]);
  await db.query('DELETE FROM care_team_roles WHERE org_id = $1 AND id = $2', [orgId, roleId]);
  return { role, removedAssignments: removed.rowCount ?? 0 };
}

export async function seedCareRoles(db: Queryable, orgId: string): Promise<{ created: CareRole[]; existing: CareRole[] }> {
  await lockRoleNames(db, orgId);
  const createdIds: string[] = [];
  for (const role of DEFAULT_CARE_ROLES) {
    if (await roleNamed(db, orgId, role.name, null)) continue;
    const id = randomUUID();
    await db.query(`INSERT INTO care_team_roles (id, org_id, name, description, can_approve_outreach, can_view_confidential) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, orgId, role.name, role.description, role.canApproveOutreach, role.canViewConfidential]);
    createdIds.push(id);
  }
  const all = await listCareRoles(db, orgId);
  return { created: all.filter((role) => createdIds.includes(role.roleId)), existing: all.filter((role) => !createdIds.includes(role.roleId)) };
}

// ---------------------------------------------------------------- assignments

interface TeamMember { userId: string; email: string; displayName: string | null; role: string; safeguarding: boolean }

async function teamOf(db: Queryable, orgId: string): Promise<Map<string, TeamMember>> {
  return new Map((await listTeam(db, orgId)).map((member) => [member.userId, member]));
}

async function holdersOf(db: Queryable, orgId: string, roleId: string): Promise<string[]> {
  const rows = await queryRows<{ user_id: string }>(db, 'SELECT DISTINCT user_id FROM care_team_assignments WHERE org_id = $1 AND role_id = $2', [orgId, roleId]);
  return rows.map((row) => row.user_id);
}

/** The permission rules in the file's comment, for these members holding this role. */
async function requireMayHold(db: Queryable, orgId: string, role: Pick<CareRole, 'name' | 'canApproveOutreach' | 'canViewConfidential'>, userIds: string[]): Promise<void> {
  const team = await teamOf(db, orgId);
  for (const userId of userIds) {
    const member = team.get(userId);
    if (!member) continue;
    if (role.canApproveOutreach && member.role === 'volunteer') {
      throw new StewardError('conflict', `${member.email} is a volunteer; the role "${role.name}" approves pastoral messages, which volunteers never do`, {
        hint: 'Choose a role without approval, or change their team role to staff first (platform_update_team_member_role).',
      });
    }
    if (role.canViewConfidential && !member.safeguarding) {
      throw new StewardError('conflict', `${member.email} has no safeguarding permission; the role "${role.name}" sees confidential records`, {
        hint: 'Give them safeguarding permission on their membership first, or choose a role without confidential access.',
      });
    }
  }
}

type AssignmentRow = Pick<RowOf<CareTeamAssignment>, 'id' | 'role_id' | 'user_id' | 'contact_id' | 'created_at'> & { role_name: string }
  & Pick<RowOf<Contact>, 'first_name' | 'last_name' | 'preferred_name' | 'email'>;

const SELECT_ASSIGNMENT = `SELECT a.id, a.role_id, r.name AS role_name, a.user_id, a.contact_id, a.created_at,
    c.first_name, c.last_name, c.preferred_name, c.email
  FROM care_team_assignments a JOIN care_team_roles r ON r.id = a.role_id AND r.org_id = a.org_id
  LEFT JOIN contacts c ON c.id = a.contact_id AND c.org_id = a.org_id`;

function assignmentView(row: AssignmentRow, team: Map<string, TeamMember>): CareAssignment {
  const member = team.get(row.user_id);
  return {
    assignmentId: row.id, roleId: row.role_id, roleName: row.role_name, userId: row.user_id, memberEmail: member?.email ?? '',
    memberName: member?.displayName ?? null, contactId: row.contact_id, contactName: row.contact_id ? displayNameOf(row) : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** Assignments of current team members to live contacts (or the whole congregation). */
export async function listCareAssignments(
  db: Queryable, orgId: string, filter: { roleId?: string; userId?: string; contactId?: string; limit: number },
): Promise<CareAssignment[]> {
  const team = await teamOf(db, orgId);
  const rows = await queryRows<AssignmentRow>(db, `${SELECT_ASSIGNMENT}
    WHERE a.org_id = $1 AND (a.contact_id IS NULL OR c.deleted_at IS NULL)
      AND ($2::uuid IS NULL OR a.role_id = $2) AND ($3::uuid IS NULL OR a.user_id = $3) AND ($4::uuid IS NULL OR a.contact_id = $4)
      AND a.user_id = ANY($5::uuid[])
    ORDER BY lower(r.name), a.created_at, a.id LIMIT $6`,
  [orgId, filter.roleId ?? null, filter.userId ?? null, filter.contactId ?? null, [...team.keys()], filter.limit]);
  return rows.map((row) => assignmentView(row, team));
}

export async function assignCareMember(
  db: Queryable, orgId: string, createdBy: string, input: { roleId: string; userId: string; contactId?: string },
): Promise<{ assignment: CareAssignment; created: boolean }> {
  const role = await requireCareRole(db, orgId, input.roleId, true);
  const team = await teamOf(db, orgId);
  if (!team.has(input.userId)) throw new StewardError('not_found', `Team member ${input.userId} was not found`, { hint: 'platform_list_team_members lists the team.' });
  if (input.contactId) {
    const contact = await queryOne(db, 'SELECT 1 FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL', [orgId, input.contactId]);
    if (!contact) throw new StewardError('not_found', `Contact ${input.contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  }
  await requireMayHold(db, orgId, role, [input.userId]);
  // One row per (role, member, contact): the role row lock above serialises assignments to it.
  const existing = await queryOne<{ id: string }>(db, `SELECT id FROM care_team_assignments WHERE org_id = $1 AND role_id = $2 AND user_id = $3
    AND contact_id IS NOT DISTINCT FROM $4::uuid`, [orgId, input.roleId, input.userId, input.contactId ?? null]);
  const id = existing?.id ?? randomUUID();
  if (!existing) {
    await db.query('INSERT INTO care_team_assignments (id, org_id, role_id, user_id, contact_id, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6)',
      [id, orgId, input.roleId, input.userId, input.contactId ?? null, createdBy]);
  }
  const row = await queryOne<AssignmentRow>(db, `${SELECT_ASSIGNMENT} WHERE a.org_id = $1 AND a.id = $2`, [orgId, id]);
  return { assignment: assignmentView(row!, team), created: !existing };
}

export async function removeCareAssignment(db: Queryable, orgId: string, assignmentId: string): Promise<CareAssignment> {
  const team = await teamOf(db, orgId);
  const row = await queryOne<AssignmentRow>(db, `${SELECT_ASSIGNMENT} WHERE a.org_id = $1 AND a.id = $2`, [orgId, assignmentId]);
  if (!row) throw new StewardError('not_found', `Care team assignment ${assignmentId} was not found`, { hint: 'people_list_care_team_assignments lists them.' });
  await db.query('DELETE FROM care_team_assignments WHERE org_id = $1 AND id = $2', [orgId, assignmentId]);
  return assignmentView(row, team);
}

/**
 * Pastoral approval by care role (see the file's comment). Runs in the approval's transaction with
 * the approver's user id, so every surface that approves a message obeys it.
 */
export async function requireMayApproveOutreach(db: Queryable, orgId: string, userId: string): Promise<void> {
  const approvers = await queryRows<{ user_id: string }>(db, `SELECT DISTINCT a.user_id FROM care_team_assignments a
    JOIN care_team_roles r ON r.id = a.role_id AND r.org_id = a.org_id WHERE a.org_id = $1 AND r.can_approve_outreach`, [orgId]);
  const team = await teamOf(db, orgId);
  // Only current members count as the organisation's named approvers: one who left names no one.
  const named = approvers.filter((approver) => team.has(approver.user_id));
  if (named.length === 0) return;
  const member = team.get(userId);
  if (!member) return; // not a member: the workflow's own check has already refused it
  if (member.role === 'owner' || member.role === 'admin') return;
  if (named.some((approver) => approver.user_id === userId)) return;
  throw new StewardError('forbidden', 'Pastoral messages here are approved by the care team: an owner, an admin, or someone in a care role that approves messages', {
    hint: 'Ask a member of the care team to approve it (people_list_care_team_assignments), or ask an admin to give you such a role.',
  });
}

// ---------------------------------------------------------------- priorities

export async function setContactCarePriority(
  db: Queryable, orgId: string, userId: string, input: { contactId: string; priority: CarePriority; reason?: string | null },
): Promise<{ contactId: string; priority: CarePriority; reason: string | null; setAt: string; previousPriority: CarePriority }> {
  const contact = await queryOne(db, 'SELECT 1 FROM contacts WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE', [orgId, input.contactId]);
  if (!contact) throw new StewardError('not_found', `Contact ${input.contactId} was not found`, { hint: 'Find contacts with people_search_contacts.' });
  const previous = await currentPriorityOf(db, orgId, input.contactId);
  const row = await queryOne<{ set_at: Date }>(db, `INSERT INTO contact_care_priorities (id, org_id, contact_id, priority, reason, set_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6) RETURNING set_at`, [randomUUID(), orgId, input.contactId, input.priority, input.reason ?? null, userId]);
  return { contactId: input.contactId, priority: input.priority, reason: input.reason ?? null, setAt: row!.set_at.toISOString(), previousPriority: previous.priority };
}

export async function currentPriorityOf(db: Queryable, orgId: string, contactId: string): Promise<{ priority: CarePriority; reason: string | null; setAt: string | null }> {
  const row = await queryOne<{ priority: CarePriority; reason: string | null; set_at: Date }>(db, `SELECT priority, reason, set_at FROM contact_care_priorities
    WHERE org_id = $1 AND contact_id = $2 ORDER BY set_at DESC, id DESC LIMIT 1`, [orgId, contactId]);
  return row ? { priority: row.priority, reason: row.reason, setAt: row.set_at.toISOString() } : { priority: 'normal', reason: null, setAt: null };
}

/** Live contacts whose current priority is one of `priorities`, with it. */
export async function contactsWithPriority(db: Queryable, orgId: string, priorities: readonly CarePriority[]): Promise<Array<{ contactId: string; priority: CarePriority; name: string }>> {
  const rows = await queryRows<{ contact_id: string; priority: CarePriority; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT DISTINCT ON (p.contact_id) p.contact_id, p.priority, c.first_name, c.last_name, c.preferred_name, c.email
    FROM contact_care_priorities p JOIN contacts c ON c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL
    WHERE p.org_id = $1 ORDER BY p.contact_id, p.set_at DESC, p.id DESC`, [orgId]);
  return rows.filter((row) => priorities.includes(row.priority)).map((row) => ({ contactId: row.contact_id, priority: row.priority, name: displayNameOf(row) }));
}
