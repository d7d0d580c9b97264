import { queryOne, type Queryable } from '../../db/pool';

/** Whether the organisation has this episode (another organisation's id answers false). */
export async function episodeExists(db: Queryable, orgId: string, episodeId: string): Promise<boolean> {
  return (await queryOne<{ id: string }>(db, 'SELECT id FROM mediahub_episodes WHERE org_id = $1 AND id = $2', [orgId, episodeId])) !== undefined;
}

/**
 * The episode made for a schedule instance (the draft the plan-ahead job made, or one created from
 * the instance's plan), or null. Ids are compared as text: other modules may hold instance ids as text.
 */
export async function episodeForInstance(db: Queryable, orgId: string, instanceId: string): Promise<string | null> {
  const row = await queryOne<{ id: string }>(db, `SELECT id FROM mediahub_episodes WHERE org_id = $1 AND instance_id::text = $2 AND status <> 'unpublished'
    ORDER BY created_at, id LIMIT 1`, [orgId, instanceId]);
  return row?.id ?? null;
}
