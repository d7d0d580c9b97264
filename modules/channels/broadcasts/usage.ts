import { queryOne, type Queryable } from '../../../db/pool';

/** Broadcast states in which a template is still going to be sent (archiving it must wait). */
export const TEMPLATE_HOLDING_STATES = ['pending_approval', 'approved', 'scheduled', 'sending'] as const;

/**
 * How many of the organisation's broadcasts still need the template: waiting for approval,
 * approved, scheduled or sending. The templates module refuses to archive a template while any do.
 */
export async function countScheduledBroadcastsUsingTemplate(db: Queryable, orgId: string, templateId: string): Promise<number> {
  const row = await queryOne<{ count: string }>(db,
    `SELECT count(*)::text AS count FROM channel_broadcasts
      WHERE org_id = $1 AND template_id = $2 AND status = ANY($3::text[])`,
    [orgId, templateId, [...TEMPLATE_HOLDING_STATES]]);
  return Number(row?.count ?? 0);
}
