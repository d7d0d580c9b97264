import { queryOne, type Queryable } from '../../db/pool';

/**
 * What a module needs to know of its record's outbox row before it withdraws the record:
 * whether the message left already, and whether a send attempt holds the row right now
 * (it may be inside the provider call). The row is locked for the rest of the transaction,
 * so no attempt can claim it between this answer and the module's own update.
 */
export async function lockOutboxStateOf(db: Queryable, orgId: string, source: { kind: string; id: string }): Promise<{ sent: boolean; leased: boolean } | undefined> {
  const row = await queryOne<{ status: string; leased: boolean }>(db, `
    SELECT status, (status = 'sending' AND claimed_until > now()) AS leased
    FROM outbox_messages WHERE org_id = $1 AND source_kind = $2 AND source_id = $3 FOR UPDATE`, [orgId, source.kind, source.id]);
  return row ? { sent: row.status === 'sent', leased: row.leased } : undefined;
}

/** Whether the outbox already holds a message for this source record (its text was fixed when it was made). */
export async function hasOutboxMessage(db: Queryable, orgId: string, source: { kind: string; id: string }): Promise<boolean> {
  return Boolean(await queryOne(db, 'SELECT 1 FROM outbox_messages WHERE org_id = $1 AND source_kind = $2 AND source_id = $3', [orgId, source.kind, source.id]));
}

/** Replaces a delivered message's stored text (one that carried a one-time link), so the secret is not kept at rest. */
export async function blankOutboxText(db: Queryable, orgId: string, source: { kind: string; id: string }, replacement: string): Promise<void> {
  await db.query('UPDATE outbox_messages SET body = $4, html = NULL WHERE org_id = $1 AND source_kind = $2 AND source_id = $3', [orgId, source.kind, source.id, replacement]);
}
