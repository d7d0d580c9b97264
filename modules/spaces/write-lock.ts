import type { Queryable } from '../../db/pool';

/**
 * Serialises the spaces writes of one organisation: taken by every write that locks a room, a
 * resource or a booking, before it does, and held to the end of its transaction. Taking it again in
 * the same transaction returns at once. Spaces' reads never take it. One organisation's bookings come
 * a few a minute, so queueing them costs nothing a person would notice, and no order of those row
 * locks can then make two such writes wait for each other (the module's README names the cycles with
 * other work that remain).
 */
export async function holdSpacesWriteLock(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`spaces-writes:${orgId}`]);
}
