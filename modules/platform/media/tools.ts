import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { exactlyOne, type AnyTool, type OrgSettings } from '../../tool';
import { bulkOf, cursorInput, cursorOutput, listPage, notFound, toolsFor } from '../../kit';
import { aiSettings, analyzeImage, cosine, embed, generateImage } from './ai-provider';
import { fetchPublicSource } from './fetch-source';
import {
  FILE_SELECT, TRASH_DAYS, UPLOAD_SESSION_MINUTES, addTags, assertFolder, assertRoom, cleanFileName, ensureTags, findFile, hashSession,
  insertReadyFile, newFileId, newSessionId, publicUrlOf, quotaOf, removeTags, reserveRoom, segmentOf, sessionMatches,
  planStorage, storeProcessed, toMediaFile, touchFiles, uploadKeyOf, writePlanned, type FileRow, type PlannedMedia, type StoredMedia, type StoredThumbnail,
} from './library';
import { ACCEPTED_EXTENSIONS, MEDIA_TYPES, THUMBNAIL_VARIANTS, detectType, processMedia, typeForName, type MediaType } from './processing';
import { maxFileBytes, mediaStorage } from './storage';
import { sizeInWords } from '../../../core/sizes';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

// ---------------------------------------------------------------- schemas

const mediaId = z.uuid().describe('The file\'s id (mediaId) from platform_list_media_library_files or an upload');
const folderIdInput = z.uuid().describe('A folder id from platform_list_media_folders');
const tagName = z.string().trim().min(1).max(60).describe('A tag name (case does not matter)');
const fileName = z.string().trim().min(1).max(200).describe(`The file's name with its extension (${ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(', ')})`);
const displayName = z.string().trim().min(1).max(200).describe('A friendlier title shown instead of the file name');
const altText = z.string().trim().max(500).describe('Text describing the image for screen readers and emails');
const isPublic = z.boolean().describe('Public files have a stable unsigned URL usable in emails and web pages; private ones are served only through expiring signed URLs');
const variant = z.enum(['original', ...THUMBNAIL_VARIANTS.map((v) => v.variant)] as ['original', 'small', 'medium'])
  .describe(`Which version: the original, or a thumbnail (${THUMBNAIL_VARIANTS.map((v) => `${v.variant}: longest edge at most ${v.maxEdge}px`).join('; ')})`);

const thumbnailSchema = z.object({
  variant: z.enum(['small', 'medium']),
  width: z.number().int(),
  height: z.number().int(),
  url: z.string().nullable().describe('Unsigned URL while the file is public and not in the trash; otherwise use platform_get_media_library_serve_url'),
}).strict();

const fileSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  displayName: z.string().nullable(),
  altText: z.string().nullable(),
  mimeType: z.string().nullable().describe('Known from the file\'s bytes once the upload completes'),
  sizeBytes: z.number().int(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  folderId: z.uuid().nullable(),
  folderName: z.string().nullable(),
  tags: z.array(z.string()),
  isPublic: z.boolean(),
  status: z.enum(['pending', 'ready']).describe('pending: the upload has begun but not completed'),
  inTrash: z.boolean(),
  deletedAt: z.string().nullable(),
  url: z.string().nullable().describe('CDN-style serve URL while public and not in the trash; null otherwise'),
  thumbnails: z.array(thumbnailSchema),
  source: z.enum(['upload', 'url', 'inline', 'ai']),
  aiDescription: z.string().nullable(),
  aiLabels: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();

const folderSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  parentId: z.uuid().nullable(),
  fileCount: z.number().int().describe('Files directly in the folder, not in the trash'),
  createdAt: z.string(),
}).strict();

const tagSchema = z.object({ id: z.uuid(), name: z.string(), fileCount: z.number().int() }).strict();

const quotaSchema = z.object({
  planCode: z.string(),
  bytesLimit: z.number().int(),
  bytesUsed: z.number().int(),
  bytesRemaining: z.number().int(),
  itemsLimit: z.number().int().nullable(),
  itemsUsed: z.number().int(),
  itemsRemaining: z.number().int().nullable(),
  pendingUploads: z.number().int().describe('Uploads begun and not yet completed; they hold their declared size until they complete or expire'),
  inTrash: z.number().int().describe(`Files in the trash; they count until removed for good after ${TRASH_DAYS} days`),
  maxFileBytes: z.number().int(),
}).strict();

// ---------------------------------------------------------------- helpers

async function fileOut(db: Queryable, orgId: string, id: string, options: { includePending?: boolean } = {}) {
  return toMediaFile(await findFile(db, orgId, id, options));
}

function inTrashRefusal(id: string, action: string): StewardError {
  return new StewardError('conflict', `Media file ${id} is in the trash; restore it before you ${action}`, { hint: 'platform_restore_media_library_file brings it back.' });
}

function maxBytesRefusal(size: number): StewardError {
  return new StewardError('payload_too_large', `The file (${sizeInWords(size)}) is larger than the library takes (${sizeInWords(maxFileBytes())})`, {
    hint: 'Make the file smaller (resize or compress it) and try again.',
  });
}

/** Room for a file, checked before any bytes move (the check that counts runs again under the lock). */
async function precheckRoom(db: Queryable, org: OrgSettings, bytes: number): Promise<void> {
  assertRoom(await quotaOf(db, org.id, org.planCode), bytes);
}

async function readStored(key: string): Promise<Buffer> {
  const bytes = await mediaStorage().read(key, maxFileBytes());
  if (!bytes) throw new StewardError('conflict', 'The file\'s stored bytes are missing', { hint: 'Upload the file again.' });
  return bytes;
}

/** The most folders or tags one list answers; past it the list says it was cut (`truncated`). */
const MAX_LISTED = 1000;

async function folderRows(db: Queryable, orgId: string, where = 'TRUE', values: unknown[] = []) {
  const rows = await queryRows<{ id: string; name: string; parent_id: string | null; file_count: number; created_at: Date }>(db, `
    SELECT fo.id, fo.name, fo.parent_id, fo.created_at,
      (SELECT count(*)::int FROM media_files f WHERE f.folder_id = fo.id AND f.status = 'ready' AND f.deleted_at IS NULL) AS file_count
    FROM media_folders fo WHERE fo.org_id = $1 AND (${where}) ORDER BY lower(fo.name), fo.id LIMIT ${MAX_LISTED + 1}`, [orgId, ...values]);
  return rows.map((row) => ({ id: row.id, name: row.name, parentId: row.parent_id, fileCount: row.file_count, createdAt: new Date(row.created_at).toISOString() }));
}

function uniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

// ---------------------------------------------------------------- uploads

const beginUploadTool = tools.write('begin_media_library_upload', {
  title: 'Begin a Media Library upload',
  description: 'Step 1 of uploading a file: give its name and size in bytes and get a presigned uploadUrl to PUT the bytes to (with uploadHeaders), then call platform_complete_media_library_upload with the mediaId and sessionId. The bytes never go in tool arguments. Refused at once when the file is too large or the storage quota is full.',
  keywords: ['upload', 'image', 'photo', 'file', 'media', 'presigned url'],
  examples: ['upload our new logo', 'add this photo to the media library', "I've got a big PDF of the parish magazine to upload", 'upload the high-res photo of the new vicar from my laptop', 'get me an upload link for the annual report PDF', 'start uploading the Christmas poster file', 'put the wedding photo from my computer into the library', 'I need to add a large image, how do I send you the file', 'upload a file', 'the parish magazine PDF is 40MB so I need a link to send the file to you', 'how do I start uploading the Easter poster?'],
  listed: false,
  meter: { feature: 'media_items', units: 1 },
  input: z.object({
    fileName,
    fileSize: z.number().int().min(1).max(2_000_000_000).describe('The file\'s exact size in bytes; the upload must carry exactly this many'),
    folderId: folderIdInput.optional(),
  }),
  output: z.object({
    mediaId: z.uuid(),
    sessionId: z.string().describe('Pass to platform_complete_media_library_upload; keep it private'),
    uploadUrl: z.string().describe('PUT the file\'s bytes here, exactly fileSize of them'),
    method: z.literal('PUT'),
    uploadHeaders: z.record(z.string(), z.string()).describe('Headers the PUT must send'),
    expiresAt: z.string().describe('The uploadUrl and session stop working at this time'),
    maxBytes: z.number().int(),
  }).strict(),
  run: async (ctx, input) => {
    const type = typeForName(input.fileName);
    if (input.fileSize > maxFileBytes()) throw maxBytesRefusal(input.fileSize);
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    await reserveRoom(ctx.db, ctx.org.id, ctx.org.planCode, input.fileSize);
    const id = newFileId();
    const sessionId = newSessionId();
    const uploadKey = uploadKeyOf(ctx.org.id, id, type);
    const row = await queryOne<{ upload_expires_at: Date }>(ctx.db, `INSERT INTO media_files (id, org_id, status, source, upload_session_hash, upload_key, upload_expires_at,
        name, size_bytes, folder_id, created_by_user_id)
      VALUES ($1, $2, 'pending', 'upload', $3, $4, now() + make_interval(mins => $5), $6, $7, $8, $9) RETURNING upload_expires_at`, [
      id, ctx.org.id, hashSession(sessionId), uploadKey, UPLOAD_SESSION_MINUTES, cleanFileName(input.fileName), input.fileSize, input.folderId ?? null, ctx.principal.userId,
    ]);
    const contentType = MEDIA_TYPES[type].mimeType;
    const uploadUrl = await mediaStorage().presignPut(uploadKey, { contentLength: input.fileSize, contentType, expiresInSeconds: UPLOAD_SESSION_MINUTES * 60 });
    return {
      mediaId: id, sessionId, uploadUrl, method: 'PUT' as const,
      uploadHeaders: { 'Content-Type': contentType, 'Content-Length': String(input.fileSize) },
      expiresAt: new Date(row!.upload_expires_at).toISOString(), maxBytes: maxFileBytes(),
    };
  },
});

interface CompletionPrepared {
  stored: StoredMedia | null;
}

const completeUploadTool = tools.write('complete_media_library_upload', {
  title: 'Complete a Media Library upload',
  description: 'Step 2 of uploading: after the bytes were PUT to the uploadUrl, checks they arrived with the declared size and are an image (PNG, JPEG, GIF, WebP) or PDF by their content, reads the dimensions, makes thumbnails and adds the file to the library. Returns the file and emailImageUrl (a stable public URL to use in emails; null for a private file).',
  keywords: ['finish upload', 'confirm upload', 'email image url'],
  examples: ['I have uploaded the file, finish it off', 'the PDF has gone up, finalise it', 'upload done, now make it appear in the library', 'finish the poster upload and give me the email image link', "I've sent the bytes, confirm the upload", 'complete the magazine upload so I can use it', 'wrap up the photo upload I started', 'finish the upload', "I've pushed the poster bytes to the link you gave, so confirm it and add it to the library", "is my upload complete now that I've sent it?"],
  listed: false,
  input: z.object({
    mediaId,
    sessionId: z.string().min(10).max(100).describe('The sessionId platform_begin_media_library_upload returned'),
    isPublic: isPublic.default(true),
    altText: altText.optional(),
    displayName: displayName.optional(),
  }),
  output: z.object({ file: fileSchema, emailImageUrl: z.string().nullable().describe('Stable public URL for emails; null when the file is private') }).strict(),
  prepare: async (input, { db, org }): Promise<CompletionPrepared> => {
    const row = await queryOne<FileRow>(db, 'SELECT * FROM media_files WHERE org_id = $1 AND id = $2', [org.id, input.mediaId]);
    if (!row) throw notFound('Media file', input.mediaId);
    if (!sessionMatches(row, input.sessionId)) {
      throw new StewardError('validation_failed', 'sessionId is not the session of this upload', {
        issues: [{ path: 'sessionId', message: 'does not match the upload' }], hint: 'Pass the sessionId platform_begin_media_library_upload returned with this mediaId.',
      });
    }
    if (row.status === 'ready') return { stored: null };
    if (new Date(row.upload_expires_at!).getTime() < Date.now()) {
      throw new StewardError('conflict', 'This upload session has expired', { hint: 'Begin the upload again with platform_begin_media_library_upload.' });
    }
    const storage = mediaStorage();
    const key = row.upload_key!;
    // A completion racing this one may finish first and remove the upload object: then the file is done.
    const completedMeanwhile = async () => (await queryOne<{ status: string }>(db, 'SELECT status FROM media_files WHERE org_id = $1 AND id = $2', [org.id, row.id]))?.status === 'ready';
    const size = await storage.size(key);
    if (size === null) {
      if (await completedMeanwhile()) return { stored: null };
      throw new StewardError('conflict', 'No bytes have arrived for this upload yet', { hint: 'PUT the file to the uploadUrl (with the uploadHeaders) first, then complete the upload.' });
    }
    if (size !== row.size_bytes) {
      await storage.remove([key]);
      throw new StewardError('validation_failed', `The upload carried ${size} bytes, but ${row.size_bytes} were declared`, {
        issues: [{ path: 'fileSize', message: 'size differs from the bytes uploaded' }], hint: 'PUT the file again to the same uploadUrl, or begin a new upload with the right fileSize.',
      });
    }
    let bytes: Buffer;
    try {
      bytes = await readStored(key);
    } catch (error) {
      if (await completedMeanwhile()) return { stored: null };
      throw error;
    }
    let processed;
    try {
      processed = await processMedia(bytes, typeForName(row.name));
    } catch (error) {
      // The refused bytes go, so the same uploadUrl can take the right file while the session lasts.
      await storage.remove([key]);
      throw error;
    }
    return { stored: await storeProcessed(storage, org.id, row.id, bytes, processed) };
  },
  run: async (ctx, input) => {
    const prepared = ctx.prepared as CompletionPrepared;
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { includePending: true, lock: true });
    if (!sessionMatches(row, input.sessionId)) throw notFound('Media file', input.mediaId);
    if (row.status === 'pending') {
      if (!prepared.stored) throw new StewardError('conflict', 'The upload changed while it was being completed', { hint: 'Call platform_complete_media_library_upload again.' });
      const stored = prepared.stored;
      await ctx.db.query(`UPDATE media_files SET status = 'ready', mime_type = $3, size_bytes = $4, width = $5, height = $6, storage_key = $7, thumbnails = $8,
          is_public = $9, alt_text = $10, display_name = $11, processed_at = now(), upload_expires_at = NULL, updated_at = now()
        WHERE org_id = $1 AND id = $2`, [
        ctx.org.id, row.id, stored.mimeType, stored.sizeBytes, stored.width, stored.height, stored.storageKey, JSON.stringify(stored.thumbnails),
        input.isPublic, input.altText ?? null, input.displayName ?? null,
      ]);
      if (row.upload_key) await mediaStorage().remove([row.upload_key]);
    } else if (prepared.stored && prepared.stored.storageKey !== row.storage_key) {
      // Another completion of the same upload won the race: the copy this one stored is nobody's.
      await mediaStorage().remove([prepared.stored.storageKey, ...prepared.stored.thumbnails.map((thumbnail) => thumbnail.key)]);
    }
    const file = await fileOut(ctx.db, ctx.org.id, row.id);
    return { file, emailImageUrl: file.isPublic && !file.inTrash ? file.url : null };
  },
});

/** The decoded size of base64 text, before decoding it. */
const INLINE_MAX_BYTES = 64 * 1024;
const INLINE_MAX_CHARS = Math.ceil(INLINE_MAX_BYTES / 3) * 4 + 4;
/** What a caller is told when inline content is too big: the limit as they think of it (the file's size, not base64 characters) and the tool that takes more. */
const INLINE_INSTEAD = 'Use platform_begin_media_library_upload for larger files: it uploads the file directly, without base64.';
const inlineTooLarge = (what: string) => `${what}; at most ${sizeInWords(INLINE_MAX_BYTES)} of file are taken inline`;

/**
 * A one-shot file, checked and thumbnailed in `prepare` (outside the transaction) and kept in memory:
 * its objects are written in `run`, after the quota allows it and its row is in, so a refused upload
 * leaves nothing in storage, and a failed write leaves no row.
 */
interface OneShotPrepared {
  id: string;
  name: string;
  planned: PlannedMedia;
  source: 'url' | 'inline';
}

const uploadFileTool = tools.write('upload_media_library_file', {
  title: 'Upload a file from a URL or small inline content',
  description: `One-shot upload into the Media Library: either sourceUrl (a public https:// address; private, loopback and internal network addresses are refused, also after redirects) or base64Content (at most ${sizeInWords(INLINE_MAX_BYTES)} decoded). For larger files from the user use platform_begin_media_library_upload. The type is checked from the bytes.`,
  keywords: ['import image', 'upload from url', 'save image', 'add picture'],
  examples: ['save the image at https://example.org/banner.jpg to our media library', 'grab the diocese logo from their website and save it', 'copy this picture link into our image library', 'import the photo from https://example.org/vicar.jpg', "save the poster from the link the bishop's office sent", 'pull the image off this web address into our files', "add the small icon I'm pasting here to the library", 'save this image link', 'the diocese emailed a logo link, copy it straight into our media library', 'can you pull the picture from this website address into our files?'],
  meter: { feature: 'media_items', units: 1 },
  input: z.object({
    sourceUrl: z.string().trim().max(2000).optional().describe('A public https:// URL of the file'),
    base64Content: z.string().max(INLINE_MAX_CHARS, { error: `${inlineTooLarge('The file is too large to send inline')}. ${INLINE_INSTEAD}` }).optional().describe(`The file's bytes as base64, at most ${sizeInWords(INLINE_MAX_BYTES)} decoded`),
    fileName: fileName.optional().describe('The name to store it under; by default taken from the URL or made from the type'),
    displayName: displayName.optional(),
    altText: altText.optional(),
    isPublic: isPublic.default(true),
    folderId: folderIdInput.optional(),
  }).refine(...exactlyOne('sourceUrl', 'base64Content')),
  output: z.object({ file: fileSchema, emailImageUrl: z.string().nullable() }).strict(),
  prepare: async (input, { db, org }): Promise<OneShotPrepared> => {
    if (input.folderId) await assertFolder(db, org.id, input.folderId);
    let bytes: Buffer;
    let suggestedName: string;
    if (input.base64Content !== undefined) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(input.base64Content.replace(/\s+/g, ''))) {
        throw new StewardError('validation_failed', 'base64Content is not base64', { issues: [{ path: 'base64Content', message: 'not base64' }] });
      }
      bytes = Buffer.from(input.base64Content, 'base64');
      if (bytes.length > INLINE_MAX_BYTES) {
        throw new StewardError('payload_too_large', inlineTooLarge(`base64Content decodes to ${sizeInWords(bytes.length)}`), {
          hint: INLINE_INSTEAD,
        });
      }
      suggestedName = 'upload';
    } else {
      await precheckRoom(db, org, 1);
      const fetched = await fetchPublicSource(input.sourceUrl!, maxFileBytes());
      bytes = fetched.bytes;
      suggestedName = fetched.fileName;
    }
    if (bytes.length === 0) throw new StewardError('validation_failed', 'The file is empty', { issues: [{ path: 'file', message: 'no bytes' }] });
    await precheckRoom(db, org, bytes.length);
    const detected = detectType(bytes);
    const expected = input.fileName ? typeForName(input.fileName) : null;
    const processed = await processMedia(bytes, expected);
    const name = cleanFileName(input.fileName ?? nameWithExtension(suggestedName, detected ?? processed.type));
    const id = newFileId();
    return { id, name, planned: planStorage(org.id, id, bytes, processed), source: input.base64Content !== undefined ? 'inline' : 'url' };
  },
  run: async (ctx, input) => {
    const prepared = ctx.prepared as OneShotPrepared;
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    await reserveRoom(ctx.db, ctx.org.id, ctx.org.planCode, prepared.planned.stored.sizeBytes);
    await insertReadyFile(ctx.db, {
      id: prepared.id, orgId: ctx.org.id, source: prepared.source, name: prepared.name, displayName: input.displayName, altText: input.altText,
      isPublic: input.isPublic, folderId: input.folderId, userId: ctx.principal.userId, stored: prepared.planned.stored,
    });
    await writePlanned(mediaStorage(), prepared.planned);
    const file = await fileOut(ctx.db, ctx.org.id, prepared.id);
    return { file, emailImageUrl: file.isPublic ? file.url : null };
  },
});

function nameWithExtension(name: string, type: MediaType): string {
  const extensions = MEDIA_TYPES[type].extensions as readonly string[];
  const current = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return current && extensions.includes(current) ? name : `${name.replace(/\.[A-Za-z0-9]+$/, '')}.${extensions[0]}`;
}

// ---------------------------------------------------------------- reading the library

const listFilesTool = tools.read('list_media_library_files', {
  title: 'List Media Library files',
  description: 'Files in the Media Library, newest first, paginated; filter by folder, tag or kind, or list the trash (inTrash: true). Each file has its serve URL, dimensions, thumbnails, tags and alt text. For words in names or descriptions use platform_search_media_library.',
  keywords: ['media', 'images', 'photos', 'files', 'library', 'trash', 'pictures', 'uploads'],
  examples: ['show me our images', 'what is in the Easter folder', 'what is in the media trash', "show the latest pictures we've uploaded", 'list the images tagged newsletter', "what's sitting in the deleted files", 'show me all the PDFs in the library', 'list the photos in the Harvest folder', 'page through our media files', 'what pictures have we got uploaded', 'which files are in the recycle bin of the image library', 'list every logo and photo we have stored'],
  listed: false,
  input: z.object({
    folderId: folderIdInput.optional().describe('Only files directly in this folder'),
    tag: tagName.optional().describe('Only files with this tag'),
    kind: z.enum(['image', 'pdf']).optional().describe('Only images, or only PDFs'),
    inTrash: z.boolean().default(false).describe('List the trash instead of the library'),
    ...cursorInput,
  }),
  output: z.object({ files: z.array(fileSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => {
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    const clauses = ["status = 'ready'", input.inTrash ? 'deleted_at IS NOT NULL' : 'deleted_at IS NULL'];
    const values: unknown[] = [];
    if (input.folderId) { values.push(input.folderId); clauses.push(`folder_id = $${values.length + 3}`); }
    if (input.tag) {
      values.push(input.tag);
      clauses.push(`id IN (SELECT ft.file_id FROM media_file_tags ft JOIN media_tags t ON t.id = ft.tag_id WHERE lower(t.name) = lower($${values.length + 3}))`);
    }
    if (input.kind) clauses.push(input.kind === 'pdf' ? "mime_type = 'application/pdf'" : "mime_type LIKE 'image/%'");
    const page = await listPage<FileRow>(ctx.db, {
      table: 'media_files', orgId: ctx.org.id, limit: input.limit, cursor: input.cursor, includeDeleted: true, where: clauses.join(' AND '), values,
    });
    const rows = await filesByIds(ctx.db, ctx.org.id, page.rows.map((row) => row.id));
    return { files: rows.map(toMediaFile), nextCursor: page.nextCursor };
  },
});

/** Files by id with their tags and folder names, in the order given. */
async function filesByIds(db: Queryable, orgId: string, ids: readonly string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<FileRow>(db, `SELECT ${FILE_SELECT} WHERE f.org_id = $1 AND f.id = ANY($2::uuid[])`, [orgId, ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is FileRow => Boolean(row));
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const searchTool = tools.read('search_media_library', {
  title: 'Search the Media Library',
  description: 'Finds library files whose name, display name, alt text, AI description, AI labels or tags contain the words given (every word must match somewhere), most recently changed first. For meaning rather than words use platform_ai_search_media_library.',
  keywords: ['find image', 'search photos', 'media search'],
  examples: ['find the photos of the harvest supper', 'do we have a logo file', 'find anything with Easter in its name', 'search our pictures for the word baptism', 'any files labelled youth camp', 'look for the church hall photo', 'is there an image called choir 2024', 'search the library for the PCC logo', 'find choir photos', 'Linda wants the baptism pictures from last year, search the library for baptism', 'have we got a file named harvest?'],
  listed: false,
  input: z.object({
    query: z.string().trim().min(1).max(200).describe('Words to look for'),
    folderId: folderIdInput.optional().describe('Only files directly in this folder'),
    limit: z.number().int().min(1).max(100).default(25).describe('How many to return (1 to 100)'),
  }),
  output: z.object({ files: z.array(fileSchema) }).strict(),
  run: async (ctx, input) => {
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    const words = input.query.split(/\s+/).filter(Boolean).slice(0, 10).map(likePattern);
    const rows = await queryRows<{ id: string }>(ctx.db, `SELECT f.id FROM media_files f
      WHERE f.org_id = $1 AND f.status = 'ready' AND f.deleted_at IS NULL AND ($2::uuid IS NULL OR f.folder_id = $2)
        AND (SELECT bool_and(concat_ws(' ', f.name, f.display_name, f.alt_text, f.ai_description, array_to_string(f.ai_labels, ' '),
          (SELECT string_agg(t.name, ' ') FROM media_file_tags ft JOIN media_tags t ON t.id = ft.tag_id WHERE ft.file_id = f.id)) ILIKE w)
          FROM unnest($3::text[]) w)
      ORDER BY f.updated_at DESC, f.id DESC LIMIT $4`, [ctx.org.id, input.folderId ?? null, words, input.limit]);
    return { files: (await filesByIds(ctx.db, ctx.org.id, rows.map((row) => row.id))).map(toMediaFile) };
  },
});

const getFileTool = tools.read('get_media_library_file', {
  title: 'Get a Media Library file',
  description: 'One file with its serve URL, dimensions, type, size, folder, tags, alt text, thumbnails and whether it is public or in the trash; also an upload still pending completion.',
  keywords: ['media file', 'image details', 'dimensions', 'file info', 'picture details'],
  examples: ['how big is the banner image', 'what size is the new logo file', 'is the safeguarding poster public or private', 'what alt text does the banner have', 'show me the details of the choir photo', 'which folder is the Christmas poster in', 'what format and dimensions is the parish map image', 'is the harvest photo in the bin', "what tags are on Sunday's banner picture", 'give me the link to the new logo file', 'how many pixels wide is the welcome poster?'],
  input: z.object({ mediaId }),
  output: z.object({ file: fileSchema }).strict(),
  run: async (ctx, input) => ({ file: await fileOut(ctx.db, ctx.org.id, input.mediaId, { includePending: true }) }),
});

const serveUrlTool = tools.read('get_media_library_serve_url', {
  title: 'Get a serve URL for a Media Library file',
  description: 'A URL that serves the file or one of its thumbnails: the stable CDN-style URL for a public file, or a signed URL that expires (default one hour) for a private one. Files in the trash are not served.',
  keywords: ['download link', 'share image', 'signed url', 'image link'],
  examples: ['give me a link to the private safeguarding poster', 'get me a link to the harvest poster so I can share it', 'I need a download link for the annual report PDF', 'give me the web address of our logo', 'share the private rota poster with a temporary link', 'URL for the thumbnail of the choir photo', 'copy link for the banner image', 'link to the logo', 'the printers need the annual report, so give me a download link for the PDF', 'can I have a shareable link to the Christmas poster?'],
  input: z.object({
    mediaId,
    variant: variant.default('original'),
    expiresInSeconds: z.number().int().min(60).max(7 * 86_400).default(3600).describe('How long a signed URL works (60 seconds to 7 days); public URLs do not expire'),
  }),
  output: z.object({
    url: z.string(),
    signed: z.boolean().describe('True when the URL is signed and stops working at expiresAt'),
    expiresAt: z.string().nullable(),
    mimeType: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId);
    if (row.deleted_at) throw inTrashRefusal(row.id, 'serve it');
    const thumbnail = row.thumbnails.find((t) => t.variant === input.variant);
    const key = input.variant === 'original' ? row.storage_key : thumbnail?.key;
    if (!key) throw new StewardError('not_found', `Media file ${row.id} has no ${input.variant} thumbnail (only images have thumbnails)`, { hint: 'Ask for the original.' });
    const mimeType = input.variant === 'original' ? row.mime_type! : 'image/webp';
    if (row.is_public) return { url: publicUrlOf(row, input.variant)!, signed: false, expiresAt: null, mimeType };
    const url = await mediaStorage().presignGet(key, { expiresInSeconds: input.expiresInSeconds, contentType: mimeType });
    return { url, signed: true, expiresAt: new Date(Date.now() + input.expiresInSeconds * 1000).toISOString(), mimeType };
  },
});

const quotaTool = tools.read('get_media_library_quota', {
  title: 'Media Library storage quota',
  description: 'Storage the plan allows in bytes, how much is used and remains, and the media item allowance with its use; uploads in progress and the trash count. Also the largest file accepted.',
  keywords: ['storage', 'space left', 'quota', 'media usage', 'disk space'],
  examples: ['how much media storage do we have left', 'are we running out of space for photos', 'how much storage is the image library using', "what's the biggest file I can upload", 'how many more images can we add on our plan', 'is the bin taking up storage space', 'media space remaining', 'storage left', "we're about to add three hundred wedding photos, do we have room in the library?", 'how full is our media storage?'],
  input: z.object({}),
  output: quotaSchema,
  run: async (ctx) => ({ ...(await quotaOf(ctx.db, ctx.org.id, ctx.org.planCode)), maxFileBytes: maxFileBytes() }),
});

// ---------------------------------------------------------------- changing files

const updateFileTool = tools.write('update_media_library_file', {
  title: 'Update a Media Library file',
  description: 'Changes a file\'s name, display name, alt text, public or private setting, folder (null takes it out of any folder) or tags (tags replaces the set; addTags and removeTags change it). Only the fields given change.',
  keywords: ['rename image', 'alt text', 'move to folder', 'tag image', 'make private', 'edit image', 'label picture', 'rename file', 'jpg', 'photo name'],
  examples: ['add alt text to the banner', 'make the rota poster private', 'rename the logo file to St Marks logo 2025', 'move the choir photo into the Music folder', 'put the newsletter label on the harvest picture', 'make the safeguarding poster public', "change the screen reader description on the vicar's photo", 'take the old tag off the Easter banner', 'change the title of the harvest photo to Harvest Supper 2025', 'describe the choir photo for blind readers: choir singing at Easter', 'take the youth camp picture out of its folder', 'tag the new logo as website and newsletter'],
  input: z.object({
    mediaId,
    name: fileName.optional(),
    displayName: displayName.nullable().optional(),
    altText: altText.nullable().optional(),
    isPublic: isPublic.optional(),
    folderId: folderIdInput.nullable().optional().describe('A folder id, or null for no folder'),
    tags: z.array(tagName).max(30).optional().describe('The complete set of tags the file should have'),
    addTags: z.array(tagName).max(30).optional().describe('Tags to add'),
    removeTags: z.array(tagName).max(30).optional().describe('Tags to take off'),
  }),
  output: z.object({ file: fileSchema }).strict(),
  run: async (ctx, input) => {
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { lock: true });
    if (row.deleted_at) throw inTrashRefusal(row.id, 'change it');
    if (input.name !== undefined && typeForName(input.name) !== detectTypeOfMime(row.mime_type)) {
      throw new StewardError('validation_failed', `The new name's extension does not fit the file (${row.mime_type})`, { issues: [{ path: 'name', message: 'extension differs from the file type' }] });
    }
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    const sets: string[] = [];
    const values: unknown[] = [ctx.org.id, row.id];
    const set = (column: string, value: unknown) => { values.push(value); sets.push(`${column} = $${values.length}`); };
    if (input.name !== undefined) set('name', cleanFileName(input.name));
    if (input.displayName !== undefined) set('display_name', input.displayName);
    if (input.altText !== undefined) set('alt_text', input.altText);
    if (input.isPublic !== undefined) set('is_public', input.isPublic);
    if (input.folderId !== undefined) set('folder_id', input.folderId);
    await ctx.db.query(`UPDATE media_files SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE org_id = $1 AND id = $2`, values);
    if (input.tags !== undefined) {
      await ctx.db.query('DELETE FROM media_file_tags WHERE org_id = $1 AND file_id = $2', [ctx.org.id, row.id]);
      await addTags(ctx.db, ctx.org.id, [row.id], input.tags);
    }
    await addTags(ctx.db, ctx.org.id, [row.id], input.addTags ?? []);
    await removeTags(ctx.db, ctx.org.id, [row.id], input.removeTags ?? []);
    return { file: await fileOut(ctx.db, ctx.org.id, row.id) };
  },
});

function detectTypeOfMime(mimeType: string | null): MediaType | null {
  return (Object.keys(MEDIA_TYPES) as MediaType[]).find((type) => MEDIA_TYPES[type].mimeType === mimeType) ?? null;
}

const deleteFileTool = tools.write('delete_media_library_file', {
  title: 'Delete a Media Library file',
  description: `Moves a file to the trash: its URLs stop serving, and platform_restore_media_library_file brings it back. Files stay in the trash ${TRASH_DAYS} days before they are removed for good.`,
  keywords: ['remove image', 'trash', 'delete photo'],
  examples: ['delete the old logo', 'bin the blurry photo of the choir', "get rid of last year's harvest poster", 'throw away the duplicate logo image', 'remove the wrong PDF I uploaded', 'send the old rota poster to the trash', 'delete that picture of the car park', 'delete the fete poster', 'the photo of the old vestry has the wrong people in it, bin it', 'can you remove the blurry logo file?'],
  destructive: true,
  input: z.object({ mediaId }),
  output: z.object({ file: fileSchema }).strict(),
  run: async (ctx, input) => {
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { lock: true });
    if (!row.deleted_at) await ctx.db.query('UPDATE media_files SET deleted_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [ctx.org.id, row.id]);
    return { file: await fileOut(ctx.db, ctx.org.id, row.id) };
  },
});

const restoreFileTool = tools.write('restore_media_library_file', {
  title: 'Restore a Media Library file from the trash',
  description: 'Brings a file back from the trash with its folder (if the folder still exists), tags and URLs.',
  keywords: ['undelete', 'recover image', 'trash'],
  examples: ['bring back the logo I deleted', 'I deleted the choir photo by mistake, get it back', 'recover the harvest poster from the bin', 'undo deleting the parish map', 'pull the old logo back out of the trash', 'restore the PDF I removed yesterday', 'can I get back the picture I binned last week', 'restore the fete poster', 'Gill deleted the harvest photo yesterday but we still need it, bring it back please', 'can I undelete the logo I trashed?'],
  input: z.object({ mediaId }),
  output: z.object({ file: fileSchema }).strict(),
  run: async (ctx, input) => {
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { lock: true });
    if (!row.deleted_at) throw new StewardError('conflict', `Media file ${row.id} is not in the trash`, { hint: 'Only a deleted file can be restored.' });
    await ctx.db.query('UPDATE media_files SET deleted_at = NULL, updated_at = now() WHERE org_id = $1 AND id = $2', [ctx.org.id, row.id]);
    return { file: await fileOut(ctx.db, ctx.org.id, row.id) };
  },
});

interface ReprocessPrepared {
  width: number | null;
  height: number | null;
  mimeType: string;
  thumbnails: StoredThumbnail[];
}

const reprocessTool = tools.write('reprocess_media_library_file', {
  title: 'Reprocess a Media Library file',
  description: 'Reads the stored file again, re-checks its type, dimensions and makes its thumbnails afresh (for example after thumbnail sizes changed, or when thumbnails are missing).',
  keywords: ['regenerate thumbnails', 'fix image', 'refresh metadata', 'rebuild thumbnails', 're-read file'],
  examples: ['the thumbnails of the banner look wrong, redo them', "the preview of the poster isn't showing, regenerate it", "rebuild the thumbnails for the vicar's photo", 'the image dimensions look wrong, re-read the file', 'the little previews are missing for the choir photo', "refresh the banner image's details", 'process the magazine PDF again', 'the nativity picture shows as a grey box, reprocess it', 'redo the small previews for the Easter banner', 'the photo says 0 by 0 pixels, read it again', 'thumbnails are blank for the welcome poster, fix them'],
  input: z.object({ mediaId }),
  output: z.object({ file: fileSchema }).strict(),
  prepare: async (input, { db, org }): Promise<ReprocessPrepared> => {
    const row = await findFile(db, org.id, input.mediaId);
    if (row.deleted_at) throw inTrashRefusal(row.id, 'reprocess it');
    const storage = mediaStorage();
    const bytes = await readStored(row.storage_key!);
    const processed = await processMedia(bytes, null);
    const base = `media/${org.id}/${row.id}/${segmentOf(row.storage_key!)}`;
    const thumbnails: StoredThumbnail[] = [];
    for (const thumbnail of processed.thumbnails) {
      const key = `${base}/${thumbnail.variant}.webp`;
      await storage.write(key, thumbnail.bytes, 'image/webp');
      thumbnails.push({ variant: thumbnail.variant, key, width: thumbnail.width, height: thumbnail.height });
    }
    return { width: processed.width, height: processed.height, mimeType: processed.mimeType, thumbnails };
  },
  run: async (ctx, input) => {
    const prepared = ctx.prepared as ReprocessPrepared;
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { lock: true });
    if (row.deleted_at) throw inTrashRefusal(row.id, 'reprocess it');
    await ctx.db.query(`UPDATE media_files SET width = $3, height = $4, mime_type = $5, thumbnails = $6, processed_at = now(), updated_at = now()
      WHERE org_id = $1 AND id = $2`, [ctx.org.id, row.id, prepared.width, prepared.height, prepared.mimeType, JSON.stringify(prepared.thumbnails)]);
    return { file: await fileOut(ctx.db, ctx.org.id, row.id) };
  },
});

export const MAX_BULK_MEDIA = 100;

const bulkTool = tools.write('bulk_media_library_action', {
  title: 'Act on many Media Library files at once',
  description: `One action on up to ${MAX_BULK_MEDIA} files: move (to folderId, or null for no folder), tag or untag (tags), delete (to the trash) or restore. All or nothing: an unknown id refuses the whole call.`,
  keywords: ['bulk move', 'bulk tag', 'bulk delete', 'organise media'],
  examples: ['move all these photos into the Easter folder', 'tag these images as newsletter', 'move every one of these 30 photos to the Harvest folder', 'bin all the pictures from the 2019 fete at once', 'label all these images as website', 'restore all the files I trashed this morning', 'take the newsletter tag off all of these in one go', 'shift these pictures out of any folder together', 'tag all these as Advent', "we're tidying up so move these forty photos into the 2025 folder in one go", 'can you delete all of these pictures at once?'],
  input: z.object({
    action: z.enum(['move', 'tag', 'untag', 'delete', 'restore']).describe('What to do with every file'),
    mediaIds: bulkOf(mediaId, MAX_BULK_MEDIA).describe(`The files (1 to ${MAX_BULK_MEDIA})`),
    folderId: folderIdInput.nullable().optional().describe('move: the folder to move into, or null for none'),
    tags: z.array(tagName).min(1).max(30).optional().describe('tag / untag: the tags to add or take off'),
  })
    .refine((value) => value.action !== 'move' || value.folderId !== undefined, { message: 'move needs folderId (null for no folder)', path: ['folderId'] })
    .refine((value) => !['tag', 'untag'].includes(value.action) || value.tags !== undefined, { message: 'tag and untag need tags', path: ['tags'] }),
  output: z.object({ action: z.string(), changed: z.number().int().describe('Files the action changed'), mediaIds: z.array(z.uuid()) }).strict(),
  run: async (ctx, input) => {
    const ids = [...new Set(input.mediaIds)];
    const rows = await queryRows<{ id: string; deleted_at: Date | null }>(ctx.db, `SELECT id, deleted_at FROM media_files
      WHERE org_id = $1 AND id = ANY($2::uuid[]) AND status = 'ready' ORDER BY id FOR UPDATE`, [ctx.org.id, ids]);
    const found = new Set(rows.map((row) => row.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw notFound('Media file', missing, 'Nothing was changed; leave out the ids that are not in the library.');
    let changed = 0;
    if (input.action === 'move') {
      if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
      changed = (await ctx.db.query(`UPDATE media_files SET folder_id = $3, updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[])
        AND folder_id IS DISTINCT FROM $3`, [ctx.org.id, ids, input.folderId ?? null])).rowCount ?? 0;
    } else if (input.action === 'delete') {
      changed = (await ctx.db.query('UPDATE media_files SET deleted_at = now(), updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL', [ctx.org.id, ids])).rowCount ?? 0;
    } else if (input.action === 'restore') {
      changed = (await ctx.db.query('UPDATE media_files SET deleted_at = NULL, updated_at = now() WHERE org_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NOT NULL', [ctx.org.id, ids])).rowCount ?? 0;
    } else {
      const before = await tagLinks(ctx.db, ctx.org.id, ids);
      if (input.action === 'tag') await addTags(ctx.db, ctx.org.id, ids, input.tags!);
      else await removeTags(ctx.db, ctx.org.id, ids, input.tags!);
      const after = await tagLinks(ctx.db, ctx.org.id, ids);
      const touched = ids.filter((id) => before.get(id) !== after.get(id));
      await touchFiles(ctx.db, ctx.org.id, touched);
      changed = touched.length;
    }
    return { action: input.action, changed, mediaIds: ids };
  },
});

async function tagLinks(db: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await queryRows<{ file_id: string; tags: string }>(db, `SELECT file_id, string_agg(tag_id::text, ',' ORDER BY tag_id) AS tags FROM media_file_tags
    WHERE org_id = $1 AND file_id = ANY($2::uuid[]) GROUP BY file_id`, [orgId, ids]);
  return new Map(rows.map((row) => [row.file_id, row.tags]));
}

// ---------------------------------------------------------------- folders

const MAX_FOLDER_DEPTH = 8;
const folderName = z.string().trim().min(1).max(100).refine((name) => !/[\\/]/.test(name), 'a folder name cannot contain / or \\').describe('The folder\'s name');

const listFoldersTool = tools.read('list_media_folders', {
  title: 'List Media Library folders',
  description: 'Every folder of the Media Library with its parent and how many files are directly in it, sorted by name.',
  keywords: ['folders', 'media folders', 'albums', 'directories', 'photo albums'],
  examples: ['what folders do we have for images', 'show me how the photo folders are organised', 'list all the albums in the library', 'how many pictures are in each folder', 'what image folders exist', 'folder structure of our media', 'do we have an album for weddings', 'which folders are set up in the media library', 'list our photo albums and how full they are', 'is there already a folder for baptisms?', 'show all image folders and their parents'],
  input: z.object({ parentId: folderIdInput.optional().describe('Only the folders directly inside this one') }),
  output: z.object({ folders: z.array(folderSchema), truncated: z.boolean().describe(`True when there are more than ${MAX_LISTED} folders and only the first ${MAX_LISTED} by name are listed`) }).strict(),
  run: async (ctx, input) => {
    if (input.parentId) await assertFolder(ctx.db, ctx.org.id, input.parentId);
    const folders = input.parentId ? await folderRows(ctx.db, ctx.org.id, 'fo.parent_id = $2', [input.parentId]) : await folderRows(ctx.db, ctx.org.id);
    return { folders: folders.slice(0, MAX_LISTED), truncated: folders.length > MAX_LISTED };
  },
});

async function folderPath(db: Queryable, orgId: string, folderId: string): Promise<Array<{ id: string; name: string }>> {
  const rows = await queryRows<{ id: string; name: string; depth: number }>(db, `WITH RECURSIVE up AS (
      SELECT id, name, parent_id, 0 AS depth FROM media_folders WHERE org_id = $1 AND id = $2
      UNION ALL SELECT p.id, p.name, p.parent_id, up.depth + 1 FROM media_folders p JOIN up ON p.id = up.parent_id WHERE p.org_id = $1 AND up.depth < 50)
    SELECT id, name, depth FROM up ORDER BY depth DESC`, [orgId, folderId]);
  return rows.map((row) => ({ id: row.id, name: row.name }));
}

const getFolderTool = tools.read('get_media_folder', {
  title: 'Get a Media Library folder',
  description: 'One folder: its name, its path from the top, the folders inside it and how many files it holds.',
  keywords: ['folder', 'album', 'folder contents', 'subfolders'],
  examples: ['what is inside the Christmas folder', 'what subfolders are under Events', 'how many files are in the Baptisms album', 'where does the Harvest folder sit in the structure', 'show the details of the Youth folder', 'what folders are inside 2024', 'full path of the Easter Sunday folder', 'open the Weddings folder and show what is in it', 'how many pictures does the Youth Camp album hold', 'which subfolders sit inside Photos 2025', 'tell me about the Newsletter Images folder'],
  input: z.object({ folderId: folderIdInput }),
  output: z.object({
    folder: folderSchema,
    path: z.array(z.object({ id: z.uuid(), name: z.string() }).strict()).describe('From the top folder down to this one'),
    subfolders: z.array(folderSchema),
  }).strict(),
  run: async (ctx, input) => {
    await assertFolder(ctx.db, ctx.org.id, input.folderId);
    const [folder] = await folderRows(ctx.db, ctx.org.id, 'fo.id = $2', [input.folderId]);
    return { folder: folder!, path: await folderPath(ctx.db, ctx.org.id, input.folderId), subfolders: (await folderRows(ctx.db, ctx.org.id, 'fo.parent_id = $2', [input.folderId])).slice(0, MAX_LISTED) };
  },
});

function folderNameTaken(name: string): StewardError {
  return new StewardError('conflict', `A folder named "${name}" already exists there`, { hint: 'Choose another name, or use the existing folder.' });
}

const createFolderTool = tools.write('create_media_folder', {
  title: 'Create a Media Library folder',
  description: `Makes a folder, at the top or inside another (parentId), up to ${MAX_FOLDER_DEPTH} levels deep. Names are unique among siblings, ignoring case.`,
  keywords: ['new folder', 'album', 'organise images'],
  examples: ['make a folder for Easter photos', 'start a new album for the summer fete', 'set up a Weddings folder for photos', 'add a subfolder called Choir inside Music', 'create somewhere to keep the Advent images', 'new folder for posters please', 'make a 2026 folder under Events', 'new folder Baptisms', 'the youth group sends loads of pictures, so make them a Youth folder inside Events', 'can you create an album for the confirmation photos?'],
  input: z.object({ name: folderName, parentId: folderIdInput.optional().describe('The folder to create it inside') }),
  output: z.object({ folder: folderSchema }).strict(),
  run: async (ctx, input) => {
    if (input.parentId) {
      await assertFolder(ctx.db, ctx.org.id, input.parentId);
      if ((await folderPath(ctx.db, ctx.org.id, input.parentId)).length >= MAX_FOLDER_DEPTH) {
        throw new StewardError('validation_failed', `Folders go at most ${MAX_FOLDER_DEPTH} levels deep`, { issues: [{ path: 'parentId', message: 'too deep' }] });
      }
    }
    const id = randomUUID();
    try {
      await ctx.db.query('SAVEPOINT media_folder');
      await ctx.db.query('INSERT INTO media_folders (id, org_id, parent_id, name) VALUES ($1, $2, $3, $4)', [id, ctx.org.id, input.parentId ?? null, input.name]);
      await ctx.db.query('RELEASE SAVEPOINT media_folder');
    } catch (error) {
      if (!uniqueViolation(error)) throw error;
      await ctx.db.query('ROLLBACK TO SAVEPOINT media_folder');
      throw folderNameTaken(input.name);
    }
    const [folder] = await folderRows(ctx.db, ctx.org.id, 'fo.id = $2', [id]);
    return { folder: folder! };
  },
});

const updateFolderTool = tools.write('update_media_folder', {
  title: 'Rename or move a Media Library folder',
  description: 'Renames a folder or moves it inside another (parentId; null moves it to the top). A folder cannot move inside itself or its own subfolders.',
  keywords: ['rename folder', 'move folder', 'rename album', 'move album'],
  examples: ['rename the Easter folder to Easter 2026', 'change the Fete album name to Summer Fair', 'move the Choir folder under Music', 'put the 2024 folder inside Archive', 'call the Misc folder Miscellaneous instead', 'move the Youth folder to the top level', "rename the Kids album to Children's Church", 'rename the Weddings folder to Weddings and Blessings', 'move the Harvest 2024 album inside Harvest', 'make the Logos folder a subfolder of Branding', 'the album called Pics should be called Parish Photos'],
  input: z.object({
    folderId: folderIdInput,
    name: folderName.optional(),
    parentId: folderIdInput.nullable().optional().describe('The folder to move it into, or null for the top'),
  }),
  output: z.object({ folder: folderSchema }).strict(),
  run: async (ctx, input) => {
    const folder = await assertFolder(ctx.db, ctx.org.id, input.folderId);
    await ctx.db.query('SELECT 1 FROM media_folders WHERE org_id = $1 AND id = $2 FOR UPDATE', [ctx.org.id, folder.id]);
    if (input.parentId) {
      await assertFolder(ctx.db, ctx.org.id, input.parentId);
      const ancestry = await folderPath(ctx.db, ctx.org.id, input.parentId);
      if (ancestry.some((ancestor) => ancestor.id === folder.id)) {
        throw new StewardError('validation_failed', 'A folder cannot move inside itself or one of its subfolders', { issues: [{ path: 'parentId', message: 'would make a loop' }] });
      }
      if (ancestry.length >= MAX_FOLDER_DEPTH) throw new StewardError('validation_failed', `Folders go at most ${MAX_FOLDER_DEPTH} levels deep`, { issues: [{ path: 'parentId', message: 'too deep' }] });
    }
    try {
      await ctx.db.query('SAVEPOINT media_folder');
      await ctx.db.query(`UPDATE media_folders SET name = COALESCE($3, name), parent_id = CASE WHEN $4::boolean THEN $5::uuid ELSE parent_id END, updated_at = now()
        WHERE org_id = $1 AND id = $2`, [ctx.org.id, folder.id, input.name ?? null, input.parentId !== undefined, input.parentId ?? null]);
      await ctx.db.query('RELEASE SAVEPOINT media_folder');
    } catch (error) {
      if (!uniqueViolation(error)) throw error;
      await ctx.db.query('ROLLBACK TO SAVEPOINT media_folder');
      throw folderNameTaken(input.name ?? folder.name);
    }
    const [updated] = await folderRows(ctx.db, ctx.org.id, 'fo.id = $2', [folder.id]);
    return { folder: updated! };
  },
});

const deleteFolderTool = tools.write('delete_media_folder', {
  title: 'Delete a Media Library folder',
  description: 'Deletes an empty-of-subfolders folder; its files stay in the library, in no folder. Delete or move its subfolders first.',
  keywords: ['remove folder', 'delete album', 'remove album'],
  examples: ['delete the old 2019 folder', 'get rid of the empty Test folder', 'remove the Misc album but keep the pictures', 'scrap the 2018 folder', 'delete the Old Posters folder', "we don't need the Lent album any more", 'bin the duplicate Harvest folder', 'delete the Summer Fete 2017 folder', 'remove the empty Old Logos album', 'we no longer need the Temp folder, delete it and keep the files', 'get rid of the folder called New Folder'],
  destructive: true,
  input: z.object({ folderId: folderIdInput }),
  output: z.object({ folderId: z.uuid(), name: z.string(), filesMovedOut: z.number().int().describe('Files (the trash included) now in no folder') }).strict(),
  run: async (ctx, input) => {
    const folder = await assertFolder(ctx.db, ctx.org.id, input.folderId);
    const child = await queryOne(ctx.db, 'SELECT 1 FROM media_folders WHERE org_id = $1 AND parent_id = $2 LIMIT 1', [ctx.org.id, folder.id]);
    if (child) throw new StewardError('conflict', `The folder "${folder.name}" has folders inside it`, { hint: 'Delete or move its subfolders first (platform_get_media_folder lists them).' });
    const moved = await ctx.db.query('UPDATE media_files SET folder_id = NULL, updated_at = now() WHERE org_id = $1 AND folder_id = $2', [ctx.org.id, folder.id]);
    await ctx.db.query('DELETE FROM media_folders WHERE org_id = $1 AND id = $2', [ctx.org.id, folder.id]);
    return { folderId: folder.id, name: folder.name, filesMovedOut: moved.rowCount ?? 0 };
  },
});

// ---------------------------------------------------------------- tags

const listTagsTool = tools.read('list_media_tags', {
  title: 'List Media Library tags',
  description: 'Every tag of the Media Library with how many files (not in the trash) carry it, sorted by name.',
  keywords: ['media tags', 'labels', 'picture labels', 'image tags'],
  examples: ['what tags do our images have', 'which labels do we use on pictures', 'how many photos have the newsletter tag', 'show all the image tags', 'what markers are on our media files', 'list photo labels with counts', 'which tags are we actually using', 'what labels have we got for photos', 'list the media tags and how many files have each', 'is there a tag for consent given photos already?', 'which picture tags are in use'],
  input: z.object({}),
  output: z.object({ tags: z.array(tagSchema), truncated: z.boolean().describe(`True when there are more than ${MAX_LISTED} tags and only the first ${MAX_LISTED} by name are listed`) }).strict(),
  run: async (ctx) => {
    const rows = await queryRows<{ id: string; name: string; file_count: number }>(ctx.db, `SELECT t.id, t.name,
        (SELECT count(*)::int FROM media_file_tags ft JOIN media_files f ON f.id = ft.file_id WHERE ft.tag_id = t.id AND f.deleted_at IS NULL AND f.status = 'ready') AS file_count
      FROM media_tags t WHERE t.org_id = $1 ORDER BY lower(t.name), t.id LIMIT ${MAX_LISTED + 1}`, [ctx.org.id]);
    return { tags: rows.slice(0, MAX_LISTED).map((row) => ({ id: row.id, name: row.name, fileCount: row.file_count })), truncated: rows.length > MAX_LISTED };
  },
});

const createTagTool = tools.write('create_media_tag', {
  title: 'Create a Media Library tag',
  description: 'Makes a tag to put on files (tags are also made when first put on a file with platform_update_media_library_file). Names are unique ignoring case.',
  keywords: ['new tag', 'label', 'add tag', 'new label'],
  examples: ['create a tag called newsletter', 'add a new label for safeguarding posters', 'set up a tag called website banner', 'new image label: youth', 'make a marker for photos we have consent for', 'create an Advent tag for pictures', 'add a harvest tag we can use later', 'make a new photo label called Christmas', 'add a tag for images we can use on social media', 'create a media tag named Youth Camp', 'we want a label for pictures of the building'],
  input: z.object({ name: tagName }),
  output: z.object({ tag: tagSchema }).strict(),
  run: async (ctx, input) => {
    const existing = await queryOne(ctx.db, 'SELECT 1 FROM media_tags WHERE org_id = $1 AND lower(name) = lower($2)', [ctx.org.id, input.name]);
    if (existing) throw new StewardError('conflict', `A media tag named "${input.name}" already exists`, { hint: 'platform_list_media_tags lists the tags.' });
    const [id] = await ensureTags(ctx.db, ctx.org.id, [input.name]);
    return { tag: { id: id!, name: input.name, fileCount: 0 } };
  },
});

const deleteTagTool = tools.write('delete_media_tag', {
  title: 'Delete a Media Library tag',
  description: 'Deletes a tag and takes it off every file that had it; the files stay.',
  keywords: ['remove tag', 'delete label', 'remove label'],
  examples: ['delete the old-logo tag', 'get rid of the test label on photos', 'scrap the old-website tag everywhere', 'remove the draft marker from the tag list', 'bin the tag we made for 2019', 'delete the image label called temp', "we don't need the flyers tag any more", 'delete the photo label called misc', 'get rid of the Pentecost 2019 tag from the library', 'remove the tag old-website from all pictures', 'bin the duplicate Christmas label'],
  destructive: true,
  input: z.object({ tagId: z.uuid().describe('A tag id from platform_list_media_tags') }),
  output: z.object({ tagId: z.uuid(), name: z.string(), filesUntagged: z.number().int() }).strict(),
  run: async (ctx, input) => {
    const tag = await queryOne<{ id: string; name: string }>(ctx.db, 'SELECT id, name FROM media_tags WHERE org_id = $1 AND id = $2', [ctx.org.id, input.tagId]);
    if (!tag) throw notFound('Media tag', input.tagId, 'platform_list_media_tags lists the tags.');
    const untagged = await ctx.db.query('DELETE FROM media_file_tags WHERE org_id = $1 AND tag_id = $2', [ctx.org.id, tag.id]);
    await ctx.db.query('DELETE FROM media_tags WHERE org_id = $1 AND id = $2', [ctx.org.id, tag.id]);
    return { tagId: tag.id, name: tag.name, filesUntagged: untagged.rowCount ?? 0 };
  },
});

// ---------------------------------------------------------------- AI

/** How many of the newest files a semantic search compares with the question. */
const AI_SEARCH_CANDIDATES = 300;

interface AiSearchPrepared {
  ranked: Array<{ id: string; score: number }>;
}

const aiSearchTool = tools.read('ai_search_media_library', {
  title: 'Search the Media Library by meaning',
  description: `Semantic search: ranks library files by how close their names, descriptions, alt text and tags are in meaning to the question (through the configured AI provider), comparing the newest ${AI_SEARCH_CANDIDATES}. For exact words use platform_search_media_library.`,
  keywords: ['semantic search', 'find similar images', 'ai search'],
  examples: ['find pictures that feel joyful and celebratory', 'images about community meals', 'find photos that show children having fun', 'pictures that would suit a funeral order of service', 'something peaceful for the Lent newsletter', 'images of people serving food', 'find a picture that looks like an autumn harvest', 'what photos do we have that feel warm and welcoming', 'hopeful images', 'I need a picture for a bereavement card, something calm and gentle', 'have we got anything that feels like springtime and new life?'],
  input: z.object({
    query: z.string().trim().min(1).max(500).describe('What you are looking for, in plain words'),
    limit: z.number().int().min(1).max(25).default(10).describe('How many to return (1 to 25)'),
  }),
  output: z.object({ results: z.array(z.object({ score: z.number().describe('Similarity from -1 to 1; higher is closer'), file: fileSchema }).strict()) }).strict(),
  prepare: async (input, { db, org }): Promise<AiSearchPrepared> => {
    const settings = aiSettings();
    const rows = await queryRows<FileRow>(db, `SELECT ${FILE_SELECT} WHERE f.org_id = $1 AND f.status = 'ready' AND f.deleted_at IS NULL
      ORDER BY f.created_at DESC, f.id DESC LIMIT ${AI_SEARCH_CANDIDATES}`, [org.id]);
    if (rows.length === 0) return { ranked: [] };
    const texts = rows.map((row) => [row.display_name, row.name, row.alt_text, row.ai_description, row.ai_labels.join(', '), (row.tags ?? []).join(', ')]
      .filter(Boolean).join('. ').slice(0, 2000));
    const [question, ...vectors] = await embed(settings, [input.query, ...texts]);
    const ranked = rows.map((row, index) => ({ id: row.id, score: Math.round(cosine(question!, vectors[index]!) * 10_000) / 10_000 }))
      .sort((a, b) => b.score - a.score).slice(0, input.limit);
    return { ranked };
  },
  run: async (ctx) => {
    const { ranked } = ctx.prepared as AiSearchPrepared;
    const rows = await filesByIds(ctx.db, ctx.org.id, ranked.map((r) => r.id));
    const byId = new Map(rows.filter((row) => row.deleted_at === null).map((row) => [row.id, row]));
    return { results: ranked.filter((r) => byId.has(r.id)).map((r) => ({ score: r.score, file: toMediaFile(byId.get(r.id)!) })) };
  },
});

interface AnalysisPrepared {
  description: string;
  altText: string;
  labels: string[];
}

const aiAnalyzeTool = tools.write('ai_analyze_media', {
  title: 'Analyse a Media Library image with AI',
  description: 'Describes an image through the configured AI provider: a description, suggested alt text and labels, kept on the file (they feed search). applyAltText sets the file\'s alt text to the suggestion.',
  keywords: ['describe image', 'alt text', 'ai vision', 'caption'],
  examples: ['write alt text for the banner image', 'what is in this photo', 'describe the choir photo for me', 'suggest alt text for the harvest poster and apply it', "what's in the picture I just uploaded", 'caption this image for the website', 'label the new photo automatically with AI', "work out what the vicar's photo shows", 'describe this image', 'for accessibility on the website, work out alt text for the new hall photo and save it', "can you tell me what's shown in the confirmation picture?"],
  input: z.object({
    mediaId,
    focus: z.string().trim().max(300).optional().describe('Something the analysis should pay attention to'),
    applyAltText: z.boolean().default(false).describe('Set the file\'s alt text to the suggested one'),
  }),
  output: z.object({
    analysis: z.object({ description: z.string(), altText: z.string(), labels: z.array(z.string()) }).strict(),
    file: fileSchema,
  }).strict(),
  prepare: async (input, { db, org }): Promise<AnalysisPrepared> => {
    const row = await findFile(db, org.id, input.mediaId);
    if (row.deleted_at) throw inTrashRefusal(row.id, 'analyse it');
    if (!row.mime_type?.startsWith('image/')) throw new StewardError('validation_failed', 'Only images can be analysed', { issues: [{ path: 'mediaId', message: 'not an image' }] });
    const settings = aiSettings();
    // The medium thumbnail is plenty for a description and keeps the request small.
    const medium = row.thumbnails.find((thumbnail) => thumbnail.variant === 'medium');
    const bytes = await readStored(medium?.key ?? row.storage_key!);
    return analyzeImage(settings, { bytes, mimeType: medium ? 'image/webp' : row.mime_type }, input.focus);
  },
  run: async (ctx, input) => {
    const analysis = ctx.prepared as AnalysisPrepared;
    const row = await findFile(ctx.db, ctx.org.id, input.mediaId, { lock: true });
    if (row.deleted_at) throw inTrashRefusal(row.id, 'analyse it');
    await ctx.db.query(`UPDATE media_files SET ai_description = $3, ai_labels = $4, alt_text = CASE WHEN $5::boolean AND $6 <> '' THEN $6 ELSE alt_text END, updated_at = now()
      WHERE org_id = $1 AND id = $2`, [ctx.org.id, row.id, analysis.description, analysis.labels, input.applyAltText, analysis.altText]);
    return { analysis, file: await fileOut(ctx.db, ctx.org.id, row.id) };
  },
});

/** As OneShotPrepared: the generated image's objects are written in `run`, once the quota allows it. */
interface GeneratedPrepared {
  id: string;
  name: string;
  planned: PlannedMedia;
  description: string;
}

const aiGenerateTool = tools.write('ai_generate_media', {
  title: 'Generate an image into the Media Library',
  description: 'Creates an image from a prompt through the configured AI provider and adds it to the library like an upload (it counts against the media item and storage quota).',
  keywords: ['generate image', 'ai image', 'create picture', 'illustration'],
  examples: ['make an image of a harvest festival table for the newsletter', 'create a picture of a candlelit carol service', 'draw an illustration of a dove for the Pentecost flyer', 'generate a banner image for the summer fete', 'make an AI picture of children in a nativity', 'I need artwork for the Advent email', 'design an image of a cup of tea for the coffee morning poster', 'generate a Christmas star image', "we've no photos from the quiz night, so create a fun picture of a pub quiz for the poster", 'can you make an illustration of a lighthouse for the sermon series?'],
  meter: { feature: 'media_items', units: 1 },
  input: z.object({
    prompt: z.string().trim().min(3).max(2000).describe('What the image should show'),
    size: z.enum(['1024x1024', '1024x1536', '1536x1024']).default('1024x1024').describe('Width x height in pixels'),
    fileName: fileName.optional().describe('The name to store it under (default from the prompt)'),
    displayName: displayName.optional(),
    altText: altText.optional(),
    isPublic: isPublic.default(true),
    folderId: folderIdInput.optional(),
  }),
  output: z.object({ file: fileSchema, emailImageUrl: z.string().nullable() }).strict(),
  prepare: async (input, { db, org }): Promise<GeneratedPrepared> => {
    if (input.folderId) await assertFolder(db, org.id, input.folderId);
    const settings = aiSettings();
    await precheckRoom(db, org, 1);
    const generated = await generateImage(settings, input.prompt, input.size);
    if (generated.bytes.length > maxFileBytes()) throw maxBytesRefusal(generated.bytes.length);
    await precheckRoom(db, org, generated.bytes.length);
    const processed = await processMedia(generated.bytes, input.fileName ? typeForName(input.fileName) : null);
    const slug = input.prompt.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'generated';
    const id = newFileId();
    return {
      id, name: cleanFileName(input.fileName ?? nameWithExtension(slug, processed.type)),
      planned: planStorage(org.id, id, generated.bytes, processed),
      description: `Generated from the prompt: ${generated.revisedPrompt ?? input.prompt}`.slice(0, 2000),
    };
  },
  run: async (ctx, input) => {
    const prepared = ctx.prepared as GeneratedPrepared;
    if (input.folderId) await assertFolder(ctx.db, ctx.org.id, input.folderId);
    await reserveRoom(ctx.db, ctx.org.id, ctx.org.planCode, prepared.planned.stored.sizeBytes);
    await insertReadyFile(ctx.db, {
      id: prepared.id, orgId: ctx.org.id, source: 'ai', name: prepared.name, displayName: input.displayName, altText: input.altText,
      isPublic: input.isPublic, folderId: input.folderId, userId: ctx.principal.userId, stored: prepared.planned.stored, aiDescription: prepared.description,
    });
    await writePlanned(mediaStorage(), prepared.planned);
    const file = await fileOut(ctx.db, ctx.org.id, prepared.id);
    return { file, emailImageUrl: file.isPublic ? file.url : null };
  },
});

export const mediaTools: readonly AnyTool[] = [
  beginUploadTool, completeUploadTool, uploadFileTool, listFilesTool, searchTool, getFileTool, serveUrlTool, quotaTool,
  updateFileTool, deleteFileTool, restoreFileTool, reprocessTool, bulkTool,
  listFoldersTool, getFolderTool, createFolderTool, updateFolderTool, deleteFolderTool,
  listTagsTool, createTagTool, deleteTagTool,
  aiSearchTool, aiAnalyzeTool, aiGenerateTool,
];

