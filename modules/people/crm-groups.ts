import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import { displayNameOf, requireContact } from './contacts';
import { CrmGroup as CrmGroupModel, CrmGroupMember } from './models';

export const GROUP_STATUSES = ['active', 'archived', 'on-hold'] as const;

export interface CrmGroup {
  id: string;
  name: string;
  description: string | null;
  status: (typeof GROUP_STATUSES)[number];
  memberCount: number;
}

// The listing shape counts live members: SQL, as are the lower(name) lookups (see db/sequelize.ts on fn()).
const GROUP_SELECT = `
  SELECT g.id, g.name, g.description, g.status,
    (SELECT count(*)::int FROM crm_group_members m JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL WHERE m.group_id = g.id) AS "memberCount"
  FROM crm_groups g`;

export async function listGroups(db: Queryable, orgId: string, status?: string): Promise<CrmGroup[]> {
  return queryRows<CrmGroup>(db, `${GROUP_SELECT} WHERE g.org_id = $1 AND ($2::text IS NULL OR g.status = $2) ORDER BY lower(g.name)`, [orgId, status ?? null]);
}

/** A group by id or by name (case-insensitive). */
export async function requireGroup(db: Queryable, orgId: string, ref: { groupId?: string; groupName?: string }): Promise<CrmGroup> {
  if (!ref.groupId && !ref.groupName) {
    throw new StewardError('validation_failed', 'Give groupId or groupName', { issues: [{ path: 'groupId', message: 'groupId or groupName is required' }] });
  }
  const group = ref.groupId
    ? await queryOne<CrmGroup>(db, `${GROUP_SELECT} WHERE g.org_id = $1 AND g.id = $2`, [orgId, ref.groupId])
    : await queryOne<CrmGroup>(db, `${GROUP_SELECT} WHERE g.org_id = $1 AND lower(g.name) = lower($2)`, [orgId, ref.groupName]);
  if (!group) throw new StewardError('not_found', `CRM group ${ref.groupId ?? `"${ref.groupName}"`} was not found`, { hint: 'people_list_crm_groups lists the groups.' });
  return group;
}

async function assertNameFree(db: Queryable, orgId: string, name: string, exceptId?: string): Promise<void> {
  const clash = await queryOne(db, 'SELECT 1 FROM crm_groups WHERE org_id = $1 AND lower(name) = lower($2) AND ($3::uuid IS NULL OR id <> $3)', [orgId, name, exceptId ?? null]);
  if (clash) throw new StewardError('conflict', `A CRM group named "${name}" already exists`);
}

export async function createGroup(db: Queryable, orgId: string, input: { name: string; description?: string; status?: CrmGroup['status'] }): Promise<CrmGroup> {
  await assertNameFree(db, orgId, input.name);
  const id = randomUUID();
  await withModels(db, (transaction) => CrmGroupModel.create(
    { id, orgId, name: input.name, description: input.description ?? null, status: input.status ?? 'active' },
    { transaction },
  ));
  return requireGroup(db, orgId, { groupId: id });
}

export async function updateGroup(db: Queryable, orgId: string, input: { groupId: string; name?: string; description?: string | null; status?: CrmGroup['status'] }): Promise<CrmGroup> {
  await requireGroup(db, orgId, { groupId: input.groupId });
  if (input.name === undefined && input.description === undefined && input.status === undefined) {
    throw new StewardError('validation_failed', 'Nothing to update: give name, description or status');
  }
  if (input.name) await assertNameFree(db, orgId, input.name, input.groupId);
  // Name and status change when given; description whenever given (null clears it). updated_at is set by the model (DEFAULT, now()).
  const changes: Partial<Pick<CrmGroupModel, 'name' | 'status' | 'description'>> = {};
  if (input.name != null) changes.name = input.name;
  if (input.status != null) changes.status = input.status;
  if (input.description !== undefined) changes.description = input.description;
  await withModels(db, (transaction) => CrmGroupModel.update(changes, { where: { orgId, id: input.groupId }, transaction }));
  return requireGroup(db, orgId, { groupId: input.groupId });
}

/** Deletes the group and its memberships; the contacts themselves stay. */
export async function deleteGroup(db: Queryable, orgId: string, groupId: string): Promise<{ group: CrmGroup; unlinkedMembers: number }> {
  const group = await requireGroup(db, orgId, { groupId });
  const unlinked = await withModels(db, async (transaction) => {
    const members = await CrmGroupMember.destroy({ where: { orgId, groupId }, transaction });
    await CrmGroupModel.destroy({ where: { orgId, id: groupId }, transaction });
    return members;
  });
  return { group, unlinkedMembers: unlinked };
}

/** A contact by id or by email. */
export async function resolveContactRef(db: Queryable, orgId: string, ref: { contactId?: string; email?: string }): Promise<{ id: string; displayName: string }> {
  if (ref.contactId) return requireContact(db, orgId, ref.contactId);
  if (!ref.email) throw new StewardError('validation_failed', 'Give contactId or email', { issues: [{ path: 'contactId', message: 'contactId or email is required' }] });
  const rows = await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db,
    'SELECT id, first_name, last_name, preferred_name, email FROM contacts WHERE org_id = $1 AND lower(email) = lower($2) AND deleted_at IS NULL LIMIT 2', [orgId, ref.email]);
  if (rows.length === 0) throw new StewardError('not_found', `No contact has the email ${ref.email}`, { hint: 'Create them with people_create_contact.' });
  if (rows.length > 1) throw new StewardError('conflict', `Several contacts share the email ${ref.email}`, { hint: 'Pass contactId instead.' });
  return { id: rows[0].id, displayName: displayNameOf(rows[0]) };
}

export async function addGroupMember(db: Queryable, orgId: string, groupRef: { groupId?: string; groupName?: string }, contactRef: { contactId?: string; email?: string }, role?: string) {
  const group = await requireGroup(db, orgId, groupRef);
  const contact = await resolveContactRef(db, orgId, contactRef);
  // An upsert that reports whether it inserted: SQL.
  const result = await db.query(`INSERT INTO crm_group_members (id, org_id, group_id, contact_id, role) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (group_id, contact_id) DO UPDATE SET role = COALESCE(EXCLUDED.role, crm_group_members.role) RETURNING (xmax = 0) AS inserted`,
    [randomUUID(), orgId, group.id, contact.id, role ?? null]);
  return { groupId: group.id, groupName: group.name, contactId: contact.id, contactName: contact.displayName, alreadyMember: !result.rows[0].inserted };
}

export async function removeGroupMember(db: Queryable, orgId: string, groupRef: { groupId?: string; groupName?: string }, contactRef: { contactId?: string; email?: string }) {
  const group = await requireGroup(db, orgId, groupRef);
  const contact = await resolveContactRef(db, orgId, contactRef);
  const removed = await withModels(db, (transaction) => CrmGroupMember.destroy({ where: { orgId, groupId: group.id, contactId: contact.id }, transaction }));
  if (removed === 0) throw new StewardError('not_found', `${contact.displayName} is not a member of ${group.name}`);
  return { groupId: group.id, contactId: contact.id };
}

export async function listGroupMembers(db: Queryable, orgId: string, groupRef: { groupId?: string; groupName?: string }) {
  const group = await requireGroup(db, orgId, groupRef);
  const rows = await queryRows<{ id: string; contact_id: string; role: string | null; joined_at: Date; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(db, `
    SELECT m.id, m.contact_id, m.role, m.joined_at, c.first_name, c.last_name, c.preferred_name, c.email
    FROM crm_group_members m JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND m.group_id = $2 ORDER BY lower(c.last_name), lower(c.first_name)`, [orgId, group.id]);
  return {
    group,
    members: rows.map((row) => ({ memberId: row.id, contactId: row.contact_id, displayName: displayNameOf(row), email: row.email, role: row.role, joinedAt: row.joined_at.toISOString() })),
  };
}
