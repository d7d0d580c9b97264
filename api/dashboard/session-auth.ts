import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { STAFF_ROLES } from '../../core/roles';
import type { Pool } from '../../db/pool';
import { membershipsOf, sessionUser } from '../../kernel/oauth/sessions';
import { sessionTokenOf } from '../oauth/session-cookie';
import { fromOurPages } from '../pages/forms';
import { staffPrincipalOf } from './approvals';

/**
 * The dashboard reaches its API routes with the browser session (the `__Host-` cookie), not a
 * bearer token. A request with an Authorization header takes the bearer path; one without it
 * and with a session is a signed-in staff member, in the organisation `X-Steward-Org` names (or
 * their first). Writes must come from our own pages (the same-origin check the dashboard's
 * forms use), so another site cannot borrow the cookie.
 */
export function bearerOrSession(bearer: RequestHandler[], pool: Pool, origin: string): RequestHandler {
  // A router runs its handlers in order and then calls next, as if they were listed on the route.
  const bearerChain = Router().use(bearer);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.headers.authorization !== undefined || sessionTokenOf(req) === undefined) return bearerChain(req, res, next);
    void sessionPrincipal(req, res, next, pool, origin);
  };
}

async function sessionPrincipal(req: Request, res: Response, next: NextFunction, pool: Pool, origin: string): Promise<void> {
  try {
    const token = sessionTokenOf(req)!;
    if (req.method !== 'GET' && !fromOurPages(req, origin)) {
      res.status(403).json({ ok: false, error: { code: 'forbidden', message: 'Dashboard writes must come from Steward\'s own pages' } });
      return;
    }
    const user = await sessionUser(pool, token);
    if (!user) {
      res.status(401).json({ ok: false, error: { code: 'unauthorized', message: 'The dashboard session has ended; sign in again', hint: 'Sign in at /dashboard/sign-in.' } });
      return;
    }
    const memberships = (await membershipsOf(pool, user.userId)).filter((m) => STAFF_ROLES.includes(m.role));
    const wanted = req.headers['x-steward-org'];
    const membership = typeof wanted === 'string' ? memberships.find((m) => m.orgId === wanted) : memberships[0];
    if (!membership) {
      res.status(403).json({ ok: false, error: { code: 'forbidden', message: 'This session is not staff of that organisation' } });
      return;
    }
    const principal = staffPrincipalOf(user, membership, token);
    (req as Request & { auth?: AuthInfo }).auth = { token: '', clientId: 'dashboard', scopes: [...principal.scopes], extra: { principal } };
    next();
  } catch (error) {
    next(error);
  }
}
