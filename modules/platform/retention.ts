import type { Queryable } from '../../db/pool';

/**
 * How long records that exist only for a short-lived purpose are kept. Each is
 * personal data or a credential that has done its job, so keeping it longer
 * only adds to what could leak.
 */
export const RETENTION = {
  /** Write results kept so a retried activity returns them; retries finish within minutes. */
  toolCallResults: '1 day',
  /** OAuth codes, sign-in sessions and authorization requests after they expire. */
  oauthShortLived: '1 day',
  /** Refresh tokens after expiry (until then a replayed one must still be recognised). */
  oauthRefreshTokens: '30 days',
  /** Cached postcode answers. */
  postcodeCache: '30 days',
} as const;

export interface PurgeCounts {
  toolCallResults: number;
  oauthCodes: number;
  oauthSessions: number;
  oauthAuthorizationRequests: number;
  oauthRefreshTokens: number;
  postcodeCache: number;
}

async function purge(db: Queryable, sql: string): Promise<number> {
  return (await db.query(sql)).rowCount ?? 0;
}

/** Deletes what has outlived its purpose; safe to run at any time and as often as wanted. */
export async function purgeExpiredRecords(db: Queryable): Promise<PurgeCounts> {
  return {
    toolCallResults: await purge(db, `DELETE FROM tool_call_results WHERE created_at < now() - interval '${RETENTION.toolCallResults}'`),
    oauthCodes: await purge(db, `DELETE FROM oauth_codes WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`),
    oauthSessions: await purge(db, `DELETE FROM oauth_sessions WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`),
    oauthAuthorizationRequests: await purge(db, `DELETE FROM oauth_authorization_requests WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`),
    oauthRefreshTokens: await purge(db, `DELETE FROM oauth_refresh_tokens WHERE expires_at < now() - interval '${RETENTION.oauthRefreshTokens}'`),
    postcodeCache: await purge(db, `DELETE FROM postcode_cache WHERE fetched_at < now() - interval '${RETENTION.postcodeCache}'`),
  };
}
