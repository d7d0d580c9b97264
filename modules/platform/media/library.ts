import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import type { MeterDefinition, PlanCode, RetentionRule } from '../../module';
import { notFound, type RowOf } from '../../kit';
import { allowanceFor, lockFeature } from '../../../kernel/billing';
import type { MediaFile } from './models';
import { mediaStorage, newKeySegment, publicOrigin, type MediaStorage } from './storage';
import { MEDIA_TYPES, type MediaType, type ProcessedMedia, type ThumbnailVariant } from './processing';

// ---------------------------------------------------------------- quota

const GIB = 1024 * 1024 * 1024;

/** Storage each plan holds, in bytes (files in the trash count until they are purged). */
export const STORAGE_BYTES_BY_PLAN: Readonly<Record<PlanCode, number>> = { starter: 1 * GIB, growth: 10 * GIB, enterprise: 100 * GIB };

/** How long an upload session (its presigned URL and the quota it holds) lasts. */
export const UPLOAD_SESSION_MINUTES = 15;
/** Files stay in the trash this long before daily maintenance removes them for good. */
export const TRASH_DAYS = 30;

/**
 * What counts against the quota: finished files (in the library or its trash) and uploads still
 * within their session, which hold their declared size from the moment they begin.
 */
const COUNTED = `org_id = $1 AND (status = 'ready' OR (status = 'pending' AND upload_expires_at > now()))`;

export async function countMediaItems(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM media_files WHERE ${COUNTED}`, [orgId]);
  return row?.n ?? 0;
}

/** media_items: a standing count of the library's files, so deleting for good frees room. */
export const mediaItemsMeter: MeterDefinition = {
  feature: 'media_items',
  allowances: { starter: 500, growth: 5000, enterprise: 100000 },
  standingCount: countMediaItems,
};

export interface MediaQuota {
  planCode: string;
  bytesLimit: number;
  bytesUsed: number;
  bytesRemaining: number;
  itemsLimit: number | null;
  itemsUsed: number;
  itemsRemaining: number | null;
  pendingUploads: number;
  inTrash: number;
}

export async function quotaOf(db: Queryable, orgId: string, planCode: string): Promise<MediaQuota> {
  const row = await queryOne<{ bytes: number; items: number; pending: number; trash: number }>(db, `
    SELECT COALESCE(sum(size_bytes), 0)::float8 AS bytes, count(*)::int AS items,
      count(*) FILTER (WHERE status = 'pending')::int AS pending,
      count(*) FILTER (WHERE status = 'ready' AND deleted_at IS NOT NULL)::int AS trash
    FROM media_files WHERE ${COUNTED}`, [orgId]);
  const bytesLimit = STORAGE_BYTES_BY_PLAN[planCode as PlanCode] ?? STORAGE_BYTES_BY_PLAN.starter;
  const itemsLimit = await allowanceFor(db, orgId, 'media_items');
  const bytesUsed = row?.bytes ?? 0;
  const itemsUsed = row?.items ?? 0;
  return {
    planCode, bytesLimit, bytesUsed, bytesRemaining: Math.max(0, bytesLimit - bytesUsed),
    itemsLimit, itemsUsed, itemsRemaining: itemsLimit === null ? null : Math.max(0, itemsLimit - itemsUsed),
    pendingUploads: row?.pending ?? 0, inTrash: row?.trash ?? 0,
  };
}

/** Refuses, with allowance_exceeded, a new file of `bytes` that would pass the storage or item quota. */
export function assertRoom(quota: MediaQuota, bytes: number): void {
  if (quota.itemsLimit !== null && quota.itemsUsed + 1 > quota.itemsLimit) {
    throw new StewardError('allowance_exceeded', `The plan allows ${quota.itemsLimit} media items; ${quota.itemsUsed} are in use (uploads in progress and the trash included)`, {
      hint: 'Delete files and empty them from the trash, or upgrade the plan; platform_get_media_library_quota shows the figures.',
      details: { feature: 'media_items', used: quota.itemsUsed, limit: quota.itemsLimit, requested: 1 },
    });
  }
  if (quota.bytesUsed + bytes > quota.bytesLimit) {
    throw new StewardError('allowance_exceeded', `The file (${bytes} bytes) does not fit: ${quota.bytesRemaining} of the plan's ${quota.bytesLimit} bytes of media storage remain`, {
      hint: 'Delete files you no longer need, or upgrade the plan; platform_get_media_library_quota shows the figures.',
      details: { feature: 'media_storage_bytes', used: quota.bytesUsed, limit: quota.bytesLimit, requested: bytes },
    });
  }
}

/**
 * Takes room for one file under the organisation's media lock: concurrent uploads queue here, and
 * each sees the rows the others committed, so together they cannot pass the quota.
 */
export async function reserveRoom(db: Queryable, orgId: string, planCode: string, bytes: number): Promise<void> {
  await lockFeature(db, orgId, 'media_items');
  assertRoom(await quotaOf(db, orgId, planCode), bytes);
}

// ---------------------------------------------------------------- rows and their public shape

/** A file as `SELECT *` reads it, typed by its model; the list and bulk reads add its tags and folder's name. */
export type FileRow = RowOf<MediaFile> & {
  tags?: string[] | null;
  folder_name?: string | null;
};

export interface StoredThumbnail {
  variant: ThumbnailVariant;
  key: string;
  width: number;
  height: number;
}

/** The columns a file is read with: its row, its tags' names and its folder's name. */
export const FILE_SELECT = `f.*, fo.name AS folder_name,
  ARRAY(SELECT t.name FROM media_file_tags ft JOIN media_tags t ON t.id = ft.tag_id WHERE ft.file_id = f.id ORDER BY lower(t.name)) AS tags
  FROM media_files f LEFT JOIN media_folders fo ON fo.id = f.folder_id`;

export async function findFile(db: Queryable, orgId: string, id: string, options: { includePending?: boolean; lock?: boolean } = {}): Promise<FileRow> {
  const row = await queryOne<FileRow>(db, `SELECT ${FILE_SELECT} WHERE f.org_id = $1 AND f.id = $2${options.includePending ? '' : " AND f.status = 'ready'"}${options.lock ? ' FOR UPDATE OF f' : ''}`, [orgId, id]);
  if (!row) throw notFound('Media file', id, 'platform_list_media_library_files lists the library\'s files.');
  return row;
}

/** The unsigned address of a public file (or one of its thumbnails), served by Steward or by MEDIA_PUBLIC_BASE_URL's CDN. */
export function publicUrlOf(row: Pick<FileRow, 'org_id' | 'id' | 'storage_key' | 'thumbnails'>, variant: 'original' | ThumbnailVariant = 'original', env: NodeJS.ProcessEnv = process.env): string | null {
  const key = variant === 'original' ? row.storage_key : row.thumbnails.find((thumbnail) => thumbnail.variant === variant)?.key;
  if (!key) return null;
  const cdn = env.MEDIA_PUBLIC_BASE_URL?.replace(/\/+$/, '');
  if (cdn) return `${cdn}/${key}`;
  return `${publicOrigin(env)}/media/files/${row.org_id}/${row.id}${variant === 'original' ? '' : `/${variant}`}`;
}

export function toMediaFile(row: FileRow) {
  const servable = row.status === 'ready' && row.is_public && row.deleted_at === null;
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    altText: row.alt_text,
    mimeType: row.mime_type,
    sizeBytes: row.size_bytes,
    width: row.width,
    height: row.height,
    folderId: row.folder_id,
    folderName: row.folder_name ?? null,
    tags: row.tags ?? [],
    isPublic: row.is_public,
    status: row.status,
    inTrash: row.deleted_at !== null,
    deletedAt: row.deleted_at ? new Date(row.deleted_at).toISOString() : null,
    url: servable ? publicUrlOf(row) : null,
    thumbnails: row.thumbnails.map((thumbnail) => ({
      variant: thumbnail.variant, width: thumbnail.width, height: thumbnail.height, url: servable ? publicUrlOf(row, thumbnail.variant) : null,
    })),
    source: row.source,
    aiDescription: row.ai_description,
    aiLabels: row.ai_labels,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

// ---------------------------------------------------------------- upload sessions

export function hashSession(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

export function sessionMatches(row: Pick<FileRow, 'upload_session_hash'>, sessionId: string): boolean {
  if (!row.upload_session_hash) return false;
  const given = Buffer.from(hashSession(sessionId), 'hex');
  const stored = Buffer.from(row.upload_session_hash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

export function newSessionId(): string {
  return `mus_${randomBytes(24).toString('base64url')}`;
}

export function uploadKeyOf(orgId: string, fileId: string, type: MediaType): string {
  return `uploads/${orgId}/${fileId}/${newKeySegment()}/upload.${MEDIA_TYPES[type].extensions[0]}`;
}

/** A name without path parts or control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(-200);
}

// ---------------------------------------------------------------- stored objects

export interface StoredMedia {
  storageKey: string;
  thumbnails: StoredThumbnail[];
  mimeType: string;
  width: number | null;
  height: number | null;
  sizeBytes: number;
}

/** A checked file ready to store: its bytes, thumbnails and the keys they go under (fresh ones of the file's own). */
export interface PlannedMedia {
  stored: StoredMedia;
  objects: Array<{ key: string; bytes: Buffer; contentType: string }>;
}

export function planStorage(orgId: string, fileId: string, bytes: Buffer, processed: ProcessedMedia, segment = newKeySegment()): PlannedMedia {
  const base = `media/${orgId}/${fileId}/${segment}`;
  const storageKey = `${base}/original.${MEDIA_TYPES[processed.type].extensions[0]}`;
  const objects = [{ key: storageKey, bytes, contentType: processed.mimeType }];
  const thumbnails: StoredThumbnail[] = [];
  for (const thumbnail of processed.thumbnails) {
    const key = `${base}/${thumbnail.variant}.webp`;
    objects.push({ key, bytes: thumbnail.bytes, contentType: 'image/webp' });
    thumbnails.push({ variant: thumbnail.variant, key, width: thumbnail.width, height: thumbnail.height });
  }
  return { stored: { storageKey, thumbnails, mimeType: processed.mimeType, width: processed.width, height: processed.height, sizeBytes: bytes.length }, objects };
}

export async function writePlanned(storage: MediaStorage, planned: PlannedMedia): Promise<void> {
  for (const object of planned.objects) await storage.write(object.key, object.bytes, object.contentType);
}

/** Writes a checked file and its thumbnails under fresh keys of the file's own. */
export async function storeProcessed(storage: MediaStorage, orgId: string, fileId: string, bytes: Buffer, processed: ProcessedMedia): Promise<StoredMedia> {
  const planned = planStorage(orgId, fileId, bytes, processed);
  await writePlanned(storage, planned);
  return planned.stored;
}

/** The key segment a stored file's objects share (reprocessing writes its thumbnails beside the original). */
export function segmentOf(storageKey: string): string {
  return storageKey.split('/')[3]!;
}

export function keysOf(row: Pick<FileRow, 'storage_key' | 'thumbnails' | 'upload_key'>): string[] {
  return [row.storage_key, row.upload_key, ...row.thumbnails.map((thumbnail) => thumbnail.key)].filter((key): key is string => Boolean(key));
}

/** A finished file's row, from bytes already checked and stored (one-shot uploads and generated images). */
export async function insertReadyFile(db: Queryable, input: {
  id: string; orgId: string; source: 'url' | 'inline' | 'ai' ; name: string; displayName?: string | null; altText?: string | null;
  isPublic: boolean; folderId?: string | null; userId: string | null; stored: StoredMedia; aiDescription?: string | null;
}): Promise<void> {
  await db.query(`INSERT INTO media_files (id, org_id, status, source, name, display_name, alt_text, mime_type, size_bytes, width, height, folder_id,
      is_public, storage_key, thumbnails, ai_description, created_by_user_id, processed_at)
    VALUES ($1, $2, 'ready', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, now())`, [
    input.id, input.orgId, input.source, input.name, input.displayName ?? null, input.altText ?? null, input.stored.mimeType, input.stored.sizeBytes,
    input.stored.width, input.stored.height, input.folderId ?? null, input.isPublic, input.stored.storageKey, JSON.stringify(input.stored.thumbnails),
    input.aiDescription ?? null, input.userId,
  ]);
}

export function newFileId(): string {
  return randomUUID();
}

// ---------------------------------------------------------------- folders and tags

export async function assertFolder(db: Queryable, orgId: string, folderId: string): Promise<{ id: string; name: string; parent_id: string | null }> {
  const folder = await queryOne<{ id: string; name: string; parent_id: string | null }>(db, 'SELECT id, name, parent_id FROM media_folders WHERE org_id = $1 AND id = $2', [orgId, folderId]);
  if (!folder) throw notFound('Media folder', folderId, 'platform_list_media_folders lists the folders.');
  return folder;
}

/** The tags with these names, made when missing (names compared ignoring case). */
export async function ensureTags(db: Queryable, orgId: string, names: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of [...new Set(names.map((n) => n.trim()))]) {
    await db.query('INSERT INTO media_tags (id, org_id, name) VALUES ($1, $2, $3) ON CONFLICT (org_id, lower(name)) DO NOTHING', [randomUUID(), orgId, name]);
    const row = await queryOne<{ id: string }>(db, 'SELECT id FROM media_tags WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]);
    ids.push(row!.id);
  }
  return ids;
}

export async function addTags(db: Queryable, orgId: string, fileIds: readonly string[], names: readonly string[]): Promise<void> {
  if (names.length === 0 || fileIds.length === 0) return;
  const tagIds = await ensureTags(db, orgId, names);
  await db.query(`INSERT INTO media_file_tags (org_id, file_id, tag_id) SELECT $1, f, t FROM unnest($2::uuid[]) f, unnest($3::uuid[]) t
    ON CONFLICT DO NOTHING`, [orgId, fileIds, tagIds]);
}

export async function removeTags(db: Queryable, orgId: string, fileIds: readonly string[], names: readonly string[]): Promise<void> {
  if (names.length === 0 || fileIds.length === 0) return;
  await db.query(`DELETE FROM media_file_tags ft USING media_tags t WHERE ft.tag_id = t.id AND ft.org_id = $1 AND ft.file_id = ANY($2::uuid[])
    AND lower(t.name) = ANY(SELECT lower(n) FROM unnest($3::text[]) n)`, [orgId, fileIds, names]);
}

export async function touchFiles(db: Queryable, orgId: string, fileIds: readonly string[]): Promise<void> {
  await db.query('UPDATE media_files SET updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, fileIds]);
}

// ---------------------------------------------------------------- retention

/** Uploads that never completed, a day after their session ended, and files in the trash past TRASH_DAYS: rows and objects go. */
async function purge(db: Queryable, where: string): Promise<number> {
  const rows = await queryRows<FileRow>(db, `DELETE FROM media_files WHERE ${where} RETURNING *`);
  const keys = rows.flatMap(keysOf);
  if (keys.length > 0) {
    // The rows are gone either way; a store that is briefly unreachable leaves objects no row names, never a row without its object.
    await mediaStorage().remove(keys).catch((error: Error) => console.error('media purge: could not remove objects', error.name));
  }
  return rows.length;
}

export const mediaRetention: RetentionRule[] = [
  { name: 'media_abandoned_uploads', purge: (db) => purge(db, "status = 'pending' AND upload_expires_at < now() - interval '1 day'") },
  { name: 'media_trash', purge: (db) => purge(db, `deleted_at < now() - interval '${TRASH_DAYS} days'`) },
];

/** What another module shows of a Media Library file it links to: its id, name, type, size, whether it is public, and its public address (null when private). */
export interface LinkedMediaFile { id: string; name: string; mimeType: string; sizeBytes: number; isPublic: boolean; url: string | null }

/** A Media Library file another module links to: a ready file of this organisation (not in the trash), or null. */
export async function linkedMediaFile(db: Queryable, orgId: string, id: string): Promise<LinkedMediaFile | null> {
  return (await linkedMediaFiles(db, orgId, [id])).get(id) ?? null;
}

/** Many linked files at once (a podcast feed's artworks), by id; ids gone, in the trash or another organisation's are absent. */
export async function linkedMediaFiles(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, LinkedMediaFile>> {
  const found = new Map<string, LinkedMediaFile>();
  if (ids.length === 0) return found;
  const rows = await queryRows<FileRow>(db, `SELECT ${FILE_SELECT} WHERE f.org_id = $1 AND f.id = ANY($2::uuid[]) AND f.status = 'ready' AND f.deleted_at IS NULL`, [orgId, [...new Set(ids)]]);
  for (const row of rows) {
    const file = toMediaFile(row);
    found.set(file.id, { id: file.id, name: file.displayName ?? file.name, mimeType: file.mimeType ?? 'application/octet-stream', sizeBytes: file.sizeBytes, isPublic: file.isPublic, url: file.url });
  }
  return found;
}
