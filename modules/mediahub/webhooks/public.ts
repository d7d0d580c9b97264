import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { queryOne, withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { mediaStorage } from '../../platform/api';
import { artworkResolver, episodeArtworkChain, type EpisodeArtworkColumns } from '../artwork';
import { buildFeed, playUrlOf, xmlEscape } from '../feed';
import { getOrgSettings } from '../../platform/api';
import { queryRows } from '../../../db/pool';

/**
 * Media Hub's public addresses, served by Steward:
 * - `GET /mediahub/feeds/<orgId>/<channelId>.xml`: a channel's podcast feed;
 * - `GET /mediahub/play/<orgId>/<episodeId>/<audio|video>?via=feed|web`: a published episode's
 *   file: counts one download (via=feed) or play, then redirects to a short-lived URL of it;
 * - `GET /mediahub/artwork/<orgId>/<itemId>.<ext>`: a Media Hub image item used as a channel's, series'
 *   or episode's artwork, the older way (no other item is reachable here); artwork from the Media
 *   Library is shown by the file's own public address, which the platform serves.
 * - `GET /mediahub/library/<orgId>`: the public episode library, a plain page of published episodes
 *   with their artwork and players (their plays counted through the play redirect).
 * A missing, unpublished or another organisation's record answers 404 alike.
 */
const REDIRECT_SECONDS = 600;
const uuid = z.uuid();

function notFound(res: import('express').Response): void {
  res.status(404).json({ ok: false, error: { code: 'not_found', message: 'Not found' } });
}

function mediahubRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.get('/mediahub/feeds/:orgId/:file', async (req, res, next) => {
    try {
      const channelId = String(req.params.file).replace(/\.xml$/, '');
      if (!uuid.safeParse(req.params.orgId).success || !uuid.safeParse(channelId).success) return notFound(res);
      const xml = await withTenantTransaction(deps.pool, req.params.orgId, (db) => buildFeed(db, req.params.orgId, channelId), { readOnly: true });
      if (!xml) return notFound(res);
      res.setHeader('content-type', 'application/rss+xml; charset=utf-8');
      res.setHeader('cache-control', 'public, max-age=300');
      res.setHeader('x-content-type-options', 'nosniff');
      res.send(xml);
    } catch (error) {
      next(error);
    }
  });

  router.get('/mediahub/play/:orgId/:episodeId/:media', async (req, res, next) => {
    try {
      const { orgId, episodeId, media } = req.params;
      if (!uuid.safeParse(orgId).success || !uuid.safeParse(episodeId).success || (media !== 'audio' && media !== 'video')) return notFound(res);
      const kind = req.query.via === 'feed' ? 'download' : 'play';
      const file = await withTenantTransaction(deps.pool, orgId, async (db) => {
        const row = await queryOne<{ storage_key: string; mime_type: string }>(db, `SELECT i.storage_key, i.mime_type FROM mediahub_episodes e
          JOIN mediahub_items i ON i.org_id = e.org_id AND i.id = ${media === 'audio' ? 'e.audio_item_id' : 'e.video_item_id'} AND i.status = 'ready'
          WHERE e.org_id = $1 AND e.id = $2 AND e.status = 'published' AND e.publish_at <= now()`, [orgId, episodeId]);
        if (!row) return null;
        // A range request after the first byte is the same listen continuing: counted once, at its start.
        const range = String(req.headers.range ?? '');
        if (!range || /^bytes=0-/.test(range)) {
          await db.query('INSERT INTO mediahub_plays (id, org_id, episode_id, kind, media) VALUES ($1, $2, $3, $4, $5)', [randomUUID(), orgId, episodeId, kind, media]);
        }
        return row;
      });
      if (!file) return notFound(res);
      res.setHeader('cache-control', 'no-store');
      res.redirect(302, await mediaStorage().presignGet(file.storage_key, { expiresInSeconds: REDIRECT_SECONDS, contentType: file.mime_type }));
    } catch (error) {
      next(error);
    }
  });

  router.get('/mediahub/artwork/:orgId/:file', async (req, res, next) => {
    try {
      const itemId = String(req.params.file).replace(/\.[a-z0-9]{2,5}$/, '');
      if (!uuid.safeParse(req.params.orgId).success || !uuid.safeParse(itemId).success) return notFound(res);
      const row = await withTenantTransaction(deps.pool, req.params.orgId, (db) => queryOne<{ storage_key: string; mime_type: string }>(db, `
        SELECT i.storage_key, i.mime_type FROM mediahub_items i WHERE i.org_id = $1 AND i.id = $2 AND i.kind = 'image' AND i.status = 'ready' AND (
          EXISTS (SELECT 1 FROM mediahub_channels c WHERE c.org_id = i.org_id AND c.artwork_item_id = i.id)
          OR EXISTS (SELECT 1 FROM mediahub_series s WHERE s.org_id = i.org_id AND s.artwork_item_id = i.id)
          OR EXISTS (SELECT 1 FROM mediahub_episodes e WHERE e.org_id = i.org_id AND e.artwork_item_id = i.id AND e.status = 'published'))`,
      [req.params.orgId, itemId]), { readOnly: true });
      if (!row) return notFound(res);
      res.setHeader('cache-control', 'public, max-age=300');
      res.redirect(302, await mediaStorage().presignGet(row.storage_key, { expiresInSeconds: REDIRECT_SECONDS, contentType: row.mime_type }));
    } catch (error) {
      next(error);
    }
  });
  router.get('/mediahub/library/:orgId', async (req, res, next) => {
    try {
      const { orgId } = req.params;
      if (!uuid.safeParse(orgId).success) return notFound(res);
      const page = await withTenantTransaction(deps.pool, orgId, async (db) => {
        const org = await getOrgSettings(db, orgId).catch(() => null);
        if (!org) return null;
        const episodes = await queryRows<EpisodeArtworkColumns & { id: string; title: string; speaker: string | null; scripture: string | null; series_title: string; episode_date: string; has_audio: boolean; has_video: boolean }>(db, `
          SELECT e.id, e.title, e.speaker, e.scripture, s.title AS series_title, to_char(e.episode_date, 'YYYY-MM-DD') AS episode_date,
            e.artwork_media_id, e.artwork_item_id, s.artwork_media_id AS series_artwork_media_id, s.artwork_item_id AS series_artwork_item_id,
            EXISTS (SELECT 1 FROM mediahub_items i WHERE i.org_id = e.org_id AND i.id = e.audio_item_id AND i.status = 'ready') AS has_audio,
            EXISTS (SELECT 1 FROM mediahub_items i WHERE i.org_id = e.org_id AND i.id = e.video_item_id AND i.status = 'ready') AS has_video
          FROM mediahub_episodes e JOIN mediahub_series s ON s.org_id = e.org_id AND s.id = e.series_id
          WHERE e.org_id = $1 AND e.status = 'published' AND e.publish_at <= now() ORDER BY e.episode_date DESC, e.id LIMIT 100`, [orgId]);
        const shown = episodes.filter((e) => e.has_audio || e.has_video);
        const artwork = await artworkResolver(db, orgId, shown.flatMap(episodeArtworkChain));
        const items = shown.map((e) => {
          const media = e.has_audio ? 'audio' : 'video';
          const meta = [e.speaker, e.scripture, e.series_title, e.episode_date].filter(Boolean).map((v) => xmlEscape(String(v))).join(' · ');
          const art = artwork.urlOf(...episodeArtworkChain(e));
          // The title beside it names the episode, so the picture is decorative (empty alt).
          const image = art ? `<img src="${xmlEscape(art)}" alt="" width="300" style="height:auto;max-width:100%" loading="lazy">` : '';
          return `<li data-id="${e.id}">${image}<h2>${xmlEscape(e.title)}</h2><p>${meta}</p><${media} controls preload="none" src="${xmlEscape(playUrlOf(orgId, e.id, media, 'web'))}"></${media}></li>`;
        });
        return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${xmlEscape(org.name)}: sermons</title></head>`
          + `<body><h1>${xmlEscape(org.name)}: sermons</h1>${items.length ? `<ul>${items.join('')}</ul>` : '<p>No sermons published yet.</p>'}</body></html>`;
      }, { readOnly: true });
      if (!page) return notFound(res);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('cache-control', 'public, max-age=60');
      res.setHeader('x-content-type-options', 'nosniff');
      // Artwork loads from Steward, the Media Library's CDN or (the older way) a bucket's presigned address.
      res.setHeader('content-security-policy', "default-src 'none'; media-src *; img-src *; style-src 'unsafe-inline'");
      res.send(page);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const mediahubWebhooks: ModuleWebhook = { paths: ['/mediahub/'], router: mediahubRouter };
