import { createHash } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { DateTime } from 'luxon';
import { escapeHtml } from '../../../core/html';
import { StewardError } from '../../../core/errors';
import { withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { organisationTimeZone } from '../../schedule/api';
import { removeOwnBlockout, upcomingBlockouts, type BlockoutView } from '../blockouts';
import { nameOr, namesOf, todayIn } from '../common';
import { BLOCKOUT_PATH, blockoutFormToken, checkBlockoutFormToken, readBlockoutToken } from '../links';
import { recordBlockout } from '../scheduling';
import { startSubstituteSearch } from './respond';

/**
 * A volunteer's own blockout page (links.ts, `/runsheet/blockouts/<token>`): the dates they cannot
 * serve, added and removed without a staff account. GET shows them and changes nothing. A POST is
 * refused, with nothing written, when it comes too often from one address, from another site
 * (Origin / Sec-Fetch-Site), in anything but a browser form's encoding, or without the page's own
 * form token (an HMAC over the link and the time the page was served, good for a day). Adding dates
 * does exactly what runsheet_record_blockout does: places held in them are given up and, on teams
 * with autoReplace, a substitute search starts for each. Every value shown is escaped; the page runs
 * no script, loads nothing from elsewhere and sets no cookie.
 */

const MAX_BODY = '4kb';
const MAX_SPAN_DAYS = 366;
const MAX_UPCOMING = 100;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const CSS = 'body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin-top:.8rem}'
  + 'input{font-size:1rem;padding:.4rem}button{font-size:1rem;padding:.5rem 1rem;margin-top:.8rem}li{margin:.4rem 0}li form{display:inline}li button{margin:0 0 0 .6rem;padding:.2rem .6rem}'
  + '.notice{border-left:4px solid #2e7d32;padding-left:.8rem}.error{border-left:4px solid #b00020;padding-left:.8rem}';
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

function sendPage(res: Response, status: number, title: string, body: string): void {
  res.set({
    'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff',
  });
  res.status(status).type('html').send('<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
    + `<title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`);
}

function refuse(res: Response, status: number, reason: string, text: string): void {
  res.set('X-Steward-Refusal', reason);
  sendPage(res, status, 'Nothing changed', `<h1>Nothing changed</h1><p data-refusal="${escapeHtml(reason)}">${escapeHtml(text)}</p>`);
}

const notRecognised = (res: Response) => sendPage(res, 404, 'Link not recognised',
  '<h1>This link is not recognised</h1><p>It may have been copied incompletely or be out of date. Ask your scheduler for a new one.</p>');

function crossSite(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  return Boolean(origin) && origin !== `${req.protocol}://${req.get('host')}`;
}

function postsPerMinute(): number {
  const raw = Number(process.env.RUNSHEET_PUBLIC_POSTS_PER_MINUTE ?? '20');
  return Number.isInteger(raw) && raw > 0 ? raw : 20;
}

const spoken = (date: string) => DateTime.fromISO(date).toFormat('ccc d LLL yyyy');

interface PageState { name: string; today: string; blockouts: BlockoutView[]; notice?: string; error?: string; values?: { startsOn: string; endsOn: string; reason: string } }

function renderPage(res: Response, status: number, linkToken: string, action: string, state: PageState): void {
  const formToken = escapeHtml(blockoutFormToken(linkToken, Date.now()));
  const hidden = `<input type="hidden" name="_token" value="${formToken}">`;
  const list = state.blockouts.length === 0 ? '<p>No dates blocked out.</p>' : `<ul>${state.blockouts.map((blockout) => `<li>${escapeHtml(spoken(blockout.startsOn))}`
    + (blockout.endsOn === blockout.startsOn ? '' : ` to ${escapeHtml(spoken(blockout.endsOn))}`) + (blockout.reason ? ` (${escapeHtml(blockout.reason)})` : '')
    + `<form method="post" action="${action}">${hidden}<input type="hidden" name="action" value="remove"><input type="hidden" name="blockoutId" value="${escapeHtml(blockout.id)}">`
    + '<button type="submit">Remove</button></form></li>').join('')}</ul>`;
  const values = state.values ?? { startsOn: '', endsOn: '', reason: '' };
  sendPage(res, status, 'Dates you cannot serve', `<h1>Dates you cannot serve</h1><p>Hello ${escapeHtml(state.name)}. Your scheduler will not ask you on these dates.</p>`
    + (state.notice ? `<p class="notice" role="status">${escapeHtml(state.notice)}</p>` : '') + (state.error ? `<p class="error" role="alert">${escapeHtml(state.error)}</p>` : '')
    + list + `<h2>Add dates</h2><form method="post" action="${action}">${hidden}<input type="hidden" name="action" value="add">`
    + `<label>From <input type="date" name="startsOn" required min="${escapeHtml(state.today)}" value="${escapeHtml(values.startsOn)}"></label>`
    + `<label>Until (leave empty for one day) <input type="date" name="endsOn" min="${escapeHtml(state.today)}" value="${escapeHtml(values.endsOn)}"></label>`
    + `<label>Why (optional) <input type="text" name="reason" maxlength="500" value="${escapeHtml(values.reason)}"></label><button type="submit">Block out these dates</button></form>`);
}

/** The dates of an "add" form, or what is wrong with them. */
export function readDates(form: URLSearchParams, today: string): { startsOn: string; endsOn: string; reason: string | undefined } | { error: string } {
  const startsOn = (form.get('startsOn') ?? '').trim();
  const endsOn = (form.get('endsOn') ?? '').trim() || startsOn;
  const valid = (date: string) => DATE.test(date) && DateTime.fromISO(date).isValid;
  if (!valid(startsOn) || !valid(endsOn)) return { error: 'Give the first date (and the last, for more than one day) as dates.' };
  if (endsOn < startsOn) return { error: 'The last date is before the first.' };
  if (endsOn < today) return { error: 'Those dates have passed.' };
  if (DateTime.fromISO(endsOn).diff(DateTime.fromISO(startsOn), 'days').days >= MAX_SPAN_DAYS) return { error: `Block out at most ${MAX_SPAN_DAYS} days at a time.` };
  const reason = (form.get('reason') ?? '').trim();
  if (reason.length > 500) return { error: 'Keep the reason under 500 characters.' };
  return { startsOn, endsOn, reason: reason || undefined };
}

type Outcome =
  | { kind: 'missing' }
  | { kind: 'page'; status: number; state: PageState; searches: string[] };

function blockoutRouter(deps: WebhookDeps): Router {
  const router = Router();
  const postLimiter = rateLimit({
    windowMs: 60_000, limit: () => postsPerMinute(), standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => refuse(res, 429, 'rate_limited', 'Too many changes came from your address just now. Please wait a minute and try again.'),
  });
  const viewLimiter = rateLimit({
    windowMs: 60_000, limit: () => postsPerMinute() * 10, standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => refuse(res, 429, 'rate_limited', 'Please wait a minute and try again.'),
  });

  /** Reads everything the page shows, in the organisation's tenant transaction; null when the contact is gone (erased or merged away). */
  async function pageState(db: Parameters<typeof upcomingBlockouts>[0], orgId: string, contactId: string): Promise<PageState | null> {
    const names = await namesOf(db, orgId, [contactId]);
    if (!names.has(contactId)) return null;
    const today = todayIn(await organisationTimeZone(db, orgId));
    return { name: nameOr(names, contactId), today, blockouts: (await upcomingBlockouts(db, orgId, contactId, today)).slice(0, MAX_UPCOMING) };
  }

  router.get(`${BLOCKOUT_PATH}/:token`, viewLimiter, async (req, res, next) => {
    try {
      const linkToken = String(req.params.token).slice(0, 300);
      const named = readBlockoutToken(linkToken);
      if (!named) return notRecognised(res);
      const state = await withTenantTransaction(deps.pool, named.orgId, (db) => pageState(db, named.orgId, named.contactId), { readOnly: true });
      if (!state) return notRecognised(res);
      renderPage(res, 200, linkToken, escapeHtml(req.originalUrl), state);
    } catch (error) {
      next(error);
    }
  });

  router.post(`${BLOCKOUT_PATH}/:token`, postLimiter, express.raw({ type: () => true, limit: MAX_BODY }), async (req, res, next) => {
    try {
      const linkToken = String(req.params.token).slice(0, 300);
      const named = readBlockoutToken(linkToken);
      if (!named) return notRecognised(res);
      if (crossSite(req)) return refuse(res, 403, 'cross_site', 'Changes can only be made from the page itself.');
      const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') return refuse(res, 415, 'bad_content_type', 'This page takes only what a browser sends from its own forms.');
      const form = new URLSearchParams(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
      if (!checkBlockoutFormToken(linkToken, form.get('_token') ?? '', Date.now())) {
        return refuse(res, 403, 'bad_token', 'The page was open too long or did not come from us. Please open your link again.');
      }
      const action = form.get('action');
      if (action !== 'add' && action !== 'remove') return refuse(res, 400, 'bad_action', 'Use the buttons on the page.');
      const { orgId, contactId } = named;
      const outcome = await withTenantTransaction(deps.pool, orgId, async (db): Promise<Outcome> => {
        const before = await pageState(db, orgId, contactId);
        if (!before) return { kind: 'missing' };
        if (action === 'remove') {
          const blockoutId = form.get('blockoutId') ?? '';
          try {
            const removed = await removeOwnBlockout(db, orgId, contactId, /^[0-9a-f-]{36}$/i.test(blockoutId) ? blockoutId : '00000000-0000-0000-0000-000000000000');
            return { kind: 'page', status: 200, state: { ...(await pageState(db, orgId, contactId))!, notice: `Removed: ${spoken(removed.startsOn)}${removed.endsOn === removed.startsOn ? '' : ` to ${spoken(removed.endsOn)}`}.` }, searches: [] };
          } catch (error) {
            if (error instanceof StewardError && error.code === 'not_found') return { kind: 'page', status: 404, state: { ...before, error: 'That date was not found; it may have been removed already.' }, searches: [] };
            throw error;
          }
        }
        const dates = readDates(form, before.today);
        if ('error' in dates) {
          return { kind: 'page', status: 400, state: { ...before, error: dates.error, values: { startsOn: form.get('startsOn') ?? '', endsOn: form.get('endsOn') ?? '', reason: (form.get('reason') ?? '').slice(0, 500) } }, searches: [] };
        }
        const recorded = await recordBlockout(db, orgId, { contactId, ...dates });
        const given = recorded.released.length;
        const notice = `Saved. ${given === 0 ? 'You were not down to serve on those dates.' : `You were down to serve ${given} time(s) then: those places are given up so someone else can be asked.`}`;
        return { kind: 'page', status: 200, state: { ...(await pageState(db, orgId, contactId))!, notice }, searches: recorded.released.flatMap((row) => (row.substitutionId ? [row.substitutionId] : [])) };
      });
      if (outcome.kind === 'missing') return notRecognised(res);
      // After the commit: the substitute searches the blockout opened start.
      for (const substitutionId of outcome.searches) await startSubstituteSearch(deps, orgId, substitutionId);
      renderPage(res, outcome.status, linkToken, escapeHtml(req.originalUrl), outcome.state);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const blockoutWebhooks: ModuleWebhook = { paths: [`${BLOCKOUT_PATH}/`], router: blockoutRouter };
