import { queryOne, type Queryable } from '../../db/pool';
import type { RetentionRule } from '../module';

/**
 * How long audit events are kept after the year they were written in, by category (the SQL
 * function audit_retention_years holds the same figures): finance (giving, store, billing,
 * ticketing) and exports six years plus the current one (HMRC record keeping for a charity), access
 * events two, everything else three. Expired events are deleted oldest first, as a prefix of the
 * organisation's chain (so the rest still verifies); an expired event behind a kept one has its
 * personal fields redacted instead (expire_audit_events, migration 2026.11.28T07.00.01).
 */
export const AUDIT_RETENTION_YEARS = { finance: 6, export: 6, access: 2, general: 3, pastoral: 3 } as const;

/** Runs the retention (as the owner, by maintenance: the application role can neither delete nor change events). */
export async function purgeAuditEvents(db: Queryable, now: Date = new Date()): Promise<number> {
  const row = await queryOne<{ deleted: number }>(db, 'SELECT expire_audit_events($1::timestamptz) AS deleted', [now.toISOString()]);
  return row?.deleted ?? 0;
}

export const auditRetention: readonly RetentionRule[] = [{ name: 'auditEvents', purge: (db) => purgeAuditEvents(db) }];
