import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound, type RowOf } from '../kit';
import { localDateAt, organisationTimeZone } from '../schedule/api';
import { canSeeGroup, canSeeRoster, type Viewer } from './access';
import type { SmallGroup } from './models';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export const ENROLMENT_STRATEGIES = ['open', 'request_to_join', 'closed'] as const;
export const LOCATION_KINDS = ['in_person', 'online', 'hybrid'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type EnrolmentStrategy = (typeof ENROLMENT_STRATEGIES)[number];
export type EnrolmentClosedBy = 'strategy' | 'member_limit' | 'closing_date' | 'archived';

export type GroupRow = RowOf<SmallGroup> & { type_name: string | null; members: number; leaders: number };

const SELECT_GROUP = `SELECT g.*, to_char(g.closes_on, 'YYYY-MM-DD') AS closes_on, t.name AS type_name,
  (SELECT count(*)::int FROM groups_memberships m WHERE m.group_id = g.id AND m.left_at IS NULL AND m.role = 'member') AS members,
  (SELECT count(*)::int FROM groups_memberships m WHERE m.group_id = g.id AND m.left_at IS NULL AND m.role = 'leader') AS leaders
  FROM groups_groups g LEFT JOIN groups_types t ON t.id = g.type_id`;

export interface EnrolmentView {
  strategy: EnrolmentStrategy;
  open: boolean;
  closedBy: EnrolmentClosedBy | null;
  memberLimit: number | null;
  closesOn: string | null;
  autoClosedAt: string | null;
  members: number;
  placesLeft: number | null;
}

export interface GroupView {
  id: string;
  name: string;
  type: { id: string; name: string } | null;
  description: string | null;
  schedule: { text: string | null; day: Weekday | null; time: string | null };
  location: { kind: (typeof LOCATION_KINDS)[number]; address: string | null; area: string | null; onlineUrl: string | null };
  listed: boolean;
  confidential: boolean;
  capacity: number | null;
  ageRange: { min: number | null; max: number | null };
  tags: string[];
  archived: boolean;
  archivedAt: string | null;
  enrolment: EnrolmentView;
  leaders: number;
  youLead: boolean;
  createdAt: string;
}

/** The organisation's local date today (its services' zone), the day closing dates are judged on. */
export async function orgToday(db: Queryable, orgId: string): Promise<string> {
  return localDateAt(new Date(), await organisationTimeZone(db, orgId));
}

/** Why enrolment is closed now, or null when people can join or ask to. */
export function enrolmentClosedBy(row: GroupRow, today: string): EnrolmentClosedBy | null {
  if (row.archived_at) return 'archived';
  if (row.enrolment === 'closed') return 'strategy';
  if (row.member_limit !== null && row.members >= row.member_limit) return 'member_limit';
  if (row.closes_on !== null && today > row.closes_on) return 'closing_date';
  if (row.auto_closed_reason === 'member_limit' || row.auto_closed_reason === 'closing_date') return row.auto_closed_reason as EnrolmentClosedBy;
  return null;
}

export function groupView(row: GroupRow, viewer: Viewer, today: string): GroupView {
  const closedBy = enrolmentClosedBy(row, today);
  return {
    id: row.id, name: row.name, type: row.type_id && row.type_name ? { id: row.type_id, name: row.type_name } : null, description: row.description,
    schedule: { text: row.schedule_text, day: row.meeting_day as Weekday | null, time: row.meeting_time },
    location: { kind: row.location_kind as GroupView['location']['kind'], address: row.address, area: row.area, onlineUrl: row.online_url },
    listed: row.listed, confidential: row.confidential, capacity: row.capacity, ageRange: { min: row.min_age, max: row.max_age }, tags: row.tags,
    archived: row.archived_at !== null, archivedAt: row.archived_at?.toISOString() ?? null,
    enrolment: {
      strategy: row.enrolment as EnrolmentStrategy, open: closedBy === null, closedBy, memberLimit: row.member_limit, closesOn: row.closes_on,
      autoClosedAt: row.auto_closed_at?.toISOString() ?? null,
      // A confidential roster's size is part of the roster.
      members: canSeeRoster(viewer, row) ? row.members : 0,
      placesLeft: row.member_limit === null || !canSeeRoster(viewer, row) ? null : Math.max(0, row.member_limit - row.members),
    },
    leaders: canSeeRoster(viewer, row) ? row.leaders : 0,
    youLead: viewer.leads.has(row.id), createdAt: row.created_at.toISOString(),
  };
}

/** A group the caller may see (another organisation's, or one a leader's credential does not lead, is not found); `lock` takes the group's row lock, which every enrolment change holds. */
export async function requireGroup(db: Queryable, orgId: string, viewer: Viewer, groupId: string, options: { lock?: boolean } = {}): Promise<GroupRow> {
  if (!canSeeGroup(viewer, groupId)) throw groupNotFound(groupId);
  if (options.lock) {
    const locked = await queryOne<{ id: string }>(db, 'SELECT id FROM groups_groups WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, groupId]);
    if (!locked) throw groupNotFound(groupId);
  }
  const row = await queryOne<GroupRow>(db, `${SELECT_GROUP} WHERE g.org_id = $1 AND g.id = $2`, [orgId, groupId]);
  if (!row) throw groupNotFound(groupId);
  return row;
}

export const groupNotFound = (groupId: string) => notFound('Small group', groupId, 'groups_list or groups_search finds small groups (people_list_crm_groups lists CRM ministry teams).');

/** Writes to a group: staff, or a leader of that group. */
export function assertCanManage(viewer: Viewer, group: GroupRow): void {
  if (viewer.staff || viewer.leads.has(group.id)) return;
  throw groupNotFound(group.id);
}

export function assertNotArchived(group: GroupRow): void {
  if (group.archived_at) {
    throw new StewardError('conflict', `${group.name} is archived`, { hint: 'Archived groups keep their history but take no new members, meetings or attendance; groups_update with archived false restores it.', details: { reason: 'archived' } });
  }
}

// ---------------------------------------------------------------- types

export async function resolveType(db: Queryable, orgId: string, typeName: string): Promise<{ id: string; name: string }> {
  const existing = await queryOne<{ id: string; name: string }>(db, 'SELECT id, name FROM groups_types WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, typeName]);
  if (existing) return existing;
  const created = await queryOne<{ id: string; name: string }>(db, `INSERT INTO groups_types (id, org_id, name) VALUES ($1, $2, $3)
    ON CONFLICT (org_id, lower(name)) DO UPDATE SET updated_at = groups_types.updated_at RETURNING id, name`, [randomUUID(), orgId, typeName]);
  return created!;
}

export async function listTypes(db: Queryable, orgId: string): Promise<Array<{ id: string; name: string; groups: number }>> {
  return queryRows<{ id: string; name: string; groups: number }>(db, `SELECT t.id, t.name,
    (SELECT count(*)::int FROM groups_groups g WHERE g.type_id = t.id AND g.archived_at IS NULL) AS groups
    FROM groups_types t WHERE t.org_id = $1 ORDER BY lower(t.name)`, [orgId]);
}

// ---------------------------------------------------------------- create, update, archive

export interface GroupFields {
  name?: string;
  type?: string | null;
  description?: string | null;
  scheduleText?: string | null;
  meetingDay?: Weekday | null;
  meetingTime?: string | null;
  locationKind?: (typeof LOCATION_KINDS)[number];
  address?: string | null;
  area?: string | null;
  onlineUrl?: string | null;
  listed?: boolean;
  confidential?: boolean;
  capacity?: number | null;
  minAge?: number | null;
  maxAge?: number | null;
  tags?: string[];
}

function checkFields(merged: { min_age: number | null; max_age: number | null; location_kind: string; address: string | null; area: string | null; online_url: string | null }): void {
  if (merged.min_age !== null && merged.max_age !== null && merged.min_age > merged.max_age) {
    throw new StewardError('validation_failed', `The age range ${merged.min_age} to ${merged.max_age} is backwards`, { issues: [{ path: 'minAge', message: 'must not be above maxAge' }] });
  }
  if (merged.location_kind !== 'in_person' && !merged.online_url) {
    throw new StewardError('validation_failed', 'An online or hybrid group needs its meeting link', { hint: 'Give onlineUrl (https://…).', issues: [{ path: 'onlineUrl', message: 'required for an online or hybrid group' }] });
  }
}

const normaliseTags = (tags: readonly string[]) => [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))].sort();

export async function createGroup(db: Queryable, orgId: string, userId: string, input: GroupFields & { name: string; enrolment?: EnrolmentStrategy; memberLimit?: number; closesOn?: string }): Promise<string> {
  const type = input.type ? await resolveType(db, orgId, input.type) : null;
  const row = {
    min_age: input.minAge ?? null, max_age: input.maxAge ?? null, location_kind: input.locationKind ?? (input.onlineUrl && !input.address ? 'online' : 'in_person'),
    address: input.address ?? null, area: input.area ?? null, online_url: input.onlineUrl ?? null,
  };
  checkFields(row);
  const id = randomUUID();
  await db.query(`INSERT INTO groups_groups (id, org_id, type_id, name, description, schedule_text, meeting_day, meeting_time, location_kind, address, area, online_url,
      listed, confidential, capacity, min_age, max_age, tags, enrolment, member_limit, closes_on, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
  [id, orgId, type?.id ?? null, input.name, input.description ?? null, input.scheduleText ?? null, input.meetingDay ?? null, input.meetingTime ?? null, row.location_kind,
    row.address, row.area, row.online_url,
    // A confidential group is never listed in the finder.
    input.confidential ? false : (input.listed ?? true), input.confidential ?? false, input.capacity ?? null, row.min_age, row.max_age, normaliseTags(input.tags ?? []),
    input.enrolment ?? 'request_to_join', input.memberLimit ?? null, input.closesOn ?? null, userId]);
  return id;
}

export async function updateGroup(db: Queryable, orgId: string, viewer: Viewer, groupId: string, input: GroupFields & { archived?: boolean }): Promise<{ changed: string[] }> {
  const group = await requireGroup(db, orgId, viewer, groupId, { lock: true });
  assertCanManage(viewer, group);
  if (input.archived !== undefined && !viewer.staff) {
    throw new StewardError('forbidden', 'Only staff archive or restore a group', { hint: 'Ask a staff member to use groups_archive.' });
  }
  if (input.confidential !== undefined && input.confidential !== group.confidential && !viewer.staff) {
    throw new StewardError('forbidden', 'Only staff make a group confidential or not', { hint: 'Whether a roster is confidential is a privacy decision: ask a staff member to use groups_update.' });
  }
  const sets: Record<string, unknown> = {};
  if (input.name !== undefined) sets.name = input.name;
  if (input.type !== undefined) sets.type_id = input.type === null ? null : (await resolveType(db, orgId, input.type)).id;
  if (input.description !== undefined) sets.description = input.description;
  if (input.scheduleText !== undefined) sets.schedule_text = input.scheduleText;
  if (input.meetingDay !== undefined) sets.meeting_day = input.meetingDay;
  if (input.meetingTime !== undefined) sets.meeting_time = input.meetingTime;
  if (input.locationKind !== undefined) sets.location_kind = input.locationKind;
  if (input.address !== undefined) sets.address = input.address;
  if (input.area !== undefined) sets.area = input.area;
  if (input.onlineUrl !== undefined) sets.online_url = input.onlineUrl;
  if (input.listed !== undefined) sets.listed = input.listed;
  if (input.confidential !== undefined) sets.confidential = input.confidential;
  if (input.capacity !== undefined) sets.capacity = input.capacity;
  if (input.minAge !== undefined) sets.min_age = input.minAge;
  if (input.maxAge !== undefined) sets.max_age = input.maxAge;
  if (input.tags !== undefined) sets.tags = normaliseTags(input.tags);
  if (input.archived !== undefined && input.archived !== (group.archived_at !== null)) sets.archived_at = input.archived ? new Date() : null;
  const merged = { ...group, ...sets } as GroupRow;
  if (merged.confidential && merged.listed) {
    if (input.listed === true) throw new StewardError('validation_failed', 'A confidential group is never listed', { hint: 'Set confidential false first, or leave it hidden.', issues: [{ path: 'listed', message: 'a confidential group stays hidden' }] });
    sets.listed = false;
  }
  checkFields(merged);
  const columns = Object.keys(sets);
  if (columns.length === 0) return { changed: [] };
  await db.query(`UPDATE groups_groups SET ${columns.map((column, i) => `${column} = $${i + 3}`).join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, groupId, ...columns.map((column) => sets[column])]);
  return { changed: columns };
}

// ---------------------------------------------------------------- lists and search

export interface GroupFilter {
  query?: string;
  type?: string;
  day?: Weekday;
  area?: string;
  tag?: string;
  openOnly?: boolean;
  age?: number;
  includeArchived?: boolean;
  /** Hidden (unlisted) groups too; the finder leaves them out. */
  includeHidden?: boolean;
  ledByMe?: boolean;
}

/** Groups the caller may see, by name; the filter narrows them. At most `limit` after `offset`. */
export async function listGroups(db: Queryable, orgId: string, viewer: Viewer, filter: GroupFilter, page: { limit: number; offset: number }): Promise<{ groups: GroupView[]; total: number }> {
  const today = await orgToday(db, orgId);
  const rows = await queryRows<GroupRow>(db, `${SELECT_GROUP} WHERE g.org_id = $1
      AND ($2::boolean OR g.id = ANY($3::uuid[]))
      AND ($4::boolean OR g.archived_at IS NULL)
      AND ($5::boolean OR g.listed)
      AND ($6::text IS NULL OR lower(t.name) = lower($6))
      AND ($7::text IS NULL OR g.meeting_day = $7)
      AND ($8::text IS NULL OR lower(g.area) = lower($8) OR g.address ILIKE '%' || $8 || '%')
      AND ($9::text IS NULL OR lower($9) = ANY(g.tags))
      AND ($10::int IS NULL OR ((g.min_age IS NULL OR g.min_age <= $10) AND (g.max_age IS NULL OR g.max_age >= $10)))
      AND ($11::text IS NULL OR g.name ILIKE '%' || $11 || '%' OR g.description ILIKE '%' || $11 || '%' OR lower($11) = ANY(g.tags))
    ORDER BY lower(g.name), g.id`,
  [orgId, viewer.staff && !filter.ledByMe, [...viewer.leads], filter.includeArchived ?? false, filter.includeHidden ?? true, filter.type ?? null, filter.day ?? null,
    filter.area ?? null, filter.tag ?? null, filter.age ?? null, filter.query?.replace(/[%_\\]/g, (c) => `\\${c}`) ?? null]);
  const matching = rows.filter((row) => !filter.openOnly || enrolmentClosedBy(row, today) === null);
  return { groups: matching.slice(page.offset, page.offset + page.limit).map((row) => groupView(row, viewer, today)), total: matching.length };
}

// ---------------------------------------------------------------- roster

export interface RosterEntry {
  membershipId: string;
  contactId: string;
  name: string;
  role: 'leader' | 'member';
  leaderUserId: string | null;
  joinedAt: string;
  leftAt: string | null;
  leftReason: string | null;
}

export async function rosterOf(db: Queryable, orgId: string, groupId: string, options: { includeFormer: boolean }): Promise<RosterEntry[]> {
  const rows = await queryRows<{ id: string; contact_id: string; role: 'leader' | 'member'; leader_user_id: string | null; joined_at: Date; left_at: Date | null; left_reason: string | null;
    preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    `SELECT m.id, m.contact_id, m.role, m.leader_user_id, m.joined_at, m.left_at, m.left_reason, d.preferred_name, d.first_name, d.last_name, d.email
     FROM groups_memberships m LEFT JOIN people_directory d ON d.org_id = m.org_id AND d.id = m.contact_id
     WHERE m.org_id = $1 AND m.group_id = $2 AND ($3::boolean OR m.left_at IS NULL)
     ORDER BY m.left_at IS NOT NULL, m.role, lower(coalesce(d.preferred_name, d.first_name, '')), lower(coalesce(d.last_name, '')), m.joined_at`, [orgId, groupId, options.includeFormer]);
  return rows.map((row) => ({
    membershipId: row.id, contactId: row.contact_id, name: nameOf(row), role: row.role, leaderUserId: row.leader_user_id,
    joinedAt: row.joined_at.toISOString(), leftAt: row.left_at?.toISOString() ?? null, leftReason: row.left_reason,
  }));
}

/** A name from the people directory row (a removed contact reads as such). */
export function nameOf(row: { preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }): string {
  const first = row.preferred_name ?? row.first_name;
  const name = [first, row.last_name].filter(Boolean).join(' ');
  return name || row.email || 'Removed contact';
}

export { canSeeRoster };
