import fs from 'node:fs';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { queryOne, withTenantTransaction, type Pool } from '../../db/pool';
import {
  checkLocalSignature, isMediaKey, LocalMediaStorage, mediaStorage, type SignatureCheck,
} from '../../modules/platform/media/storage';
import type { StoredThumbnail } from '../../modules/platform/media/library';

/**
 * Media Library bytes over HTTP:
 * - `PUT /media/o/<key>` and `GET /media/o/<key>`: the embedded store's presigned-style URLs
 *   (signed, expiring, checked here; a PUT must carry exactly the signed length and never replaces
 *   an object). With S3 configured these answer 404: its URLs point at the bucket instead.
 * - `GET /media/files/<orgId>/<fileId>[/<variant>]`: the stable address of a public file, looked up on
 *   every request so making a file private or deleting it stops it serving at once. Served from the
 *   embedded store, or redirected to a short-lived presigned URL of the bucket.
 * Mounted before the JSON body parser: upload bodies are raw bytes.
 */
export interface MediaRouterOptions {
  pool: Pool;
}

/** How long the redirect to a bucket's presigned URL works for a public file. */
const PUBLIC_REDIRECT_SECONDS = 300;

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf',
};

function refuse(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ ok: false, error: { code, message } });
}

function refuseSignature(res: Response, check: Exclude<SignatureCheck, 'valid'>): void {
  if (check === 'expired') refuse(res, 403, 'expired', 'This signed URL has expired');
  else refuse(res, 403, 'forbidden', 'The URL\'s signature is not valid');
}

function keyOf(req: Request): string {
  const parts = (req.params as Record<string, string | string[]>).key;
  return Array.isArray(parts) ? parts.join('/') : String(parts ?? '');
}

/** Headers every served object gets: its own type, never sniffed, never able to run script in our origin. */
function serveHeaders(res: Response, key: string, cache: string): void {
  const extension = key.slice(key.lastIndexOf('.') + 1);
  res.setHeader('Content-Type', CONTENT_TYPES[extension] ?? 'application/octet-stream');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  res.setHeader('Cache-Control', cache);
}

async function streamLocal(res: Response, storage: LocalMediaStorage, key: string, cache: string): Promise<void> {
  const file = storage.pathOf(key);
  let size: number;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch {
    refuse(res, 404, 'not_found', 'No such file');
    return;
  }
  serveHeaders(res, key, cache);
  res.setHeader('Content-Length', String(size));
  await new Promise<void>((resolve) => {
    const stream = fs.createReadStream(file);
    stream.on('error', () => { res.destroy(); resolve(); });
    stream.on('end', resolve);
    stream.pipe(res);
  });
}

const signedQuery = z.object({
  expires: z.string().regex(/^\d{1,12}$/).transform(Number),
  signature: z.string().min(10).max(100),
  length: z.string().regex(/^\d{1,12}$/).transform(Number).optional(),
});

const publicParams = z.object({ orgId: z.uuid(), fileId: z.uuid(), variant: z.enum(['small', 'medium']).optional() });

export function mediaRouter(options: MediaRouterOptions): express.Router {
  const router = express.Router();

  router.put('/media/o/*key', async (req, res) => {
    const storage = mediaStorage();
    const key = keyOf(req);
    if (!(storage instanceof LocalMediaStorage) || !isMediaKey(key) || !key.startsWith('uploads/')) return refuse(res, 404, 'not_found', 'No such upload URL');
    const query = signedQuery.safeParse(req.query);
    if (!query.success || query.data.length === undefined) return refuseSignature(res, 'invalid');
    const check = checkLocalSignature({ method: 'PUT', key, expires: query.data.expires, contentLength: query.data.length }, query.data.signature);
    if (check !== 'valid') return refuseSignature(res, check);
    const declared = req.headers['content-length'];
    if (declared === undefined) return refuse(res, 411, 'length_required', 'Send Content-Length with the upload');
    if (Number(declared) !== query.data.length) return refuse(res, 400, 'wrong_length', `This URL takes exactly ${query.data.length} bytes`);
    const outcome = await storage.receiveUpload(key, req, query.data.length);
    if (outcome === 'exists') return refuse(res, 409, 'conflict', 'This upload has already received its file');
    if (outcome === 'wrong_length') return refuse(res, 400, 'wrong_length', `This URL takes exactly ${query.data.length} bytes`);
    res.status(200).json({ ok: true });
  });

  router.get('/media/o/*key', async (req, res) => {
    const storage = mediaStorage();
    const key = keyOf(req);
    if (!(storage instanceof LocalMediaStorage) || !isMediaKey(key) || !key.startsWith('media/')) return refuse(res, 404, 'not_found', 'No such file');
    const query = signedQuery.safeParse(req.query);
    if (!query.success || query.data.length !== undefined) return refuseSignature(res, 'invalid');
    const check = checkLocalSignature({ method: 'GET', key, expires: query.data.expires }, query.data.signature);
    if (check !== 'valid') return refuseSignature(res, check);
    const remaining = Math.max(0, query.data.expires - Math.floor(Date.now() / 1000));
    await streamLocal(res, storage, key, `private, max-age=${remaining}`);
  });

  router.get(['/media/files/:orgId/:fileId', '/media/files/:orgId/:fileId/:variant'], async (req, res) => {
    const params = publicParams.safeParse(req.params);
    if (!params.success) return refuse(res, 404, 'not_found', 'No such file');
    const { orgId, fileId, variant } = params.data;
    const row = await withTenantTransaction(options.pool, orgId, (db) => queryOne<{ storage_key: string | null; thumbnails: StoredThumbnail[] }>(db, `
      SELECT storage_key, thumbnails FROM media_files
      WHERE org_id = $1 AND id = $2 AND status = 'ready' AND is_public AND deleted_at IS NULL`, [orgId, fileId]), { readOnly: true });
    const key = variant ? row?.thumbnails.find((thumbnail) => thumbnail.variant === variant)?.key : row?.storage_key;
    if (!key) return refuse(res, 404, 'not_found', 'No such file');
    const storage = mediaStorage();
    if (storage instanceof LocalMediaStorage) return streamLocal(res, storage, key, 'public, max-age=300');
    res.setHeader('Cache-Control', 'public, max-age=60');
    res.redirect(302, await storage.presignGet(key, { expiresInSeconds: PUBLIC_REDIRECT_SECONDS }));
  });

  return router;
}
