import express, { type NextFunction, type Request, type Response } from 'express';
import { findIntent, INTENTS, type Intent } from '../../core/intents';
import type { Pool } from '../../db/pool';
import { clientDisplayName, type PostgresClientsStore } from '../../kernel/oauth/clients';
import { issueCode } from '../../kernel/oauth/codes';
import { createGrant } from '../../kernel/oauth/grants';
import { completeRequest, findOpenRequest, type AuthorizationRequest } from '../../kernel/oauth/requests';
import { grantScopes } from '../../kernel/oauth/scopes';
import { checkPassword, createSession, membershipsOf, sessionUser, type OrgMembership, type SignedInUser } from '../../kernel/oauth/sessions';
import { withTransaction } from '../../db/pool';
import { csrfTokenOf, fromOurPages, safeEqual } from '../pages/forms';
import { logFailure } from './log';
import { sendConsentPage, sendErrorPage, sendIntentChooser, sendOrgChooser, sendSignInPage } from './pages';
import { sessionTokenOf, setSessionCookie } from './session-cookie';

const EXPIRED_REQUEST = 'This sign-in request has expired or was already answered. Go back to the assistant and connect again.';

export interface BrowserRoutesOptions {
  pool: Pool;
  clients: PostgresClientsStore;
  issuer: string;
  signInLimiter: express.RequestHandler;
}

/** The consent form's CSRF token: bound to this browser's session and this request, so a forged post cannot carry it. */
function csrfToken(sessionToken: string, requestId: string): string {
  return csrfTokenOf('consent', sessionToken, requestId);
}

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** The redirect back to the client, with iss (RFC 9207) so it can tell which server answered. */
function redirectBack(request: AuthorizationRequest, issuer: string, params: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (request.state !== null) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

function chooseIntent(request: AuthorizationRequest, fromForm: unknown): { intent?: Intent; error?: string } {
  const chosen = typeof fromForm === 'string' && fromForm !== '' ? fromForm : undefined;
  if (request.intent && chosen && chosen !== request.intent) return { error: 'The intent cannot be changed from the one the application asked for' };
  const id = request.intent ?? chosen;
  if (!id) return {};
  const intent = findIntent(id);
  return intent ? { intent } : { error: `Unknown intent "${id}"` };
}

function chooseOrg(memberships: OrgMembership[], fromForm: unknown): { membership?: OrgMembership; error?: string } {
  if (typeof fromForm === 'string' && fromForm !== '') {
    const membership = memberships.find((m) => m.orgId === fromForm);
    return membership ? { membership } : { error: 'You are not a member of that organisation' };
  }
  return memberships.length === 1 ? { membership: memberships[0] } : {};
}

export function browserRoutes(options: BrowserRoutesOptions) {
  const { pool, clients, issuer } = options;
  const origin = new URL(issuer).origin;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function clientNameOf(request: AuthorizationRequest): Promise<string> {
    const client = await clients.getClient(request.clientId);
    return client ? clientDisplayName(client) : 'An application';
  }

  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      logFailure(`${req.method} ${req.path}`, error);
      sendErrorPage(res, 500, 'server_error', 'Something went wrong on our side; please try again');
    }
  };

  router.get('/oauth/sign-in', guarded(async (req, res) => {
    const request = await findOpenRequest(pool, req.query.request);
    if (!request) return sendErrorPage(res, 400, 'invalid_request', EXPIRED_REQUEST);
    sendSignInPage(res, { clientName: await clientNameOf(request), requestId: request.id });
  }));

  router.post('/oauth/sign-in', options.signInLimiter, form, guarded(async (req, res) => {
    if (!fromOurPages(req, origin)) return sendErrorPage(res, 403, 'access_denied', 'This form must be sent from the Steward sign-in page');
    const request = await findOpenRequest(pool, req.body?.request);
    if (!request) return sendErrorPage(res, 400, 'invalid_request', EXPIRED_REQUEST);
    const email = text(req.body.email, 320)?.trim();
    const password = text(req.body.password, 1024);
    const clientName = await clientNameOf(request);
    if (!email || !password) {
      return sendSignInPage(res, { status: 400, clientName, requestId: request.id, email, error: 'Enter your email and password' });
    }
    const user = await checkPassword(pool, email, password);
    if (!user) return sendSignInPage(res, { status: 401, clientName, requestId: request.id, email, error: 'Email or password is incorrect' });
    const session = await createSession(pool, user.userId);
    setSessionCookie(res, session.token, session.maxAgeSeconds);
    res.redirect(303, `/oauth/consent?${new URLSearchParams({ request: request.id })}`);
  }));

  /** The signed-in person, or a redirect to sign in (for GET) / an error page (for POST). */
  async function signedIn(req: Request, res: Response, request: AuthorizationRequest): Promise<{ user: SignedInUser; sessionToken: string } | undefined> {
    const sessionToken = sessionTokenOf(req);
    const user = sessionToken ? await sessionUser(pool, sessionToken) : undefined;
    if (user && sessionToken) return { user, sessionToken };
    if (req.method === 'GET') res.redirect(303, `/oauth/sign-in?${new URLSearchParams({ request: request.id })}`);
    else sendErrorPage(res, 401, 'login_required', 'Your sign-in has expired. Go back to the assistant and connect again.');
    return undefined;
  }

  router.get('/oauth/consent', guarded(async (req, res) => {
    const request = await findOpenRequest(pool, req.query.request);
    if (!request) return sendErrorPage(res, 400, 'invalid_request', EXPIRED_REQUEST);
    const session = await signedIn(req, res, request);
    if (!session) return;
    const memberships = await membershipsOf(pool, session.user.userId);
    if (memberships.length === 0) return sendErrorPage(res, 403, 'access_denied', 'Your account is not a member of any organisation');
    const org = chooseOrg(memberships, req.query.org);
    if (org.error) return sendErrorPage(res, 403, 'access_denied', org.error);
    const chosen = chooseIntent(request, req.query.intent);
    if (chosen.error) return sendErrorPage(res, 400, 'invalid_scope', chosen.error);
    if (!org.membership) return sendOrgChooser(res, { requestId: request.id, memberships, intent: chosen.intent?.id });
    const { membership } = org;
    const clientName = await clientNameOf(request);
    if (!chosen.intent) {
      const intents = INTENTS.map((intent) => ({ intent, granted: grantScopes(intent, membership.role, membership.safeguarding, request.requestedScopes).granted }))
        .filter((option) => option.granted.length > 0);
      return sendIntentChooser(res, { requestId: request.id, orgId: membership.orgId, clientName, intents });
    }
    const { granted, withheld } = grantScopes(chosen.intent, membership.role, membership.safeguarding, request.requestedScopes);
    if (granted.length === 0) {
      return sendErrorPage(res, 403, 'access_denied', `Your role (${membership.role}) allows none of what the ${chosen.intent.id} intent needs`);
    }
    const redirect = new URL(request.redirectUri);
    sendConsentPage(res, {
      clientName, redirectHost: redirect.host, redirectOrigin: redirect.origin, orgName: membership.orgName, orgId: membership.orgId,
      role: membership.role, email: session.user.email, intent: chosen.intent, granted, withheld, requestId: request.id,
      csrf: csrfToken(session.sessionToken, request.id),
    });
  }));

  router.post('/oauth/consent', form, guarded(async (req, res) => {
    if (!fromOurPages(req, origin)) return sendErrorPage(res, 403, 'access_denied', 'This form must be sent from the Steward consent page');
    const open = await findOpenRequest(pool, req.body?.request);
    if (!open) return sendErrorPage(res, 400, 'invalid_request', EXPIRED_REQUEST);
    const session = await signedIn(req, res, open);
    if (!session) return;
    const csrf = text(req.body.csrf, 100);
    if (!csrf || !safeEqual(csrf, csrfToken(session.sessionToken, open.id))) {
      return sendErrorPage(res, 403, 'access_denied', 'This consent form is not valid for your session; go back to the assistant and connect again');
    }
    const decision = req.body.decision;
    if (decision !== 'allow' && decision !== 'deny') return sendErrorPage(res, 400, 'invalid_request', 'Choose Allow or Deny');
    const memberships = await membershipsOf(pool, session.user.userId);
    const org = chooseOrg(memberships, req.body.org);
    const chosen = chooseIntent(open, req.body.intent);
    if (!org.membership || !chosen.intent) return sendErrorPage(res, 400, 'invalid_request', org.error ?? chosen.error ?? 'Choose an organisation and an intent');
    // Only one answer per request, however often the form is sent.
    const request = await completeRequest(pool, open.id);
    if (!request) return sendErrorPage(res, 400, 'invalid_request', EXPIRED_REQUEST);
    if (decision === 'deny') {
      res.redirect(303, redirectBack(request, issuer, { error: 'access_denied', error_description: 'The person declined the request' }));
      return;
    }
    const { granted } = grantScopes(chosen.intent, org.membership.role, org.membership.safeguarding, request.requestedScopes);
    if (granted.length === 0) return sendErrorPage(res, 403, 'access_denied', `Your role (${org.membership.role}) allows none of what the ${chosen.intent.id} intent needs`);
    const membership = org.membership;
    const intent = chosen.intent;
    const code = await withTransaction(pool, async (db) => {
      const grant = await createGrant(db, {
        clientId: request.clientId, orgId: membership.orgId, userId: session.user.userId, intent: intent.id, scopes: granted, resource: request.resource,
      });
      return issueCode(db, {
        grantId: grant.id, clientId: request.clientId, redirectUri: request.redirectUri,
        redirectUriExplicit: request.redirectUriExplicit, codeChallenge: request.codeChallenge,
      });
    });
    res.redirect(303, redirectBack(request, issuer, { code }));
  }));

  return router;
}
