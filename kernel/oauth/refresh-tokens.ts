import type { RowOf } from '../../modules/kit';
import type { OAuthRefreshToken } from '../models/oauth-refresh-tokens';
import { InvalidGrantError, type OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { queryOne, withTransaction, type Pool, type Queryable } from '../../db/pool';
import { findGrant, revokeGrant, type Grant } from './grants';
import { hashSecret, LIFETIMES, newSecret, REFRESH_TOKEN_PREFIX } from './secrets';

export const REFRESH_ERRORS = {
  unknown: 'Unknown refresh token',
  replayed: 'Refresh token was already used; every token of this grant has been revoked, so sign in again',
  expired: 'Refresh token has expired; sign in again',
  otherClient: 'Refresh token was issued to another client',
  revoked: 'This grant has been revoked; sign in again',
} as const;

export function looksLikeRefreshToken(token: string): boolean {
  return token.startsWith(REFRESH_TOKEN_PREFIX);
}

export async function issueRefreshToken(db: Queryable, grantId: string, clientId: string): Promise<string> {
  const token = newSecret(REFRESH_TOKEN_PREFIX);
  await db.query(`INSERT INTO oauth_refresh_tokens (token_hash, grant_id, client_id, expires_at)
    VALUES ($1, $2, $3, now() + make_interval(secs => $4))`, [hashSecret(token), grantId, clientId, LIFETIMES.refreshTokenSeconds]);
  return token;
}

/** A refresh token's row, with whether it has expired (computed in SQL). */
type RefreshRow = Pick<RowOf<OAuthRefreshToken>, 'grant_id' | 'client_id' | 'used_at'> & { expired: boolean };

/**
 * Spends a refresh token and hands back its grant; the caller issues the next
 * one (rotation). A spent token presented again is a stolen copy or a stolen
 * original, and we cannot tell which, so the whole family goes. `accept` may
 * refuse the request (a scope beyond the grant) before the token is spent.
 */
export async function spendRefreshToken(pool: Pool, clientId: string, token: string, accept: (grant: Grant) => OAuthError | undefined = () => undefined): Promise<Grant> {
  const outcome = await withTransaction(pool, async (db): Promise<{ ok: true; grant: Grant } | { ok: false; message: string } | { ok: false; refusal: OAuthError }> => {
    const row = await queryOne<RefreshRow>(db,
      'SELECT grant_id, client_id, expires_at <= now() AS expired, used_at FROM oauth_refresh_tokens WHERE token_hash = $1 FOR UPDATE', [hashSecret(token)]);
    if (!row) return { ok: false, message: REFRESH_ERRORS.unknown };
    if (row.client_id !== clientId) return { ok: false, message: REFRESH_ERRORS.otherClient };
    if (row.used_at) {
      await revokeGrant(db, row.grant_id, 'refresh token replayed');
      return { ok: false, message: REFRESH_ERRORS.replayed };
    }
    if (row.expired) return { ok: false, message: REFRESH_ERRORS.expired };
    const grant = await findGrant(db, row.grant_id);
    if (!grant || grant.revokedAt) return { ok: false, message: REFRESH_ERRORS.revoked };
    const refusal = accept(grant);
    if (refusal) return { ok: false, refusal };
    await db.query('UPDATE oauth_refresh_tokens SET used_at = now() WHERE token_hash = $1', [hashSecret(token)]);
    return { ok: true, grant };
  });
  if (!outcome.ok) throw 'refusal' in outcome ? outcome.refusal : new InvalidGrantError(outcome.message);
  return outcome.grant;
}

/** The grant a refresh token belongs to, if it belongs to this client (for revocation). */
export async function grantOfRefreshToken(db: Queryable, clientId: string, token: string): Promise<string | undefined> {
  const row = await queryOne<{ grant_id: string }>(db, 'SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1 AND client_id = $2', [hashSecret(token), clientId]);
  return row?.grant_id;
}
