import type { NextFunction, Request, Response, RequestHandler } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import type { Pool } from '../../db/pool';
import { looksLikeApiKey, principalForApiKey } from '../../kernel/api-keys';

// The SDK middleware wants an expiry. API keys have none; this bounds how long one
// verification may be trusted (each request verifies again, so revocation is immediate).
const VERIFICATION_VALIDITY_SECONDS = 300;

// header.payload.signature, each base64url.
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * One verifier for both kinds of bearer: API keys (by their prefix) and OAuth
 * access tokens (JWTs). Both end as the same Principal in AuthInfo.extra, so
 * nothing downstream knows or cares which it was.
 */
export function createTokenVerifier(pool: Pool, oauth?: OAuthTokenVerifier): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (looksLikeApiKey(token)) {
        const principal = await principalForApiKey(pool, token);
        if (!principal) throw new InvalidTokenError('Unknown or revoked API key');
        return {
          token,
          clientId: principal.credentialId,
          scopes: principal.scopes,
          expiresAt: Math.floor(Date.now() / 1000) + VERIFICATION_VALIDITY_SECONDS,
          extra: { principal },
        };
      }
      if (oauth && JWT_SHAPE.test(token)) return oauth.verifyAccessToken(token);
      throw new InvalidTokenError('Unrecognised access token');
    },
  };
}

/**
 * Query parameter names that look like a credential, compared without case or separators, so
 * `access_token`, `Access-Token` and `accessToken` are one name. Refusing the whole family (rather
 * than only the names we would read) means a client that put its key in the URL learns at once,
 * instead of being answered 401 as if it had sent nothing while the key sits in logs.
 */
const CREDENTIAL_NAME = /token|apikey|secret|password|credential|bearer|authorization|^auth$|^key$|^sessionid$/;

function credentialInQuery(query: Request['query']): boolean {
  return Object.entries(query).some(([name, value]) => {
    if (CREDENTIAL_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''))) return true;
    // Whatever the parameter is called, a value shaped like one of our API keys or a JWT is a credential.
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    return values.some((v) => looksLikeApiKey(v) || JWT_SHAPE.test(v) || /^bearer\s/i.test(v));
  });
}

/** Credentials belong in the Authorization header; a URL ends up in logs and browser history. */
function refuseQueryCredentials(req: Request, res: Response, next: NextFunction): void {
  if (credentialInQuery(req.query)) {
    res.status(400).json({ error: 'invalid_request', error_description: 'Send credentials in the Authorization header, never in the URL' });
    return;
  }
  next();
}

/**
 * Bearer authentication for API keys and OAuth access tokens. With
 * resourceMetadataUrl, every 401 carries `WWW-Authenticate: Bearer
 * resource_metadata="…"` so an MCP client can discover how to sign in (RFC 9728).
 */
export function bearerAuth(pool: Pool, resourceMetadataUrl?: string, oauth?: OAuthTokenVerifier): RequestHandler[] {
  return [refuseQueryCredentials, requireBearerAuth({ verifier: createTokenVerifier(pool, oauth), resourceMetadataUrl })];
}

export function principalOf(req: Request): Principal {
  const principal = (req as Request & { auth?: AuthInfo }).auth?.extra?.principal as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a request that skipped bearer auth');
  return principal;
}

/** Finds the scope refusal a tool call would meet, without starting anything (and without parsing its arguments). */
export interface ScopeResolver {
  scopeRefusal(principal: Principal, toolName: string, rawArgs: unknown): StewardError | undefined;
  /** Leaves the refusal in the audit trail (a refused write is a `denied` event). */
  recordRefusal?(principal: Principal, toolName: string, rawArgs: unknown, refusal: StewardError): Promise<void>;
}

function scopeRefusal(resolver: ScopeResolver, principal: Principal, toolName: unknown, args: unknown): StewardError | undefined {
  if (typeof toolName !== 'string') return undefined;
  return resolver.scopeRefusal(principal, toolName, args ?? {});
}

/** RFC 6750 3: quoted-string values may not contain a bare quote or backslash. */
function quoted(value: string): string {
  return value.replace(/["\\]/g, '');
}

function challenge(refusal: StewardError, resourceMetadataUrl: string): string {
  const scope = String(refusal.details?.requiredScope ?? '');
  return `Bearer error="insufficient_scope", scope="${quoted(scope)}", resource_metadata="${quoted(resourceMetadataUrl)}", error_description="${quoted(refusal.message)}"`;
}

/**
 * On /api/mcp, an OAuth token that lacks a tool's scope is answered at the HTTP
 * level, 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"`, so the client can step up its authorization (MCP authorization,
 * scope challenges). An API key cannot step up, so for keys the refusal stays
 * in-band as a tools/call result with isError and code insufficient_scope.
 * Runs after bearerAuth; anything it does not refuse goes on unchanged.
 */
export function mcpScopeChallenge(resolver: ScopeResolver, resourceMetadataUrl: string): RequestHandler {
  return async (req, res, next) => {
    const principal = principalOf(req);
    if (principal.credentialKind !== 'oauth') return next();
    const messages = (Array.isArray(req.body) ? req.body : [req.body]) as Array<{ id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null>;
    for (const message of messages) {
      if (!message || typeof message !== 'object' || message.method !== 'tools/call') continue;
      const refusal = scopeRefusal(resolver, principal, message.params?.name, message.params?.arguments);
      if (!refusal) continue;
      await resolver.recordRefusal?.(principal, String(message.params?.name), message.params?.arguments, refusal);
      res.status(403).set('WWW-Authenticate', challenge(refusal, resourceMetadataUrl)).json({
        jsonrpc: '2.0', id: message.id ?? null, error: { code: -32003, message: refusal.message, data: refusal.toBody() },
      });
      return;
    }
    next();
  };
}

/**
 * On the invoke bridge the refusal already is a 403; this adds the same
 * WWW-Authenticate challenge, for API keys and OAuth tokens alike, with the body
 * the bridge itself would have sent.
 */
export function invokeScopeChallenge(resolver: ScopeResolver, resourceMetadataUrl: string, path = '/api/agent/invoke'): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'POST' || req.path !== path) return next();
    const body = req.body as { tool?: unknown; arguments?: unknown } | undefined;
    const refusal = body && typeof body === 'object' ? scopeRefusal(resolver, principalOf(req), body.tool, body.arguments) : undefined;
    if (!refusal) return next();
    await resolver.recordRefusal?.(principalOf(req), String(body!.tool), body!.arguments, refusal);
    res.status(403).set('WWW-Authenticate', challenge(refusal, resourceMetadataUrl)).json({ ok: false, error: refusal.toBody() });
  };
}
