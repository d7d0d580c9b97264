import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { notFound } from '../kit';
import { requireContact } from '../people/api';
import { listTeam } from '../platform/api';
import { canSeeGroup, type Viewer } from './access';
import {
  assertCanManage, assertNotArchived, enrolmentClosedBy, groupNotFound, nameOf, orgToday, requireGroup,
  type EnrolmentClosedBy, type EnrolmentStrategy, type GroupRow,
} from './groups';

/**
 * Enrolment: join requests, members and leaders. Every change to who is in a group takes the
 * group's row lock first (requireGroup with lock), so the member count it checks is the count it
 * writes against: a member limit holds however many requests arrive at once.
 */

export interface JoinRequestView {
  id: string;
  groupId: string;
  contactId: string;
  name: string;
  status: 'pending' | 'approved' | 'declined';
  message: string | null;
  declineReason: string | null;
  decidedByUserId: string | null;
  decidedAt: string | null;
  createdAt: string;
}

interface RequestRow {
  id: string; group_id: string; contact_id: string; status: JoinRequestView['status']; message: string | null; decline_reason: string | null;
  decided_by_user_id: string | null; decided_at: Date | null; created_at: Date;
  preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null;
}

const SELECT_REQUEST = `SELECT r.id, r.group_id, r.contact_id, r.status, r.message, r.decline_reason, r.decided_by_user_id, r.decided_at, r.created_at,
  d.preferred_name, d.first_name, d.last_name, d.email
  FROM groups_join_requests r LEFT JOIN people_directory d ON d.org_id = r.org_id AND d.id = r.contact_id`;

const requestView = (row: RequestRow): JoinRequestView => ({
  id: row.id, groupId: row.group_id, contactId: row.contact_id, name: nameOf(row), status: row.status, message: row.message, declineReason: row.decline_reason,
  decidedByUserId: row.decided_by_user_id, decidedAt: row.decided_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
});

async function requestById(db: Queryable, orgId: string, id: string, lock = false): Promise<RequestRow | undefined> {
  if (lock) await db.query('SELECT id FROM groups_join_requests WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
  return queryOne<RequestRow>(db, `${SELECT_REQUEST} WHERE r.org_id = $1 AND r.id = $2`, [orgId, id]);
}

const CLOSED_MESSAGES: Record<EnrolmentClosedBy, string> = {
  strategy: 'is not taking new members (enrolment closed)',
  member_limit: 'is full',
  closing_date: 'closed enrolment on its closing date',
  archived: 'is archived',
};

function closedError(group: GroupRow, closedBy: EnrolmentClosedBy): StewardError {
  return new StewardError('conflict', `${group.name} ${CLOSED_MESSAGES[closedBy]}${closedBy === 'member_limit' ? ` (${group.member_limit} members)` : ''}`, {
    hint: closedBy === 'strategy' || closedBy === 'archived'
      ? 'groups_search with openOnly finds groups taking members; staff may reopen it with groups_update_enrolment.'
      : 'groups_search with openOnly finds another group; a leader or staff member may raise the limit or move the date with groups_update_enrolment.',
    details: { reason: closedBy === 'member_limit' ? 'group_full' : 'enrolment_closed', closedBy },
  });
}

async function currentMembership(db: Queryable, orgId: string, groupId: string, contactId: string): Promise<{ id: string; role: 'leader' | 'member'; leader_user_id: string | null } | undefined> {
  return queryOne(db, 'SELECT id, role, leader_user_id FROM groups_memberships WHERE org_id = $1 AND group_id = $2 AND contact_id = $3 AND left_at IS NULL', [orgId, groupId, contactId]);
}

/** After a member joins: a group that has reached its limit closes itself, recorded with when and why. */
async function closeIfFull(db: Queryable, orgId: string, group: GroupRow, membersNow: number): Promise<boolean> {
  if (group.member_limit === null || membersNow < group.member_limit) return false;
  await db.query(`UPDATE groups_groups SET auto_closed_at = now(), auto_closed_reason = 'member_limit', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, group.id]);
  return true;
}

async function insertMembership(db: Queryable, orgId: string, groupId: string, contactId: string, role: 'leader' | 'member', actorUserId: string | null, joinRequestId: string | null, leaderUserId: string | null = null): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO groups_memberships (id, org_id, group_id, contact_id, role, leader_user_id, added_by_user_id, join_request_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, orgId, groupId, contactId, role, leaderUserId, actorUserId, joinRequestId]);
  return id;
}

export interface JoinOutcome {
  outcome: 'joined' | 'pending' | 'already_member' | 'already_pending';
  request: JoinRequestView | null;
  membershipId: string | null;
  enrolmentClosedNow: boolean;
}

/** Whole years of age on `today` (both YYYY-MM-DD), or null when the date of birth is not known as a date. */
export function ageOn(dateOfBirth: string | null, today: string): number | null {
  if (!dateOfBirth || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth)) return null;
  const years = Number(today.slice(0, 4)) - Number(dateOfBirth.slice(0, 4));
  return today.slice(5) < dateOfBirth.slice(5) ? years - 1 : years;
}

/**
 * A group with an age range takes only people whose known age is inside it. Someone whose date of
 * birth is not recorded is not refused (nothing says they are outside it). Staff or a leader may add
 * someone outside the range on purpose (`allowOutsideAgeRange`, e.g. a parent helper).
 */
function assertAgeFits(group: GroupRow, dateOfBirth: string | null, today: string, allowOutside = false): void {
  if (allowOutside || (group.min_age === null && group.max_age === null)) return;
  const age = ageOn(dateOfBirth, today);
  if (age === null) return;
  const tooYoung = group.min_age !== null && age < group.min_age;
  const tooOld = group.max_age !== null && age > group.max_age;
  if (!tooYoung && !tooOld) return;
  const range = `${group.min_age ?? 0}${group.max_age === null ? '+' : `–${group.max_age}`}`;
  throw new StewardError('conflict', `${group.name} is for ages ${range}; this person is ${age}`, {
    hint: 'groups_search with age finds groups that fit; staff or a leader may add them anyway with groups_add_member { allowOutsideAgeRange: true }.',
    details: { reason: 'outside_age_range', age, minAge: group.min_age, maxAge: group.max_age },
  });
}

/**
 * Someone asks to join: in an open group they join at once (while places last), in a
 * request-to-join group the request waits for a leader. A closed, full, archived or past-closing-date
 * group refuses. Repeating the request answers the pending one or the membership.
 */
export async function requestToJoin(db: Queryable, orgId: string, viewer: Viewer, input: { groupId: string; contactId: string; message?: string }): Promise<JoinOutcome> {
  return requestToJoinAs(db, orgId, viewer, viewer.userId, input);
}

/** Who acts in a join request made through a public form: no team member, and every group may be asked. */
const FORM_VIEWER: Viewer = { userId: '', staff: true, safeguarding: false, leads: new Set() };

/**
 * A join request someone made through a grow form (nobody on the team asked for it): as
 * requestToJoin, recorded with no requesting user. A group that cannot take them (closed, full,
 * archived, outside its age range, missing) answers why instead of throwing, so the rest of the
 * submission stands.
 */
export async function requestToJoinFromForm(
  db: Queryable, orgId: string, input: { groupId: string; contactId: string; message?: string },
): Promise<{ outcome: JoinOutcome['outcome'] | 'refused'; requestId: string | null; reason: string | null }> {
  try {
    const joined = await requestToJoinAs(db, orgId, FORM_VIEWER, null, input);
    return { outcome: joined.outcome, requestId: joined.request?.id ?? null, reason: null };
  } catch (error) {
    if (!(error instanceof StewardError)) throw error;
    const reason = (error.details as { reason?: unknown } | undefined)?.reason;
    return { outcome: 'refused', requestId: null, reason: typeof reason === 'string' ? reason : error.code };
  }
}

/** A small group's name, or null when the organisation has no such group. */
export async function groupNameOf(db: Queryable, orgId: string, groupId: string): Promise<string | null> {
  return (await queryOne<{ name: string }>(db, 'SELECT name FROM groups_groups WHERE org_id = $1 AND id = $2', [orgId, groupId]))?.name ?? null;
}

async function requestToJoinAs(db: Queryable, orgId: string, viewer: Viewer, actorUserId: string | null, input: { groupId: string; contactId: string; message?: string }): Promise<JoinOutcome> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  const contact = await requireContact(db, orgId, input.contactId);
  const member = await currentMembership(db, orgId, group.id, input.contactId);
  if (member) return { outcome: 'already_member', request: null, membershipId: member.id, enrolmentClosedNow: false };
  assertAgeFits(group, contact.dateOfBirth, await orgToday(db, orgId));
  const pending = await queryOne<{ id: string }>(db, `SELECT id FROM groups_join_requests WHERE org_id = $1 AND group_id = $2 AND contact_id = $3 AND status = 'pending'`, [orgId, group.id, input.contactId]);
  if (pending) return { outcome: 'already_pending', request: requestView((await requestById(db, orgId, pending.id))!), membershipId: null, enrolmentClosedNow: false };
  const closedBy = enrolmentClosedBy(group, await orgToday(db, orgId));
  if (closedBy) throw closedError(group, closedBy);
  const id = randomUUID();
  if ((group.enrolment as EnrolmentStrategy) === 'open') {
    await db.query(`INSERT INTO groups_join_requests (id, org_id, group_id, contact_id, status, message, requested_by_user_id, decided_at) VALUES ($1, $2, $3, $4, 'approved', $5, $6, now())`,
      [id, orgId, group.id, input.contactId, input.message ?? null, actorUserId]);
    const membershipId = await insertMembership(db, orgId, group.id, input.contactId, 'member', actorUserId, id);
    const closed = await closeIfFull(db, orgId, group, group.members + 1);
    return { outcome: 'joined', request: requestView((await requestById(db, orgId, id))!), membershipId, enrolmentClosedNow: closed };
  }
  await db.query(`INSERT INTO groups_join_requests (id, org_id, group_id, contact_id, message, requested_by_user_id) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, orgId, group.id, input.contactId, input.message ?? null, actorUserId]);
  return { outcome: 'pending', request: requestView((await requestById(db, orgId, id))!), membershipId: null, enrolmentClosedNow: false };
}

/**
 * A leader of the group approves or declines a pending request. Approval adds the member while the
 * limit allows (a request made before the closing date may still be approved after it); declining
 * keeps the reason. Only the group's own leaders decide: staff who do not lead it are refused.
 */
export async function decideJoinRequest(db: Queryable, orgId: string, viewer: Viewer, input: { requestId: string; decision: 'approve' | 'decline'; reason?: string }): Promise<{ request: JoinRequestView; membershipId: string | null; enrolmentClosedNow: boolean }> {
  const found = await queryOne<{ group_id: string }>(db, 'SELECT group_id FROM groups_join_requests WHERE org_id = $1 AND id = $2', [orgId, input.requestId]);
  if (!found || !canSeeGroup(viewer, found.group_id)) throw notFound('Join request', input.requestId, 'groups_get with a group id lists its pending join requests.');
  if (!viewer.leads.has(found.group_id)) {
    throw new StewardError('forbidden', 'Only a leader of this group decides its join requests', {
      hint: 'Ask one of its leaders; groups_set_leader with userId links a leader to their team login so their own credential can decide.',
    });
  }
  const group = await requireGroup(db, orgId, viewer, found.group_id, { lock: true });
  const request = (await requestById(db, orgId, input.requestId, true))!;
  if (request.status !== 'pending') {
    throw new StewardError('conflict', `This join request was already ${request.status}`, { hint: 'Only a pending request can be decided.', details: { status: request.status } });
  }
  if (input.decision === 'decline') {
    await db.query(`UPDATE groups_join_requests SET status = 'declined', decline_reason = $3, decided_by_user_id = $4, decided_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`,
      [orgId, request.id, input.reason ?? null, viewer.userId]);
    return { request: requestView((await requestById(db, orgId, request.id))!), membershipId: null, enrolmentClosedNow: false };
  }
  assertNotArchived(group);
  if (group.member_limit !== null && group.members >= group.member_limit) throw closedError(group, 'member_limit');
  const existing = await currentMembership(db, orgId, group.id, request.contact_id);
  const membershipId = existing?.id ?? await insertMembership(db, orgId, group.id, request.contact_id, 'member', viewer.userId, request.id);
  await db.query(`UPDATE groups_join_requests SET status = 'approved', decided_by_user_id = $3, decided_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, request.id, viewer.userId]);
  const closed = existing ? false : await closeIfFull(db, orgId, group, group.members + 1);
  return { request: requestView((await requestById(db, orgId, request.id))!), membershipId, enrolmentClosedNow: closed };
}

export async function listJoinRequests(db: Queryable, orgId: string, groupId: string, status: JoinRequestView['status'] | null): Promise<JoinRequestView[]> {
  const rows = await queryRows<RequestRow>(db, `${SELECT_REQUEST} WHERE r.org_id = $1 AND r.group_id = $2 AND ($3::text IS NULL OR r.status = $3) ORDER BY r.created_at, r.id LIMIT 200`,
    [orgId, groupId, status]);
  return rows.map(requestView);
}

/** Staff or a leader adds someone directly (any enrolment strategy); the member limit still holds. */
export async function addMember(db: Queryable, orgId: string, viewer: Viewer, input: { groupId: string; contactId: string; allowOutsideAgeRange?: boolean }): Promise<{ membershipId: string; created: boolean; enrolmentClosedNow: boolean }> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  assertCanManage(viewer, group);
  assertNotArchived(group);
  const contact = await requireContact(db, orgId, input.contactId);
  const existing = await currentMembership(db, orgId, group.id, input.contactId);
  if (existing) return { membershipId: existing.id, created: false, enrolmentClosedNow: false };
  assertAgeFits(group, contact.dateOfBirth, await orgToday(db, orgId), input.allowOutsideAgeRange);
  if (group.member_limit !== null && group.members >= group.member_limit) throw closedError(group, 'member_limit');
  const membershipId = await insertMembership(db, orgId, group.id, input.contactId, 'member', viewer.userId, null);
  // A pending request of theirs is answered by the membership.
  await db.query(`UPDATE groups_join_requests SET status = 'approved', decided_by_user_id = $4, decided_at = now(), updated_at = now()
    WHERE org_id = $1 AND group_id = $2 AND contact_id = $3 AND status = 'pending'`, [orgId, group.id, input.contactId, viewer.userId]);
  return { membershipId, created: true, enrolmentClosedNow: await closeIfFull(db, orgId, group, group.members + 1) };
}

/**
 * Someone leaves (or is taken off): the membership row stays with when and why, so the history is
 * kept. A group its member limit had closed reopens when a place frees up; one closed by hand stays closed.
 */
export async function removeMember(db: Queryable, orgId: string, viewer: Viewer, input: { groupId: string; contactId: string; reason?: string }): Promise<{ membershipId: string; leftAt: string; enrolmentReopened: boolean }> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  assertCanManage(viewer, group);
  const existing = await currentMembership(db, orgId, group.id, input.contactId);
  if (!existing) throw notFound('Current member', input.contactId, 'groups_get lists the group\'s members.');
  if (existing.role === 'leader' && group.leaders <= 1 && group.members > 0) {
    throw new StewardError('conflict', `They are the only leader of ${group.name}`, { hint: 'Make someone else a leader with groups_set_leader first, or archive the group.' });
  }
  const row = await queryOne<{ left_at: Date }>(db, `UPDATE groups_memberships SET left_at = now(), left_reason = $3, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING left_at`,
    [orgId, existing.id, input.reason ?? null]);
  let reopened = false;
  if (existing.role === 'member' && group.auto_closed_reason === 'member_limit') {
    await db.query(`UPDATE groups_groups SET auto_closed_at = NULL, auto_closed_reason = NULL, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, group.id]);
    reopened = true;
  }
  return { membershipId: existing.id, leftAt: row!.left_at.toISOString(), enrolmentReopened: reopened };
}

/**
 * Makes a person a leader of the group (adding them if they are not in it; leaders do not count
 * towards the member limit) or a member again. `userId` links the team member whose credential acts
 * as this leader; without it, the one team member whose sign-in email is the contact's email is
 * linked, once, now.
 */
export async function setLeader(
  db: Queryable, orgId: string, viewer: Viewer, input: { groupId: string; contactId: string; leader: boolean; userId?: string },
): Promise<{ membershipId: string; role: 'leader' | 'member'; leaderUserId: string | null; linkedBy: 'given' | 'email' | null }> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  if (!viewer.staff) throw new StewardError('forbidden', 'Only staff appoint or stand down group leaders', { hint: 'Ask a staff member to use groups_set_leader.' });
  assertNotArchived(group);
  const contact = await requireContact(db, orgId, input.contactId);
  const existing = await currentMembership(db, orgId, group.id, input.contactId);
  if (!input.leader) {
    if (!existing || existing.role !== 'leader') throw notFound('Leader', input.contactId, 'groups_get lists the group\'s leaders.');
    if (group.member_limit !== null && group.members >= group.member_limit) throw closedError(group, 'member_limit');
    await db.query(`UPDATE groups_memberships SET role = 'member', leader_user_id = NULL, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, existing.id]);
    return { membershipId: existing.id, role: 'member', leaderUserId: null, linkedBy: null };
  }
  let leaderUserId: string | null = null;
  let linkedBy: 'given' | 'email' | null = null;
  const team = await listTeam(db, orgId);
  if (input.userId) {
    if (!team.some((member) => member.userId === input.userId)) {
      throw new StewardError('not_found', `Team member ${input.userId} was not found`, { hint: 'platform_list_team_members lists them.', issues: [{ path: 'userId', message: 'not a member of this organisation' }] });
    }
    leaderUserId = input.userId;
    linkedBy = 'given';
  } else if (contact.email) {
    const matches = team.filter((member) => member.email.toLowerCase() === contact.email!.toLowerCase());
    if (matches.length === 1) {
      leaderUserId = matches[0].userId;
      linkedBy = 'email';
    }
  }
  leaderUserId ??= existing?.leader_user_id ?? null;
  if (existing) {
    await db.query(`UPDATE groups_memberships SET role = 'leader', leader_user_id = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, existing.id, leaderUserId]);
    return { membershipId: existing.id, role: 'leader', leaderUserId, linkedBy };
  }
  const membershipId = await insertMembership(db, orgId, group.id, input.contactId, 'leader', viewer.userId, null, leaderUserId);
  return { membershipId, role: 'leader', leaderUserId, linkedBy };
}

/** Strategy, member limit and closing date; a group its limit or date had closed reopens when the change makes room. */
export async function updateEnrolment(
  db: Queryable, orgId: string, viewer: Viewer, input: { groupId: string; strategy?: EnrolmentStrategy; memberLimit?: number | null; closesOn?: string | null },
): Promise<{ changed: string[] }> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  assertCanManage(viewer, group);
  assertNotArchived(group);
  const sets: Record<string, unknown> = {};
  if (input.strategy !== undefined) sets.enrolment = input.strategy;
  if (input.memberLimit !== undefined) sets.member_limit = input.memberLimit;
  if (input.closesOn !== undefined) sets.closes_on = input.closesOn;
  const merged = { ...group, ...sets, auto_closed_reason: null } as GroupRow;
  const today = await orgToday(db, orgId);
  const stillClosedBy = group.auto_closed_reason ? enrolmentClosedBy(merged, today) : null;
  if (group.auto_closed_reason && stillClosedBy !== group.auto_closed_reason) {
    sets.auto_closed_at = null;
    sets.auto_closed_reason = null;
  }
  const columns = Object.keys(sets);
  if (columns.length === 0) return { changed: [] };
  await db.query(`UPDATE groups_groups SET ${columns.map((column, i) => `${column} = $${i + 3}`).join(', ')}, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, group.id, ...columns.map((column) => sets[column])]);
  if (merged.member_limit !== null && group.members >= merged.member_limit && !group.auto_closed_reason) await closeIfFull(db, orgId, merged, group.members);
  return { changed: columns.filter((column) => !column.startsWith('auto_closed')) };
}

/** Closing dates that have passed are recorded as closing enrolment (the daily job); idempotent. */
export async function closePastClosingDates(db: Queryable, orgId: string, today: string): Promise<number> {
  const rows = await queryRows<{ id: string; closes_on: string }>(db, `UPDATE groups_groups SET auto_closed_at = now(), auto_closed_reason = 'closing_date', updated_at = now()
    WHERE org_id = $1 AND closes_on < $2::date AND auto_closed_reason IS NULL AND archived_at IS NULL AND enrolment <> 'closed' RETURNING id, closes_on::text`, [orgId, today]);
  for (const row of rows) {
    await recordJobChange(db, {
      orgId, channel: 'job:groups.close_enrolment', module: 'groups', noun: 'enrolment', verb: 'close', target: { type: 'group', id: row.id },
      fields: { autoClosedReason: 'closing_date', closesOn: row.closes_on }, previous: { autoClosedReason: null },
    });
  }
  return rows.length;
}

export { groupNotFound };
