import { queryOne, type Queryable } from '../../db/pool';

/** One episode's words for another module (grow's AI studio turns a sermon into a campaign draft): null when the organisation has no such episode. */
export async function episodeTranscript(db: Queryable, orgId: string, episodeId: string): Promise<{ title: string; speaker: string | null; scripture: string | null; transcript: string | null } | null> {
  const row = await queryOne<{ title: string; speaker: string | null; scripture: string | null; transcript: string | null }>(db,
    'SELECT title, speaker, scripture, transcript FROM mediahub_episodes WHERE org_id = $1 AND id = $2', [orgId, episodeId]);
  return row ?? null;
}
