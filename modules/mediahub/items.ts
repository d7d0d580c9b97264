import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { assertAllowance, lockFeature } from '../../kernel/billing';
import { recordJobChange } from '../audit/api';
import { listPage, notFound } from '../kit';
import { mediaStorage, newKeySegment } from '../platform/api';
import { fileTypeOf, MEDIA_KINDS, type MediaKind } from './probe';

/** How long a presigned upload URL works. */
export const UPLOAD_SECONDS = 3600;
/** How long a thumbnail URL in an answer works. */
const VIEW_SECONDS = 3600;
const MIB = 1024 * 1024;

/** The largest file Media Hub takes (MEDIAHUB_MAX_FILE_BYTES, default 1 GiB). */
export function maxItemBytes(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.MEDIAHUB_MAX_FILE_BYTES);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : 1024 * MIB;
}

export const ITEM_STATUSES = ['uploading', 'processing', 'ready', 'failed', 'archived'] as const;

export const itemSchema = z.object({
  id: z.uuid(), kind: z.enum(MEDIA_KINDS), title: z.string(), fileName: z.string(), mimeType: z.string(), sizeBytes: z.number().int(),
  status: z.enum(ITEM_STATUSES), durationSeconds: z.number().nullable(), width: z.number().int().nullable(), height: z.number().int().nullable(),
  codec: z.string().nullable(), waveform: z.array(z.number().int()).nullable().describe('Peak levels 0-100 across an audio file'),
  thumbnailUrl: z.string().nullable().describe('A short-lived URL of the still (images, video)'), failure: z.string().nullable(),
  licence: z.string().nullable(), ccliNumber: z.string().nullable(), streamingLicence: z.string().nullable(), hasCaptions: z.boolean(),
  processingAttempts: z.number().int(), createdAt: z.string(), processedAt: z.string().nullable(),
}).strict();
export type ItemView = z.infer<typeof itemSchema>;

export interface ItemRow {
  id: string; org_id: string; kind: MediaKind; title: string; file_name: string; extension: string; mime_type: string; size_bytes: string | number;
  status: (typeof ITEM_STATUSES)[number]; upload_key: string; upload_expires_at: Date; storage_key: string | null; thumbnail_key: string | null;
  duration_ms: number | null; width: number | null; height: number | null; codec: string | null; waveform: number[] | null; failure: string | null;
  processing_attempts: number; licence: string | null; ccli_number: string | null; streaming_licence: string | null; captions: string | null;
  processed_at: Date | null; archived_at: Date | null; objects_removed_at: Date | null; created_at: Date; updated_at: Date;
}

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

export async function itemView(row: ItemRow, options: { urls?: boolean } = {}): Promise<ItemView> {
  const thumbnailUrl = options.urls !== false && row.thumbnail_key && row.status !== 'archived'
    ? await mediaStorage().presignGet(row.thumbnail_key, { expiresInSeconds: VIEW_SECONDS, contentType: 'image/jpeg' }) : null;
  return {
    id: row.id, kind: row.kind, title: row.title, fileName: row.file_name, mimeType: row.mime_type, sizeBytes: Number(row.size_bytes),
    status: row.status, durationSeconds: row.duration_ms === null ? null : row.duration_ms / 1000, width: row.width, height: row.height,
    codec: row.codec, waveform: row.waveform, thumbnailUrl, failure: row.failure, licence: row.licence, ccliNumber: row.ccli_number,
    streamingLicence: row.streaming_licence, hasCaptions: Boolean(row.captions), processingAttempts: row.processing_attempts,
    createdAt: iso(row.created_at)!, processedAt: iso(row.processed_at),
  };
}

/** Items the plan counts: everything held but archived ones and uploads that ran out. */
const COUNTED = `org_id = $1 AND (status IN ('processing', 'ready') OR (status = 'uploading' AND upload_expires_at > now()))`;

export async function countItems(db: Queryable, orgId: string): Promise<number> {
  return (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM mediahub_items WHERE ${COUNTED}`, [orgId]))?.n ?? 0;
}

/** Storage held, in whole MiB (the allowance table holds 32-bit limits, so storage is metered in MiB). */
export async function storageMib(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ bytes: number }>(db, `SELECT COALESCE(sum(size_bytes), 0)::float8 AS bytes FROM mediahub_items WHERE ${COUNTED}`, [orgId]);
  return Math.ceil((row?.bytes ?? 0) / MIB);
}

export async function loadItem(db: Queryable, orgId: string, itemId: string, forUpdate = false): Promise<ItemRow> {
  const row = await queryOne<ItemRow>(db, `SELECT * FROM mediahub_items WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [orgId, itemId]);
  if (!row) throw notFound('Media item', itemId, 'mediahub_list_items lists the media items.');
  return row;
}

export interface BeginInput { fileName: string; fileSize: number; title?: string }

export async function beginUpload(db: Queryable, orgId: string, input: BeginInput) {
  const type = fileTypeOf(input.fileName);
  const max = maxItemBytes();
  if (input.fileSize > max) {
    throw new StewardError('payload_too_large', `The file is larger than Media Hub takes (${Math.floor(max / MIB)} MiB)`, {
      hint: 'Compress or trim the file and try again.', details: { maxBytes: max },
    });
  }
  // Items and storage are standing allowances: serialised per organisation (always items, then storage)
  // so two uploads cannot both take the last place or the last room.
  await lockFeature(db, orgId, 'mediahub_items');
  await lockFeature(db, orgId, 'mediahub_storage_mb');
  await assertAllowance(db, orgId, 'mediahub_items', 1, { tool: 'mediahub_begin_upload' });
  await assertAllowance(db, orgId, 'mediahub_storage_mb', Math.ceil(input.fileSize / MIB), { tool: 'mediahub_begin_upload' });
  const id = randomUUID();
  const safeName = type.kind;
  const uploadKey = `uploads/${orgId}/${id}/${newKeySegment()}/${safeName}.${type.extension}`;
  const expiresAt = new Date(Date.now() + UPLOAD_SECONDS * 1000);
  const title = input.title ?? input.fileName.replace(/\.[A-Za-z0-9]{2,5}$/, '').slice(0, 200);
  await db.query(`INSERT INTO mediahub_items (id, org_id, kind, title, file_name, extension, mime_type, size_bytes, upload_key, upload_expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [id, orgId, type.kind, title || type.kind, input.fileName, type.extension, type.mimeType, input.fileSize, uploadKey, expiresAt]);
  const uploadUrl = await mediaStorage().presignPut(uploadKey, { contentLength: input.fileSize, contentType: type.mimeType, expiresInSeconds: UPLOAD_SECONDS });
  return {
    itemId: id, uploadUrl, uploadMethod: 'PUT' as const,
    uploadHeaders: { 'Content-Type': type.mimeType, 'Content-Length': String(input.fileSize) },
    expiresAt: expiresAt.toISOString(), kind: type.kind,
  };
}

/** The upload is there, of the size begun: the item moves to processing (its workflow starts after the call). */
export async function completeUpload(db: Queryable, orgId: string, itemId: string): Promise<ItemView> {
  const row = await loadItem(db, orgId, itemId, true);
  if (row.status !== 'uploading') {
    if (row.status === 'processing' || row.status === 'ready') return itemView(row);
    throw new StewardError('conflict', `This item is ${row.status}; only an upload in progress can be completed`, { details: { reason: `item_${row.status}` } });
  }
  if (row.upload_expires_at.getTime() < Date.now()) {
    throw new StewardError('conflict', 'The upload URL has expired', { hint: 'Begin the upload again with mediahub_begin_upload.', details: { reason: 'upload_expired' } });
  }
  const size = await mediaStorage().size(row.upload_key);
  if (size === null) {
    throw new StewardError('conflict', 'No file has been uploaded to the upload URL yet', {
      hint: 'PUT the file to uploadUrl with the uploadHeaders, then complete again.', details: { reason: 'upload_missing' },
    });
  }
  if (size !== Number(row.size_bytes)) {
    throw new StewardError('conflict', `The uploaded file is ${size} bytes, not the ${row.size_bytes} begun`, { details: { reason: 'wrong_size' } });
  }
  const updated = await queryOne<ItemRow>(db, `UPDATE mediahub_items SET status = 'processing', updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, itemId]);
  return itemView(updated!);
}

export async function getItem(db: Queryable, orgId: string, itemId: string): Promise<ItemView> {
  return itemView(await loadItem(db, orgId, itemId));
}

export async function listItems(db: Queryable, orgId: string, input: { limit: number; cursor?: string; kind?: MediaKind; status?: string }) {
  const where: string[] = [];
  const values: unknown[] = [];
  if (input.kind) { values.push(input.kind); where.push(`kind = $${values.length + 3}`); }
  if (input.status) { values.push(input.status); where.push(`status = $${values.length + 3}`); }
  else where.push(`status <> 'archived'`);
  const page = await listPage<ItemRow>(db, { table: 'mediahub_items', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true, where: where.join(' AND '), values });
  return { items: await Promise.all(page.rows.map((row) => itemView(row))), nextCursor: page.nextCursor };
}

export interface ItemUpdate { title?: string; licence?: string | null; ccliNumber?: string | null; streamingLicence?: string | null; captions?: string | null }

export async function updateItem(db: Queryable, orgId: string, itemId: string, input: ItemUpdate): Promise<ItemView> {
  const row = await loadItem(db, orgId, itemId, true);
  if (row.status === 'archived') throw new StewardError('conflict', 'An archived item cannot be changed', { details: { reason: 'item_archived' } });
  const set = (value: unknown) => value !== undefined;
  const updated = await queryOne<ItemRow>(db, `UPDATE mediahub_items SET
    title = CASE WHEN $3 THEN $4 ELSE title END, licence = CASE WHEN $5 THEN $6 ELSE licence END,
    ccli_number = CASE WHEN $7 THEN $8 ELSE ccli_number END, streaming_licence = CASE WHEN $9 THEN $10 ELSE streaming_licence END,
    captions = CASE WHEN $11 THEN $12 ELSE captions END, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`,
  [orgId, itemId, set(input.title), input.title ?? null, set(input.licence), input.licence ?? null, set(input.ccliNumber), input.ccliNumber ?? null,
    set(input.streamingLicence), input.streamingLicence ?? null, set(input.captions), input.captions ?? null]);
  return itemView(updated!);
}

/** Archived: out of lists, the plan's count and storage; its stored files are removed after the retention period (jobs.ts). */
export async function archiveItem(db: Queryable, orgId: string, itemId: string): Promise<ItemView> {
  const row = await loadItem(db, orgId, itemId, true);
  if (row.status === 'archived') return itemView(row);
  if (row.status === 'uploading' || row.status === 'processing') {
    throw new StewardError('conflict', `This item is still ${row.status}; archive it once it is ready or failed`, { details: { reason: `item_${row.status}` } });
  }
  const used = await queryRows<{ title: string }>(db, `SELECT title FROM mediahub_episodes WHERE org_id = $1 AND status = 'published'
    AND (video_item_id = $2 OR audio_item_id = $2) LIMIT 3`, [orgId, itemId]);
  if (used.length > 0) {
    throw new StewardError('conflict', `This item is in published episodes: ${used.map((u) => u.title).join(', ')}`, {
      hint: 'Unpublish those episodes (mediahub_unpublish_episode) or give them another item first.', details: { reason: 'item_published' },
    });
  }
  const updated = await queryOne<ItemRow>(db, `UPDATE mediahub_items SET status = 'archived', archived_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, itemId]);
  return itemView(updated!);
}

/** Days an archived item's stored objects are kept (a mistaken archive can still be dealt with by hand); 0 removes them at the next run. */
export function archiveRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MEDIAHUB_ARCHIVE_RETENTION_DAYS;
  const days = raw === undefined || raw === '' ? 30 : Number(raw);
  return Number.isInteger(days) && days >= 0 && days <= 3650 ? days : 30;
}

/**
 * Removes the stored objects of items archived before `before` and not yet emptied, then marks each
 * row: removed first, marked after, so a run that dies between the two removes the (absent) objects
 * again next time and changes nothing more.
 */
export async function removeArchivedObjects(pool: Pool, input: { before: Date; orgId?: string }): Promise<{ items: number; objects: number }> {
  const rows = await queryRows<{ id: string; org_id: string; upload_key: string; storage_key: string | null; thumbnail_key: string | null }>(pool, `
    SELECT id, org_id, upload_key, storage_key, thumbnail_key FROM mediahub_items
    WHERE status = 'archived' AND objects_removed_at IS NULL AND archived_at <= $1 AND ($2::uuid IS NULL OR org_id = $2)
    ORDER BY archived_at LIMIT 500`, [input.before, input.orgId ?? null]);
  let objects = 0;
  for (const row of rows) {
    const keys = [row.upload_key, row.storage_key, row.thumbnail_key].filter((key): key is string => Boolean(key));
    await mediaStorage().remove(keys);
    objects += keys.length;
    await withTenantTransaction(pool, row.org_id, async (db) => {
      const marked = await queryOne<{ objects_removed_at: Date }>(db, `UPDATE mediahub_items SET objects_removed_at = now()
        WHERE org_id = $1 AND id = $2 AND status = 'archived' AND objects_removed_at IS NULL RETURNING objects_removed_at`, [row.org_id, row.id]);
      if (!marked) return;
      await recordJobChange(db, {
        orgId: row.org_id, channel: 'job:mediahub.remove_archived_objects', module: 'mediahub', noun: 'item', verb: 'remove_objects', target: { type: 'item', id: row.id },
        fields: { objectsRemoved: keys.length, objectsRemovedAt: marked.objects_removed_at.toISOString() }, previous: { objectsRemovedAt: null },
      });
    });
  }
  return { items: rows.length, objects };
}
