import { createHash, randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { canonicalTimeZone, getInstance } from '../schedule/api';
import { availability, usageByType } from './capacity';
import { venueCapacityOf } from './extension-points';

export const EVENT_STATUSES = ['draft', 'published', 'sales_closed', 'completed', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export interface PoolView { id: string; name: string; kind: 'event' | 'type' | 'shared'; capacity: number }

export interface EventView {
  id: string; title: string; description: string | null; venue: string | null; startsAt: string; endsAt: string | null; timeZone: string;
  currency: string; status: EventStatus; capacity: number | null; scheduleInstanceId: string | null; spacesBookingId: string | null;
  reservationMinutes: number; offerMinutes: number; refundApprovalAbove: number; publishedAt: string | null; cancelledAt: string | null;
  pools: PoolView[]; createdAt: string;
}

export interface EventRow {
  id: string; title: string; description: string | null; venue: string | null; starts_at: Date; ends_at: Date | null; time_zone: string; currency: string;
  status: EventStatus; schedule_instance_id: string | null; spaces_booking_id: string | null; reservation_minutes: number; offer_minutes: number;
  refund_approval_above_minor: number; published_at: Date | null; cancelled_at: Date | null; created_at: Date;
}

export interface TicketTypeRow {
  id: string; event_id: string; name: string; description: string | null; price_minor: number; capacity: number | null; min_per_order: number;
  max_per_order: number; sales_start: Date | null; sales_end: Date | null; access_code_hash: string | null; archived_at: Date | null; created_at: Date;
}

export interface TicketTypeView {
  id: string; eventId: string; name: string; description: string | null; price: number; capacity: number | null; minPerOrder: number; maxPerOrder: number;
  salesStart: string | null; salesEnd: string | null; hidden: boolean; archived: boolean; poolIds: string[];
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const hashAccessCode = (code: string) => createHash('sha256').update(`ticketing-access:${code.trim().toUpperCase()}`).digest('hex');

export async function eventRow(db: Queryable, orgId: string, eventId: string, options: { forUpdate?: boolean } = {}): Promise<EventRow> {
  const row = await queryOne<EventRow>(db, `SELECT * FROM ticketing_events WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, eventId]);
  if (!row) throw notFound('Event', eventId, 'ticketing_list_events lists the events there are.');
  return row;
}

/** Whether the organisation has this event (another organisation's id answers false, as a missing one). */
export async function eventExists(db: Queryable, orgId: string, eventId: string): Promise<boolean> {
  return Boolean(await queryOne(db, 'SELECT 1 FROM ticketing_events WHERE org_id = $1 AND id = $2', [orgId, eventId]));
}

async function poolsOfEvent(db: Queryable, orgId: string, eventId: string): Promise<PoolView[]> {
  return queryRows<PoolView>(db, `SELECT id, name, kind, capacity FROM ticketing_pools WHERE org_id = $1 AND event_id = $2
    ORDER BY CASE kind WHEN 'event' THEN 0 WHEN 'shared' THEN 1 ELSE 2 END, created_at, id`, [orgId, eventId]);
}

export async function eventView(db: Queryable, orgId: string, row: EventRow): Promise<EventView> {
  const pools = await poolsOfEvent(db, orgId, row.id);
  return {
    id: row.id, title: row.title, description: row.description, venue: row.venue, startsAt: row.starts_at.toISOString(), endsAt: iso(row.ends_at),
    timeZone: row.time_zone, currency: row.currency, status: row.status, capacity: pools.find((pool) => pool.kind === 'event')?.capacity ?? null,
    scheduleInstanceId: row.schedule_instance_id, spacesBookingId: row.spaces_booking_id, reservationMinutes: row.reservation_minutes,
    offerMinutes: row.offer_minutes, refundApprovalAbove: row.refund_approval_above_minor, publishedAt: iso(row.published_at), cancelledAt: iso(row.cancelled_at),
    pools: pools.filter((pool) => pool.kind !== 'type'), createdAt: row.created_at.toISOString(),
  };
}

export async function getEvent(db: Queryable, orgId: string, eventId: string): Promise<EventView> {
  return eventView(db, orgId, await eventRow(db, orgId, eventId));
}

export interface EventInput {
  title?: string; description?: string | null; venue?: string | null; startsAt?: string; endsAt?: string | null; timeZone?: string; currency?: string;
  capacity?: number | null; scheduleInstanceId?: string | null; spacesBookingId?: string | null; reservationMinutes?: number; offerMinutes?: number;
  refundApprovalAbove?: number; sharedPools?: Array<{ name: string; capacity: number }>;
}

function checkTimes(startsAt: Date, endsAt: Date | null): void {
  if (endsAt && endsAt <= startsAt) {
    throw new StewardError('validation_failed', 'The event must end after it starts', { issues: [{ path: 'endsAt', message: 'not after startsAt' }] });
  }
}

export async function createEvent(db: Queryable, orgId: string, input: EventInput & { title: string; startsAt: string; timeZone: string; currency: string }): Promise<EventView> {
  const timeZone = canonicalTimeZone(input.timeZone);
  const startsAt = new Date(input.startsAt);
  const endsAt = input.endsAt ? new Date(input.endsAt) : null;
  checkTimes(startsAt, endsAt);
  if (input.scheduleInstanceId) await getInstance(db, orgId, input.scheduleInstanceId);
  const id = randomUUID();
  await db.query(`INSERT INTO ticketing_events (id, org_id, title, description, venue, starts_at, ends_at, time_zone, currency, schedule_instance_id, spaces_booking_id,
      reservation_minutes, offer_minutes, refund_approval_above_minor)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, 15), COALESCE($13, 1440), COALESCE($14, 10000))`,
  [id, orgId, input.title, input.description ?? null, input.venue ?? null, startsAt, endsAt, timeZone, input.currency, input.scheduleInstanceId ?? null,
    input.spacesBookingId ?? null, input.reservationMinutes ?? null, input.offerMinutes ?? null, input.refundApprovalAbove ?? null]);
  if (input.capacity !== undefined && input.capacity !== null) {
    await db.query(`INSERT INTO ticketing_pools (id, org_id, event_id, kind, name, capacity) VALUES ($1, $2, $3, 'event', 'Whole event', $4)`, [randomUUID(), orgId, id, input.capacity]);
  }
  const names = new Set<string>();
  for (const pool of input.sharedPools ?? []) {
    if (names.has(pool.name.toLowerCase())) throw new StewardError('validation_failed', `Two shared pools are named ${pool.name}`, { issues: [{ path: 'sharedPools', message: 'names must differ' }] });
    names.add(pool.name.toLowerCase());
    await db.query(`INSERT INTO ticketing_pools (id, org_id, event_id, kind, name, capacity) VALUES ($1, $2, $3, 'shared', $4, $5)`, [randomUUID(), orgId, id, pool.name, pool.capacity]);
  }
  return getEvent(db, orgId, id);
}

function assertChangeable(event: EventRow, doing: string): void {
  if (event.status === 'cancelled' || event.status === 'completed') {
    throw new StewardError('conflict', `${event.title} is ${event.status}: it cannot ${doing}`, { hint: 'Create a new event instead.' });
  }
}

const TRANSITIONS: Record<EventStatus, readonly EventStatus[]> = {
  draft: [], published: ['sales_closed', 'completed'], sales_closed: ['published', 'completed'], completed: [], cancelled: [],
};

/** A pool's capacity lowered: never below the places already sold, pending or held (checked under the pool's lock). */
async function setPoolCapacity(db: Queryable, orgId: string, eventId: string, poolId: string, capacity: number): Promise<void> {
  await db.query('SELECT id FROM ticketing_pools WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, poolId]);
  const { pools } = await availability(db, orgId, eventId);
  const pool = pools.find((candidate) => candidate.id === poolId)!;
  const used = pool.sold + pool.pending + pool.held;
  if (capacity < used) {
    throw new StewardError('conflict', `${pool.name} has ${used} places sold, pending or held; its capacity cannot go below that`, {
      issues: [{ path: 'capacity', message: `at least ${used}` }], details: { sold: pool.sold, pending: pool.pending, held: pool.held },
    });
  }
  await db.query('UPDATE ticketing_pools SET capacity = $3 WHERE org_id = $1 AND id = $2', [orgId, poolId, capacity]);
}

export async function updateEvent(db: Queryable, orgId: string, eventId: string, input: EventInput & { status?: 'published' | 'sales_closed' | 'completed' }): Promise<EventView> {
  const event = await eventRow(db, orgId, eventId, { forUpdate: true });
  assertChangeable(event, 'be changed');
  if (input.status && input.status !== event.status && !TRANSITIONS[event.status].includes(input.status)) {
    throw new StewardError('conflict', `${event.title} is ${event.status}; it cannot become ${input.status} from there`, {
      hint: event.status === 'draft' ? 'ticketing_publish_event publishes a draft.' : 'ticketing_cancel_event cancels an event.',
    });
  }
  const startsAt = input.startsAt ? new Date(input.startsAt) : event.starts_at;
  const endsAt = input.endsAt === undefined ? event.ends_at : input.endsAt ? new Date(input.endsAt) : null;
  checkTimes(startsAt, endsAt);
  if (input.scheduleInstanceId) await getInstance(db, orgId, input.scheduleInstanceId);
  const timeZone = input.timeZone ? canonicalTimeZone(input.timeZone) : event.time_zone;
  if (input.currency && input.currency !== event.currency) {
    const sold = await queryOne(db, 'SELECT 1 FROM ticketing_orders WHERE org_id = $1 AND event_id = $2 LIMIT 1', [orgId, eventId]);
    if (sold) throw new StewardError('conflict', 'The currency cannot change once an order has been taken', { issues: [{ path: 'currency', message: 'orders exist' }] });
  }
  await db.query(`UPDATE ticketing_events SET title = $3, description = $4, venue = $5, starts_at = $6, ends_at = $7, time_zone = $8, currency = $9,
      schedule_instance_id = $10, spaces_booking_id = $11, reservation_minutes = $12, offer_minutes = $13, refund_approval_above_minor = $14, status = $15, updated_at = now()
    WHERE org_id = $1 AND id = $2`,
  [orgId, eventId, input.title ?? event.title, input.description === undefined ? event.description : input.description,
    input.venue === undefined ? event.venue : input.venue, startsAt, endsAt, timeZone, input.currency ?? event.currency,
    input.scheduleInstanceId === undefined ? event.schedule_instance_id : input.scheduleInstanceId,
    input.spacesBookingId === undefined ? event.spaces_booking_id : input.spacesBookingId, input.reservationMinutes ?? event.reservation_minutes,
    input.offerMinutes ?? event.offer_minutes, input.refundApprovalAbove ?? event.refund_approval_above_minor, input.status ?? event.status]);
  if (input.capacity !== undefined) {
    const pool = await queryOne<{ id: string }>(db, `SELECT id FROM ticketing_pools WHERE org_id = $1 AND event_id = $2 AND kind = 'event'`, [orgId, eventId]);
    if (input.capacity === null) {
      if (pool) await db.query('DELETE FROM ticketing_pools WHERE org_id = $1 AND id = $2', [orgId, pool.id]);
    } else if (pool) await setPoolCapacity(db, orgId, eventId, pool.id, input.capacity);
    else {
      const poolId = randomUUID();
      await db.query(`INSERT INTO ticketing_pools (id, org_id, event_id, kind, name, capacity) VALUES ($1, $2, $3, 'event', 'Whole event', 0)`, [poolId, orgId, eventId]);
      await db.query(`INSERT INTO ticketing_type_pools (org_id, ticket_type_id, pool_id) SELECT org_id, id, $3 FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2`, [orgId, eventId, poolId]);
      await setPoolCapacity(db, orgId, eventId, poolId, input.capacity);
    }
  }
  return getEvent(db, orgId, eventId);
}

export async function listEvents(db: Queryable, orgId: string, filter: { status?: EventStatus; from?: string; to?: string; limit: number }): Promise<EventView[]> {
  const rows = await queryRows<EventRow>(db, `SELECT * FROM ticketing_events WHERE org_id = $1 AND ($2::text IS NULL OR status = $2)
      AND ($3::timestamptz IS NULL OR starts_at >= $3) AND ($4::timestamptz IS NULL OR starts_at < $4) ORDER BY starts_at, id LIMIT $5`,
  [orgId, filter.status ?? null, filter.from ?? null, filter.to ?? null, filter.limit]);
  const views = [];
  for (const row of rows) views.push(await eventView(db, orgId, row));
  return views;
}

export interface PublishCheck { check: 'ticket_types' | 'venue_capacity'; outcome: 'passed' | 'skipped'; detail: string }

/** Sellable capacity: the whole event's pool when it has one, else the sum of its types' (null: unlimited). */
async function sellableCapacity(db: Queryable, orgId: string, eventId: string): Promise<number | null> {
  const { pools, types } = await availability(db, orgId, eventId);
  const whole = pools.find((pool) => pool.kind === 'event');
  if (whole) return whole.capacity;
  if (types.some((type) => type.remaining === null)) return null;
  return types.reduce((sum, type) => sum + (type.capacity ?? pools.filter((pool) => type.poolIds.includes(pool.id)).reduce((least, pool) => Math.min(least, pool.capacity), Infinity)), 0);
}

export async function publishEvent(db: Queryable, orgId: string, eventId: string): Promise<{ event: EventView; checks: PublishCheck[] }> {
  const event = await eventRow(db, orgId, eventId, { forUpdate: true });
  if (event.status !== 'draft') {
    throw new StewardError('conflict', `${event.title} is ${event.status}, not a draft`, { hint: event.status === 'sales_closed' ? 'ticketing_update_event { status: "published" } reopens sales.' : undefined });
  }
  const types = await queryRows<{ id: string }>(db, 'SELECT id FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND archived_at IS NULL', [orgId, eventId]);
  if (types.length === 0) throw new StewardError('conflict', `${event.title} has no ticket types to sell`, { hint: 'ticketing_create_ticket_type adds one (price 0 for a free event).' });
  const checks: PublishCheck[] = [{ check: 'ticket_types', outcome: 'passed', detail: `${types.length} ticket type${types.length === 1 ? '' : 's'} on sale` }];
  const capacity = await sellableCapacity(db, orgId, eventId);
  if (!event.spaces_booking_id) {
    checks.push({ check: 'venue_capacity', outcome: 'skipped', detail: 'The event is not linked to a spaces booking' });
  } else {
    const bookingId = event.spaces_booking_id;
    const venue = await venueCapacityOf(db, orgId, bookingId);
    if (venue === 'not_installed') checks.push({ check: 'venue_capacity', outcome: 'skipped', detail: 'The spaces module is not installed, so the room\'s capacity could not be checked' });
    else if (venue === 'not_found') throw notFound('Spaces booking', bookingId, 'ticketing_update_event { spacesBookingId } links the event to another booking, or null to unlink it.');
    else if (capacity === null || capacity > venue.capacity) {
      throw new StewardError('conflict', `${event.title} could sell ${capacity ?? 'unlimited'} places but ${venue.roomName} holds ${venue.capacity}`, {
        hint: 'Give the event a capacity no larger than the room (ticketing_update_event { capacity }), or book a larger room.',
        details: { reason: 'over_venue_capacity', capacity, roomCapacity: venue.capacity },
      });
    } else checks.push({ check: 'venue_capacity', outcome: 'passed', detail: `${capacity} places fit ${venue.roomName} (holds ${venue.capacity})` });
  }
  await db.query(`UPDATE ticketing_events SET status = 'published', published_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, eventId]);
  return { event: await getEvent(db, orgId, eventId), checks };
}

// ---------------------------------------------------------------- ticket types

export async function typePoolIds(db: Queryable, orgId: string, typeId: string): Promise<string[]> {
  return (await queryRows<{ pool_id: string }>(db, 'SELECT pool_id FROM ticketing_type_pools WHERE org_id = $1 AND ticket_type_id = $2 ORDER BY pool_id', [orgId, typeId])).map((row) => row.pool_id);
}

export async function ticketTypeView(db: Queryable, orgId: string, row: TicketTypeRow): Promise<TicketTypeView> {
  return {
    id: row.id, eventId: row.event_id, name: row.name, description: row.description, price: row.price_minor, capacity: row.capacity,
    minPerOrder: row.min_per_order, maxPerOrder: row.max_per_order, salesStart: iso(row.sales_start), salesEnd: iso(row.sales_end),
    hidden: row.access_code_hash !== null, archived: row.archived_at !== null, poolIds: await typePoolIds(db, orgId, row.id),
  };
}

export async function ticketTypeRow(db: Queryable, orgId: string, typeId: string, options: { forUpdate?: boolean } = {}): Promise<TicketTypeRow> {
  const row = await queryOne<TicketTypeRow>(db, `SELECT * FROM ticketing_ticket_types WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, typeId]);
  if (!row) throw notFound('Ticket type', typeId, 'ticketing_get_availability lists an event\'s ticket types.');
  return row;
}

export async function listTicketTypes(db: Queryable, orgId: string, eventId: string): Promise<TicketTypeView[]> {
  const rows = await queryRows<TicketTypeRow>(db, 'SELECT * FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 ORDER BY created_at, id', [orgId, eventId]);
  const views = [];
  for (const row of rows) views.push(await ticketTypeView(db, orgId, row));
  return views;
}

export interface TicketTypeInput {
  name?: string; description?: string | null; price?: number; capacity?: number | null; minPerOrder?: number; maxPerOrder?: number;
  salesStart?: string | null; salesEnd?: string | null; accessCode?: string | null; poolIds?: string[]; archived?: boolean;
}

function duplicateName(error: unknown, name: string): never {
  if ((error as { code?: string }).code === '23505') {
    throw new StewardError('conflict', `The event already has a ticket type named ${name}`, { issues: [{ path: 'name', message: 'already used' }] });
  }
  throw error;
}

function checkWindow(input: { minPerOrder: number; maxPerOrder: number; salesStart: Date | null; salesEnd: Date | null }): void {
  if (input.minPerOrder > input.maxPerOrder) throw new StewardError('validation_failed', 'minPerOrder is more than maxPerOrder', { issues: [{ path: 'minPerOrder', message: 'more than maxPerOrder' }] });
  if (input.salesStart && input.salesEnd && input.salesEnd <= input.salesStart) {
    throw new StewardError('validation_failed', 'Sales must end after they start', { issues: [{ path: 'salesEnd', message: 'not after salesStart' }] });
  }
}

async function sharedPoolsOf(db: Queryable, orgId: string, eventId: string, poolIds: readonly string[]): Promise<string[]> {
  const found = await queryRows<{ id: string }>(db, `SELECT id FROM ticketing_pools WHERE org_id = $1 AND event_id = $2 AND kind = 'shared' AND id = ANY($3::uuid[])`, [orgId, eventId, [...poolIds]]);
  const missing = poolIds.find((id) => !found.some((row) => row.id === id));
  if (missing) throw notFound('Shared pool of this event', missing, 'ticketing_create_event { sharedPools } declares them; ticketing_get_availability lists them.');
  return found.map((row) => row.id);
}

export async function createTicketType(db: Queryable, orgId: string, eventId: string, input: TicketTypeInput & { name: string; price: number }): Promise<TicketTypeView> {
  const event = await eventRow(db, orgId, eventId, { forUpdate: true });
  assertChangeable(event, 'take new ticket types');
  const row = { minPerOrder: input.minPerOrder ?? 1, maxPerOrder: input.maxPerOrder ?? 10, salesStart: input.salesStart ? new Date(input.salesStart) : null, salesEnd: input.salesEnd ? new Date(input.salesEnd) : null };
  checkWindow(row);
  const shared = await sharedPoolsOf(db, orgId, eventId, input.poolIds ?? []);
  const id = randomUUID();
  await db.query(`INSERT INTO ticketing_ticket_types (id, org_id, event_id, name, description, price_minor, capacity, min_per_order, max_per_order, sales_start, sales_end, access_code_hash)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
  [id, orgId, eventId, input.name, input.description ?? null, input.price, input.capacity ?? null, row.minPerOrder, row.maxPerOrder, row.salesStart, row.salesEnd,
    input.accessCode ? hashAccessCode(input.accessCode) : null]).catch((error) => duplicateName(error, input.name));
  const pools = [...shared];
  const whole = await queryOne<{ id: string }>(db, `SELECT id FROM ticketing_pools WHERE org_id = $1 AND event_id = $2 AND kind = 'event'`, [orgId, eventId]);
  if (whole) pools.push(whole.id);
  if (input.capacity !== undefined && input.capacity !== null) {
    const own = randomUUID();
    await db.query(`INSERT INTO ticketing_pools (id, org_id, event_id, kind, name, capacity) VALUES ($1, $2, $3, 'type', $4, $5)`, [own, orgId, eventId, `${input.name} places`, input.capacity]);
    pools.push(own);
  }
  for (const poolId of pools) await db.query('INSERT INTO ticketing_type_pools (org_id, ticket_type_id, pool_id) VALUES ($1, $2, $3)', [orgId, id, poolId]);
  return ticketTypeView(db, orgId, await ticketTypeRow(db, orgId, id));
}

export async function updateTicketType(db: Queryable, orgId: string, typeId: string, input: TicketTypeInput): Promise<TicketTypeView> {
  const type = await ticketTypeRow(db, orgId, typeId, { forUpdate: true });
  const event = await eventRow(db, orgId, type.event_id);
  assertChangeable(event, 'have its ticket types changed');
  const next = {
    minPerOrder: input.minPerOrder ?? type.min_per_order, maxPerOrder: input.maxPerOrder ?? type.max_per_order,
    salesStart: input.salesStart === undefined ? type.sales_start : input.salesStart ? new Date(input.salesStart) : null,
    salesEnd: input.salesEnd === undefined ? type.sales_end : input.salesEnd ? new Date(input.salesEnd) : null,
  };
  checkWindow(next);
  const name = input.name ?? type.name;
  await db.query(`UPDATE ticketing_ticket_types SET name = $3, description = $4, price_minor = $5, min_per_order = $6, max_per_order = $7, sales_start = $8, sales_end = $9,
      access_code_hash = $10, archived_at = CASE WHEN $11::boolean IS NULL THEN archived_at WHEN $11 THEN COALESCE(archived_at, now()) ELSE NULL END, updated_at = now()
    WHERE org_id = $1 AND id = $2`,
  [orgId, typeId, name, input.description === undefined ? type.description : input.description, input.price ?? type.price_minor, next.minPerOrder, next.maxPerOrder,
    next.salesStart, next.salesEnd, input.accessCode === undefined ? type.access_code_hash : input.accessCode === null ? null : hashAccessCode(input.accessCode),
    input.archived ?? null]).catch((error) => duplicateName(error, name));
  const own = await queryOne<{ id: string }>(db, `SELECT p.id FROM ticketing_pools p JOIN ticketing_type_pools tp ON tp.pool_id = p.id
    WHERE p.org_id = $1 AND tp.ticket_type_id = $2 AND p.kind = 'type'`, [orgId, typeId]);
  if (input.name && own) await db.query('UPDATE ticketing_pools SET name = $3 WHERE org_id = $1 AND id = $2', [orgId, own.id, `${input.name} places`]);
  if (input.capacity !== undefined) {
    if (input.capacity === null) {
      if (own) await db.query('DELETE FROM ticketing_pools WHERE org_id = $1 AND id = $2', [orgId, own.id]);
    } else if (own) await setPoolCapacity(db, orgId, type.event_id, own.id, input.capacity);
    else {
      const poolId = randomUUID();
      await db.query(`INSERT INTO ticketing_pools (id, org_id, event_id, kind, name, capacity) VALUES ($1, $2, $3, 'type', $4, 0)`, [poolId, orgId, type.event_id, `${name} places`]);
      await db.query('INSERT INTO ticketing_type_pools (org_id, ticket_type_id, pool_id) VALUES ($1, $2, $3)', [orgId, typeId, poolId]);
      await setPoolCapacity(db, orgId, type.event_id, poolId, input.capacity);
    }
    await db.query('UPDATE ticketing_ticket_types SET capacity = $3 WHERE org_id = $1 AND id = $2', [orgId, typeId, input.capacity]);
  }
  return ticketTypeView(db, orgId, await ticketTypeRow(db, orgId, typeId));
}

/** Ticket types sold for an event: used by the reports and the door. */
export async function soldCount(db: Queryable, orgId: string, eventId: string): Promise<number> {
  let sold = 0;
  for (const usage of (await usageByType(db, orgId, eventId)).values()) sold += usage.sold;
  return sold;
}
