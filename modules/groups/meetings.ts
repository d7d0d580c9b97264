import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { Frequency, RRule, type Options } from 'rrule';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { requireContact } from '../people/api';
import { canonicalTimeZone, localToUtc, organisationTimeZone } from '../schedule/api';
import { canSeeGroup, canSeeRoster, type Viewer } from './access';
import { assertCanManage, assertNotArchived, nameOf, requireGroup, type GroupRow } from './groups';

/** The most meetings one schedule makes (a weekly group over a year is 52). */
export const MAX_MEETINGS_PER_SCHEDULE = 60;
/** A recurring schedule is expanded this far ahead at most. */
const HORIZON_DAYS = 400;
const RULE_HINT = 'Write an RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=TU or FREQ=WEEKLY;INTERVAL=2;COUNT=10; the first date, time and zone are separate fields.';
const FORBIDDEN_PARTS = ['DTSTART', 'TZID', 'BYHOUR', 'BYMINUTE', 'BYSECOND', 'EXDATE', 'RDATE'];

function invalidRule(message: string): StewardError {
  return new StewardError('validation_failed', message, { hint: RULE_HINT, issues: [{ path: 'rrule', message }] });
}

/**
 * The local dates a rule gives from the first date: the rule is expanded by the `rrule` library
 * in floating time (wall-clock values in UTC fields), so a 19:30 meeting stays 19:30 local on
 * both sides of a clock change; each date is then placed in the zone.
 */
export function meetingDates(ruleText: string, firstDate: string, localTime: string): string[] {
  const body = ruleText.trim().replace(/^RRULE:/i, '');
  if (!body || /[\r\n]/.test(body)) throw invalidRule('The rule must be one RRULE line');
  const names = body.split(';').filter(Boolean).map((part) => part.split('=')[0].toUpperCase());
  const forbidden = names.find((name) => FORBIDDEN_PARTS.includes(name));
  if (forbidden) throw invalidRule(`${forbidden} is not accepted in the rule: startDate, startTime and timeZone say when the meetings happen`);
  let options: Partial<Options>;
  try {
    options = RRule.parseString(body);
  } catch (error) {
    throw invalidRule(`The rule could not be read: ${(error as Error).message.slice(0, 120)}`);
  }
  if (options.freq === undefined || options.freq === null) throw invalidRule('The rule needs FREQ');
  if (![Frequency.DAILY, Frequency.WEEKLY, Frequency.MONTHLY].includes(options.freq)) throw invalidRule('FREQ must be DAILY, WEEKLY or MONTHLY');
  const [year, month, day] = firstDate.split('-').map(Number);
  const [hour, minute] = localTime.split(':').map(Number);
  const dtstart = new Date(Date.UTC(year, month - 1, day, hour, minute));
  const rule = new RRule({ ...options, dtstart });
  const horizon = new Date(dtstart.getTime() + HORIZON_DAYS * 86_400_000);
  const dates = rule.between(dtstart, horizon, true, (_date, i) => i < MAX_MEETINGS_PER_SCHEDULE);
  if (dates.length === 0) throw invalidRule('The rule gives no meeting on or after the first date');
  return dates.map((date) => date.toISOString().slice(0, 10));
}

export interface MeetingView {
  id: string;
  groupId: string;
  seriesId: string | null;
  rrule: string | null;
  title: string | null;
  startsAt: string;
  localDate: string;
  localTime: string;
  timeZone: string;
  durationMinutes: number;
  location: string | null;
  notes: string | null;
  rsvps: { yes: number; no: number; maybe: number };
  attendance: { recorded: boolean; present: number; absent: number; visitors: number };
}

interface MeetingRow {
  id: string; group_id: string; series_id: string | null; rrule: string | null; title: string | null; starts_at: Date; local_date: string; local_time: string;
  time_zone: string; duration_minutes: number; location: string | null; notes: string | null;
  yes: number; no: number; maybe: number; recorded: number; present: number; absent: number; visitors: number;
}

const SELECT_MEETING = `SELECT m.id, m.group_id, m.series_id, m.rrule, m.title, m.starts_at, to_char(m.local_date, 'YYYY-MM-DD') AS local_date, m.local_time, m.time_zone,
  m.duration_minutes, m.location, m.notes,
  (SELECT count(*)::int FROM groups_meeting_rsvps r WHERE r.meeting_id = m.id AND r.response = 'yes') AS yes,
  (SELECT count(*)::int FROM groups_meeting_rsvps r WHERE r.meeting_id = m.id AND r.response = 'no') AS no,
  (SELECT count(*)::int FROM groups_meeting_rsvps r WHERE r.meeting_id = m.id AND r.response = 'maybe') AS maybe,
  (SELECT count(*)::int FROM groups_attendance a WHERE a.meeting_id = m.id) AS recorded,
  (SELECT count(*)::int FROM groups_attendance a WHERE a.meeting_id = m.id AND a.present AND NOT a.visitor) AS present,
  (SELECT count(*)::int FROM groups_attendance a WHERE a.meeting_id = m.id AND NOT a.present) AS absent,
  (SELECT count(*)::int FROM groups_attendance a WHERE a.meeting_id = m.id AND a.visitor) AS visitors
  FROM groups_meetings m`;

const meetingView = (row: MeetingRow): MeetingView => ({
  id: row.id, groupId: row.group_id, seriesId: row.series_id, rrule: row.rrule, title: row.title, startsAt: row.starts_at.toISOString(), localDate: row.local_date,
  localTime: row.local_time, timeZone: row.time_zone, durationMinutes: row.duration_minutes, location: row.location, notes: row.notes,
  rsvps: { yes: row.yes, no: row.no, maybe: row.maybe },
  attendance: { recorded: row.recorded > 0, present: row.present, absent: row.absent, visitors: row.visitors },
});

export async function listMeetings(db: Queryable, orgId: string, groupId: string, filter: { from?: string; to?: string; limit: number }): Promise<MeetingView[]> {
  const rows = await queryRows<MeetingRow>(db, `${SELECT_MEETING} WHERE m.org_id = $1 AND m.group_id = $2 AND ($3::date IS NULL OR m.local_date >= $3::date)
    AND ($4::date IS NULL OR m.local_date <= $4::date) ORDER BY m.starts_at LIMIT $5`, [orgId, groupId, filter.from ?? null, filter.to ?? null, filter.limit]);
  return rows.map(meetingView);
}

/** A meeting of a group the caller may see; another organisation's or an unseen group's is not found. */
export async function requireMeeting(db: Queryable, orgId: string, viewer: Viewer, meetingId: string): Promise<{ meeting: MeetingView; group: GroupRow }> {
  const row = await queryOne<MeetingRow>(db, `${SELECT_MEETING} WHERE m.org_id = $1 AND m.id = $2`, [orgId, meetingId]);
  if (!row || !canSeeGroup(viewer, row.group_id)) throw notFound('Group meeting', meetingId, 'groups_get lists a group\'s meetings.');
  return { meeting: meetingView(row), group: await requireGroup(db, orgId, viewer, row.group_id) };
}

export interface ScheduleInput {
  groupId: string;
  startDate: string;
  startTime: string;
  timeZone?: string;
  durationMinutes: number;
  rrule?: string;
  title?: string;
  location?: string;
  notes?: string;
}

/**
 * One meeting, or a recurring schedule (RRULE) made into one meeting per occurrence, at most
 * MAX_MEETINGS_PER_SCHEDULE within about a year. A meeting already at the same time is kept, not doubled.
 */
export async function scheduleMeeting(db: Queryable, orgId: string, viewer: Viewer, input: ScheduleInput): Promise<{ meetings: MeetingView[]; skippedExisting: number; seriesId: string | null }> {
  const group = await requireGroup(db, orgId, viewer, input.groupId, { lock: true });
  assertCanManage(viewer, group);
  assertNotArchived(group);
  const zone = input.timeZone ? canonicalTimeZone(input.timeZone) : await organisationTimeZone(db, orgId);
  const dates = input.rrule ? meetingDates(input.rrule, input.startDate, input.startTime) : [input.startDate];
  const seriesId = input.rrule ? randomUUID() : null;
  const ids: string[] = [];
  for (const localDate of dates) {
    const startsAt = localToUtc(localDate, input.startTime, zone);
    const local = DateTime.fromJSDate(startsAt, { zone });
    const row = await queryOne<{ id: string }>(db, `INSERT INTO groups_meetings (id, org_id, group_id, series_id, rrule, title, starts_at, local_date, local_time, time_zone, duration_minutes, location, notes, created_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (group_id, starts_at) DO NOTHING RETURNING id`,
    [randomUUID(), orgId, group.id, seriesId, input.rrule?.trim().replace(/^RRULE:/i, '') ?? null, input.title ?? null, startsAt, local.toISODate(), local.toFormat('HH:mm'), zone,
      input.durationMinutes, input.location ?? null, input.notes ?? null, viewer.userId]);
    if (row) ids.push(row.id);
  }
  const meetings = ids.length === 0 ? [] : (await queryRows<MeetingRow>(db, `${SELECT_MEETING} WHERE m.org_id = $1 AND m.id = ANY($2::uuid[]) ORDER BY m.starts_at`, [orgId, ids])).map(meetingView);
  return { meetings, skippedExisting: dates.length - ids.length, seriesId: ids.length ? seriesId : null };
}

/** A person's answer for a meeting (a member's, or a visitor's); answering again replaces it. */
export async function recordRsvp(db: Queryable, orgId: string, viewer: Viewer, input: { meetingId: string; contactId: string; response: 'yes' | 'no' | 'maybe'; note?: string }): Promise<{ meeting: MeetingView }> {
  const { group } = await requireMeeting(db, orgId, viewer, input.meetingId);
  assertCanManage(viewer, group);
  await requireContact(db, orgId, input.contactId);
  await db.query(`INSERT INTO groups_meeting_rsvps (id, org_id, meeting_id, contact_id, response, note) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (meeting_id, contact_id) DO UPDATE SET response = EXCLUDED.response, note = EXCLUDED.note, updated_at = now()`,
  [randomUUID(), orgId, input.meetingId, input.contactId, input.response, input.note ?? null]);
  return { meeting: (await requireMeeting(db, orgId, viewer, input.meetingId)).meeting };
}

export interface AttendanceInput {
  meetingId: string;
  present: string[];
  absent?: string[];
  markOthersAbsent: boolean;
  visitors: Array<{ contactId?: string; name?: string }>;
}

export interface AttendanceRecord {
  contactId: string | null;
  name: string;
  present: boolean;
  visitor: boolean;
}

/** How long after its start a meeting's attendance may be recorded early: never before the day it meets. */
const EARLIEST_BEFORE_START_MS = 12 * 3_600_000;

/**
 * A meeting's register: one record per person (recording again replaces their record, so a
 * correction never counts anyone twice). Members named present or absent; with markOthersAbsent
 * every other current member is recorded absent. Visitors are recorded inline, by contact or by
 * name. Someone named present who is not a member is refused (name them as a visitor).
 */
export async function recordAttendance(db: Queryable, orgId: string, viewer: Viewer, input: AttendanceInput): Promise<{ meeting: MeetingView; records: AttendanceRecord[] }> {
  const { meeting, group } = await requireMeeting(db, orgId, viewer, input.meetingId);
  assertCanManage(viewer, group);
  assertNotArchived(group);
  if (new Date(meeting.startsAt).getTime() - Date.now() > EARLIEST_BEFORE_START_MS) {
    throw new StewardError('conflict', `This meeting is on ${meeting.localDate} at ${meeting.localTime}: attendance is recorded once it has met`, { hint: 'Record RSVPs for a coming meeting instead: PUT meetings/{meetingId}/rsvps through groups_invoke_api_write.' });
  }
  const overlap = input.present.find((id) => input.absent?.includes(id));
  if (overlap) throw new StewardError('validation_failed', `Contact ${overlap} is named both present and absent`, { issues: [{ path: 'absent', message: 'a person is present or absent, not both' }] });
  const members = new Set((await queryRows<{ contact_id: string }>(db,
    `SELECT contact_id FROM groups_memberships WHERE org_id = $1 AND group_id = $2 AND (left_at IS NULL OR left_at > $3::timestamptz)`,
    [orgId, group.id, meeting.startsAt])).map((row) => row.contact_id));
  const notMembers = [...input.present, ...(input.absent ?? [])].filter((id) => !members.has(id));
  if (notMembers.length) {
    throw new StewardError('validation_failed', `${notMembers.length} of the people named were not members of ${group.name} at this meeting`, {
      hint: 'Record someone who came but is not a member under visitors (by contactId or name); groups_add_member adds them to the group.',
      issues: notMembers.slice(0, 10).map((id) => ({ path: 'present', message: `${id} is not a member` })),
    });
  }
  for (const visitor of input.visitors) {
    if (!visitor.contactId === !visitor.name) throw new StewardError('validation_failed', 'Each visitor needs a contactId or a name, not both', { issues: [{ path: 'visitors', message: 'give contactId or name' }] });
    if (visitor.contactId) {
      await requireContact(db, orgId, visitor.contactId);
      if (members.has(visitor.contactId)) throw new StewardError('validation_failed', `Contact ${visitor.contactId} is a member: name them under present`, { issues: [{ path: 'visitors', message: 'a member is not a visitor' }] });
    }
  }
  // Two registers of one meeting at once queue here: each writes its people in the order it names them,
  // and two orders could otherwise wait for each other in a cycle. NO KEY UPDATE leaves RSVPs (which
  // only reference the meeting) free to go on.
  await db.query('SELECT id FROM groups_meetings WHERE org_id = $1 AND id = $2 FOR NO KEY UPDATE', [orgId, meeting.id]);
  const upsert = async (contactId: string, present: boolean, visitor: boolean) => db.query(`INSERT INTO groups_attendance (id, org_id, meeting_id, group_id, contact_id, visitor, present, recorded_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (meeting_id, contact_id) WHERE contact_id IS NOT NULL DO UPDATE SET present = EXCLUDED.present, visitor = EXCLUDED.visitor, recorded_by_user_id = EXCLUDED.recorded_by_user_id, updated_at = now()`,
  [randomUUID(), orgId, meeting.id, group.id, contactId, visitor, present, viewer.userId]);
  for (const id of new Set(input.present)) await upsert(id, true, false);
  for (const id of new Set(input.absent ?? [])) await upsert(id, false, false);
  if (input.markOthersAbsent) {
    const named = new Set([...input.present, ...(input.absent ?? [])]);
    for (const id of members) if (!named.has(id)) await upsert(id, false, false);
  }
  for (const visitor of input.visitors) {
    if (visitor.contactId) await upsert(visitor.contactId, true, true);
    else {
      await db.query(`INSERT INTO groups_attendance (id, org_id, meeting_id, group_id, visitor_name, visitor, present, recorded_by_user_id) VALUES ($1, $2, $3, $4, $5, true, true, $6)
        ON CONFLICT (meeting_id, lower(visitor_name)) WHERE contact_id IS NULL DO UPDATE SET present = true, updated_at = now()`,
      [randomUUID(), orgId, meeting.id, group.id, visitor.name, viewer.userId]);
    }
  }
  const records = await attendanceOf(db, orgId, meeting.id);
  return { meeting: (await requireMeeting(db, orgId, viewer, meeting.id)).meeting, records: canSeeRoster(viewer, group) ? records : [] };
}

export async function attendanceOf(db: Queryable, orgId: string, meetingId: string): Promise<AttendanceRecord[]> {
  const rows = await queryRows<{ contact_id: string | null; visitor_name: string | null; present: boolean; visitor: boolean; preferred_name: string | null; first_name: string | null; last_name: string | null; email: string | null }>(db,
    `SELECT a.contact_id, a.visitor_name, a.present, a.visitor, d.preferred_name, d.first_name, d.last_name, d.email
     FROM groups_attendance a LEFT JOIN people_directory d ON d.org_id = a.org_id AND d.id = a.contact_id
     WHERE a.org_id = $1 AND a.meeting_id = $2 ORDER BY a.visitor, NOT a.present, lower(coalesce(d.preferred_name, d.first_name, a.visitor_name, '')), a.id`, [orgId, meetingId]);
  return rows.map((row) => ({ contactId: row.contact_id, name: row.contact_id ? nameOf(row) : row.visitor_name!, present: row.present, visitor: row.visitor }));
}
