import path from 'node:path';
import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { defineModule } from '../module';
import { defineWidget } from '../widget';
import { createLiveActivities } from './activities';
import { liveMigration } from './migrations/2026.11.28T12.00.00.live';
import { liveAutoStreamsMigration } from './migrations/2026.11.29T14.00.00.live-auto-streams';
import { liveEpisodeIdMigration } from './migrations/2026.11.30T15.00.00.live-episode-id';
import { liveMetrics, liveOverview } from './metrics';
import { liveModels } from './models';
import { livePlaybooks } from './playbooks';
import { liveRoutes } from './routes';
import { liveTools } from './tools';
import { liveWebhooks } from './webhooks/public';

/**
 * Live: streams of a schedule instance or a date through a streaming provider shaped like YouTube
 * Live (created → ready → testing → live → complete; live only with the ingest active; a durable
 * timer completes every stream at its end plus grace), polls with one vote per viewer, viewer chat
 * with moderation, private prayer requests to the hosts (pastoral: community:read, private ones only
 * with people:safeguarding), viewer sessions counted by stated methods, and online attendance
 * written to the attendance module. The viewer page is served by Steward at /live/watch/….
 */
export default defineModule({
  name: 'live',
  title: 'Live',
  description: 'Live streams of services: scheduling, going live with the provider, polls, viewer chat and prayer requests, viewer statistics and online attendance.',
  tools: liveTools,
  models: [...liveModels],
  migrations: [liveMigration, liveAutoStreamsMigration, liveEpisodeIdMigration],
  scopes: ['live:read', 'live:write'],
  uses: ['people', 'schedule', 'attendance', 'mediahub', 'audit'],
  routes: liveRoutes,
  playbooks: livePlaybooks,
  metrics: liveMetrics,
  meters: [{ feature: 'streams', allowances: { starter: 4, growth: 20, enterprise: 500 } }],
  widgets: [defineWidget({
    id: 'live-stream', module: 'live', title: 'Live stream',
    description: 'A live stream\'s dashboard: its state here and at the provider, whether the encoder is sending, chat, when it completes by itself and what stops it going live.',
    tools: ['live_get_stream_status'], script: path.join(__dirname, 'widgets', 'stream.mts'),
  })],
  overview: {
    shape: {
      live: z.object({ liveNow: z.number().int(), upcomingWeek: z.number().int() }).strict().nullable()
        .describe('Streams live now and streams scheduled in the next 7 days; null without live:read'),
    },
    compute: async (ctx) => ({ live: hasScope(ctx.principal, 'live:read') ? await liveOverview(ctx.db, ctx.org.id) : null }),
  },
  workflows: require.resolve('./workflows'),
  schedules: [{ id: 'live-streams-ahead', workflowType: 'liveStreamsAheadWorkflow', everyMs: 3_600_000, note: 'Makes streams for the services ahead, for organisations that turned it on (live_update_settings)' }],
  activities: [createLiveActivities],
  webhooks: [liveWebhooks],
  contactRefs: [
    { table: 'live_chat', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'live_poll_votes', column: 'contact_id', onMerge: 'move', onErase: 'null' },
    { table: 'live_prayer_requests', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'live_viewer_sessions', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  ],
});
