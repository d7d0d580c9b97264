import type { Queryable } from '../../db/pool';

/**
 * The platform's part of erasing a person: what it keeps that may mention their id. Stored
 * results of earlier writes (kept for activity retries) go; decided proposals keep their
 * decision but lose what described the person; pending ones still await a decision.
 */
export async function forgetStoredMentions(db: Queryable, orgId: string, id: string): Promise<void> {
  await db.query('DELETE FROM tool_call_results WHERE org_id = $1 AND strpos(result::text, $2) > 0', [orgId, id]);
  await db.query(`UPDATE proposals SET summary = 'Erased at the person''s request', args = '{}'::jsonb, execution = NULL
    WHERE org_id = $1 AND status <> 'pending' AND strpos(args::text, $2) > 0`, [orgId, id]);
}
