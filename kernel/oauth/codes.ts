import type { RowOf } from '../../modules/kit';
import type { OAuthCode } from '../models/oauth-codes';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { queryOne, withTransaction, type Pool, type Queryable } from '../../db/pool';
import { findGrant, revokeGrant, type Grant } from './grants';
import { hashSecret, LIFETIMES, newSecret } from './secrets';

export const CODE_ERRORS = {
  unknown: 'Unknown authorization code',
  reused: 'Authorization code was already used; the tokens issued for it have been revoked',
  expired: 'Authorization code has expired',
  otherClient: 'Authorization code was issued to another client',
  redirectMismatch: 'redirect_uri does not match the one in the authorization request',
  revoked: 'The grant behind this authorization code has been revoked',
} as const;

/** A code's row as its columns read it, with whether it has expired (computed in SQL). */
type CodeRow = Pick<RowOf<OAuthCode>, 'grant_id' | 'client_id' | 'redirect_uri' | 'redirect_uri_explicit' | 'code_challenge' | 'used_at'> & { expired: boolean };

const CODE_COLUMNS = 'grant_id, client_id, redirect_uri, redirect_uri_explicit, code_challenge, expires_at <= now() AS expired, used_at';

export async function issueCode(db: Queryable, input: { grantId: string; clientId: string; redirectUri: string; redirectUriExplicit: boolean; codeChallenge: string }): Promise<string> {
  const code = newSecret();
  await db.query(`INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_explicit, code_challenge, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`, [
    hashSecret(code), input.grantId, input.clientId, input.redirectUri, input.redirectUriExplicit, input.codeChallenge, LIFETIMES.codeSeconds,
  ]);
  return code;
}

/**
 * A code presented again means it leaked: whoever used it first may be the
 * attacker, so everything issued under the grant is revoked (OAuth 2.1 4.1.3).
 */
type CodeCheck = { ok: true; row: CodeRow } | { ok: false; message: string; revokeGrantId?: string };

function check(row: CodeRow | undefined, clientId: string): CodeCheck {
  if (!row) return { ok: false, message: CODE_ERRORS.unknown };
  // Ownership before use: a client that was never given the code must not be able to revoke its owner's grant by replaying it.
  if (row.client_id !== clientId) return { ok: false, message: CODE_ERRORS.otherClient };
  if (row.used_at) return { ok: false, message: CODE_ERRORS.reused, revokeGrantId: row.grant_id };
  if (row.expired) return { ok: false, message: CODE_ERRORS.expired };
  return { ok: true, row };
}

async function fail(pool: Pool, result: Extract<CodeCheck, { ok: false }>): Promise<never> {
  if (result.revokeGrantId) await revokeGrant(pool, result.revokeGrantId, 'authorization code reused');
  throw new InvalidGrantError(result.message);
}

/** The PKCE challenge stored with a code; the SDK's token handler checks the verifier against it. */
export async function challengeForCode(pool: Pool, clientId: string, code: string): Promise<string> {
  const row = await queryOne<CodeRow>(pool, `SELECT ${CODE_COLUMNS} FROM oauth_codes WHERE code_hash = $1`, [hashSecret(code)]);
  const result = check(row, clientId);
  if (!result.ok) return fail(pool, result);
  return result.row.code_challenge;
}

function redirectProblem(row: CodeRow, redirectUri: string | undefined): boolean {
  if (redirectUri === undefined) return row.redirect_uri_explicit;
  return redirectUri !== row.redirect_uri;
}

/**
 * Marks the code used and returns its grant. The row lock makes concurrent
 * exchanges of one code queue up: exactly one finds it unused.
 */
export async function redeemCode(pool: Pool, clientId: string, code: string, redirectUri: string | undefined): Promise<Grant> {
  const outcome = await withTransaction(pool, async (db): Promise<CodeCheck | { ok: true; grant: Grant }> => {
    const row = await queryOne<CodeRow>(db, `SELECT ${CODE_COLUMNS} FROM oauth_codes WHERE code_hash = $1 FOR UPDATE`, [hashSecret(code)]);
    const result = check(row, clientId);
    if (!result.ok) {
      if (result.revokeGrantId) await revokeGrant(db, result.revokeGrantId, 'authorization code reused');
      return result;
    }
    if (redirectProblem(result.row, redirectUri)) return { ok: false, message: CODE_ERRORS.redirectMismatch };
    await db.query('UPDATE oauth_codes SET used_at = now() WHERE code_hash = $1', [hashSecret(code)]);
    const grant = await findGrant(db, result.row.grant_id);
    if (!grant || grant.revokedAt) return { ok: false, message: CODE_ERRORS.revoked };
    return { ok: true, grant };
  });
  if (!outcome.ok) throw new InvalidGrantError(outcome.message);
  if (!('grant' in outcome)) throw new Error('unreachable: a checked code without its grant');
  return outcome.grant;
}
