import { createHash } from 'node:crypto';
import type { Response } from 'express';

/**
 * Server-rendered pages people meet in a browser (OAuth sign-in and consent, the
 * approvals dashboard): escaping, one layout, and the headers every such page carries.
 */

/** HTML-escapes anything a client, a person or a URL put into a page: the one helper, core/html.ts. */
export { escapeHtml } from '../../core/html';
import { escapeHtml } from '../../core/html';

/** A page family's inline style sheet and its CSP hash (pages run no scripts and load nothing). */
export interface PageStyle {
  css: string;
  hash: string;
}

export function pageStyle(css: string): PageStyle {
  return { css, hash: createHash('sha256').update(css).digest('base64') };
}

/**
 * Headers for every page: never framed (clickjacking on an approve or consent
 * button is the classic attack), never cached, no scripts at all, forms only to
 * us (plus `formTargets`: on the consent page, the client's redirect origin,
 * which Chromium checks on redirects). Public pages that are the same for everyone may pass a cache policy.
 */
export function setPageHeaders(res: Response, style: PageStyle, formTargets: readonly string[] = [], cacheControl = 'no-store'): void {
  res.set({
    'Content-Security-Policy': [
      "default-src 'none'", `style-src 'sha256-${style.hash}'`, "frame-ancestors 'none'", "base-uri 'none'",
      `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'Cache-Control': cacheControl,
    // Not no-referrer: with it Chromium sends `Origin: null` on our own form posts, which the same-origin check must refuse.
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  });
}

export function sendHtmlPage(
  res: Response, page: { status: number; title: string; body: string; style: PageStyle; formTargets?: readonly string[]; cacheControl?: string },
): void {
  setPageHeaders(res, page.style, page.formTargets, page.cacheControl);
  res.status(page.status).type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Steward</title><style>${page.style.css}</style></head>
<body><main>${page.body}</main></body></html>`);
}
