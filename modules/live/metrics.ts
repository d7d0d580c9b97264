import { z } from 'zod';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';

/** What live answers through platform_analytics_query: streams in a range with their raw viewer figures. */
const liveStreamViewers = defineMetric({
  name: 'stream_viewers',
  description: 'Live streams that started in a range (default: this month so far), each with its hours streamed, sessions and unique viewers (logged-in once a day, anonymous by a daily salted hash), and the online attendance recorded for it with its method, if any.',
  scope: 'live:read',
  params: ['range', 'limit'],
  output: z.object({
    from: z.string(), to: z.string(),
    streams: z.array(z.object({
      streamId: z.uuid(), title: z.string(), startedAt: z.string().nullable(), hours: z.number().int(), sessions: z.number().int(), uniqueViewers: z.number().int(),
      attendance: z.object({ method: z.string(), baseCount: z.number().int(), householdMultiplier: z.number(), count: z.number().int() }).strict().nullable(),
    }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rows = await queryRows<{ id: string; title: string; started_at: Date | null; hours: number; sessions: number; unique_viewers: number; method: string | null; base_count: number | null; pct: number | null; count: number | null }>(ctx.db,
      `SELECT s.id, s.title, s.started_at, s.hours_recorded AS hours,
              (SELECT count(*)::int FROM live_viewer_sessions v WHERE v.org_id = s.org_id AND v.stream_id = s.id) AS sessions,
              (SELECT count(DISTINCT (v.viewer_key, v.day))::int FROM live_viewer_sessions v WHERE v.org_id = s.org_id AND v.stream_id = s.id) AS unique_viewers,
              a.method, a.base_count, a.household_multiplier_pct AS pct, a.count
         FROM live_streams s LEFT JOIN live_attendance_records a ON a.org_id = s.org_id AND a.stream_id = s.id
        WHERE s.org_id = $1 AND s.started_at >= $2::date AND s.started_at < $3::date + 1 ORDER BY s.started_at LIMIT $4`, [ctx.org.id, from, to, params.limit ?? 100]);
    const streams = rows.map((r) => ({
      streamId: r.id, title: r.title, startedAt: r.started_at?.toISOString() ?? null, hours: r.hours, sessions: r.sessions, uniqueViewers: r.unique_viewers,
      attendance: r.method ? { method: r.method, baseCount: r.base_count!, householdMultiplier: r.pct! / 100, count: r.count! } : null,
    }));
    const viewers = streams.reduce((sum, s) => sum + s.uniqueViewers, 0);
    return {
      data: { from, to, streams },
      speakToUser: streams.length === 0 ? `No live streams ${spokenRange(from, to)}.` : `${countOf(streams.length, 'live stream')} ${spokenRange(from, to)}, ${countOf(viewers, 'unique viewer')} across them (each stream counted on its own).`,
    };
  },
});

export const liveMetrics = [liveStreamViewers];

/** The overview's figures: streams live now, streams in the next 7 days, prayer requests from viewers still new. */
export async function liveOverview(db: Queryable, orgId: string) {
  const row = (await queryOne<{ live: number; upcoming: number }>(db, `SELECT
      (SELECT count(*)::int FROM live_streams WHERE org_id = $1 AND status IN ('live', 'testing')) AS live,
      (SELECT count(*)::int FROM live_streams WHERE org_id = $1 AND status IN ('created', 'ready') AND scheduled_start BETWEEN now() AND now() + interval '7 days') AS upcoming`, [orgId]))!;
  return { liveNow: row.live, upcomingWeek: row.upcoming };
}
