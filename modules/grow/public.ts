import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { StewardError } from '../../core/errors';
import { queryOne, withTenantTransaction } from '../../db/pool';
import { assertAllowance, lockFeature, recordUsage } from '../../kernel/billing';
import { log } from '../../core/log';
import { resolvePayloadKey } from '../../temporal/payload-key';
import type { ModuleWebhook, WebhookDeps } from '../module';
import { startMessageDelivery } from '../channels/api';
import { getOrgSettings } from '../platform/api';
import { escapeHtml } from '../templates/api';
import { formClosedReason, formPath, readAnswers, recordSubmission, type Answer, type FieldError, type FormField, type FormRow } from './forms';
import { recordTracking } from './campaigns';
import { countView, pageImage, type Block, type PageRow } from './pages';

/**
 * The first addresses strangers reach: a published landing page (`/grow/p/<org>/<slug>`), a
 * published form on its own (`/grow/f/<org>/<form>`) and the form's POST. Every value shown is
 * escaped; pages run no script, load nothing from elsewhere, set no cookie and track nobody. A
 * POST is refused, with nothing written, when it comes too often from one address, is larger than
 * the cap, fills the honeypot, comes from another site (Origin / Sec-Fetch-Site) or carries no
 * valid form token (an HMAC over the form and the time the page was served, good for a day).
 */

export const MAX_SUBMISSION_BYTES = 16 * 1024;
const TOKEN_TTL_MS = 24 * 3600_000;
const HONEYPOT = 'website';
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const CSS = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}
label{display:block;margin-top:1rem;font-weight:600}input[type=text],input[type=email],input[type=tel],input[type=date],select,textarea{display:block;width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.box label{display:inline;font-weight:400}.box{margin-top:1rem}.errors{border:2px solid #b00020;padding:.5rem 1rem}.err{color:#b00020}.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
img{max-width:100%;height:auto}figure{margin:1rem 0}
button,.button{margin-top:1.5rem;font-size:1rem;padding:.6rem 1.2rem;display:inline-block}`;
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

function sendPage(res: Response, status: number, title: string, body: string): void {
  res.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src 'self' https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store', 'Referrer-Policy': 'same-origin', 'X-Content-Type-Options': 'nosniff',
  });
  res.status(status).type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`);
}

function signingKey(): Buffer {
  return createHmac('sha256', resolvePayloadKey()).update('steward grow public form tokens').digest();
}

export function formToken(orgId: string, formId: string, issuedAt: number): string {
  const mac = createHmac('sha256', signingKey()).update(`${orgId}.${formId}.${issuedAt}`).digest('base64url');
  return `${issuedAt}.${mac}`;
}

export function checkFormToken(orgId: string, formId: string, token: string, now: number): boolean {
  const [issued, mac, ...rest] = token.split('.');
  if (rest.length > 0 || !issued || !mac || !/^\d{10,16}$/.test(issued)) return false;
  const issuedAt = Number(issued);
  if (issuedAt > now + 60_000 || now - issuedAt > TOKEN_TTL_MS) return false;
  const expected = Buffer.from(formToken(orgId, formId, issuedAt).split('.')[1]!);
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const INPUT_TYPE: Record<string, string> = { text: 'text', email: 'email', phone: 'tel', date: 'date' };

/** The form as HTML: every label, option and earlier value escaped; boxes never ticked unless the person ticked them. */
export function renderForm(orgId: string, form: Pick<FormRow, 'id' | 'name' | 'fields'>, options: { pageId?: string | null; values?: Record<string, Answer>; errors?: FieldError[]; now: number }): string {
  const errors = options.errors ?? [];
  const errorOf = (key: string) => errors.find((e) => e.key === key);
  const id = (field: FormField) => `f-${escapeHtml(field.key)}`;
  const parts: string[] = [];
  if (errors.length > 0) {
    parts.push(`<div class="errors" role="alert"><p>Please check ${errors.length === 1 ? 'this answer' : 'these answers'}:</p><ul>${errors.map((e) => {
      const field = form.fields.find((f) => f.key === e.key);
      return `<li>${escapeHtml(field?.label ?? e.key)} ${escapeHtml(e.message)}</li>`;
    }).join('')}</ul></div>`);
  }
  parts.push(`<form method="post" action="${escapeHtml(formPath(orgId, form.id))}" aria-label="${escapeHtml(form.name)}">`);
  for (const field of form.fields) {
    const value = options.values?.[field.key];
    const error = errorOf(field.key);
    const required = field.required ? ' required aria-required="true"' : '';
    const described = error ? ` aria-invalid="true" aria-describedby="${id(field)}-err"` : '';
    const errorHtml = error ? `<span class="err" id="${id(field)}-err">${escapeHtml(error.message)}</span>` : '';
    if (field.type === 'checkbox' || field.type === 'consent' || field.type === 'guardian_consent') {
      // Never pre-ticked: only the person's own tick, sent back after a refusal, shows ticked.
      const checked = value === true ? ' checked' : '';
      parts.push(`<div class="box"><input type="checkbox" id="${id(field)}" name="${escapeHtml(field.key)}" value="yes"${checked}${required}${described}> <label for="${id(field)}">${escapeHtml(field.label)}</label> ${errorHtml}</div>`);
    } else if (field.type === 'choice') {
      const opts = field.options!.map((option) => `<option value="${escapeHtml(option)}"${value === option ? ' selected' : ''}>${escapeHtml(option)}</option>`).join('');
      parts.push(`<label for="${id(field)}">${escapeHtml(field.label)}</label><select id="${id(field)}" name="${escapeHtml(field.key)}"${required}${described}><option value="">Choose…</option>${opts}</select>${errorHtml}`);
    } else {
      const shown = typeof value === 'string' ? ` value="${escapeHtml(value)}"` : '';
      const autocomplete = field.contactField === 'email' ? 'email' : field.contactField === 'phone' ? 'tel' : field.contactField === 'firstName' ? 'given-name' : field.contactField === 'lastName' ? 'family-name' : 'off';
      parts.push(`<label for="${id(field)}">${escapeHtml(field.label)}</label><input type="${INPUT_TYPE[field.type]}" id="${id(field)}" name="${escapeHtml(field.key)}" maxlength="2000" autocomplete="${autocomplete}"${shown}${required}${described}>${errorHtml}`);
    }
  }
  parts.push(`<div class="hp" aria-hidden="true"><label for="f-hp">Leave this empty</label><input type="text" id="f-hp" name="${HONEYPOT}" tabindex="-1" autocomplete="off"></div>`);
  parts.push(`<input type="hidden" name="_token" value="${escapeHtml(formToken(orgId, form.id, options.now))}">`);
  if (options.pageId) parts.push(`<input type="hidden" name="_page" value="${escapeHtml(options.pageId)}">`);
  parts.push('<button type="submit">Send</button></form>');
  return parts.join('\n');
}

function paragraphs(text: string): string {
  return text.split(/\n\s*\n/).map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('');
}

async function renderBlocks(db: Parameters<typeof queryOne>[0], page: PageRow, now: number): Promise<string> {
  const out: string[] = [`<h1>${escapeHtml(page.title)}</h1>`];
  for (const block of page.blocks as Block[]) {
    if (block.type === 'heading') out.push(`<h${block.level + 1 > 3 ? 3 : block.level + 1}>${escapeHtml(block.text)}</h${block.level + 1 > 3 ? 3 : block.level + 1}>`);
    else if (block.type === 'text') out.push(paragraphs(block.text));
    else if (block.type === 'button') out.push(`<p><a class="button" href="${escapeHtml(block.href)}" rel="noopener">${escapeHtml(block.label)}</a></p>`);
    else if (block.type === 'image') {
      // A file made private or deleted after the page was published is left out rather than shown broken.
      const image = await pageImage(db, page.org_id, block.mediaId);
      if (image) out.push(`<figure><img src="${escapeHtml(image.src)}" alt="${escapeHtml(block.alt)}" loading="lazy" decoding="async"></figure>`);
    }
    else if (block.type === 'form') {
      const form = await queryOne<FormRow>(db, 'SELECT * FROM grow_forms WHERE org_id = $1 AND id = $2', [page.org_id, block.formId]);
      const closed = form ? formClosedReason(form, new Date(now)) : 'This form is not available.';
      out.push(form && !closed ? renderForm(page.org_id, form, { pageId: page.id, now }) : `<p>${escapeHtml(closed ?? '')}</p>`);
    }
  }
  return out.join('\n');
}

function notFoundPage(res: Response): void {
  sendPage(res, 404, 'Not found', '<h1>This page is not here</h1><p>The address may be mistyped, or the page was taken down.</p>');
}

/** The same-origin check: a browser's Origin (or Sec-Fetch-Site) must be this site's own. */
function crossSite(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  if (!origin) return false;
  return origin !== `${req.protocol}://${req.get('host')}`;
}

export interface RefusalCounts { [reason: string]: number }
/** Refused submissions by reason since the process started (no address, no content): for the bench and tests. */
export const refusals: RefusalCounts = {};
function refuse(res: Response, status: number, reason: string, title: string, text: string): void {
  refusals[reason] = (refusals[reason] ?? 0) + 1;
  res.set('X-Steward-Refusal', reason);
  sendPage(res, status, title, `<h1>${escapeHtml(title)}</h1><p data-refusal="${escapeHtml(reason)}">${escapeHtml(text)}</p>`);
}

function submissionsPerMinute(): number {
  const raw = Number(process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE ?? '20');
  return Number.isInteger(raw) && raw > 0 ? raw : 20;
}

function growRouter(deps: WebhookDeps): Router {
  const router = Router();
  const limiter = rateLimit({
    windowMs: 60_000, limit: () => submissionsPerMinute(), standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => refuse(res, 429, 'rate_limited', 'Too many tries', 'Too many answers came from your address just now. Please wait a minute and try again.'),
  });
  const viewLimiter = rateLimit({
    windowMs: 60_000, limit: () => submissionsPerMinute() * 10, standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => refuse(res, 429, 'rate_limited', 'Too many requests', 'Please wait a minute and try again.'),
  });

  router.get('/grow/p/:orgId/:slug', viewLimiter, async (req, res, next) => {
    try {
      const orgId = String(req.params.orgId); const slug = String(req.params.slug);
      if (!UUID.test(orgId!) || !/^[a-z0-9-]{1,80}$/.test(slug!)) return notFoundPage(res);
      const now = Date.now();
      const html = await withTenantTransaction(deps.pool, orgId!, async (db) => {
        const page = await queryOne<PageRow>(db, "SELECT * FROM grow_landing_pages WHERE org_id = $1 AND slug = $2 AND status = 'published'", [orgId, slug]);
        if (!page) return null;
        await countView(db, orgId!, page.id);
        return { title: page.title, body: await renderBlocks(db, page, now) };
      });
      if (!html) return notFoundPage(res);
      sendPage(res, 200, html.title, html.body);
    } catch (error) {
      next(error);
    }
  });

  router.get('/grow/f/:orgId/:formId', viewLimiter, async (req, res, next) => {
    try {
      const orgId = String(req.params.orgId); const formId = String(req.params.formId);
      if (!UUID.test(orgId!) || !UUID.test(formId!)) return notFoundPage(res);
      const now = Date.now();
      const form = await withTenantTransaction(deps.pool, orgId!, (db) => queryOne<FormRow>(db, 'SELECT * FROM grow_forms WHERE org_id = $1 AND id = $2', [orgId, formId]));
      if (!form || form.status === 'draft' || form.status === 'archived') return notFoundPage(res);
      const closed = formClosedReason(form, new Date(now));
      if (closed) return sendPage(res, 410, form.name, `<h1>${escapeHtml(form.name)}</h1><p>${escapeHtml(closed)}</p>`);
      sendPage(res, 200, form.name, `<h1>${escapeHtml(form.name)}</h1>${renderForm(orgId!, form, { now })}`);
    } catch (error) {
      next(error);
    }
  });

  router.post('/grow/f/:orgId/:formId', limiter, express.raw({ type: () => true, limit: MAX_SUBMISSION_BYTES }), async (req, res, next) => {
    try {
      const orgId = String(req.params.orgId); const formId = String(req.params.formId);
      if (!UUID.test(orgId!) || !UUID.test(formId!)) return notFoundPage(res);
      if (crossSite(req)) return refuse(res, 403, 'cross_site', 'Not accepted', 'This form can only be sent from its own page.');
      const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') return refuse(res, 415, 'bad_content_type', 'Not accepted', 'This form takes only what a browser sends from the form itself.');
      const raw = new URLSearchParams(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
      if ((raw.get(HONEYPOT) ?? '') !== '') return refuse(res, 400, 'bot_check', 'Not accepted', 'Your answers could not be accepted.');
      const now = Date.now();
      if (!checkFormToken(orgId!, formId!, raw.get('_token') ?? '', now)) {
        return refuse(res, 403, 'bad_token', 'Please try again', 'This form was open too long or did not come from our page. Please reload it and send your answers again.');
      }
      const pageId = raw.get('_page');
      const outcome = await withTenantTransaction(deps.pool, orgId!, async (db) => {
        const form = await queryOne<FormRow>(db, 'SELECT * FROM grow_forms WHERE org_id = $1 AND id = $2 FOR SHARE', [orgId, formId]);
        if (!form || form.status === 'draft' || form.status === 'archived') return { kind: 'missing' as const };
        const closed = formClosedReason(form, new Date(now));
        if (closed) return { kind: 'closed' as const, form, closed };
        const read = readAnswers(form.fields, raw);
        if ('errors' in read) return { kind: 'invalid' as const, form, errors: read.errors, values: partialValues(form.fields, raw) };
        const validPage = pageId && UUID.test(pageId)
          ? await queryOne<{ id: string }>(db, "SELECT id FROM grow_landing_pages WHERE org_id = $1 AND id = $2 AND status = 'published'", [orgId, pageId]) : undefined;
        await lockFeature(db, orgId!, 'form_submissions');
        await assertAllowance(db, orgId!, 'form_submissions', 1, { tool: 'grow_publish_form' });
        const org = await getOrgSettings(db, orgId!);
        const recorded = await recordSubmission(db, org, form, read.answers, validPage?.id ?? null);
        await recordUsage(db, { orgId: orgId!, feature: 'form_submissions', units: 1, idempotencyKey: `grow-submission:${recorded.submissionId}`, tool: 'grow_publish_form' });
        return { kind: 'recorded' as const, form, recorded };
      }).catch((error: unknown) => {
        if (error instanceof StewardError && ['allowance_exceeded', 'spend_cap_reached', 'subscription_inactive'].includes(error.code)) return { kind: 'allowance' as const };
        throw error;
      });
      if (outcome.kind === 'missing') return notFoundPage(res);
      if (outcome.kind === 'allowance') return refuse(res, 503, 'allowance', 'Not taking answers just now', 'This form cannot take answers at the moment. Please try again later.');
      if (outcome.kind === 'closed') return refuse(res, 410, 'form_closed', outcome.form.name, outcome.closed);
      if (outcome.kind === 'invalid') {
        refusals.invalid = (refusals.invalid ?? 0) + 1;
        return sendPage(res, 400, outcome.form.name, `<h1>${escapeHtml(outcome.form.name)}</h1>${renderForm(orgId!, outcome.form, { pageId: pageId && UUID.test(pageId) ? pageId : null, values: outcome.values, errors: outcome.errors, now })}`);
      }
      const followUpId = outcome.recorded.followUpMessageId;
      // The answers are kept either way; a follow-up that could not be started now stays queued in the outbox under its message id.
      if (followUpId) await startMessageDelivery(deps, orgId!, followUpId).catch((error: unknown) => log('warn', 'grow.follow_up_not_started', { orgId, messageId: followUpId, error: String(error).slice(0, 200) }));
      res.set('X-Steward-Submission', outcome.recorded.submissionId);
      sendPage(res, 200, 'Thank you', `<h1>Thank you</h1>${paragraphs(outcome.form.thank_you)}`);
    } catch (error) {
      next(error);
    }
  });

  // A campaign link: the signed token names the campaign, recipient and link number; the destination is the campaign's own link, never one from the request.
  router.get('/grow/c/:token', viewLimiter, async (req, res, next) => {
    try {
      res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      const tracked = await recordTracking(deps.pool, String(req.params.token).slice(0, 300), String(req.get('user-agent') ?? '').slice(0, 300));
      if (!tracked || tracked.kind !== 'click') return notFoundPage(res);
      res.redirect(302, tracked.url);
    } catch (error) {
      next(error);
    }
  });

  // The open pixel: counted (machine opens flagged), always a 1x1 transparent GIF.
  router.get('/grow/o/:token', async (req, res, next) => {
    try {
      await recordTracking(deps.pool, String(req.params.token).slice(0, 300), String(req.get('user-agent') ?? '').slice(0, 300));
      res.set({ 'Cache-Control': 'no-store', 'Content-Type': 'image/gif' }).status(200).send(PIXEL);
    } catch (error) {
      next(error);
    }
  });

  // A body over the cap, or one the parser could not read: refused with a page, nothing read or written.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith('/grow/')) return next(error);
    const status = (error as { status?: number; type?: string }).status;
    if (status === 413) return refuse(res, 413, 'too_large', 'Too much', 'Your answers were longer than this form accepts.');
    if (status && status >= 400 && status < 500) return refuse(res, 400, 'unreadable', 'Not accepted', 'Your answers could not be read.');
    next(error);
  });
  return router;
}

/** What the person typed, shown back (escaped) when their answers are refused, so they need not type it again. */
function partialValues(fields: readonly FormField[], raw: URLSearchParams): Record<string, Answer> {
  const out: Record<string, Answer> = {};
  for (const field of fields) {
    const value = raw.get(field.key);
    if (value === null) continue;
    out[field.key] = field.type === 'checkbox' || field.type === 'consent' || field.type === 'guardian_consent' ? value === 'yes' : value.slice(0, 2000);
  }
  return out;
}

export const growWebhooks: ModuleWebhook = { paths: ['/grow/'], router: growRouter };
