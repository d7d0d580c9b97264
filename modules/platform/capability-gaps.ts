import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound, type RowOf } from '../kit';
import type { CapabilityGap } from './models/capability-gaps';

/**
 * Capability gaps: an agent says what it was asked for that no tool could do. Any member's
 * credential may report one; only owners and admins read them (the list, and the count with the
 * latest in platform_overview), since the reports quote what people asked.
 */

export interface CapabilityGapView {
  gapId: string;
  tool: string | null;
  missing: string;
  example: string | null;
  reportedByUserId: string | null;
  credentialKind: string;
  reportedAt: string;
  /** Open until an owner or admin says how it was dealt with. */
  status: 'open' | 'resolved';
  resolution: string | null;
  resolvedAt: string | null;
  resolvedByUserId: string | null;
}

/** A gap as `SELECT *` reads it, typed by its model. */
type GapRow = RowOf<CapabilityGap>;

function viewOf(row: GapRow): CapabilityGapView {
  return {
    gapId: row.id, tool: row.tool, missing: row.missing, example: row.example, reportedByUserId: row.reported_by_user_id,
    credentialKind: row.credential_kind, reportedAt: row.created_at.toISOString(),
    status: row.resolved_at ? 'resolved' : 'open', resolution: row.resolution, resolvedAt: row.resolved_at?.toISOString() ?? null,
    resolvedByUserId: row.resolved_by_user_id,
  };
}

export async function reportCapabilityGap(db: Queryable, principal: Principal, input: { tool?: string; missing: string; example?: string }): Promise<CapabilityGapView> {
  const row = await queryOne<GapRow>(db, `INSERT INTO capability_gaps (id, org_id, tool, missing, example, reported_by_user_id, credential_kind)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
  [randomUUID(), principal.orgId, input.tool ?? null, input.missing, input.example ?? null, principal.userId, principal.credentialKind]);
  return viewOf(row!);
}

/** Who reads the reports: the people who decide what the organisation asks Steward for. */
export function mayReadCapabilityGaps(principal: Principal): boolean {
  return principal.role === 'owner' || principal.role === 'admin';
}

function requireMayReadCapabilityGaps(principal: Principal): void {
  if (!mayReadCapabilityGaps(principal)) {
    throw new StewardError('forbidden', 'Only an owner or admin may read or resolve capability gap reports', { hint: 'Ask an owner or admin of the organisation.' });
  }
}

export const GAP_STATUS_FILTERS = ['open', 'resolved', 'all'] as const;

export async function listCapabilityGaps(db: Queryable, principal: Principal, page: { limit: number; cursor?: string; status: (typeof GAP_STATUS_FILTERS)[number] }) {
  requireMayReadCapabilityGaps(principal);
  const where = page.status === 'all' ? undefined : page.status === 'open' ? 'resolved_at IS NULL' : 'resolved_at IS NOT NULL';
  const { rows, nextCursor } = await listPage<GapRow>(db, { table: 'capability_gaps', orgId: principal.orgId, limit: page.limit, cursor: page.cursor, where, includeDeleted: true });
  return { gaps: rows.map(viewOf), nextCursor };
}

/**
 * Closes a gap with a word on how it was dealt with (a tool now does it, a workaround, won't do).
 * Resolving it again is refused rather than overwriting the first answer; another organisation's
 * gap is not found, as a missing one is.
 */
export async function resolveCapabilityGap(db: Queryable, principal: Principal, gapId: string, resolution: string): Promise<CapabilityGapView> {
  requireMayReadCapabilityGaps(principal);
  const row = await queryOne<GapRow>(db, 'SELECT * FROM capability_gaps WHERE org_id = $1 AND id = $2 FOR UPDATE', [principal.orgId, gapId]);
  if (!row) throw notFound('Capability gap', gapId);
  if (row.resolved_at) {
    throw new StewardError('conflict', 'That capability gap is already resolved', { details: { gapId, resolvedAt: row.resolved_at.toISOString() } });
  }
  const updated = await queryOne<GapRow>(db, `UPDATE capability_gaps SET resolved_at = now(), resolved_by_user_id = $3, resolution = $4
    WHERE org_id = $1 AND id = $2 RETURNING *`, [principal.orgId, gapId, principal.userId, resolution]);
  return viewOf(updated!);
}

/** How many gaps are open, with the latest open few, for the overview. */
export const LATEST_GAPS_IN_OVERVIEW = 3;

export async function capabilityGapSummary(db: Queryable, orgId: string): Promise<{ open: number; latest: CapabilityGapView[] }> {
  const count = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM capability_gaps WHERE org_id = $1 AND resolved_at IS NULL', [orgId]);
  const latest = await queryRows<GapRow>(db, `SELECT * FROM capability_gaps WHERE org_id = $1 AND resolved_at IS NULL
    ORDER BY created_at DESC, id DESC LIMIT $2`, [orgId, LATEST_GAPS_IN_OVERVIEW]);
  return { open: count?.n ?? 0, latest: latest.map(viewOf) };
}
