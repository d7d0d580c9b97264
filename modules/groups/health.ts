import { queryRows, type Queryable } from '../../db/pool';
import { canSeeRoster, type Viewer } from './access';
import { nameOf } from './groups';

/** Recorded absences in a row (at the meetings whose attendance was logged) that list a member as missing. */
export const MISSED_IN_A_ROW = 3;

export interface MeetingPoint { meetingId: string; localDate: string; recorded: boolean; present: number; visitors: number }
export interface MissingMember { contactId: string; name: string; missedInARow: number; lastPresent: string | null }
export type Trend = 'rising' | 'falling' | 'steady' | 'not_enough_data';

export interface GroupHealth {
  groupId: string;
  name: string;
  confidential: boolean;
  currentMembers: number;
  meetingsHeld: number;
  meetingsLogged: number;
  meetingsWithoutAttendance: string[];
  averagePresent: number | null;
  trend: Trend;
  trendReason: string;
  meetings: MeetingPoint[];
  missingMembers: MissingMember[];
  missingMembersHidden: number;
}

interface GroupBasics { id: string; name: string; confidential: boolean }

/**
 * Health of groups over a window of meetings that have taken place: attendance per meeting and
 * its trend (the average present at the last three logged meetings against the three before: a
 * change of a tenth or more either way), meetings with no attendance logged, and current members
 * recorded absent at MISSED_IN_A_ROW or more logged meetings in a row since they were last present.
 */
export async function groupsHealth(db: Queryable, orgId: string, groups: readonly GroupBasics[], range: { from: string; to: string }, viewer: Viewer | null): Promise<GroupHealth[]> {
  if (groups.length === 0) return [];
  const ids = groups.map((group) => group.id);
  const meetings = await queryRows<{ id: string; group_id: string; local_date: string; recorded: number; present: number; visitors: number }>(db,
    `SELECT m.id, m.group_id, to_char(m.local_date, 'YYYY-MM-DD') AS local_date,
       count(a.id)::int AS recorded, count(a.id) FILTER (WHERE a.present AND NOT a.visitor)::int AS present, count(a.id) FILTER (WHERE a.visitor)::int AS visitors
     FROM groups_meetings m LEFT JOIN groups_attendance a ON a.meeting_id = m.id
     WHERE m.org_id = $1 AND m.group_id = ANY($2::uuid[]) AND m.starts_at <= now() AND m.local_date BETWEEN $3::date AND $4::date
     GROUP BY m.id ORDER BY m.starts_at`, [orgId, ids, range.from, range.to]);
  const marks = await queryRows<{ group_id: string; contact_id: string; present: boolean; local_date: string; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    `SELECT a.group_id, a.contact_id, a.present, to_char(m.local_date, 'YYYY-MM-DD') AS local_date, d.preferred_name, d.first_name, d.last_name, d.email
     FROM groups_attendance a JOIN groups_meetings m ON m.id = a.meeting_id
     JOIN groups_memberships gm ON gm.group_id = a.group_id AND gm.contact_id = a.contact_id AND gm.left_at IS NULL AND gm.role = 'member'
     LEFT JOIN people_directory d ON d.org_id = a.org_id AND d.id = a.contact_id
     WHERE a.org_id = $1 AND a.group_id = ANY($2::uuid[]) AND NOT a.visitor AND m.starts_at <= now() AND m.local_date BETWEEN $3::date AND $4::date
     ORDER BY m.starts_at DESC, m.id`, [orgId, ids, range.from, range.to]);
  const memberCounts = new Map((await queryRows<{ group_id: string; members: number }>(db,
    `SELECT group_id, count(*)::int AS members FROM groups_memberships WHERE org_id = $1 AND group_id = ANY($2::uuid[]) AND left_at IS NULL AND role = 'member' GROUP BY group_id`,
    [orgId, ids])).map((row) => [row.group_id, row.members]));

  return groups.map((group) => {
    const mine = meetings.filter((meeting) => meeting.group_id === group.id);
    const logged = mine.filter((meeting) => meeting.recorded > 0);
    const points = mine.map((meeting) => ({ meetingId: meeting.id, localDate: meeting.local_date, recorded: meeting.recorded > 0, present: meeting.present, visitors: meeting.visitors }));
    const average = (list: typeof logged) => (list.length ? list.reduce((sum, meeting) => sum + meeting.present, 0) / list.length : null);
    const latest = average(logged.slice(-3));
    const before = logged.length >= 6 ? average(logged.slice(-6, -3)) : null;
    let trend: Trend = 'not_enough_data';
    let trendReason = `${logged.length} meeting(s) with attendance logged; six are needed to compare the last three with the three before`;
    if (latest !== null && before !== null) {
      const change = before === 0 ? (latest > 0 ? 1 : 0) : (latest - before) / before;
      trend = change >= 0.1 ? 'rising' : change <= -0.1 ? 'falling' : 'steady';
      trendReason = `An average of ${latest.toFixed(1)} present at the last three logged meetings against ${before.toFixed(1)} at the three before`;
    }
    // Per member, newest first: absences until the first time present.
    const byMember = new Map<string, { name: string; missed: number; lastPresent: string | null; done: boolean }>();
    for (const mark of marks.filter((row) => row.group_id === group.id)) {
      const entry = byMember.get(mark.contact_id) ?? { name: nameOf(mark), missed: 0, lastPresent: null, done: false };
      if (!entry.done) {
        if (mark.present) { entry.lastPresent = mark.local_date; entry.done = true; } else entry.missed += 1;
      }
      byMember.set(mark.contact_id, entry);
    }
    const missing = [...byMember].filter(([, entry]) => entry.missed >= MISSED_IN_A_ROW)
      .map(([contactId, entry]) => ({ contactId, name: entry.name, missedInARow: entry.missed, lastPresent: entry.lastPresent }))
      .sort((a, b) => b.missedInARow - a.missedInARow || a.name.localeCompare(b.name));
    const visible = viewer === null || canSeeRoster(viewer, group);
    const averagePresent = average(logged);
    return {
      groupId: group.id, name: group.name, confidential: group.confidential, currentMembers: visible ? memberCounts.get(group.id) ?? 0 : 0,
      meetingsHeld: mine.length, meetingsLogged: logged.length, meetingsWithoutAttendance: mine.filter((meeting) => meeting.recorded === 0).map((meeting) => meeting.local_date),
      averagePresent: averagePresent === null ? null : Math.round(averagePresent * 10) / 10, trend, trendReason, meetings: points,
      missingMembers: visible ? missing : [], missingMembersHidden: visible ? 0 : missing.length,
    };
  });
}

/**
 * For the community radar: members of live groups recorded absent at MISSED_IN_A_ROW or more logged
 * meetings in a row over the last twelve weeks. A confidential group's members are listed only
 * for a caller who may see confidential records, and then without the group's name.
 */
export async function membersMissingMeetings(db: Queryable, orgId: string, options: { canSeeRestricted: boolean; limit: number }): Promise<Array<{ contactId: string; contactName: string; detail: string; since: string | null }>> {
  const groups = await queryRows<GroupBasics>(db, 'SELECT id, name, confidential FROM groups_groups WHERE org_id = $1 AND archived_at IS NULL AND ($2::boolean OR NOT confidential)', [orgId, options.canSeeRestricted]);
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 84 * 86_400_000).toISOString().slice(0, 10);
  const health = await groupsHealth(db, orgId, groups, { from, to }, null);
  const items = health.flatMap((group) => group.missingMembers.map((member) => ({
    contactId: member.contactId, contactName: member.name,
    detail: `Missed the last ${member.missedInARow} meetings of ${group.confidential ? 'a confidential small group' : `the small group ${group.name}`}${member.lastPresent ? ` (last there ${member.lastPresent})` : ''}`,
    since: member.lastPresent,
  })));
  return items.slice(0, options.limit);
}
