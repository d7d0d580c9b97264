import { queryOne, type Queryable } from '../../db/pool';

/** What another module may know of an episode it links to (live: the stream that becomes it). */
export interface EpisodeLink { id: string; title: string; status: string; episodeDate: string; instanceId: string | null }

/** The organisation's episode by id, or null (another organisation's id included). */
export async function episodeLink(db: Queryable, orgId: string, episodeId: string): Promise<EpisodeLink | null> {
  const row = await queryOne<{ id: string; title: string; status: string; episode_date: string; instance_id: string | null }>(db,
    "SELECT id, title, status, to_char(episode_date, 'YYYY-MM-DD') AS episode_date, instance_id FROM mediahub_episodes WHERE org_id = $1 AND id = $2", [orgId, episodeId]);
  return row ? { id: row.id, title: row.title, status: row.status, episodeDate: row.episode_date, instanceId: row.instance_id } : null;
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
