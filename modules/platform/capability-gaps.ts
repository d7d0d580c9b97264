import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { queryOne, type Queryable } from '../../db/pool';
import { listPage } from '../kit';

/**
 * Capability gaps: an agent says what it was asked for that no tool could do. Any member's
 * credential may report one; only owners read them, since the reports quote what people asked.
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

export async function listCapabilityGaps(db: Queryable, principal: Principal, page: { limit: number; cursor?: string }) {
  if (principal.role !== 'owner') {
    throw new StewardError('forbidden', 'Only an owner may read capability gap reports', { hint: 'Ask an owner of the organisation.' });
  }
  const { rows, nextCursor } = await listPage<GapRow>(db, { table: 'capability_gaps', orgId: principal.orgId, limit: page.limit, cursor: page.cursor, includeDeleted: true });
  return { gaps: rows.map(viewOf), nextCursor };
}
