import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { requireContact } from '../people/api';
import { availability } from './capacity';
import { eventRow, type EventRow } from './events';
import { paymentProviderFromEnv } from '../../kernel/payments';

export type WaitlistStatus = 'waiting' | 'offered' | 'purchased' | 'expired' | 'removed';

export interface WaitlistEntryView {
  id: string; eventId: string; ticketTypeId: string; contactId: string | null; name: string | null; email: string | null; quantity: number;
  status: WaitlistStatus; place: number | null; offeredAt: string | null; offerExpiresAt: string | null; createdAt: string;
}

interface EntryRow {
  id: string; event_id: string; ticket_type_id: string; position: number; contact_id: string | null; name: string | null; email: string | null; quantity: number;
  status: WaitlistStatus; offered_at: Date | null; offer_expires_at: Date | null; created_at: Date;
}

async function entryView(db: Queryable, orgId: string, row: EntryRow): Promise<WaitlistEntryView> {
  const place = row.status === 'waiting'
    ? (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM ticketing_waitlist_entries WHERE org_id = $1 AND ticket_type_id = $2 AND status = 'waiting' AND position <= $3`, [orgId, row.ticket_type_id, row.position]))!.n
    : null;
  return {
    id: row.id, eventId: row.event_id, ticketTypeId: row.ticket_type_id, contactId: row.contact_id, name: row.name, email: row.email, quantity: row.quantity,
    status: row.status, place, offeredAt: row.offered_at?.toISOString() ?? null, offerExpiresAt: row.offer_expires_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
  };
}

export async function joinWaitlist(db: Queryable, orgId: string, input: { eventId: string; ticketTypeId: string; quantity: number; contactId?: string; name?: string; email?: string }): Promise<WaitlistEntryView> {
  const event = await eventRow(db, orgId, input.eventId);
  if (event.status !== 'published' && event.status !== 'sales_closed') throw new StewardError('conflict', `${event.title} is ${event.status}: it has no waitlist`);
  const type = await queryOne<{ id: string; max_per_order: number }>(db, 'SELECT id, max_per_order FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND id = $3 AND archived_at IS NULL', [orgId, event.id, input.ticketTypeId]);
  if (!type) throw notFound('Ticket type of this event', input.ticketTypeId);
  if (input.quantity > type.max_per_order) throw new StewardError('validation_failed', `At most ${type.max_per_order} per order`, { issues: [{ path: 'quantity', message: `at most ${type.max_per_order}` }] });
  if (!input.contactId && !input.email) throw new StewardError('validation_failed', 'Say who is waiting: contactId, or a name and email', { issues: [{ path: 'contactId', message: 'give contactId or email' }] });
  if (input.contactId) {
    await requireContact(db, orgId, input.contactId);
    const already = await queryOne<{ id: string }>(db, `SELECT id FROM ticketing_waitlist_entries WHERE org_id = $1 AND ticket_type_id = $2 AND contact_id = $3 AND status IN ('waiting', 'offered')`, [orgId, type.id, input.contactId]);
    if (already) throw new StewardError('conflict', 'That person is on this waitlist already', { details: { entryId: already.id } });
  }
  const id = randomUUID();
  await db.query('INSERT INTO ticketing_waitlist_entries (id, org_id, event_id, ticket_type_id, contact_id, name, email, quantity) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [id, orgId, event.id, type.id, input.contactId ?? null, input.name ?? null, input.email ?? null, input.quantity]);
  return entryView(db, orgId, (await queryOne<EntryRow>(db, 'SELECT * FROM ticketing_waitlist_entries WHERE org_id = $1 AND id = $2', [orgId, id]))!);
}

export interface Offer { entry: WaitlistEntryView; reservation: { id: string; status: 'pending'; expiresAt: string } }

/**
 * Offers free places to the waitlist of a ticket type in the order people joined (FIFO): each
 * offer reserves its places (a pending reservation, so sales never pass capacity because of it)
 * until it expires; the first person whose group does not fit stops the round, so nobody is
 * passed over for a smaller group behind them. Runs under the locks of the type's pools.
 */
export async function offerSpots(db: Queryable, orgId: string, event: EventRow, ticketTypeId: string, maxOffers: number, offerSeconds?: number): Promise<Offer[]> {
  const pools = await queryRows<{ pool_id: string }>(db, 'SELECT pool_id FROM ticketing_type_pools WHERE org_id = $1 AND ticket_type_id = $2', [orgId, ticketTypeId]);
  await db.query('SELECT id FROM ticketing_pools WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [orgId, pools.map((row) => row.pool_id)]);
  const waiting = await queryRows<EntryRow>(db, `SELECT * FROM ticketing_waitlist_entries WHERE org_id = $1 AND ticket_type_id = $2 AND status = 'waiting' ORDER BY position LIMIT $3 FOR UPDATE`,
    [orgId, ticketTypeId, maxOffers]);
  const offers: Offer[] = [];
  let remaining = (await availability(db, orgId, event.id)).types.find((type) => type.ticketTypeId === ticketTypeId)?.remaining ?? null;
  for (const entry of waiting) {
    if (remaining !== null && entry.quantity > remaining) break;
    const expiresAt = new Date(Date.now() + (offerSeconds ?? event.offer_minutes * 60) * 1000);
    const reservationId = randomUUID();
    await db.query(`INSERT INTO ticketing_reservations (id, org_id, event_id, expires_at, contact_id, waitlist_entry_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [reservationId, orgId, event.id, expiresAt, entry.contact_id, entry.id]);
    await db.query('INSERT INTO ticketing_reservation_items (org_id, reservation_id, ticket_type_id, quantity) VALUES ($1, $2, $3, $4)', [orgId, reservationId, ticketTypeId, entry.quantity]);
    await db.query(`UPDATE ticketing_waitlist_entries SET status = 'offered', offered_at = now(), offer_expires_at = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, entry.id, expiresAt]);
    if (remaining !== null) remaining -= entry.quantity;
    const row = (await queryOne<EntryRow>(db, 'SELECT * FROM ticketing_waitlist_entries WHERE org_id = $1 AND id = $2', [orgId, entry.id]))!;
    offers.push({ entry: await entryView(db, orgId, row), reservation: { id: reservationId, status: 'pending', expiresAt: expiresAt.toISOString() } });
  }
  return offers;
}

export async function offerWaitlistSpots(db: Queryable, orgId: string, input: { eventId: string; ticketTypeId?: string; maxOffers: number; offerSeconds?: number }): Promise<Offer[]> {
  const event = await eventRow(db, orgId, input.eventId);
  if (event.status !== 'published') throw new StewardError('conflict', `${event.title} is ${event.status}: offers are made while it is on sale`);
  const types = input.ticketTypeId
    ? [input.ticketTypeId]
    : (await queryRows<{ ticket_type_id: string }>(db, `SELECT DISTINCT ticket_type_id FROM ticketing_waitlist_entries WHERE org_id = $1 AND event_id = $2 AND status = 'waiting' ORDER BY ticket_type_id`, [orgId, event.id])).map((row) => row.ticket_type_id);
  if (input.ticketTypeId && !await queryOne(db, 'SELECT 1 FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND id = $3', [orgId, event.id, input.ticketTypeId])) {
    throw notFound('Ticket type of this event', input.ticketTypeId);
  }
  const offers: Offer[] = [];
  for (const typeId of types) {
    if (offers.length >= input.maxOffers) break;
    offers.push(...await offerSpots(db, orgId, event, typeId, input.maxOffers - offers.length, input.offerSeconds));
  }
  return offers;
}

export async function listWaitlist(db: Queryable, orgId: string, eventId: string): Promise<WaitlistEntryView[]> {
  const rows = await queryRows<EntryRow>(db, 'SELECT * FROM ticketing_waitlist_entries WHERE org_id = $1 AND event_id = $2 ORDER BY position', [orgId, eventId]);
  const views = [];
  for (const row of rows) views.push(await entryView(db, orgId, row));
  return views;
}

// ---------------------------------------------------------------- expiry

export type ExpiryOutcome =
  | { outcome: 'expired'; next: Array<{ reservationId: string; expiresAt: string }> }
  | { outcome: 'not_pending' }
  | { outcome: 'early'; expiresAt: string }
  | { outcome: 'awaiting_payment' };

/** Step one of expiring: before any lock, the provider's session is closed, so nobody pays for places being returned. */
export async function closeCheckoutFor(db: Queryable, orgId: string, reservationId: string): Promise<'closed' | 'paid' | 'none' | 'not_due'> {
  const row = await queryOne<{ status: string; expires_at: Date; checkout_session_id: string | null }>(db, `SELECT r.status, r.expires_at, o.checkout_session_id FROM ticketing_reservations r
    LEFT JOIN ticketing_orders o ON o.reservation_id = r.id AND o.status = 'pending' WHERE r.org_id = $1 AND r.id = $2`, [orgId, reservationId]);
  if (!row || row.status !== 'pending' || row.expires_at > new Date()) return 'not_due';
  if (!row.checkout_session_id) return 'none';
  const provider = paymentProviderFromEnv();
  if (!provider) return 'none';
  const session = await provider.expireCheckoutSession(row.checkout_session_id);
  return session.status === 'complete' ? 'paid' : 'closed';
}

/**
 * Returns a reservation's places exactly once: only a pending reservation past its time becomes
 * expired (a conditional update under its row lock), its pending order is cancelled, a waitlist
 * offer's entry expires and the places pass to the next in line.
 */
export async function expireReservation(db: Queryable, orgId: string, reservationId: string): Promise<ExpiryOutcome> {
  const row = await queryOne<{ status: string; expires_at: Date; event_id: string; waitlist_entry_id: string | null }>(db,
    'SELECT status, expires_at, event_id, waitlist_entry_id FROM ticketing_reservations WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, reservationId]);
  if (!row || row.status !== 'pending') return { outcome: 'not_pending' };
  if (row.expires_at > new Date()) return { outcome: 'early', expiresAt: row.expires_at.toISOString() };
  const expired = await db.query(`UPDATE ticketing_reservations SET status = 'expired', ended_at = now() WHERE org_id = $1 AND id = $2 AND status = 'pending'`, [orgId, reservationId]);
  if ((expired.rowCount ?? 0) === 0) return { outcome: 'not_pending' };
  await db.query(`UPDATE ticketing_orders SET status = 'cancelled', cancel_reason = 'the reservation ran out before payment', updated_at = now()
    WHERE org_id = $1 AND reservation_id = $2 AND status = 'pending'`, [orgId, reservationId]);
  const next: Array<{ reservationId: string; expiresAt: string }> = [];
  if (row.waitlist_entry_id) {
    await db.query(`UPDATE ticketing_waitlist_entries SET status = 'expired', updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'offered'`, [orgId, row.waitlist_entry_id]);
    const event = await eventRow(db, orgId, row.event_id);
    const type = await queryOne<{ ticket_type_id: string }>(db, 'SELECT ticket_type_id FROM ticketing_reservation_items WHERE org_id = $1 AND reservation_id = $2 LIMIT 1', [orgId, reservationId]);
    if (event.status === 'published' && type) {
      for (const offer of await offerSpots(db, orgId, event, type.ticket_type_id, 20)) next.push({ reservationId: offer.reservation.id, expiresAt: offer.reservation.expiresAt });
    }
  }
  return { outcome: 'expired', next };
}
