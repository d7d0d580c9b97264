import type { Request } from 'express';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { scopesAllowedForRole, type Role } from '../../core/roles';
import type { Scope } from '../../core/scopes';
import type { Pool } from '../../db/pool';
import { membershipsOf, sessionUser } from '../../kernel/oauth/sessions';
import { createTokenVerifier } from '../middleware/auth';
import { sessionTokenOf } from '../oauth/session-cookie';

/**
 * Who may read decoded workflow payloads: an organisation's owners and admins,
 * and only with the scopes that cover everything a payload can hold. A payload
 * may carry any tool's arguments or result, confidential pastoral notes
 * included, so `people:safeguarding` is needed as well as `audit:read` (which
 * staff never get): a narrowly scoped key of an owner reads nothing here.
 */
export const CODEC_ROLES: readonly Role[] = ['owner', 'admin'];
export const CODEC_SCOPES: readonly Scope[] = ['audit:read', 'people:safeguarding'];

/** The organisations whose payloads the caller may read, and the one /encode seals for. */
export interface CodecCaller {
  readableOrgs: ReadonlySet<string>;
  encodeOrg: string;
}

interface Candidate {
  orgId: string;
  role: Role;
  scopes: readonly Scope[];
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function unauthorized(message: string): StewardError {
  return new StewardError('unauthorized', message, {
    hint: 'Send an owner\'s or admin\'s Steward API key or access token as "Authorization: Bearer …", or sign in at /dashboard and let the Temporal UI include cross-origin credentials',
  });
}

/**
 * Only owners and admins holding CODEC_SCOPES; the refusal says which of the
 * two was missing (role first, as for staff the scopes are beside the point).
 */
function authorise(candidates: Candidate[]): CodecCaller {
  const byRole = candidates.filter((c) => CODEC_ROLES.includes(c.role));
  if (byRole.length === 0) throw new StewardError('forbidden', 'Only an organisation\'s owners and admins may read workflow payloads');
  const eligible = byRole.filter((c) => CODEC_SCOPES.every((scope) => c.scopes.includes(scope)));
  if (eligible.length === 0) {
    const missing = CODEC_SCOPES.filter((scope) => !byRole.some((c) => c.scopes.includes(scope)));
    throw new StewardError('insufficient_scope', `Reading workflow payloads needs ${CODEC_SCOPES.join(' and ')}, since they can hold confidential notes`, {
      details: { requiredScope: (missing[0] ?? CODEC_SCOPES[0]) as string, requiredScopes: [...CODEC_SCOPES] },
    });
  }
  return { readableOrgs: new Set(eligible.map((c) => c.orgId)), encodeOrg: eligible[0].orgId };
}

export interface CallerResolverOptions {
  pool: Pool;
  oauth?: OAuthTokenVerifier;
  /** Browser origins a cookie-authenticated request may come from (besides none at all). */
  cookieOrigins: ReadonlySet<string>;
}

/**
 * Resolves a codec request to its caller: a Steward bearer credential (API key
 * or OAuth access token), else the dashboard session cookie. A bearer Steward
 * does not recognise (the Temporal UI's own access token, when "pass access
 * token" is on) falls through to the cookie rather than refusing outright.
 */
export function codecCallerResolver(options: CallerResolverOptions) {
  const verifier = createTokenVerifier(options.pool, options.oauth);

  async function fromBearer(req: Request): Promise<Candidate[] | undefined> {
    const header = req.headers.authorization;
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) return undefined;
    try {
      const info = await verifier.verifyAccessToken(token);
      const principal = info.extra?.principal as Principal | undefined;
      return principal ? [{ orgId: principal.orgId, role: principal.role, scopes: principal.scopes }] : undefined;
    } catch {
      return undefined;
    }
  }

  async function fromSession(req: Request): Promise<Candidate[] | undefined> {
    const token = sessionTokenOf(req);
    if (!token) return undefined;
    // A cookie rides along with any request the browser makes: only the UI (or a CLI, which sends no Origin) may use it.
    const origin = req.headers.origin;
    if (origin && !options.cookieOrigins.has(origin)) return undefined;
    const user = await sessionUser(options.pool, token);
    if (!user) return undefined;
    const memberships = await membershipsOf(options.pool, user.userId);
    // The same scopes the dashboard gives a signed-in member of each organisation.
    return memberships.map((m) => ({ orgId: m.orgId, role: m.role, scopes: scopesAllowedForRole(m.role, m.safeguarding) }));
  }

  return async function resolve(req: Request): Promise<CodecCaller> {
    const candidates = (await fromBearer(req)) ?? (await fromSession(req));
    if (!candidates) {
      throw unauthorized(req.headers.authorization ? 'Unknown, revoked or expired credential' : 'Sign in to read workflow payloads');
    }
    return authorise(candidates);
  };
}
