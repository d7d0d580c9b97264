import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage } from '../kit';

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
}

interface GapRow {
  id: string;
  tool: string | null;
  missing: string;
  example: string | null;
  reported_by_user_id: string | null;
  credential_kind: string;
  created_at: Date;
}

function viewOf(row: GapRow): CapabilityGapView {
  return {
    gapId: row.id, tool: row.tool, missing: row.missing, example: row.example, reportedByUserId: row.reported_by_user_id,
    credentialKind: row.credential_kind, reportedAt: row.created_at.toISOString(),
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

export async function listCapabilityGaps(db: Queryable, principal: Principal, page: { limit: number; cursor?: string }) {
  if (!mayReadCapabilityGaps(principal)) {
    throw new StewardError('forbidden', 'Only an owner or admin may read capability gap reports', { hint: 'Ask an owner or admin of the organisation.' });
  }
  const { rows, nextCursor } = await listPage<GapRow>(db, { table: 'capability_gaps', orgId: principal.orgId, limit: page.limit, cursor: page.cursor, includeDeleted: true });
  return { gaps: rows.map(viewOf), nextCursor };
}

/** How many gaps are reported, with the latest few, for the overview. */
export const LATEST_GAPS_IN_OVERVIEW = 3;

export async function capabilityGapSummary(db: Queryable, orgId: string): Promise<{ count: number; latest: CapabilityGapView[] }> {
  const count = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM capability_gaps WHERE org_id = $1', [orgId]);
  const latest = await queryRows<GapRow>(db, 'SELECT * FROM capability_gaps WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [orgId, LATEST_GAPS_IN_OVERVIEW]);
  return { count: count?.n ?? 0, latest: latest.map(viewOf) };
}
