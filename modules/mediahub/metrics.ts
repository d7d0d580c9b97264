import { z } from 'zod';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';

/** What Media Hub answers through platform_analytics_query: listening counted through Steward's redirect. */
const sermonListening = defineMetric({
  name: 'sermon_listening',
  description: 'Sermon plays and podcast downloads over a range (default: this month so far), per episode, most first; counted when the feed\'s file or a play link is fetched through Steward.',
  scope: 'mediahub:read',
  params: ['range', 'limit'],
  output: z.object({
    from: z.string(), to: z.string(),
    episodes: z.array(z.object({ episodeId: z.uuid(), title: z.string(), plays: z.number().int(), downloads: z.number().int() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rows = await queryRows<{ episode_id: string; title: string; plays: number; downloads: number }>(ctx.db, `
      SELECT p.episode_id, e.title, count(*) FILTER (WHERE p.kind = 'play')::int AS plays, count(*) FILTER (WHERE p.kind = 'download')::int AS downloads
      FROM mediahub_plays p JOIN mediahub_episodes e ON e.org_id = p.org_id AND e.id = p.episode_id
      WHERE p.org_id = $1 AND p.played_on BETWEEN $2::date AND $3::date GROUP BY p.episode_id, e.title ORDER BY count(*) DESC, e.title LIMIT $4`,
    [ctx.org.id, from, to, params.limit ?? 20]);
    const episodes = rows.map((row) => ({ episodeId: row.episode_id, title: row.title, plays: row.plays, downloads: row.downloads }));
    const plays = episodes.reduce((n, e) => n + e.plays, 0);
    const downloads = episodes.reduce((n, e) => n + e.downloads, 0);
    return {
      data: { from, to, episodes },
      speakToUser: episodes.length === 0 ? `No sermon was played or downloaded ${spokenRange(from, to)}.`
        : `${countOf(plays, 'play')} and ${countOf(downloads, 'download')} ${spokenRange(from, to)}; most: ${episodes[0]!.title}.`,
    };
  },
});

/** The overview's figures: episodes awaiting publishing, published this month, items processing or failed. */
export async function mediahubOverview(db: Queryable, orgId: string) {
  const row = (await queryOne<{ drafts: number; published: number; processing: number; failed: number }>(db, `SELECT
    (SELECT count(*)::int FROM mediahub_episodes WHERE org_id = $1 AND status = 'draft') AS drafts,
    (SELECT count(*)::int FROM mediahub_episodes WHERE org_id = $1 AND status = 'published' AND publish_at >= date_trunc('month', now()) AND publish_at <= now()) AS published,
    (SELECT count(*)::int FROM mediahub_items WHERE org_id = $1 AND status = 'processing') AS processing,
    (SELECT count(*)::int FROM mediahub_items WHERE org_id = $1 AND status = 'failed') AS failed`, [orgId]))!;
  return { draftEpisodes: row.drafts, publishedThisMonth: row.published, itemsProcessing: row.processing, itemsFailed: row.failed };
}

export const mediahubMetrics = [sermonListening];
