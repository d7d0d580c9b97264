import { queryRows, type Queryable } from '../../db/pool';

/**
 * Gifts recorded since a point in time, for other modules' automations (grow's "donation recorded"
 * trigger): a positive gift from a known giver, named by its id so it is counted once. Amounts are
 * not shared: an automation thanks a giver, it does not read what they gave.
 */
export async function donationsRecordedSince(db: Queryable, orgId: string, since: Date): Promise<Array<{ contactId: string; key: string; at: Date }>> {
  const rows = await queryRows<{ id: string; contact_id: string; created_at: Date }>(db, `SELECT id, contact_id, created_at FROM giving_donations
    WHERE org_id = $1 AND created_at > $2 AND contact_id IS NOT NULL AND amount > 0 ORDER BY created_at LIMIT 5000`, [orgId, since]);
  return rows.map((row) => ({ contactId: row.contact_id, key: `donation:${row.id}`, at: row.created_at }));
}
