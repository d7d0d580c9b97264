import { Router } from 'express';
import { escapeHtml } from '../../../core/html';
import { withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { verifyCardSampleToken, visitorCardForm } from './qr';

export const VISITOR_CARD_PATH = '/people/visitor-card';
export const visitorCardPreviewPath = (orgId: string, token: string) => `${VISITOR_CARD_PATH}/${orgId}?token=${encodeURIComponent(token)}`;

type CardField = Awaited<ReturnType<typeof visitorCardForm>>['fields'][number];

/** One field as the card shows it; every label and option is the organisation's text, so escaped. */
function fieldHtml(field: CardField): string {
  const id = `f-${escapeHtml(field.key)}`;
  const label = `<label for="${id}">${escapeHtml(field.label)}${field.required ? ' <span aria-hidden="true">*</span>' : ''}</label>`;
  const required = field.required ? ' required' : '';
  if (field.type === 'boolean') return `<p class="check"><input type="checkbox" id="${id}" name="${escapeHtml(field.key)}"${required}> ${label}</p>`;
  if (field.type === 'textarea') return `<p>${label}<textarea id="${id}" name="${escapeHtml(field.key)}" rows="3"${required}></textarea></p>`;
  if (field.options && field.options.length > 0) {
    const options = field.options.map((option) => `<option>${escapeHtml(option)}</option>`).join('');
    return `<p>${label}<select id="${id}" name="${escapeHtml(field.key)}"${required}><option value=""></option>${options}</select></p>`;
  }
  const type = ['email', 'tel', 'date', 'number'].includes(field.type) ? field.type : 'text';
  return `<p>${label}<input type="${type}" id="${id}" name="${escapeHtml(field.key)}"${required}></p>`;
}

/** The card as a visitor would see it, marked as a preview: its form has no action and its button is disabled. */
export function visitorCardPage(form: Awaited<ReturnType<typeof visitorCardForm>>, expiresAt: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Visitor card (preview)</title>
<style>body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}main{max-width:32rem;margin:1rem auto;background:#fff;border-radius:.5rem;padding:1rem 1.2rem}
.banner{background:#fff4d6;border:1px solid #e0c36b;padding:.5rem .7rem;border-radius:.4rem}label{display:block;margin:.2rem 0}
input,textarea,select,button{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}.check input{width:auto}.check label{display:inline}.note{color:#666;font-size:.85rem}</style></head>
<body><main><p class="banner" role="status">Preview only: this card cannot be sent, and nothing typed here is kept. The preview link works until ${escapeHtml(expiresAt)}.</p>
<h1>Welcome! Tell us about you</h1>
<form id="visitor-card">${form.fields.map(fieldHtml).join('\n')}
<p class="note">${escapeHtml(form.consentNote)}</p><button type="submit" disabled>Send (disabled in the preview)</button></form></main></body></html>`;
}

const NOT_FOUND = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><p>This preview link is not valid, or has expired.</p></body></html>';

/**
 * The visitor card's preview page (GET /people/visitor-card/<org>?token=<sample token from
 * people_get_card_sample_token>): the card's fields as a visitor would see them, never a way to
 * create a contact. A missing, wrong, other organisation's or expired token gets the same 404.
 * No script runs (CSP default-src 'none'), and form submission is refused by the CSP too.
 */
function visitorCardRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.get(`${VISITOR_CARD_PATH}/:orgId`, async (req, res, next) => {
    try {
      res.setHeader('cache-control', 'no-store');
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      const token = typeof req.query.token === 'string' && req.query.token.length <= 300 ? req.query.token : '';
      const orgId = req.params.orgId;
      if (!token || !verifyCardSampleToken(orgId, token)) return void res.status(404).type('html').send(NOT_FOUND);
      const expiresAt = new Date(Number(token.split('.')[2]) * 1000).toISOString();
      const form = await withTenantTransaction(deps.pool, orgId, (db) => visitorCardForm(db, orgId), { readOnly: true });
      res.type('html').send(visitorCardPage(form, expiresAt));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const visitorCardWebhook: ModuleWebhook = { paths: [VISITOR_CARD_PATH], router: visitorCardRouter };
