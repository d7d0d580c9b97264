import express, { type NextFunction, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { INTENTS } from '../../core/intents';
import { ALL_SCOPES } from '../../core/scopes';
import type { Pool } from '../../db/pool';
import { AccessTokens } from '../../kernel/oauth/access-tokens';
import { PostgresClientsStore, redirectUriProblem, TOKEN_AUTH_METHODS } from '../../kernel/oauth/clients';
import { SigningKeys } from '../../kernel/oauth/keys';
import { INTENT_SCOPE_PREFIX, SCOPE_WORDS } from '../../kernel/oauth/scopes';
import { OAuthTokenService } from '../../kernel/oauth/token-service';
import { authorizeGuard } from './authorize-guard';
import { browserRoutes } from './browser';
import { clientAuthentication } from './client-auth';
import { sendErrorPage, sendPage } from './pages';
import { StewardOAuthProvider } from './provider';

export const MCP_PATH = '/api/mcp';

/** Requests per IP per window. Sign-in is the tight one: it is where passwords are guessed. */
export interface OAuthRateLimits {
  authorize: number;
  token: number;
  register: number;
  revoke: number;
  signIn: number;
}

const DEFAULT_LIMITS: OAuthRateLimits = { authorize: 300, token: 1000, register: 50, revoke: 300, signIn: 30 };
const WINDOW_MS = 15 * 60 * 1000;

export interface OAuthServerOptions {
  pool: Pool;
  /** The public base URL (scheme, host, port), which is also the issuer. */
  publicUrl: string;
  /** false turns rate limiting off (tests); otherwise per-endpoint overrides. */
  rateLimits?: false | Partial<OAuthRateLimits>;
}

const TOO_MANY = 'Too many requests; wait a few minutes and try again';

function limiter(limits: false | OAuthRateLimits, which: keyof OAuthRateLimits): express.RequestHandler {
  if (limits === false) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: WINDOW_MS, limit: limits[which], standardHeaders: 'draft-7', legacyHeaders: false,
    // People meet the browser endpoints: they get a page; programs get OAuth's JSON error shape.
    handler: (req, res) => {
      if (req.originalUrl.startsWith('/oauth/')) sendErrorPage(res, 429, 'too_many_requests', TOO_MANY);
      else if (req.originalUrl.startsWith('/dashboard/')) {
        sendPage(res, 429, 'Too many attempts', `<h1>Too many attempts</h1><p class="alert" role="alert" data-error="too_many_requests">${TOO_MANY}.</p>`);
      } else res.status(429).json({ error: 'too_many_requests', error_description: TOO_MANY });
    },
  });
}

/** RFC 7591 asks for invalid_redirect_uri; the SDK's schema would answer invalid_client_metadata first. */
function registrationGuard(req: Request, res: Response, next: NextFunction): void {
  res.set({ 'Cache-Control': 'no-store' });
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    res.status(400).json({ error: 'invalid_client_metadata', error_description: 'The body must be a JSON object of client metadata' });
    return;
  }
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    res.status(400).json({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must list at least one URI' });
    return;
  }
  const problem = uris.map(redirectUriProblem).find((p) => p !== null);
  if (problem) {
    res.status(400).json({ error: 'invalid_redirect_uri', error_description: problem });
    return;
  }
  next();
}

/** Body parse failures on OAuth endpoints answer in OAuth's own error shape (or as a page, in the browser). */
function parseErrors(error: Error & { status?: number; type?: string }, req: Request, res: Response, next: NextFunction): void {
  if (!error.type?.startsWith('entity.') && error.status !== 400 && error.status !== 413) return next(error);
  if (req.path.startsWith('/oauth/')) return sendErrorPage(res, 400, 'invalid_request', 'The form could not be read');
  const error_code = req.path.startsWith('/api/oauth/register') ? 'invalid_client_metadata' : 'invalid_request';
  res.status(400).set('Cache-Control', 'no-store').json({ error: error_code, error_description: error.type === 'entity.too.large' ? 'The body is too large' : 'The body could not be parsed' });
}

/**
 * The authorization server: discovery documents, registration, authorize (with
 * our sign-in and consent pages), token, revocation, the intent catalogue and
 * the JWKS. The endpoints are the MCP SDK's handlers over StewardOAuthProvider;
 * mcpAuthRouter itself cannot be used because it fixes the endpoint paths at
 * /authorize, /token and /register, and the spec places them elsewhere.
 */
export function createOAuthServer(options: OAuthServerOptions) {
  const issuer = options.publicUrl.replace(/\/+$/, '');
  const resource = `${issuer}${MCP_PATH}`;
  const keys = new SigningKeys(options.pool);
  const tokens = new OAuthTokenService(options.pool, new AccessTokens(keys, issuer, resource));
  const clients = new PostgresClientsStore(options.pool);
  const provider = new StewardOAuthProvider(options.pool, clients, tokens);
  const limits = options.rateLimits === false ? false : { ...DEFAULT_LIMITS, ...options.rateLimits };

  const metadata: OAuthMetadata = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/api/oauth/token`,
    registration_endpoint: `${issuer}/api/oauth/register`,
    revocation_endpoint: `${issuer}/api/oauth/revoke`,
    jwks_uri: `${issuer}/api/oauth/jwks`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    scopes_supported: [...ALL_SCOPES, ...INTENTS.map((intent) => `${INTENT_SCOPE_PREFIX}${intent.id}`)],
    authorization_response_iss_parameter_supported: true,
  };
  // Plain scopes only: a client that asks for everything it sees here still
  // names no intent, and the person picks one on the consent page.
  const protectedResource: OAuthProtectedResourceMetadata = {
    resource, authorization_servers: [issuer], scopes_supported: [...ALL_SCOPES], bearer_methods_supported: ['header'], resource_name: 'Steward',
  };

  const router = express.Router();
  router.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(resource), scopesSupported: [...ALL_SCOPES], resourceName: 'Steward' }));
  router.use('/.well-known/oauth-protected-resource', metadataHandler(protectedResource));

  router.use('/oauth/authorize', limiter(limits, 'authorize'), express.urlencoded({ extended: false, limit: '16kb' }), authorizeGuard(clients, resource),
    authorizationHandler({ provider, rateLimit: false }));
  router.use('/api/oauth/token', limiter(limits, 'token'), ...clientAuthentication(), tokenHandler({ provider, rateLimit: false }));
  router.use('/api/oauth/revoke', limiter(limits, 'revoke'), ...clientAuthentication(), revocationHandler({ provider, rateLimit: false }));
  router.use('/api/oauth/register', limiter(limits, 'register'), express.json({ limit: '64kb' }), registrationGuard,
    // Secrets that expire would strand clients that cannot re-register; they are revoked with their grants instead.
    clientRegistrationHandler({ clientsStore: clients, rateLimit: false, clientSecretExpirySeconds: 0 }));

  router.get('/api/oauth/intents', (_req, res) => {
    res.json({
      intents: INTENTS.map((intent) => ({ id: intent.id, purpose: intent.purpose, scopes: [...intent.scopes] })),
      scopes: ALL_SCOPES.map((scope) => ({ scope, description: SCOPE_WORDS[scope] })),
      howToRequest: `Send intent=<id> or the scope ${INTENT_SCOPE_PREFIX}<id> to ${metadata.authorization_endpoint}. Granted scopes are the intent's scopes that the person's role allows.`,
    });
  });
  router.get('/api/oauth/jwks', async (_req, res, next) => {
    try {
      res.json(await keys.jwks());
    } catch (error) {
      next(error);
    }
  });
  // One sign-in limiter for every password form (OAuth and the dashboard): guesses count together, whichever form they use.
  const signInLimiter = limiter(limits, 'signIn');
  router.use(browserRoutes({ pool: options.pool, clients, issuer, signInLimiter }));
  router.use(parseErrors);

  return {
    router,
    provider,
    tokens,
    keys,
    issuer,
    resource,
    /** The per-IP limit on password sign-ins, for any other sign-in form (the dashboard's). */
    signInLimiter,
    /** Where 401s on /api/mcp point (RFC 9728, path-suffixed form). */
    mcpResourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource${MCP_PATH}`,
    /** Where 401s on the bridges point. */
    resourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource`,
  };
}

export type OAuthServer = ReturnType<typeof createOAuthServer>;
