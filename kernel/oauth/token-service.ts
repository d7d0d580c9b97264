import { InvalidGrantError, InvalidScopeError, InvalidTargetError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Principal } from '../../core/principal';
import type { Pool } from '../../db/pool';
import { AccessTokens, type VerifiedAccessToken } from './access-tokens';
import { challengeForCode, redeemCode } from './codes';
import { grantHolder, revokeGrant, type Grant } from './grants';
import { grantOfRefreshToken, issueRefreshToken, looksLikeRefreshToken, spendRefreshToken } from './refresh-tokens';

export const GRANT_ERRORS = {
  memberGone: 'The person who consented is no longer a member of the organisation',
  nothingLeft: "The person's role no longer allows any scope of this grant",
  revokedToken: 'Access token has been revoked',
  memberGoneToken: 'The account behind this access token is no longer a member of the organisation',
} as const;

/** Issues, refreshes, verifies and revokes tokens; the SDK's handlers call it through the provider. */
export class OAuthTokenService {
  constructor(private readonly pool: Pool, readonly accessTokens: AccessTokens) {}

  get resource(): string {
    return this.accessTokens.audience;
  }

  /** RFC 8707: a client may only ask for tokens for the one resource we protect. */
  checkResource(resource: URL | string | undefined): void {
    if (resource === undefined) return;
    const href = typeof resource === 'string' ? resource : resource.href;
    if (href !== this.resource) throw new InvalidTargetError(`resource must be ${this.resource}`);
  }

  challengeFor(clientId: string, code: string): Promise<string> {
    return challengeForCode(this.pool, clientId, code);
  }

  async exchangeCode(clientId: string, code: string, redirectUri: string | undefined, resource: URL | undefined): Promise<OAuthTokens> {
    this.checkResource(resource);
    const grant = await redeemCode(this.pool, clientId, code, redirectUri);
    return this.issue(grant);
  }

  async refresh(clientId: string, refreshToken: string, scopes: string[] | undefined, resource: URL | undefined): Promise<OAuthTokens> {
    this.checkResource(resource);
    const narrower = scopes?.filter(Boolean) ?? [];
    // Checked before the token is spent: a bad request must not cost the client its refresh token.
    const grant = await spendRefreshToken(this.pool, clientId, refreshToken, (found) => {
      const beyond = narrower.filter((scope) => !(found.scopes as string[]).includes(scope));
      return beyond.length > 0 ? new InvalidScopeError(`A refresh may only narrow the grant; not granted: ${beyond.join(', ')}`) : undefined;
    });
    return this.issue(grant, narrower.length > 0 ? narrower : undefined);
  }

  /** Scopes are re-derived from the person's role at every issue: a demotion takes effect at the next refresh. */
  private async issue(grant: Grant, narrowTo?: string[]): Promise<OAuthTokens> {
    const holder = await grantHolder(this.pool, grant.id);
    if (!holder?.role) throw new InvalidGrantError(GRANT_ERRORS.memberGone);
    const scopes = holder.scopes.filter((scope) => !narrowTo || narrowTo.includes(scope));
    if (scopes.length === 0) throw new InvalidGrantError(GRANT_ERRORS.nothingLeft);
    const refreshToken = await issueRefreshToken(this.pool, grant.id, grant.clientId);
    const access = await this.accessTokens.sign({ grantId: grant.id, userId: grant.userId, orgId: grant.orgId, clientId: grant.clientId, intent: grant.intent, scopes });
    return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refreshToken, scope: scopes.join(' ') };
  }

  /**
   * The principal behind an access token. The grant is looked up on every request,
   * so revoking it (code reuse, refresh replay, revocation endpoint) takes effect at once.
   */
  async principalFor(token: string): Promise<{ principal: Principal; verified: VerifiedAccessToken }> {
    const verified = await this.accessTokens.verify(token);
    const holder = await grantHolder(this.pool, verified.grantId);
    if (!holder || holder.grant.revokedAt) throw new InvalidTokenError(GRANT_ERRORS.revokedToken);
    if (holder.grant.userId !== verified.userId || holder.grant.orgId !== verified.orgId) throw new InvalidTokenError('Access token is invalid');
    if (!holder.role) throw new InvalidTokenError(GRANT_ERRORS.memberGoneToken);
    const scopes = verified.scopes.filter((scope) => holder.scopes.includes(scope));
    return {
      verified,
      principal: {
        orgId: holder.grant.orgId, userId: holder.grant.userId, role: holder.role, scopes, intent: holder.grant.intent,
        credentialId: holder.grant.id, credentialKind: 'oauth',
      },
    };
  }

  /** RFC 7009: revoking either token revokes the grant; unknown tokens and other clients' tokens change nothing. */
  async revoke(clientId: string, token: string): Promise<void> {
    const grantId = looksLikeRefreshToken(token)
      ? await grantOfRefreshToken(this.pool, clientId, token)
      : await this.accessTokens.grantIdOf(token).then((found) => (found?.clientId === clientId ? found.grantId : undefined));
    if (grantId) await revokeGrant(this.pool, grantId, 'revoked by the client');
  }
}
