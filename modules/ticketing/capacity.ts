import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';

/**
 * Places: a ticket type counts against one or more capacity pools (its own capacity, the whole
 * event's, shared pools). A pool's places in use are sold (tickets not void) + pending (items of
 * pending reservations, waitlist offers included) + held (active holds), counted in one statement
 * from the live rows. Anything that takes places (`claimPlaces`) first locks every pool it touches,
 * in id order, then counts and checks in the same transaction, and writes its rows before
 * committing: sold + pending + held ≤ capacity holds for every pool whatever runs at once.
 */

export interface Usage {
  sold: number;
  pending: number;
  held: number;
}

export interface PoolAvailability extends Usage {
  id: string;
  name: string;
  kind: 'event' | 'type' | 'shared';
  capacity: number;
  remaining: number;
}

export interface TypeAvailability extends Usage {
  ticketTypeId: string;
  name: string;
  capacity: number | null;
  remaining: number | null;
  poolIds: string[];
}

interface PoolRow { id: string; name: string; kind: PoolAvailability['kind']; capacity: number; type_ids: string[] }

const zero = (): Usage => ({ sold: 0, pending: 0, held: 0 });

/** Sold, pending and held places per ticket type of an event, in one snapshot. */
export async function usageByType(db: Queryable, orgId: string, eventId: string): Promise<Map<string, Usage>> {
  const rows = await queryRows<{ ticket_type_id: string; kind: keyof Usage; n: number }>(db, `
    SELECT ticket_type_id, 'sold' AS kind, count(*)::int AS n FROM ticketing_tickets
      WHERE org_id = $1 AND event_id = $2 AND status <> 'void' GROUP BY ticket_type_id
    UNION ALL
    SELECT i.ticket_type_id, 'pending', sum(i.quantity)::int FROM ticketing_reservation_items i
      JOIN ticketing_reservations r ON r.id = i.reservation_id
      WHERE r.org_id = $1 AND r.event_id = $2 AND r.status = 'pending' GROUP BY i.ticket_type_id
    UNION ALL
    SELECT ticket_type_id, 'held', sum(quantity)::int FROM ticketing_holds
      WHERE org_id = $1 AND event_id = $2 AND status = 'active' GROUP BY ticket_type_id`, [orgId, eventId]);
  const usage = new Map<string, Usage>();
  for (const row of rows) {
    const entry = usage.get(row.ticket_type_id) ?? zero();
    entry[row.kind] += row.n;
    usage.set(row.ticket_type_id, entry);
  }
  return usage;
}

async function poolsOf(db: Queryable, orgId: string, eventId: string, lockIds?: readonly string[]): Promise<PoolRow[]> {
  if (lockIds) {
    // Locks first, in one order for everyone, so two claims never wait on each other in a circle.
    await db.query('SELECT id FROM ticketing_pools WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [orgId, [...lockIds]]);
  }
  return queryRows<PoolRow>(db, `SELECT p.id, p.name, p.kind, p.capacity,
      COALESCE(array_agg(tp.ticket_type_id) FILTER (WHERE tp.ticket_type_id IS NOT NULL), '{}') AS type_ids
    FROM ticketing_pools p LEFT JOIN ticketing_type_pools tp ON tp.pool_id = p.id
    WHERE p.org_id = $1 AND p.event_id = $2 GROUP BY p.id ORDER BY CASE p.kind WHEN 'event' THEN 0 WHEN 'shared' THEN 1 ELSE 2 END, p.created_at, p.id`, [orgId, eventId]);
}

function poolAvailability(pool: PoolRow, usage: Map<string, Usage>): PoolAvailability {
  const used = zero();
  for (const typeId of pool.type_ids) {
    const u = usage.get(typeId);
    if (u) { used.sold += u.sold; used.pending += u.pending; used.held += u.held; }
  }
  return { id: pool.id, name: pool.name, kind: pool.kind, capacity: pool.capacity, ...used, remaining: Math.max(0, pool.capacity - used.sold - used.pending - used.held) };
}

/** Sold / pending / held / remaining per pool and per ticket type (a type's remaining is the least of its pools'). */
export async function availability(db: Queryable, orgId: string, eventId: string): Promise<{ pools: PoolAvailability[]; types: TypeAvailability[] }> {
  const types = await queryRows<{ id: string; name: string; capacity: number | null }>(db,
    'SELECT id, name, capacity FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND archived_at IS NULL ORDER BY created_at, id', [orgId, eventId]);
  const [pools, usage] = [await poolsOf(db, orgId, eventId), await usageByType(db, orgId, eventId)];
  const poolViews = pools.map((pool) => poolAvailability(pool, usage));
  return {
    pools: poolViews,
    types: types.map((type) => {
      const mine = pools.filter((pool) => pool.type_ids.includes(type.id)).map((pool) => poolViews.find((view) => view.id === pool.id)!);
      return {
        ticketTypeId: type.id, name: type.name, capacity: type.capacity, ...(usage.get(type.id) ?? zero()),
        remaining: mine.length === 0 ? null : Math.min(...mine.map((pool) => pool.remaining)), poolIds: mine.map((pool) => pool.id),
      };
    }),
  };
}

/**
 * Takes `wants` (ticket type → places) under the locks of every pool those types count against
 * (or, with `counted`, checks them after the caller wrote the rows that take them),
 * refusing with `conflict` (and what is left of each type) if any pool would pass its capacity.
 * The caller writes the rows that take the places (reservation items, holds, tickets) in the same
 * transaction, before it commits and so releases the locks.
 */
export async function claimPlaces(db: Queryable, orgId: string, eventId: string, wants: ReadonlyMap<string, number>, options: { lock?: boolean; counted?: boolean } = {}): Promise<void> {
  const typeIds = [...wants.keys()];
  const linked = await queryRows<{ pool_id: string }>(db, 'SELECT DISTINCT pool_id FROM ticketing_type_pools WHERE org_id = $1 AND ticket_type_id = ANY($2::uuid[])', [orgId, typeIds]);
  // Without the lock it is only a first look (refusing early what is plainly sold out); the locked claim decides.
  const pools = await poolsOf(db, orgId, eventId, options.lock === false ? undefined : linked.map((row) => row.pool_id));
  const usage = await usageByType(db, orgId, eventId);
  for (const pool of pools) {
    const wanted = pool.type_ids.reduce((sum, typeId) => sum + (wants.get(typeId) ?? 0), 0);
    if (wanted === 0) continue;
    const view = poolAvailability(pool, usage);
    // `counted`: the caller wrote its rows first, so they are in the count: it fits if the pool is not past its capacity.
    if (options.counted) view.remaining = pool.capacity - view.sold - view.pending - view.held + wanted;
    if (wanted > view.remaining) {
      view.remaining = Math.max(0, view.remaining);
      throw new StewardError('conflict', view.remaining === 0
        ? `${pool.kind === 'type' ? pool.name.replace(/ places$/, '') : pool.name} is sold out`
        : `Only ${view.remaining} place${view.remaining === 1 ? '' : 's'} left in ${pool.name}; ${wanted} asked for`, {
        hint: 'ticketing_get_availability shows what is left; ticketing_join_waitlist puts people in line for a place.',
        details: { reason: 'sold_out', poolId: pool.id, remaining: view.remaining, requested: wanted },
      });
    }
  }
}
