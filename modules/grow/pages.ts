import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { linkedMediaFile, publicOrigin } from '../platform/api';
import { pagePath, publicBaseUrl } from './forms';

/**
 * Landing pages: a slug and blocks (heading, text, image from the media library, a form embed, a
 * button), draft → published → unpublished. Publishing is a person's decision (the tool is
 * approval-gated). Views are counted per page and day, nothing about the visitor.
 */

export const PAGE_STATUSES = ['draft', 'published', 'unpublished'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

const plainUrl = z.string().max(2000).refine((value) => /^https:\/\/[^\s<>"]+$/.test(value) || /^\/[^\s<>"/][^\s<>"]*$/.test(value) || value === '/', 'an https:// address or a path on this site');

export const blockInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('heading'), text: z.string().trim().min(1).max(200), level: z.number().int().min(1).max(3).default(2) }),
  z.object({ type: z.literal('text'), text: z.string().trim().min(1).max(5000).describe('Plain text; blank lines separate paragraphs') }),
  z.object({ type: z.literal('image'), mediaId: z.uuid().describe('A public image in the Media Library (platform_list_media_library_files); shown from Steward\'s address'), alt: z.string().trim().min(1).max(300).describe('What the image shows, for people who cannot see it') }),
  z.object({ type: z.literal('form'), formId: z.uuid().describe('A form (grow_list_forms); it shows only while published') }),
  z.object({ type: z.literal('button'), label: z.string().trim().min(1).max(100), href: plainUrl }),
]);
export type Block = z.output<typeof blockInput>;

export interface PageRow {
  id: string; org_id: string; slug: string; title: string; blocks: Block[]; status: PageStatus; published_at: Date | null; created_at: Date; updated_at: Date;
}

export interface PageView {
  id: string;
  slug: string;
  title: string;
  blocks: Block[];
  status: PageStatus;
  publicUrl: string | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function pageView(row: PageRow): PageView {
  return {
    id: row.id, slug: row.slug, title: row.title, blocks: row.blocks, status: row.status,
    publicUrl: row.status === 'published' ? `${publicBaseUrl()}${pagePath(row.org_id, row.slug)}` : null,
    publishedAt: row.published_at ? row.published_at.toISOString() : null, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

export async function getPageRow(db: Queryable, orgId: string, pageId: string, lock = false): Promise<PageRow | undefined> {
  return queryOne<PageRow>(db, `SELECT * FROM grow_landing_pages WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, pageId]);
}

export async function requirePage(db: Queryable, orgId: string, pageId: string, lock = false): Promise<PageRow> {
  const row = await getPageRow(db, orgId, pageId, lock);
  if (!row) throw notFound('Landing page', pageId, 'grow_list_landing_pages lists the pages.');
  return row;
}

/** An image a stranger's browser may load: a ready, public image file of this organisation's Media Library, not in the trash. */
export interface PageImage { src: string }

/**
 * Where a page's image is loaded from: the file's public address, as a path on this site when
 * Steward serves it itself (so the page's `img-src 'self'` covers it wherever Steward is reached),
 * or the CDN's https address. Null when the file is gone, in the trash, private or not an image.
 */
export async function pageImage(db: Queryable, orgId: string, mediaId: string): Promise<PageImage | null> {
  const file = await linkedMediaFile(db, orgId, mediaId);
  if (!file || !file.isPublic || !file.url || !file.mimeType.startsWith('image/')) return null;
  const origin = publicOrigin();
  return { src: file.url.startsWith(`${origin}/`) ? file.url.slice(origin.length) : file.url };
}

async function checkImage(db: Queryable, orgId: string, mediaId: string, index: number): Promise<void> {
  const file = await linkedMediaFile(db, orgId, mediaId);
  const path = `blocks.${index}.mediaId`;
  if (!file) throw new StewardError('not_found', `Media file ${mediaId} was not found`, { issues: [{ path, message: 'no such file in the Media Library' }], hint: 'platform_list_media_library_files lists the library\'s files.' });
  if (!file.mimeType.startsWith('image/')) {
    throw new StewardError('validation_failed', `"${file.name}" is not an image`, { issues: [{ path, message: `a ${file.mimeType} file, not an image` }], hint: 'Choose an image (PNG, JPEG, WebP, GIF) from the Media Library.' });
  }
  if (!file.isPublic) {
    throw new StewardError('validation_failed', `"${file.name}" is private, so a public page cannot show it`, {
      issues: [{ path, message: 'a private file' }], hint: 'Make it public with platform_update_media_library_file (isPublic: true), or choose a public image.',
    });
  }
}

async function checkBlocks(db: Queryable, orgId: string, blocks: readonly Block[]): Promise<void> {
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'image') await checkImage(db, orgId, block.mediaId, index);
    if (block.type === 'form' && !(await queryOne(db, "SELECT 1 FROM grow_forms WHERE org_id = $1 AND id = $2 AND status <> 'archived'", [orgId, block.formId]))) {
      throw new StewardError('not_found', `Form ${block.formId} was not found`, { issues: [{ path: `blocks.${index}.formId`, message: 'no such form' }], hint: 'grow_list_forms lists the forms.' });
    }
  }
}

async function slugFree(db: Queryable, orgId: string, slug: string, except: string | null): Promise<void> {
  if (await queryOne(db, 'SELECT 1 FROM grow_landing_pages WHERE org_id = $1 AND slug = $2 AND id IS DISTINCT FROM $3', [orgId, slug, except])) {
    throw new StewardError('conflict', `A landing page with the slug "${slug}" exists already`, { details: { reason: 'slug_taken' }, hint: 'Choose another slug.' });
  }
}

export async function createPage(db: Queryable, orgId: string, input: { slug: string; title: string; blocks: Block[] }): Promise<PageView> {
  await checkBlocks(db, orgId, input.blocks);
  await slugFree(db, orgId, input.slug, null);
  const id = randomUUID();
  await db.query('INSERT INTO grow_landing_pages (id, org_id, slug, title, blocks) VALUES ($1, $2, $3, $4, $5)', [id, orgId, input.slug, input.title, JSON.stringify(input.blocks)]);
  return pageView((await getPageRow(db, orgId, id))!);
}

/** A published page's edits show at once (its content was approved as a page; its address stays). */
export async function updatePage(db: Queryable, orgId: string, pageId: string, input: { slug?: string; title?: string; blocks?: Block[] }): Promise<PageView> {
  const row = await requirePage(db, orgId, pageId, true);
  if (input.blocks) await checkBlocks(db, orgId, input.blocks);
  if (input.slug && input.slug !== row.slug) {
    if (row.status === 'published') throw new StewardError('conflict', 'A published page keeps its address; unpublish it to change the slug', { details: { reason: 'page_published' } });
    await slugFree(db, orgId, input.slug, pageId);
  }
  await db.query('UPDATE grow_landing_pages SET slug = $3, title = $4, blocks = $5, updated_at = now() WHERE org_id = $1 AND id = $2',
    [orgId, pageId, input.slug ?? row.slug, input.title ?? row.title, JSON.stringify(input.blocks ?? row.blocks)]);
  return pageView((await getPageRow(db, orgId, pageId))!);
}

export async function setPageStatus(db: Queryable, orgId: string, pageId: string, status: 'published' | 'unpublished'): Promise<{ page: PageView; changed: boolean }> {
  const row = await requirePage(db, orgId, pageId, true);
  if (row.status === status) return { page: pageView(row), changed: false };
  if (status === 'unpublished' && row.status === 'draft') throw new StewardError('conflict', 'This page was never published', { details: { reason: 'page_draft' } });
  await db.query("UPDATE grow_landing_pages SET status = $3, published_at = CASE WHEN $3 = 'published' THEN now() ELSE published_at END, updated_at = now() WHERE org_id = $1 AND id = $2",
    [orgId, pageId, status]);
  return { page: pageView((await getPageRow(db, orgId, pageId))!), changed: true };
}

export async function pageExists(db: Queryable, orgId: string, pageId: string): Promise<boolean> {
  return Boolean(await getPageRow(db, orgId, pageId));
}

export async function listPages(db: Queryable, orgId: string, status: PageStatus | undefined, limit: number): Promise<PageView[]> {
  const rows = await queryRows<PageRow>(db, 'SELECT * FROM grow_landing_pages WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id DESC LIMIT $3',
    [orgId, status ?? null, limit]);
  return rows.map(pageView);
}

export async function countView(db: Queryable, orgId: string, pageId: string): Promise<void> {
  await db.query(`INSERT INTO grow_page_views (org_id, page_id, day, views) VALUES ($1, $2, (now() AT TIME ZONE 'UTC')::date, 1)
    ON CONFLICT (page_id, day) DO UPDATE SET views = grow_page_views.views + 1`, [orgId, pageId]);
}

/** Views, submissions made through the page, and conversion (submissions per view), over the whole life or a date range. */
export async function pageStats(db: Queryable, orgId: string, pageId: string, range: { from?: string; to?: string }): Promise<{
  page: PageView; views: number; submissions: number; conversionRate: number | null; byDay: Array<{ day: string; views: number; submissions: number }>;
}> {
  const page = await requirePage(db, orgId, pageId);
  const from = range.from ?? '1970-01-01';
  const to = range.to ?? '9999-12-31';
  const byDay = await queryRows<{ day: string; views: number; submissions: number }>(db, `
    WITH v AS (SELECT day, views FROM grow_page_views WHERE org_id = $1 AND page_id = $2 AND day BETWEEN $3::date AND $4::date),
         s AS (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n FROM grow_submissions
               WHERE org_id = $1 AND page_id = $2 AND (created_at AT TIME ZONE 'UTC')::date BETWEEN $3::date AND $4::date GROUP BY 1)
    SELECT to_char(COALESCE(v.day, s.day), 'YYYY-MM-DD') AS day, COALESCE(v.views, 0)::int AS views, COALESCE(s.n, 0)::int AS submissions
    FROM v FULL JOIN s ON s.day = v.day ORDER BY 1`, [orgId, pageId, from, to]);
  const views = byDay.reduce((sum, d) => sum + d.views, 0);
  const submissions = byDay.reduce((sum, d) => sum + d.submissions, 0);
  return { page: pageView(page), views, submissions, conversionRate: views > 0 ? Math.round((submissions / views) * 10_000) / 10_000 : null, byDay };
}
