import type { NextFunction, Request, Response, RequestHandler } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../../core/principal';
import type { Pool } from '../../db/pool';
import { looksLikeApiKey, principalForApiKey } from '../../modules/platform/api-keys';

// The SDK middleware wants an expiry. API keys have none; this bounds how long one
// verification may be trusted (each request verifies again, so revocation is immediate).
const VERIFICATION_VALIDITY_SECONDS = 300;

export function createTokenVerifier(pool: Pool) {
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
      throw new InvalidTokenError('Unrecognised access token');
    },
  };
}

/** Credentials belong in the Authorization header; a URL ends up in logs and browser history. */
function refuseQueryCredentials(req: Request, res: Response, next: NextFunction): void {
  if ('access_token' in req.query || 'api_key' in req.query || 'apiKey' in req.query) {
    res.status(400).json({ error: 'invalid_request', error_description: 'Send credentials in the Authorization header, never in the URL' });
    return;
  }
  next();
}

export function bearerAuth(pool: Pool, resourceMetadataUrl?: string): RequestHandler[] {
  return [refuseQueryCredentials, requireBearerAuth({ verifier: createTokenVerifier(pool), resourceMetadataUrl })];
}

export function principalOf(req: Request): Principal {
  const principal = (req as Request & { auth?: AuthInfo }).auth?.extra?.principal as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a request that skipped bearer auth');
  return principal;
}
