import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { getOrgSettings, publicOrigin } from '../platform/api';
import { artworkResolver, episodeArtworkChain, type ArtworkColumns, type EpisodeArtworkColumns } from './artwork';

/**
 * A channel's podcast feed: RSS 2.0 with the iTunes tags podcast directories require (author,
 * image, category, explicit, language, per-episode duration and guid). Only episodes published and
 * due (publish_at passed) are in it. Every text is XML-escaped; enclosures point at Steward's play
 * redirect, which counts the download and sends the app to a short-lived URL of the file.
 */
export function xmlEscape(value: string): string {
  // Characters XML 1.0 does not allow at all are dropped, the rest escaped.
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export const feedUrlOf = (orgId: string, channelId: string) => `${publicOrigin()}/mediahub/feeds/${orgId}/${channelId}.xml`;
export const playUrlOf = (orgId: string, episodeId: string, media: 'audio' | 'video', via: 'feed' | 'web') => `${publicOrigin()}/mediahub/play/${orgId}/${episodeId}/${media}?via=${via}`;

function duration(ms: number | null): string | null {
  if (ms === null) return null;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

interface FeedEpisode extends EpisodeArtworkColumns {
  id: string; title: string; speaker: string | null; scripture: string | null; notes: string | null; series_title: string; publish_at: Date;
  media: 'audio' | 'video'; mime_type: string; size_bytes: string; duration_ms: number | null;
}

export async function buildFeed(db: Queryable, orgId: string, channelId: string): Promise<string | null> {
  const found = await queryOne<ArtworkColumns & { id: string; name: string; description: string | null; author: string | null; language: string; category: string }>(db, `
    SELECT c.id, c.name, c.description, c.author, c.language, c.category, c.artwork_media_id, c.artwork_item_id
    FROM mediahub_channels c WHERE c.org_id = $1 AND c.id = $2`, [orgId, channelId]);
  if (!found) return null;
  const channel = { ...found, org_name: (await getOrgSettings(db, orgId)).name };
  const episodes = await queryRows<FeedEpisode>(db, `
    SELECT e.id, e.title, e.speaker, e.scripture, e.notes, s.title AS series_title, e.publish_at,
      CASE WHEN au.id IS NOT NULL THEN 'audio' ELSE 'video' END AS media,
      COALESCE(au.mime_type, v.mime_type) AS mime_type, COALESCE(au.size_bytes, v.size_bytes)::text AS size_bytes, COALESCE(au.duration_ms, v.duration_ms) AS duration_ms,
      e.artwork_media_id, e.artwork_item_id, s.artwork_media_id AS series_artwork_media_id, s.artwork_item_id AS series_artwork_item_id
    FROM mediahub_episodes e JOIN mediahub_series s ON s.org_id = e.org_id AND s.id = e.series_id
    LEFT JOIN mediahub_items au ON au.org_id = e.org_id AND au.id = e.audio_item_id AND au.status = 'ready'
    LEFT JOIN mediahub_items v ON v.org_id = e.org_id AND v.id = e.video_item_id AND v.status = 'ready'
    WHERE e.org_id = $1 AND s.channel_id = $2 AND e.status = 'published' AND e.publish_at <= now() AND (au.id IS NOT NULL OR v.id IS NOT NULL)
    ORDER BY e.publish_at DESC LIMIT 300`, [orgId, channelId]);
  // Every artwork the feed names, looked up at once (Media Library files through the platform's api.ts).
  const artwork = await artworkResolver(db, orgId, [channel, ...episodes.flatMap(episodeArtworkChain)]);
  const author = channel.author ?? channel.org_name;
  const description = channel.description ?? `${channel.name} from ${channel.org_name}`;
  const self = feedUrlOf(orgId, channelId);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">',
    '<channel>',
    `<title>${xmlEscape(channel.name)}</title>`,
    `<link>${xmlEscape(publicOrigin())}</link>`,
    `<atom:link href="${xmlEscape(self)}" rel="self" type="application/rss+xml"/>`,
    `<description>${xmlEscape(description)}</description>`,
    `<language>${xmlEscape(channel.language)}</language>`,
    `<itunes:author>${xmlEscape(author)}</itunes:author>`,
    `<itunes:summary>${xmlEscape(description)}</itunes:summary>`,
    `<itunes:category text="${xmlEscape(channel.category)}"/>`,
    '<itunes:explicit>false</itunes:explicit>',
    '<itunes:type>episodic</itunes:type>',
    `<itunes:owner><itunes:name>${xmlEscape(author)}</itunes:name></itunes:owner>`,
  ];
  const channelArt = artwork.urlOf(channel);
  if (channelArt) {
    lines.push(`<itunes:image href="${xmlEscape(channelArt)}"/>`, `<image><url>${xmlEscape(channelArt)}</url><title>${xmlEscape(channel.name)}</title><link>${xmlEscape(publicOrigin())}</link></image>`);
  }
  for (const episode of episodes) {
    const art = artwork.urlOf(...episodeArtworkChain(episode));
    const summary = [episode.speaker, episode.scripture, episode.series_title].filter(Boolean).join(' · ');
    const body = [summary, episode.notes].filter(Boolean).join('\n\n') || episode.title;
    lines.push('<item>',
      `<title>${xmlEscape(episode.title)}</title>`,
      `<guid isPermaLink="false">${xmlEscape(`steward-mediahub-${episode.id}`)}</guid>`,
      `<pubDate>${new Date(episode.publish_at).toUTCString()}</pubDate>`,
      `<description>${xmlEscape(body)}</description>`,
      `<enclosure url="${xmlEscape(playUrlOf(orgId, episode.id, episode.media, 'feed'))}" length="${Number(episode.size_bytes)}" type="${xmlEscape(episode.mime_type)}"/>`,
      ...(episode.speaker ? [`<itunes:author>${xmlEscape(episode.speaker)}</itunes:author>`] : []),
      ...(duration(episode.duration_ms) ? [`<itunes:duration>${duration(episode.duration_ms)}</itunes:duration>`] : []),
      ...(art ? [`<itunes:image href="${xmlEscape(art)}"/>`] : []),
      '<itunes:explicit>false</itunes:explicit>',
      '<itunes:episodeType>full</itunes:episodeType>',
      '</item>');
  }
  lines.push('</channel>', '</rss>');
  return `${lines.join('\n')}\n`;
}
