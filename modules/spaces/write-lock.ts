import type { Queryable } from '../../db/pool';
import { transactionOf } from '../../db/sequelize';

/** Transactions that hold their organisation's spaces lock already (weak: a finished one is forgotten with its binding). */
const holding = new WeakSet<object>();

/**
 * Serialises the spaces writes of one organisation: taken by every write that locks a room, a
 * resource or a booking, before it does, and held to the end of its transaction. Spaces' reads never
 * take it. One organisation's bookings come a few a minute, so queueing them costs nothing a person
 * would notice, and no order of those row locks can then make two such writes wait for each other. The
 * schedule module's writes take it too, before their series and instance rows (spaces fills
 * `scheduleInstancesChanging` with it), since changing an instance can reach a linked booking, and so
 * do contact merges and erasures before they rewrite a hirer's bookings (`lockFirst` on spaces'
 * declared contact reference).
 *
 * Entry points and the row-locking helpers all ask for it, so a transaction asks several times (a
 * release loop once per booking); after the first, a transaction that holds it asks Postgres nothing.
 * That is sound because spaces first takes it before any savepoint (rolling back to a savepoint
 * would release a lock first taken after it).
 */
export async function holdSpacesWriteLock(db: Queryable, orgId: string): Promise<void> {
  const transaction = transactionOf(db);
  if (transaction && holding.has(transaction)) return;
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`spaces-writes:${orgId}`]);
  if (transaction) holding.add(transaction);
}
