import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { routesFor } from '../routes';
import { requirePastoralScope, setPrayerStatus } from './stats';
import { streamRow } from './streams';

/**
 * Live's dashboard API routes: what a stream's dashboard needs beyond the curated tools (its viewer
 * sessions by minute for a chart, its polls), and the prayer queue's status change (pastoral:
 * community:write). Going live, ending and moderation are curated tools.
 */
const routes = routesFor('live', { read: 'live:read', write: 'live:write' });

export const liveRoutes = [
  routes.get('streams/{streamId}/viewers-by-minute', {
    summary: 'A stream\'s concurrent viewer sessions minute by minute (sessions open in each minute), for the dashboard\'s chart',
    params: z.object({ streamId: z.uuid() }).strict(),
    response: z.object({ minutes: z.array(z.object({ at: z.string(), sessions: z.number().int() }).strict()) }).strict(),
    run: async (ctx, { params }) => {
      await streamRow(ctx.db, ctx.org.id, params.streamId);
      const rows = await queryRows<{ at: Date; sessions: number }>(ctx.db, `SELECT m AS at, count(v.id)::int AS sessions
        FROM (SELECT generate_series(date_trunc('minute', min(started_at)), date_trunc('minute', max(last_seen_at)), interval '1 minute') AS m
                FROM live_viewer_sessions WHERE org_id = $1 AND stream_id = $2) minutes
        LEFT JOIN live_viewer_sessions v ON v.org_id = $1 AND v.stream_id = $2 AND v.started_at < m + interval '1 minute' AND v.last_seen_at >= m
        GROUP BY m ORDER BY m LIMIT 1440`, [ctx.org.id, params.streamId]);
      return { minutes: rows.map((r) => ({ at: r.at.toISOString(), sessions: r.sessions })) };
    },
  }),
  routes.post('streams/{streamId}/start', { summary: 'Go live (live_start_stream: only with the ingest active; early or unscheduled needs approval)', params: z.object({ streamId: z.uuid() }).strict(), response: z.object({}).strict(), curatedTool: 'live_start_stream' }),
  routes.post('streams/{streamId}/end', { summary: 'End the stream (live_end_stream)', params: z.object({ streamId: z.uuid() }).strict(), response: z.object({}).strict(), curatedTool: 'live_end_stream' }),
  routes.patch('prayer-requests/{requestId}', {
    summary: 'Marks a viewer\'s prayer request prayed for or followed up (pastoral: needs community:write besides live:write; a private one only with people:safeguarding)',
    params: z.object({ requestId: z.uuid() }).strict(),
    body: z.object({ status: z.enum(['new', 'prayed', 'followed_up']) }).strict(),
    response: z.object({ request: z.object({ id: z.uuid(), status: z.string() }).strict() }).strict(),
    run: async (ctx, { params, body }) => {
      requirePastoralScope(ctx.principal, 'community:write', 'Changing a prayer request');
      const request = await setPrayerStatus(ctx.db, ctx.org.id, ctx.principal, params.requestId, body.status);
      return { request: { id: request.id, status: request.status } };
    },
  }),
];
