import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { routesFor } from '../routes';
import { mediaStorage } from '../platform/api';
import { channelSchema, channelView, EPISODE_SELECT, episodeSchema, episodeView, loadChannel, updateChannel, type EpisodeRow } from './episodes';
import { feedUrlOf } from './feed';
import { loadItem } from './items';
import { StewardError } from '../../core/errors';

/**
 * Media Hub's dashboard routes: what its pages need that no curated tool gives (channels and their
 * feed settings, the episode list by state, a download link of an original). Publishing goes
 * through the curated, approval-gated tool, so the bridges send it there.
 */
const routes = routesFor('mediahub', { read: 'mediahub:read', write: 'mediahub:write' });

const channelWithFeed = channelSchema.extend({ feedUrl: z.string() }).strict();

export const mediahubRoutes = [
  routes.get('channels', {
    summary: 'Podcast channels with their feed settings and public feed URL',
    response: z.object({ channels: z.array(channelWithFeed) }).strict(),
    run: async (ctx) => {
      const rows = await queryRows<Parameters<typeof channelView>[2]>(ctx.db, 'SELECT * FROM mediahub_channels WHERE org_id = $1 ORDER BY created_at, id', [ctx.org.id]);
      const channels = [];
      for (const row of rows) channels.push({ ...(await channelView(ctx.db, ctx.org.id, row)), feedUrl: feedUrlOf(ctx.org.id, row.id) });
      return { channels };
    },
  }),
  routes.patch('channels/{channelId}', {
    summary: 'Change a podcast channel\'s feed settings: description, author, language, category, artwork (a public Media Library image; or, the older way, a Media Hub image item)',
    params: z.object({ channelId: z.uuid() }).strict(),
    body: z.object({
      description: z.string().trim().max(4000).nullable().optional(), author: z.string().trim().min(1).max(200).nullable().optional(),
      language: z.string().regex(/^[a-z]{2}(-[A-Za-z]{2})?$/).max(5).optional(), category: z.string().trim().min(1).max(100).optional(),
      artworkMediaId: z.uuid().nullable().optional().describe('A public Media Library image; null removes the artwork'),
      artworkItemId: z.uuid().nullable().optional().describe('Instead of artworkMediaId: a Media Hub image item (the older way)'),
    }).strict(),
    response: z.object({ channel: channelWithFeed }).strict(),
    run: async (ctx, { params, body }) => {
      const channel = await updateChannel(ctx.db, ctx.org.id, params.channelId, body);
      return { channel: { ...channel, feedUrl: feedUrlOf(ctx.org.id, channel.id) } };
    },
  }),
  routes.get('episodes', {
    summary: 'Episodes, newest date first, optionally of one series or in one state',
    query: z.object({
      seriesId: z.uuid().optional(), state: z.enum(['draft', 'scheduled', 'published', 'unpublished']).optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }).strict(),
    response: z.object({ episodes: z.array(episodeSchema) }).strict(),
    run: async (ctx, { query }) => {
      const rows = await queryRows<EpisodeRow>(ctx.db, `${EPISODE_SELECT}
        WHERE e.org_id = $1 AND ($2::uuid IS NULL OR e.series_id = $2)
          AND ($3::text IS NULL OR CASE WHEN e.status = 'published' AND e.publish_at > now() THEN 'scheduled' ELSE e.status END = $3)
        ORDER BY e.episode_date DESC, e.id LIMIT $4`, [ctx.org.id, query.seriesId ?? null, query.state ?? null, query.limit]);
      return { episodes: await Promise.all(rows.map((row) => episodeView(ctx.db, row))) };
    },
  }),
  routes.get('channels/{channelId}', {
    summary: 'One podcast channel with its feed URL',
    params: z.object({ channelId: z.uuid() }).strict(),
    response: z.object({ channel: channelWithFeed }).strict(),
    run: async (ctx, { params }) => {
      const channel = await channelView(ctx.db, ctx.org.id, await loadChannel(ctx.db, ctx.org.id, params.channelId));
      return { channel: { ...channel, feedUrl: feedUrlOf(ctx.org.id, channel.id) } };
    },
  }),
  routes.get('items/{itemId}/download-url', {
    summary: 'A short-lived URL to download a ready media item\'s original file',
    params: z.object({ itemId: z.uuid() }).strict(),
    response: z.object({ url: z.string(), expiresInSeconds: z.number().int() }).strict(),
    run: async (ctx, { params }) => {
      const item = await loadItem(ctx.db, ctx.org.id, params.itemId);
      if (item.status !== 'ready' || !item.storage_key) {
        throw new StewardError('conflict', `The item is ${item.status}; only a ready item can be downloaded`, { details: { reason: `item_${item.status}` } });
      }
      return { url: await mediaStorage().presignGet(item.storage_key, { expiresInSeconds: 900, contentType: item.mime_type }), expiresInSeconds: 900 };
    },
  }),
  routes.post('episodes/{episodeId}/publish', {
    summary: 'Publish an episode (approval-gated)',
    params: z.object({ episodeId: z.uuid() }).strict(),
    body: z.object({ publishAt: z.iso.datetime({ offset: true }).max(40).optional() }).strict(),
    response: z.object({}).passthrough(),
    curatedTool: 'mediahub_publish_episode',
  }),
];
