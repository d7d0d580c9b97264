import type { Queryable } from '../../db/pool';
import { registeredModules } from '../registry';
import type { RetentionRule } from '../module';

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
} as const;

async function purge(db: Queryable, sql: string): Promise<number> {
  return (await db.query(sql)).rowCount ?? 0;
}

/** The platform's own short-lived records; other modules declare theirs in their definition. */
export const platformRetention: readonly RetentionRule[] = [
  { name: 'toolCallResults', purge: (db) => purge(db, `DELETE FROM tool_call_results WHERE created_at < now() - interval '${RETENTION.toolCallResults}'`) },
  { name: 'oauthCodes', purge: (db) => purge(db, `DELETE FROM oauth_codes WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`) },
  { name: 'oauthSessions', purge: (db) => purge(db, `DELETE FROM oauth_sessions WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`) },
  { name: 'oauthAuthorizationRequests', purge: (db) => purge(db, `DELETE FROM oauth_authorization_requests WHERE expires_at < now() - interval '${RETENTION.oauthShortLived}'`) },
  { name: 'oauthRefreshTokens', purge: (db) => purge(db, `DELETE FROM oauth_refresh_tokens WHERE expires_at < now() - interval '${RETENTION.oauthRefreshTokens}'`) },
];

/** Rows deleted, by rule name. */
export type PurgeCounts = Record<string, number>;

/** Deletes what has outlived its purpose in every module; safe to run at any time and as often as wanted. */
export async function purgeExpiredRecords(db: Queryable): Promise<PurgeCounts> {
  const counts: PurgeCounts = {};
  for (const module of registeredModules()) {
    for (const rule of module.retention ?? []) counts[rule.name] = await rule.purge(db);
  }
  return counts;
}
