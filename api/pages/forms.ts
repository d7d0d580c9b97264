import { createHash } from 'node:crypto';
import type { Request } from 'express';

export { safeEqual } from '../../kernel/oauth/secrets';

/**
 * Form posts must come from our own pages. SameSite=Lax already keeps the
 * session cookie off cross-site posts; this also stops login CSRF, where a
 * foreign page signs the victim's browser into the attacker's account.
 * `origin` is the configured public origin (the OAuth issuer's), never one
 * derived from the request's own Host header, which the sender controls.
 */
export function fromOurPages(req: Request, origin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const requestOrigin = req.headers.origin;
  return requestOrigin === undefined || requestOrigin === origin;
}

/** A form's CSRF token: bound to this browser's session (and whatever else `binding` names), so a forged post cannot carry it. */
export function csrfTokenOf(purpose: string, sessionToken: string, ...binding: string[]): string {
  return createHash('sha256').update([purpose, sessionToken, ...binding].join('\n')).digest('base64url');
}
