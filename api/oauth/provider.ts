import type { Response } from 'express';
import { OAuthError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Pool } from '../../db/pool';
import type { PostgresClientsStore } from '../../kernel/oauth/clients';
import { createAuthorizationRequest } from '../../kernel/oauth/requests';
import { sessionUser } from '../../kernel/oauth/sessions';
import type { OAuthTokenService } from '../../kernel/oauth/token-service';
import { CHECKED_AUTHORIZATION, type CheckedAuthorization } from './authorize-guard';
import { logFailure } from './log';
import { sessionTokenOf } from './session-cookie';

/**
 * The MCP SDK's provider interface over our Postgres services. The SDK's
 * handlers parse requests, check client credentials and PKCE; this decides.
 */
export class StewardOAuthProvider implements OAuthServerProvider {
  constructor(private readonly pool: Pool, readonly clientsStore: PostgresClientsStore, private readonly tokens: OAuthTokenService) {}

  /**
   * Parks the request and sends the browser to sign in (or, with a live
   * session, straight to consent). The pages are addressed by the request id,
   * so the client's parameters never travel through a form.
   */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const checked = res.locals[CHECKED_AUTHORIZATION] as CheckedAuthorization | undefined;
    if (!checked) throw new ServerError('The authorization request was not checked');
    const request = await createAuthorizationRequest(this.pool, {
      clientId: client.client_id, redirectUri: checked.redirectUri, redirectUriExplicit: checked.redirectUriExplicit,
      codeChallenge: params.codeChallenge, state: params.state ?? null, intent: checked.intent?.id ?? null,
      requestedScopes: checked.scopes, resource: checked.resource,
    });
    const signedIn = await sessionUser(this.pool, sessionTokenOf(res.req));
    const next = signedIn ? '/oauth/consent' : '/oauth/sign-in';
    res.redirect(303, `${next}?${new URLSearchParams({ request: request.id })}`);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return logged('code lookup', () => this.tokens.challengeFor(client.client_id, code));
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    return logged('code exchange', () => this.tokens.exchangeCode(client.client_id, code, redirectUri, resource));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return logged('refresh', () => this.tokens.refresh(client.client_id, refreshToken, scopes, resource));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const { principal, verified } = await logged('access token check', () => this.tokens.principalFor(token));
    return {
      token, clientId: verified.clientId, scopes: principal.scopes, expiresAt: verified.expiresAt,
      resource: new URL(verified.audience), extra: { principal },
    };
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return logged('revocation', () => this.tokens.revoke(client.client_id, request.token));
  }
}

/** The SDK turns unexpected errors into a bare server_error without a trace; this leaves one (without secrets). */
async function logged<T>(where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof OAuthError)) logFailure(where, error);
    throw error;
  }
}
