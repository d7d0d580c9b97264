import express, { type NextFunction, type Request, type Response } from 'express';
import type { Pool } from '../../db/pool';
import { acceptInvite, inviteOffer, MIN_PASSWORD_LENGTH, type InviteOffer } from '../../modules/platform/team-accept';
import { INVITE_PAGE_PATH } from '../../modules/platform/team-invite-delivery';
import { sendPage } from '../oauth/pages';
import { csrfTokenOf, fromOurPages, safeEqual } from './forms';
import { escapeHtml } from './html';
import { errorFields, log } from '../../core/log';

/**
 * The page an emailed team invitation links to. No session exists yet, so the form's CSRF
 * token is bound to the invitation token in the URL: a page elsewhere that does not know
 * the link cannot forge the post, and the same-origin check stops one that does from
 * posting across sites. Password posts share the sign-in pages' rate limit.
 */

export interface TeamInviteOptions {
  pool: Pool;
  /** The configured public origin; form posts must come from it. */
  origin: string;
  signInLimiter: express.RequestHandler;
}

const csrfOf = (token: string) => csrfTokenOf('team-invite', token);

function sendGone(res: Response): void {
  sendPage(res, 410, 'Invitation unavailable', `<h1>This invitation cannot be used</h1>
<p class="alert" role="alert" id="error" data-error="invite_unavailable">The link has expired, was already used, or was replaced by a newer invitation.</p>
<p class="muted">Ask the person who invited you to send it again.</p>`);
}

function passwordFields(offer: InviteOffer): string {
  if (offer.hasAccount) {
    return `<p>You already have a Steward account: sign in to accept.</p>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">`;
  }
  return `<label for="displayName">Your name</label><input id="displayName" name="displayName" type="text" autocomplete="name" maxlength="200">
<label for="password">Choose a password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="1024">
<p class="muted">At least ${MIN_PASSWORD_LENGTH} characters.</p>`;
}

function sendOffer(res: Response, token: string, offer: InviteOffer, status = 200, error?: string): void {
  sendPage(res, status, 'Join the team', `<h1>Join ${escapeHtml(offer.orgName)}</h1>
<dl><dt>Email</dt><dd id="email">${escapeHtml(offer.email)}</dd><dt>Role</dt><dd id="role">${escapeHtml(offer.roleLabel)}</dd></dl>
${error ? `<p class="alert" role="alert" id="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${INVITE_PAGE_PATH}/${escapeHtml(token)}">
<input type="hidden" name="csrf" value="${csrfOf(token)}">
${passwordFields(offer)}
<button id="accept" type="submit">Accept invitation</button>
</form>`);
}

/** The link's token; its shape is checked where it is looked up. */
function tokenOf(req: Request): string {
  const token = req.params.token;
  return typeof token === 'string' ? token : '';
}

function field(req: Request, name: string, max: number): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value.length <= max ? value : '';
}

export function teamInviteRouter(options: TeamInviteOptions) {
  const { pool, origin } = options;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      log('error', 'team invite page failed', errorFields(error));
      sendPage(res, 500, 'Error', '<h1>Something went wrong</h1><p>Please try again.</p>');
    }
  };

  router.get(`${INVITE_PAGE_PATH}/:token`, guarded(async (req, res) => {
    const token = tokenOf(req);
    const offer = await inviteOffer(pool, token);
    if (!offer) return sendGone(res);
    sendOffer(res, token, offer);
  }));

  router.post(`${INVITE_PAGE_PATH}/:token`, options.signInLimiter, form, guarded(async (req, res) => {
    const token = tokenOf(req);
    if (!fromOurPages(req, origin)) return sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>This form must be sent from the invitation page.</p>');
    const csrf = field(req, 'csrf', 100);
    if (!csrf || !safeEqual(csrf, csrfOf(token))) return sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>The form has expired; open the invitation link again.</p>');
    const outcome = await acceptInvite(pool, token, { password: field(req, 'password', 1024), displayName: field(req, 'displayName', 200) });
    if (outcome.kind === 'invalid') return sendGone(res);
    if (outcome.kind !== 'joined') {
      const offer = await inviteOffer(pool, token);
      if (!offer) return sendGone(res);
      const message = outcome.kind === 'wrong_password' ? 'That password is not right' : `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters`;
      return sendOffer(res, token, offer, outcome.kind === 'wrong_password' ? 401 : 400, message);
    }
    sendPage(res, 200, 'Welcome', `<h1 id="joined">You have joined ${escapeHtml(outcome.orgName)}</h1>
<p>You are on the team as <strong id="role">${escapeHtml(outcome.roleLabel)}</strong>, signed in as ${escapeHtml(outcome.email)}.</p>
<p><a href="/dashboard/sign-in">Go to the dashboard</a></p>`);
  }));

  return router;
}
