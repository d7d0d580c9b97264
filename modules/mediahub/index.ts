import path from 'node:path';
import { defineModule } from '../module';
import { defineWidget } from '../widget';
import { createMediahubActivities } from './activities/processing';
import { countItems, storageMib } from './items';
import { mediahubMigration } from './migrations/2026.11.28T11.00.00.mediahub';
import { mediahubArchivedObjectsMigration } from './migrations/2026.11.29T14.00.01.mediahub-archived-objects';
import { mediahubLibraryArtworkMigration } from './migrations/2026.12.01T13.00.00.mediahub-library-artwork';
import { mediahubModels } from './models';
import { mediahubRoutes } from './routes';
import { mediahubTools } from './tools';
import { draftEpisodesJob, removeArchivedObjectsJob } from './jobs';
import { mediahubMetrics, mediahubOverview } from './metrics';
import { mediahubPlaybooks } from './playbooks';
import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { mediahubWebhooks } from './webhooks/public';

/**
 * Media Hub: media items uploaded through presigned URLs into the same S3-compatible storage as the
 * Media Library and processed by a durable workflow each (probe, still, waveform); sermon series and
 * episodes prefilled from runsheet plans, published (with a person's approval, and never while a song
 * lacks a licence) to a podcast feed Steward serves; transcripts through a provider adapter, searchable;
 * plays and downloads counted through Steward's redirect.
 */
export default defineModule({
  name: 'mediahub',
  title: 'Media Hub',
  description: 'Sermon recordings and media: uploads and processing, series and episodes from service plans, publishing to a podcast feed, transcripts, search and listening figures.',
  tools: mediahubTools,
  models: [...mediahubModels],
  migrations: [mediahubMigration, mediahubArchivedObjectsMigration, mediahubLibraryArtworkMigration],
  scopes: ['mediahub:read', 'mediahub:write'],
  uses: ['platform', 'runsheet', 'audit'],
  routes: mediahubRoutes,
  playbooks: mediahubPlaybooks,
  metrics: mediahubMetrics,
  jobs: [draftEpisodesJob, removeArchivedObjectsJob],
  overview: {
    shape: {
      mediahub: z.object({
        draftEpisodes: z.number().int(), publishedThisMonth: z.number().int(), itemsProcessing: z.number().int(), itemsFailed: z.number().int(),
      }).strict().nullable().describe('Sermon episodes awaiting publishing and published this month, media items processing or failed; null without mediahub:read'),
    },
    compute: async (ctx) => ({ mediahub: hasScope(ctx.principal, 'mediahub:read') ? await mediahubOverview(ctx.db, ctx.org.id) : null }),
  },
  meters: [
    { feature: 'mediahub_items', allowances: { starter: 200, growth: 2000, enterprise: 100000 }, standingCount: countItems },
    { feature: 'mediahub_storage_mb', allowances: { starter: 10240, growth: 102400, enterprise: 2000000 }, standingCount: storageMib },
  ],
  workflows: require.resolve('./workflows'),
  activities: [createMediahubActivities],
  webhooks: [mediahubWebhooks],
  widgets: [defineWidget({
    id: 'mediahub-episode', module: 'mediahub', title: 'Sermon episode',
    description: 'A sermon episode at a glance: its state, speaker, scripture, media and each song with its licence (an unlicensed song blocks publishing).',
    tools: ['mediahub_get_episode'], script: path.join(__dirname, 'widgets', 'episode.mts'),
  })],
});
