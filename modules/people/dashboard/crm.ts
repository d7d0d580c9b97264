import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { countLiveContacts } from '../contacts';
import { listGroupMembers, listGroups, requireGroup } from '../crm-groups';
import { listTagCategories, listTags } from '../tags';

/** The contacts allowance of each plan (the people module's `contacts` meter): how many live contacts an organisation may hold. */
export const CONTACT_ALLOWANCES = { starter: 500, growth: 5000, enterprise: 100000 } as const;

/** Tags as the dashboard's tag manager shows them: with their categories. */
export async function crmTagsApi(db: Queryable, orgId: string) {
  return { tags: await listTags(db, orgId), categories: await listTagCategories(db, orgId) };
}

export async function contactTagsApi(db: Queryable, orgId: string, contactId: string) {
  return queryRows<{ id: string; name: string; colour: string | null; category: string | null; taggedAt: string }>(db, `
    SELECT t.id, t.name, t.colour, c.name AS category, to_json(ct.created_at) #>> '{}' AS "taggedAt"
    FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id AND t.org_id = ct.org_id LEFT JOIN tag_categories c ON c.id = t.category_id
    WHERE ct.org_id = $1 AND ct.contact_id = $2 ORDER BY lower(t.name)`, [orgId, contactId]);
}

export async function crmGroupsApi(db: Queryable, orgId: string, filter: { status?: string; query?: string }) {
  const groups = await listGroups(db, orgId, filter.status);
  const query = filter.query?.toLowerCase();
  return query ? groups.filter((group) => group.name.toLowerCase().includes(query) || (group.description ?? '').toLowerCase().includes(query)) : groups;
}

export async function crmGroupMembersApi(db: Queryable, orgId: string, groupId: string, page: { limit: number; offset: number }) {
  const { group, members } = await listGroupMembers(db, orgId, { groupId });
  const slice = members.slice(page.offset, page.offset + page.limit);
  return { group, members: slice, total: members.length, nextOffset: page.offset + slice.length < members.length ? page.offset + slice.length : null };
}

/** One ministry team with its roles and when it last gained a member. */
export async function crmGroupDetail(db: Queryable, orgId: string, ref: { groupId?: string; groupName?: string }) {
  const group = await requireGroup(db, orgId, ref);
  const roles = await queryRows<{ role: string; n: number }>(db, `SELECT COALESCE(m.role, 'member') AS role, count(*)::int AS n
    FROM crm_group_members m JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL WHERE m.org_id = $1 AND m.group_id = $2 GROUP BY 1 ORDER BY 1`, [orgId, group.id]);
  const last = await queryOne<{ at: Date | null }>(db, 'SELECT max(joined_at) AS at FROM crm_group_members WHERE org_id = $1 AND group_id = $2', [orgId, group.id]);
  return { group, roles: Object.fromEntries(roles.map((row) => [row.role, row.n])), lastJoinedAt: last?.at?.toISOString() ?? null };
}

/** Where the organisation's people live: towns and postcode districts with how many live contacts each. */
export async function crmLocations(db: Queryable, orgId: string, limit: number) {
  const towns = await queryRows<{ town: string; n: number }>(db, `SELECT initcap(trim(address_city)) AS town, count(*)::int AS n FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND address_city IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`, [orgId, limit]);
  const districts = await queryRows<{ district: string; n: number }>(db, `SELECT upper(split_part(trim(address_postcode), ' ', 1)) AS district, count(*)::int AS n FROM contacts
    WHERE org_id = $1 AND deleted_at IS NULL AND address_postcode IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`, [orgId, limit]);
  const unknown = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND deleted_at IS NULL AND address_city IS NULL AND address_postcode IS NULL', [orgId]);
  return {
    towns: towns.map((row) => ({ town: row.town, contacts: row.n })),
    postcodeDistricts: districts.map((row) => ({ district: row.district, contacts: row.n })),
    withoutLocation: unknown!.n,
  };
}

/** Departments: the active ministry teams with their leaders (members whose role names them leader, head or lead). */
export async function departments(db: Queryable, orgId: string) {
  const groups = await listGroups(db, orgId, 'active');
  const leaders = await queryRows<{ group_id: string; contact_id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null; role: string }>(db, `
    SELECT m.group_id, m.contact_id, c.first_name, c.last_name, c.preferred_name, c.email, m.role FROM crm_group_members m
    JOIN contacts c ON c.id = m.contact_id AND c.deleted_at IS NULL
    WHERE m.org_id = $1 AND m.role ~* '(lead|head|chair|coordinator)' ORDER BY lower(c.last_name)`, [orgId]);
  return groups.map((group) => ({
    id: group.id, name: group.name, description: group.description, members: group.memberCount,
    leaders: leaders.filter((leader) => leader.group_id === group.id).map((leader) => ({
      contactId: leader.contact_id, displayName: [leader.preferred_name ?? leader.first_name, leader.last_name].filter(Boolean).join(' ') || leader.email || 'Unnamed contact', role: leader.role,
    })),
  }));
}

export async function crmSubscription(db: Queryable, orgId: string, planCode: string) {
  const allowance = (CONTACT_ALLOWANCES as Record<string, number>)[planCode] ?? null;
  const used = await countLiveContacts(db, orgId);
  return {
    planCode, contactsAllowance: allowance, liveContacts: used,
    remaining: allowance === null ? null : Math.max(0, allowance - used),
    percentUsed: allowance ? Math.round((used / allowance) * 1000) / 10 : null,
    atLimit: allowance !== null && used >= allowance,
  };
}
