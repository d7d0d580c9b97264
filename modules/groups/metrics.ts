import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne } from '../../db/pool';
import { addDays, countOf, defineMetric, rangeOr, spokenRange, todayUtc, type AnyMetric } from '../metrics';
import { viewerOf } from './access';

/** What small groups answer through platform_analytics_query, over the groups the caller may see (a leader's credential: its own). */

const DEFAULT_WEEKS = 12;
const MAX_RANGE_DAYS = 731;

function rangeOf(params: { from?: string; to?: string }): { from: string; to: string } {
  const range = rangeOr(params, () => ({ from: addDays(todayUtc(), -7 * DEFAULT_WEEKS + 1), to: todayUtc() }));
  if (range.from < addDays(range.to, -MAX_RANGE_DAYS)) {
    throw new StewardError('validation_failed', `A range covers at most ${MAX_RANGE_DAYS} days`, { issues: [{ path: 'from', message: `at most ${MAX_RANGE_DAYS} days before to` }], hint: 'Ask for a shorter range.' });
  }
  return range;
}

const smallGroupAttendance = defineMetric({
  name: 'small_group_attendance',
  description: `Small group meetings held over a range (default: the last ${DEFAULT_WEEKS} weeks), how many had a register taken, members present in all and on average per logged meeting, and visitors. Small groups, not Sunday services (attendance_total).`,
  scope: 'groups:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), meetingsHeld: z.number().int(), meetingsLogged: z.number().int(), present: z.number().int(),
    averagePresent: z.number().nullable(), visitors: z.number().int(),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOf(params);
    const viewer = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
    const row = await queryOne<{ held: number; logged: number; present: number; visitors: number }>(ctx.db, `
      WITH meetings AS (
        SELECT m.id, count(a.id) AS records, count(a.id) FILTER (WHERE a.present AND NOT a.visitor) AS present, count(a.id) FILTER (WHERE a.visitor) AS visitors
        FROM groups_meetings m LEFT JOIN groups_attendance a ON a.meeting_id = m.id
        WHERE m.org_id = $1 AND m.local_date BETWEEN $2::date AND $3::date AND m.starts_at <= now() AND ($4::boolean OR m.group_id = ANY($5::uuid[]))
        GROUP BY m.id)
      SELECT count(*)::int AS held, count(*) FILTER (WHERE records > 0)::int AS logged, coalesce(sum(present), 0)::int AS present, coalesce(sum(visitors), 0)::int AS visitors FROM meetings`,
    [ctx.org.id, from, to, viewer.staff, [...viewer.leads]]);
    const { held, logged, present, visitors } = row!;
    const averagePresent = logged === 0 ? null : Math.round((present / logged) * 10) / 10;
    const when = spokenRange(from, to);
    const speakToUser = held === 0
      ? `No small group meetings took place ${when}.`
      : `${countOf(held, 'small group meeting')} ${when}; ${logged} had a register taken, with ${averagePresent ?? 0} members present on average and ${countOf(visitors, 'visitor')}.`;
    return { data: { from, to, meetingsHeld: held, meetingsLogged: logged, present, averagePresent, visitors }, speakToUser };
  },
});

const smallGroupMembership = defineMetric({
  name: 'small_group_membership',
  description: 'Small groups now (live groups, people in them, groups taking members) and over a range (default: the last 12 weeks): people who joined, people who left, join requests made and still waiting. Small groups, not CRM ministry teams.',
  scope: 'groups:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), liveGroups: z.number().int(), people: z.number().int(), joined: z.number().int(), left: z.number().int(),
    joinRequests: z.number().int(), pendingJoinRequests: z.number().int(),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOf(params);
    const viewer = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
    const row = await queryOne<{ groups: number; people: number; joined: number; left: number; requests: number; pending: number }>(ctx.db, `
      WITH visible AS (SELECT id FROM groups_groups WHERE org_id = $1 AND archived_at IS NULL AND ($4::boolean OR id = ANY($5::uuid[])))
      SELECT (SELECT count(*)::int FROM visible) AS groups,
        (SELECT count(DISTINCT m.contact_id)::int FROM groups_memberships m JOIN visible v ON v.id = m.group_id WHERE m.left_at IS NULL) AS people,
        (SELECT count(*)::int FROM groups_memberships m JOIN visible v ON v.id = m.group_id WHERE m.joined_at::date BETWEEN $2::date AND $3::date) AS joined,
        (SELECT count(*)::int FROM groups_memberships m JOIN visible v ON v.id = m.group_id WHERE m.left_at::date BETWEEN $2::date AND $3::date) AS left,
        (SELECT count(*)::int FROM groups_join_requests r JOIN visible v ON v.id = r.group_id WHERE r.created_at::date BETWEEN $2::date AND $3::date) AS requests,
        (SELECT count(*)::int FROM groups_join_requests r JOIN visible v ON v.id = r.group_id WHERE r.status = 'pending') AS pending`,
    [ctx.org.id, from, to, viewer.staff, [...viewer.leads]]);
    const r = row!;
    const speakToUser = `${countOf(r.people, 'person', 'people')} in ${countOf(r.groups, 'small group')}; ${spokenRange(from, to)} ${r.joined} joined and ${r.left} left, and ${countOf(r.pending, 'join request')} ${r.pending === 1 ? 'is' : 'are'} waiting.`;
    return { data: { from, to, liveGroups: r.groups, people: r.people, joined: r.joined, left: r.left, joinRequests: r.requests, pendingJoinRequests: r.pending }, speakToUser };
  },
});

export const groupsMetrics: readonly AnyMetric[] = [smallGroupAttendance, smallGroupMembership];
