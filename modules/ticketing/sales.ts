import { randomBytes, randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { openCallCheckout, paymentProviderFromEnv, stableUuid, type CheckoutCall, type CheckoutSession, type PaymentProvider } from '../../kernel/payments';
import { endsToolCall } from '../activity-kit';
import { listPage, notFound } from '../kit';
import { requireContact } from '../people/api';
import { claimPlaces } from './capacity';
import { eventRow, hashAccessCode, type EventRow, type TicketTypeRow } from './events';

// ---------------------------------------------------------------- views

export interface ReservationView {
  id: string; eventId: string; status: 'pending' | 'confirmed' | 'expired' | 'cancelled'; expiresAt: string; contactId: string | null;
  waitlistEntryId: string | null; items: Array<{ ticketTypeId: string; name: string; quantity: number; unitPrice: number }>; createdAt: string;
}

export interface TicketView {
  id: string; barcode: string; ticketTypeId: string; ticketTypeName: string; status: 'active' | 'used' | 'void'; pricePaid: number;
  holderName: string | null; contactId: string | null; checkedInAt: string | null;
}

export interface OrderView {
  id: string; eventId: string; eventTitle: string; kind: 'sale' | 'comp'; status: 'pending' | 'paid' | 'partially_refunded' | 'refunded' | 'cancelled';
  cancelReason: string | null; contactId: string | null; buyerName: string | null; buyerEmail: string | null; currency: string;
  subtotal: number; discount: number; total: number; refunded: number; refundable: number; promoCode: string | null;
  checkoutUrl: string | null; reservation: { id: string; status: ReservationView['status']; expiresAt: string } | null;
  lines: Array<{ ticketTypeId: string; name: string; quantity: number; unitPrice: number; discount: number }>;
  tickets: TicketView[]; refunds: Array<{ id: string; amount: number; ticketIds: string[]; reason: string | null; createdAt: string }>;
  paidAt: string | null; createdAt: string;
}

interface ReservationRow {
  id: string; event_id: string; status: ReservationView['status']; expires_at: Date; contact_id: string | null; waitlist_entry_id: string | null;
  access_code: string | null; created_at: Date;
}

export interface OrderRow {
  id: string; event_id: string; reservation_id: string | null; kind: 'sale' | 'comp'; status: OrderView['status']; cancel_reason: string | null;
  contact_id: string | null; buyer_name: string | null; buyer_email: string | null; currency: string; subtotal_minor: number; discount_minor: number;
  total_minor: number; refunded_minor: number; promo_code_id: string | null; provider: string | null; checkout_session_id: string | null;
  checkout_url: string | null; payment_intent_id: string | null; paid_at: Date | null; created_at: Date;
}

export async function reservationView(db: Queryable, orgId: string, reservationId: string): Promise<ReservationView> {
  const row = await queryOne<ReservationRow>(db, 'SELECT * FROM ticketing_reservations WHERE org_id = $1 AND id = $2', [orgId, reservationId]);
  if (!row) throw notFound('Reservation', reservationId);
  const items = await queryRows<{ ticket_type_id: string; name: string; quantity: number; price_minor: number }>(db, `SELECT i.ticket_type_id, t.name, i.quantity, t.price_minor
    FROM ticketing_reservation_items i JOIN ticketing_ticket_types t ON t.id = i.ticket_type_id WHERE i.org_id = $1 AND i.reservation_id = $2 ORDER BY t.created_at, t.id`, [orgId, reservationId]);
  return {
    id: row.id, eventId: row.event_id, status: row.status, expiresAt: row.expires_at.toISOString(), contactId: row.contact_id, waitlistEntryId: row.waitlist_entry_id,
    items: items.map((item) => ({ ticketTypeId: item.ticket_type_id, name: item.name, quantity: item.quantity, unitPrice: item.price_minor })), createdAt: row.created_at.toISOString(),
  };
}

export async function orderRow(db: Queryable, orgId: string, orderId: string, options: { forUpdate?: boolean } = {}): Promise<OrderRow> {
  const row = await queryOne<OrderRow>(db, `SELECT * FROM ticketing_orders WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, orderId]);
  if (!row) throw notFound('Order', orderId, 'ticketing_list_orders lists an event\'s orders.');
  return row;
}

export async function ticketsOf(db: Queryable, orgId: string, where: { orderId?: string; eventId?: string }): Promise<TicketView[]> {
  const rows = await queryRows<{ id: string; barcode: string; ticket_type_id: string; name: string; status: TicketView['status']; price_paid_minor: number;
    holder_name: string | null; contact_id: string | null; checked_in_at: Date | null }>(db, `SELECT k.id, k.barcode, k.ticket_type_id, t.name, k.status, k.price_paid_minor, k.holder_name, k.contact_id, k.checked_in_at
    FROM ticketing_tickets k JOIN ticketing_ticket_types t ON t.id = k.ticket_type_id
    WHERE k.org_id = $1 AND ($2::uuid IS NULL OR k.order_id = $2) AND ($3::uuid IS NULL OR k.event_id = $3) ORDER BY k.created_at, k.id`, [orgId, where.orderId ?? null, where.eventId ?? null]);
  return rows.map((row) => ({
    id: row.id, barcode: row.barcode, ticketTypeId: row.ticket_type_id, ticketTypeName: row.name, status: row.status, pricePaid: row.price_paid_minor,
    holderName: row.holder_name, contactId: row.contact_id, checkedInAt: row.checked_in_at?.toISOString() ?? null,
  }));
}

export async function orderView(db: Queryable, orgId: string, orderId: string): Promise<OrderView> {
  const row = await orderRow(db, orgId, orderId);
  const event = await eventRow(db, orgId, row.event_id);
  const lines = await queryRows<{ ticket_type_id: string; name: string; quantity: number; unit_price_minor: number; discount_minor: number }>(db,
    'SELECT ticket_type_id, name, quantity, unit_price_minor, discount_minor FROM ticketing_order_lines WHERE org_id = $1 AND order_id = $2 ORDER BY name, id', [orgId, orderId]);
  const refunds = await queryRows<{ id: string; amount_minor: number; ticket_ids: string[]; reason: string | null; created_at: Date }>(db,
    'SELECT id, amount_minor, ticket_ids, reason, created_at FROM ticketing_refunds WHERE org_id = $1 AND order_id = $2 ORDER BY created_at, id', [orgId, orderId]);
  const promo = row.promo_code_id ? await queryOne<{ code: string }>(db, 'SELECT code FROM ticketing_promo_codes WHERE org_id = $1 AND id = $2', [orgId, row.promo_code_id]) : undefined;
  const reservation = row.reservation_id ? await queryOne<{ id: string; status: ReservationView['status']; expires_at: Date }>(db,
    'SELECT id, status, expires_at FROM ticketing_reservations WHERE org_id = $1 AND id = $2', [orgId, row.reservation_id]) : undefined;
  return {
    id: row.id, eventId: row.event_id, eventTitle: event.title, kind: row.kind, status: row.status, cancelReason: row.cancel_reason, contactId: row.contact_id,
    buyerName: row.buyer_name, buyerEmail: row.buyer_email, currency: row.currency, subtotal: row.subtotal_minor, discount: row.discount_minor,
    total: row.total_minor, refunded: row.refunded_minor, refundable: ['paid', 'partially_refunded'].includes(row.status) ? row.total_minor - row.refunded_minor : 0,
    promoCode: promo?.code ?? null, checkoutUrl: row.status === 'pending' ? row.checkout_url : null,
    reservation: reservation ? { id: reservation.id, status: reservation.status, expiresAt: reservation.expires_at.toISOString() } : null,
    lines: lines.map((line) => ({ ticketTypeId: line.ticket_type_id, name: line.name, quantity: line.quantity, unitPrice: line.unit_price_minor, discount: line.discount_minor })),
    tickets: await ticketsOf(db, orgId, { orderId }),
    refunds: refunds.map((refund) => ({ id: refund.id, amount: refund.amount_minor, ticketIds: refund.ticket_ids, reason: refund.reason, createdAt: refund.created_at.toISOString() })),
    paidAt: row.paid_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
  };
}

// ---------------------------------------------------------------- checks

export function assertOnSale(event: EventRow): void {
  if (event.status === 'published') return;
  const why: Record<string, string> = {
    draft: 'is a draft: publish it first (ticketing_publish_event)', sales_closed: 'has closed its sales', completed: 'has taken place', cancelled: 'was cancelled',
  };
  throw new StewardError('conflict', `${event.title} ${why[event.status]}`, { details: { reason: 'not_on_sale', status: event.status } });
}

export interface ItemInput { ticketTypeId: string; quantity: number }

/** The types asked for, each of this event, on sale now, unlocked by the access code when hidden, and within its per-order limits. */
async function sellableTypes(db: Queryable, orgId: string, event: EventRow, items: readonly ItemInput[], accessCode: string | null | undefined, now = new Date()): Promise<Map<string, TicketTypeRow>> {
  const ids = items.map((item) => item.ticketTypeId);
  if (new Set(ids).size !== ids.length) throw new StewardError('validation_failed', 'A ticket type is named twice', { issues: [{ path: 'items', message: 'name each ticket type once' }] });
  const rows = await queryRows<TicketTypeRow>(db, 'SELECT * FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND id = ANY($3::uuid[])', [orgId, event.id, ids]);
  const types = new Map(rows.map((row) => [row.id, row]));
  for (const [index, item] of items.entries()) {
    const type = types.get(item.ticketTypeId);
    if (!type || type.archived_at) throw notFound('Ticket type of this event', item.ticketTypeId, 'ticketing_get_availability lists what is on sale.');
    if (type.access_code_hash && (!accessCode || hashAccessCode(accessCode) !== type.access_code_hash)) {
      // A hidden type without its code behaves as one that is not there.
      throw notFound('Ticket type of this event', item.ticketTypeId, 'A hidden ticket type needs its access code (accessCode).');
    }
    if (type.sales_start && now < type.sales_start) throw new StewardError('conflict', `${type.name} goes on sale at ${type.sales_start.toISOString()}`, { details: { reason: 'not_on_sale_yet' } });
    if (type.sales_end && now >= type.sales_end) throw new StewardError('conflict', `Sales of ${type.name} ended at ${type.sales_end.toISOString()}`, { details: { reason: 'sales_ended' } });
    if (item.quantity < type.min_per_order || item.quantity > type.max_per_order) {
      throw new StewardError('validation_failed', `${type.name}: between ${type.min_per_order} and ${type.max_per_order} per order`, {
        issues: [{ path: `items.${index}.quantity`, message: `between ${type.min_per_order} and ${type.max_per_order}` }],
      });
    }
  }
  return types;
}

const wantsOf = (items: readonly ItemInput[]) => new Map(items.map((item) => [item.ticketTypeId, item.quantity]));

// ---------------------------------------------------------------- holds

export interface HoldView { id: string; eventId: string; ticketTypeId: string; quantity: number; reason: string; status: 'active' | 'released'; releasedAt: string | null; createdAt: string }

async function holdView(db: Queryable, orgId: string, holdId: string): Promise<HoldView> {
  const row = await queryOne<{ id: string; event_id: string; ticket_type_id: string; quantity: number; reason: string; status: HoldView['status']; released_at: Date | null; created_at: Date }>(db,
    'SELECT * FROM ticketing_holds WHERE org_id = $1 AND id = $2', [orgId, holdId]);
  if (!row) throw notFound('Hold', holdId);
  return { id: row.id, eventId: row.event_id, ticketTypeId: row.ticket_type_id, quantity: row.quantity, reason: row.reason, status: row.status, releasedAt: row.released_at?.toISOString() ?? null, createdAt: row.created_at.toISOString() };
}

export async function createHold(db: Queryable, orgId: string, userId: string | null, input: { ticketTypeId: string; quantity: number; reason: string }): Promise<HoldView> {
  const type = await queryOne<{ event_id: string; archived_at: Date | null }>(db, 'SELECT event_id, archived_at FROM ticketing_ticket_types WHERE org_id = $1 AND id = $2', [orgId, input.ticketTypeId]);
  if (!type || type.archived_at) throw notFound('Ticket type', input.ticketTypeId);
  const event = await eventRow(db, orgId, type.event_id);
  if (event.status === 'cancelled' || event.status === 'completed') throw new StewardError('conflict', `${event.title} is ${event.status}`);
  await claimPlaces(db, orgId, event.id, new Map([[input.ticketTypeId, input.quantity]]));
  const id = randomUUID();
  await db.query('INSERT INTO ticketing_holds (id, org_id, event_id, ticket_type_id, quantity, reason, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [id, orgId, event.id, input.ticketTypeId, input.quantity, input.reason, userId]);
  return holdView(db, orgId, id);
}

/** Releases a hold: its places return at once. Releasing one already released changes nothing and says so. */
export async function releaseHold(db: Queryable, orgId: string, holdId: string): Promise<{ hold: HoldView; alreadyReleased: boolean }> {
  const released = await db.query(`UPDATE ticketing_holds SET status = 'released', released_at = now() WHERE org_id = $1 AND id = $2 AND status = 'active'`, [orgId, holdId]);
  return { hold: await holdView(db, orgId, holdId), alreadyReleased: (released.rowCount ?? 0) === 0 };
}

// ---------------------------------------------------------------- reservations

export interface ReserveInput { eventId: string; items: ItemInput[]; accessCode?: string; contactId?: string; ttlSeconds?: number }

async function insertReservation(db: Queryable, orgId: string, event: EventRow, items: readonly ItemInput[], options: { contactId?: string | null; expiresAt: Date; waitlistEntryId?: string | null; accessCode?: string | null }): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO ticketing_reservations (id, org_id, event_id, expires_at, contact_id, waitlist_entry_id, access_code) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, orgId, event.id, options.expiresAt, options.contactId ?? null, options.waitlistEntryId ?? null, options.accessCode ?? null]);
  for (const item of items) {
    await db.query('INSERT INTO ticketing_reservation_items (org_id, reservation_id, ticket_type_id, quantity) VALUES ($1, $2, $3, $4)', [orgId, id, item.ticketTypeId, item.quantity]);
  }
  return id;
}

/** Places kept for a buyer until they pay or the time runs out (a Temporal timer then returns them: workflows/reservations.ts). */
export async function reserveTickets(db: Queryable, orgId: string, input: ReserveInput): Promise<ReservationView> {
  const event = await eventRow(db, orgId, input.eventId);
  assertOnSale(event);
  if (input.contactId) await requireContact(db, orgId, input.contactId);
  await sellableTypes(db, orgId, event, input.items, input.accessCode);
  await claimPlaces(db, orgId, event.id, wantsOf(input.items));
  const expiresAt = new Date(Date.now() + (input.ttlSeconds ?? event.reservation_minutes * 60) * 1000);
  const id = await insertReservation(db, orgId, event, input.items, { contactId: input.contactId, expiresAt, accessCode: input.accessCode ?? null });
  return reservationView(db, orgId, id);
}

// ---------------------------------------------------------------- pricing and promo codes

interface PromoRow { id: string; event_id: string; code: string; kind: 'percent' | 'fixed'; amount: number; max_uses: number | null; valid_from: Date | null; valid_until: Date | null; ticket_type_ids: string[]; created_at: Date }

export interface PromoView { id: string; eventId: string; code: string; kind: 'percent' | 'fixed'; amount: number; maxUses: number | null; uses: number; validFrom: string | null; validUntil: string | null; ticketTypeIds: string[] }

/** Orders that count as a use of a promo code: live ones (awaiting payment, paid, partly refunded). */
const LIVE_ORDER = `status IN ('pending', 'paid', 'partially_refunded')`;

async function promoUses(db: Queryable, orgId: string, promoId: string): Promise<number> {
  return (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM ticketing_orders WHERE org_id = $1 AND promo_code_id = $2 AND ${LIVE_ORDER}`, [orgId, promoId]))!.n;
}

async function promoView(db: Queryable, orgId: string, row: PromoRow): Promise<PromoView> {
  return {
    id: row.id, eventId: row.event_id, code: row.code, kind: row.kind, amount: row.amount, maxUses: row.max_uses, uses: await promoUses(db, orgId, row.id),
    validFrom: row.valid_from?.toISOString() ?? null, validUntil: row.valid_until?.toISOString() ?? null, ticketTypeIds: row.ticket_type_ids,
  };
}

export const normaliseCode = (code: string) => code.trim().toUpperCase();

export async function createPromoCode(db: Queryable, orgId: string, input: { eventId: string; code: string; kind: 'percent' | 'fixed'; amount: number; maxUses?: number; validFrom?: string; validUntil?: string; ticketTypeIds?: string[] }): Promise<PromoView> {
  const event = await eventRow(db, orgId, input.eventId);
  if (event.status === 'cancelled' || event.status === 'completed') throw new StewardError('conflict', `${event.title} is ${event.status}`);
  if (input.kind === 'percent' && input.amount > 100) throw new StewardError('validation_failed', 'A percentage is at most 100', { issues: [{ path: 'amount', message: 'at most 100 for percent' }] });
  if (input.validFrom && input.validUntil && new Date(input.validUntil) <= new Date(input.validFrom)) {
    throw new StewardError('validation_failed', 'validUntil must be after validFrom', { issues: [{ path: 'validUntil', message: 'not after validFrom' }] });
  }
  const typeIds = [...new Set(input.ticketTypeIds ?? [])];
  if (typeIds.length > 0) {
    const found = await queryRows<{ id: string }>(db, 'SELECT id FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND id = ANY($3::uuid[])', [orgId, event.id, typeIds]);
    const missing = typeIds.find((id) => !found.some((row) => row.id === id));
    if (missing) throw notFound('Ticket type of this event', missing);
  }
  const id = randomUUID();
  const code = normaliseCode(input.code);
  try {
    await db.query(`INSERT INTO ticketing_promo_codes (id, org_id, event_id, code, kind, amount, max_uses, valid_from, valid_until, ticket_type_ids) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, orgId, event.id, code, input.kind, input.amount, input.maxUses ?? null, input.validFrom ?? null, input.validUntil ?? null, typeIds]);
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new StewardError('conflict', `${event.title} has a promo code ${code} already`, { issues: [{ path: 'code', message: 'already used for this event' }] });
    throw error;
  }
  return promoView(db, orgId, (await queryOne<PromoRow>(db, 'SELECT * FROM ticketing_promo_codes WHERE org_id = $1 AND id = $2', [orgId, id]))!);
}

async function promoFor(db: Queryable, orgId: string, eventId: string, code: string, options: { forUpdate?: boolean } = {}): Promise<PromoRow> {
  const row = await queryOne<PromoRow>(db, `SELECT * FROM ticketing_promo_codes WHERE org_id = $1 AND event_id = $2 AND code = $3${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, eventId, normaliseCode(code)]);
  const invalid = (message: string) => new StewardError('validation_failed', message, { issues: [{ path: 'promoCode', message }] });
  if (!row) throw invalid(`${normaliseCode(code)} is not a promo code for this event`);
  const now = new Date();
  if (row.valid_from && now < row.valid_from) throw invalid(`${row.code} is not valid until ${row.valid_from.toISOString()}`);
  if (row.valid_until && now >= row.valid_until) throw invalid(`${row.code} expired at ${row.valid_until.toISOString()}`);
  return row;
}

export interface PricedLine { ticketTypeId: string; name: string; quantity: number; unitPrice: number; discount: number; ticketPrices: number[] }

/**
 * Prices an order on the server: each line at its type's current price; a promo code takes its
 * discount from the lines it applies to (a percentage of them, or a fixed sum up to their total),
 * shared over those tickets in proportion to price, so what each ticket paid adds up to the total
 * exactly (a refund of one ticket returns what that ticket paid).
 */
export function priceOrder(items: ReadonlyArray<{ type: Pick<TicketTypeRow, 'id' | 'name' | 'price_minor'>; quantity: number }>, promo: Pick<PromoRow, 'kind' | 'amount' | 'ticket_type_ids'> | null): { lines: PricedLine[]; subtotal: number; discount: number } {
  const lines: PricedLine[] = items.map(({ type, quantity }) => ({ ticketTypeId: type.id, name: type.name, quantity, unitPrice: type.price_minor, discount: 0, ticketPrices: Array(quantity).fill(type.price_minor) as number[] }));
  const subtotal = lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0);
  if (!promo) return { lines, subtotal, discount: 0 };
  const eligible = lines.filter((line) => promo.ticket_type_ids.length === 0 || promo.ticket_type_ids.includes(line.ticketTypeId));
  const base = eligible.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0);
  const discount = promo.kind === 'percent' ? Math.floor((base * promo.amount) / 100) : Math.min(promo.amount, base);
  if (discount === 0) return { lines, subtotal, discount: 0 };
  // Largest remainder: shares in proportion to each ticket's price, rounded down, the pennies left to the dearest first.
  const slots = eligible.flatMap((line) => line.ticketPrices.map((price, index) => ({ line, index, price, share: Math.floor((discount * price) / base), rest: (discount * price) % base })));
  let left = discount - slots.reduce((sum, slot) => sum + slot.share, 0);
  for (const slot of [...slots].sort((a, b) => b.rest - a.rest || b.price - a.price)) {
    if (left === 0) break;
    if (slot.share < slot.price) { slot.share += 1; left -= 1; }
  }
  for (const slot of slots) {
    slot.line.ticketPrices[slot.index] = slot.price - slot.share;
    slot.line.discount += slot.share;
  }
  return { lines, subtotal, discount };
}

// ---------------------------------------------------------------- tickets

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 130 random bits as 26 base-32 characters: unguessable, and unique by the table's constraint. */
export function newBarcode(): string {
  const bytes = randomBytes(17);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `TKT-${out}`;
}

async function issueTickets(db: Queryable, orgId: string, order: { id: string; event_id: string; contact_id: string | null; buyer_name: string | null }, lines: ReadonlyArray<{ ticketTypeId: string; ticketPrices: number[] }>, holderName?: string | null): Promise<number> {
  let issued = 0;
  for (const line of lines) {
    for (const price of line.ticketPrices) {
      await db.query(`INSERT INTO ticketing_tickets (id, org_id, event_id, order_id, ticket_type_id, barcode, price_paid_minor, contact_id, holder_name)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [randomUUID(), orgId, order.event_id, order.id, line.ticketTypeId, newBarcode(), price, order.contact_id, holderName ?? order.buyer_name]);
      issued += 1;
    }
  }
  return issued;
}

/** The ticket prices of an order's lines, as its lines recorded them (discount shared as when it was priced). */
async function pricedLinesOf(db: Queryable, orgId: string, orderId: string): Promise<PricedLine[]> {
  const lines = await queryRows<{ ticket_type_id: string; name: string; quantity: number; unit_price_minor: number; discount_minor: number }>(db,
    'SELECT ticket_type_id, name, quantity, unit_price_minor, discount_minor FROM ticketing_order_lines WHERE org_id = $1 AND order_id = $2 ORDER BY id', [orgId, orderId]);
  return lines.map((line) => {
    // The line's discount shared over its tickets, the odd pennies on the first: the same total as priced.
    const each = Math.floor(line.discount_minor / line.quantity);
    const extra = line.discount_minor - each * line.quantity;
    return {
      ticketTypeId: line.ticket_type_id, name: line.name, quantity: line.quantity, unitPrice: line.unit_price_minor, discount: line.discount_minor,
      ticketPrices: Array.from({ length: line.quantity }, (_, index) => line.unit_price_minor - each - (index < extra ? 1 : 0)),
    };
  });
}

// ---------------------------------------------------------------- orders

export interface CreateOrderInput {
  reservationId?: string; eventId?: string; items?: ItemInput[]; accessCode?: string; promoCode?: string;
  contactId?: string; buyerName?: string; buyerEmail?: string; returnUrl?: string;
}

export function requireProvider(): PaymentProvider {
  const provider = paymentProviderFromEnv();
  if (!provider) {
    throw new StewardError('not_configured', 'No payment provider is configured (PAYMENTS_API_URL and PAYMENTS_SECRET_KEY)', {
      hint: 'npm start runs a local payment sandbox; otherwise set PAYMENTS_API_URL, PAYMENTS_SECRET_KEY and PAYMENTS_WEBHOOK_SECRET. Free tickets need no provider.',
    });
  }
  return provider;
}

interface OrderBasis {
  event: EventRow;
  reservation: ReservationRow | undefined;
  items: ItemInput[];
  contactId: string | null;
  promo: PromoRow | null;
  priced: { lines: PricedLine[]; subtotal: number; discount: number };
}

/** What an order is for and what it costs, from the database's prices (never the caller's); checks everything but places. */
async function orderBasis(db: Queryable, orgId: string, input: CreateOrderInput, options: { lockReservation: boolean }): Promise<OrderBasis> {
  let reservation: ReservationRow | undefined;
  let items: ItemInput[];
  let event: EventRow;
  if (input.reservationId) {
    reservation = await queryOne<ReservationRow>(db, `SELECT * FROM ticketing_reservations WHERE org_id = $1 AND id = $2${options.lockReservation ? ' FOR UPDATE' : ''}`, [orgId, input.reservationId]);
    if (!reservation) throw notFound('Reservation', input.reservationId);
    if (reservation.status !== 'pending') throw new StewardError('conflict', `The reservation is ${reservation.status}`, { hint: 'Reserve again (ticketing_reserve_tickets), or order straight from items.', details: { reason: `reservation_${reservation.status}` } });
    const taken = await queryOne<{ id: string }>(db, `SELECT id FROM ticketing_orders WHERE org_id = $1 AND reservation_id = $2 AND status <> 'cancelled'`, [orgId, reservation.id]);
    if (taken) throw new StewardError('conflict', `The reservation already has order ${taken.id}`, { hint: 'ticketing_get_order shows it.', details: { orderId: taken.id } });
    items = (await queryRows<{ ticket_type_id: string; quantity: number }>(db, 'SELECT ticket_type_id, quantity FROM ticketing_reservation_items WHERE org_id = $1 AND reservation_id = $2 ORDER BY ticket_type_id', [orgId, reservation.id]))
      .map((item) => ({ ticketTypeId: item.ticket_type_id, quantity: item.quantity }));
    event = await eventRow(db, orgId, reservation.event_id);
  } else {
    event = await eventRow(db, orgId, input.eventId!);
    items = input.items!;
  }
  assertOnSale(event);
  if (input.contactId) await requireContact(db, orgId, input.contactId);
  const types = await sellableTypes(db, orgId, event, items, input.accessCode ?? reservation?.access_code);
  const promo = input.promoCode ? await promoFor(db, orgId, event.id, input.promoCode) : null;
  const priced = priceOrder(items.map((item) => ({ type: types.get(item.ticketTypeId)!, quantity: item.quantity })), promo);
  return { event, reservation, items, contactId: input.contactId ?? reservation?.contact_id ?? null, promo, priced };
}

/** What create_order's prepare step hands its run: the order's id, its price, and the checkout session opened for it. */
export interface PreparedOrder { orderId: string; total: number; session: CheckoutSession | null; expiresAt: string }

/**
 * Before the call's transaction (so no lock, the allowance's included, is held across the network):
 * the order is priced and, when it costs anything, a checkout session is opened at the provider for
 * exactly that amount. A plainly sold-out event is refused here, before any session is opened. The
 * order's id comes from the call's workflow id and its expiry from the call's start (or the cart's),
 * so a retried attempt sends the provider the same request under the same key and gets the first
 * attempt's session back: one call, one session.
 */
export async function prepareOrder(db: Queryable, orgId: string, input: CreateOrderInput, call: CheckoutCall): Promise<PreparedOrder> {
  const basis = await orderBasis(db, orgId, input, { lockReservation: false });
  if (!basis.reservation) await claimPlaces(db, orgId, basis.event.id, wantsOf(basis.items), { lock: false });
  const orderId = stableUuid(`${call.workflowId}:ticketing-order`);
  const total = basis.priced.subtotal - basis.priced.discount;
  const expiresAt = basis.reservation?.expires_at ?? new Date(call.callStartedAt.getTime() + basis.event.reservation_minutes * 60_000);
  let session: CheckoutSession | null = null;
  if (total > 0) {
    const base = process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000';
    session = await openCallCheckout(requireProvider(), {
      idempotencyKey: `ticketing-order-${orderId}`, currency: basis.event.currency, discountMinor: basis.priced.discount,
      lineItems: basis.priced.lines.map((line) => ({ name: `${basis.event.title}: ${line.name}`, unitAmountMinor: line.unitPrice, quantity: line.quantity })),
      metadata: { steward_module: 'ticketing', org_id: orgId, order_id: orderId }, successUrl: input.returnUrl ?? `${base}/`, cancelUrl: input.returnUrl ?? `${base}/`,
      expiresAt, requestedAt: call.callStartedAt, customerEmail: input.buyerEmail ?? null,
    });
  }
  return { orderId, total, session, expiresAt: expiresAt.toISOString() };
}

/**
 * An order, priced here from the ticket types' prices and the promo code, never from the caller.
 * From a reservation (a cart, or a waitlist offer) or straight from items (reserved in the same
 * transaction). A free order is paid at once and its tickets issued; any other waits for the
 * payment provider's signed webhook (webhooks/payments.ts), the buyer paying at `checkoutUrl`
 * before the reservation runs out. Every row is written first and the places are checked last,
 * under the pools' locks with the order's own rows counted, so the locks are held only for that
 * check and the commit.
 */
export async function createOrder(db: Queryable, orgId: string, userId: string | null, input: CreateOrderInput, prepared: PreparedOrder): Promise<{ order: OrderView; ticketsIssued: number }> {
  const { event, reservation, items, contactId, promo, priced } = await orderBasis(db, orgId, input, { lockReservation: true });
  const total = priced.subtotal - priced.discount;
  const session = prepared.session;
  const closeSession = () => (session ? requireProvider().expireCheckoutSession(session.id).catch(() => undefined) : Promise.resolve(undefined));
  if (total !== prepared.total || (total > 0) !== (session !== null)) {
    await closeSession();
    throw new StewardError('conflict', 'The price changed while the order was being made', { hint: 'Ask again: the order is priced afresh.' });
  }
  try {
    const orderId = prepared.orderId;
    const reservationId = reservation?.id ?? await insertReservation(db, orgId, event, items, { contactId, expiresAt: new Date(prepared.expiresAt), accessCode: input.accessCode ?? null });
    const paidNow = total === 0;
    await db.query(`INSERT INTO ticketing_orders (id, org_id, event_id, reservation_id, status, contact_id, buyer_name, buyer_email, currency, subtotal_minor, discount_minor, total_minor,
        promo_code_id, provider, checkout_session_id, checkout_url, paid_at, created_by_user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [orderId, orgId, event.id, reservationId, paidNow ? 'paid' : 'pending', contactId, input.buyerName ?? null, input.buyerEmail ?? null, event.currency,
      priced.subtotal, priced.discount, total, promo?.id ?? null, session ? 'stripe' : null, session?.id ?? null, session?.url ?? null, paidNow ? new Date() : null, userId]);
    for (const line of priced.lines) {
      await db.query('INSERT INTO ticketing_order_lines (id, org_id, order_id, ticket_type_id, name, quantity, unit_price_minor, discount_minor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [randomUUID(), orgId, orderId, line.ticketTypeId, line.name, line.quantity, line.unitPrice, line.discount]);
    }
    const issued = paidNow ? await confirmPaid(db, orgId, orderId) : 0;
    const order = await orderView(db, orgId, orderId);
    if (promo) {
      // The promo code's row is the lock its use limit is checked under, this order counted: two orders never take its last use together.
      await db.query('SELECT id FROM ticketing_promo_codes WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, promo.id]);
      if (promo.max_uses !== null && await promoUses(db, orgId, promo.id) > promo.max_uses) {
        throw new StewardError('conflict', `${promo.code} has been used its ${promo.max_uses} time${promo.max_uses === 1 ? '' : 's'}`, { issues: [{ path: 'promoCode', message: 'no uses left' }], details: { reason: 'promo_used_up' } });
      }
    }
    // Last: the places, this order's own rows already counted (a cart's places were taken when it was made).
    if (!reservation) await claimPlaces(db, orgId, event.id, wantsOf(items), { counted: true });
    return { order, ticketsIssued: issued };
  } catch (error) {
    // The order was refused: the checkout session opened for it is closed, so nobody can pay for nothing.
    // Not when the call will try again (a lost connection): the next attempt gets the same session back.
    if (endsToolCall(error)) await closeSession();
    throw error;
  }
}

/** A paid order's places become tickets: the reservation is confirmed, its waitlist entry purchased. */
async function confirmPaid(db: Queryable, orgId: string, orderId: string): Promise<number> {
  const order = await orderRow(db, orgId, orderId);
  if (order.reservation_id) {
    await db.query(`UPDATE ticketing_reservations SET status = 'confirmed', ended_at = now() WHERE org_id = $1 AND id = $2`, [orgId, order.reservation_id]);
    await db.query(`UPDATE ticketing_waitlist_entries SET status = 'purchased', updated_at = now()
      WHERE org_id = $1 AND id = (SELECT waitlist_entry_id FROM ticketing_reservations WHERE org_id = $1 AND id = $2)`, [orgId, order.reservation_id]);
  }
  return issueTickets(db, orgId, order, await pricedLinesOf(db, orgId, orderId));
}

export type PaymentOutcome = 'paid' | 'already_paid' | 'unknown_order' | 'amount_mismatch' | 'late_paid' | 'late_refunded' | 'ignored';

/**
 * The provider's signed word that a checkout session was paid. Only this marks a sale paid. An
 * order already paid changes nothing (a repeat); an amount or currency that differs from the
 * order's is refused. A payment for an order whose reservation already ran out (the provider's
 * event arriving after Steward expired the order) takes its places again if they are free, and is
 * refunded in full if they are not.
 */
export async function applyCheckoutCompleted(db: Queryable, orgId: string, session: CheckoutSession): Promise<{ outcome: PaymentOutcome; orderId: string | null }> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM ticketing_orders WHERE org_id = $1 AND checkout_session_id = $2 FOR UPDATE', [orgId, session.id]);
  if (!order || session.metadata.order_id !== order.id) return { outcome: 'unknown_order', orderId: null };
  if (session.paymentStatus !== 'paid') return { outcome: 'ignored', orderId: order.id };
  if (order.status !== 'pending' && order.status !== 'cancelled') return { outcome: 'already_paid', orderId: order.id };
  if (session.amountTotal !== order.total_minor || session.currency.toUpperCase() !== order.currency) return { outcome: 'amount_mismatch', orderId: order.id };
  const mark = () => db.query(`UPDATE ticketing_orders SET status = 'paid', cancel_reason = NULL, paid_at = now(), payment_intent_id = $3, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, order.id, session.paymentIntentId]);
  if (order.status === 'pending') {
    await mark();
    await confirmPaid(db, orgId, order.id);
    return { outcome: 'paid', orderId: order.id };
  }
  // Late: the order was cancelled when its reservation ran out.
  const lines = await pricedLinesOf(db, orgId, order.id);
  try {
    await db.query('SAVEPOINT late_claim');
    await claimPlaces(db, orgId, order.event_id, new Map(lines.map((line) => [line.ticketTypeId, line.quantity])));
    await db.query('RELEASE SAVEPOINT late_claim');
    await mark();
    await issueTickets(db, orgId, order, lines);
    return { outcome: 'late_paid', orderId: order.id };
  } catch (error) {
    if (!(error instanceof StewardError)) throw error;
    await db.query('ROLLBACK TO SAVEPOINT late_claim');
    const provider = requireProvider();
    const refund = await provider.refund({ paymentIntentId: session.paymentIntentId!, amountMinor: order.total_minor, idempotencyKey: `ticketing-late-${order.id}` });
    await db.query(`UPDATE ticketing_orders SET status = 'refunded', refunded_minor = total_minor, paid_at = now(), payment_intent_id = $3,
      cancel_reason = 'paid after its reservation ran out, with no places left: refunded in full', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, order.id, session.paymentIntentId]);
    await db.query('INSERT INTO ticketing_refunds (id, org_id, order_id, amount_minor, reason, provider_refund_id) VALUES ($1, $2, $3, $4, $5, $6)',
      [randomUUID(), orgId, order.id, order.total_minor, 'Paid after the reservation ran out; no places left', refund.id]);
    return { outcome: 'late_refunded', orderId: order.id };
  }
}

// ---------------------------------------------------------------- comps

export async function issueCompTickets(db: Queryable, orgId: string, userId: string | null, input: { eventId: string; ticketTypeId: string; quantity: number; holderName?: string; contactId?: string; note?: string }): Promise<{ order: OrderView; ticketsIssued: number }> {
  const event = await eventRow(db, orgId, input.eventId);
  if (event.status === 'cancelled' || event.status === 'completed' || event.status === 'draft') {
    throw new StewardError('conflict', `${event.title} is ${event.status}: complimentary tickets are issued for a published event`);
  }
  const type = await queryOne<TicketTypeRow>(db, 'SELECT * FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2 AND id = $3 AND archived_at IS NULL', [orgId, event.id, input.ticketTypeId]);
  if (!type) throw notFound('Ticket type of this event', input.ticketTypeId);
  if (input.contactId) await requireContact(db, orgId, input.contactId);
  await claimPlaces(db, orgId, event.id, new Map([[type.id, input.quantity]]));
  const orderId = randomUUID();
  await db.query(`INSERT INTO ticketing_orders (id, org_id, event_id, kind, status, contact_id, buyer_name, currency, subtotal_minor, discount_minor, total_minor, paid_at, created_by_user_id, cancel_reason)
    VALUES ($1, $2, $3, 'comp', 'paid', $4, $5, $6, 0, 0, 0, now(), $7, NULL)`, [orderId, orgId, event.id, input.contactId ?? null, input.holderName ?? null, event.currency, userId]);
  await db.query('INSERT INTO ticketing_order_lines (id, org_id, order_id, ticket_type_id, name, quantity, unit_price_minor) VALUES ($1, $2, $3, $4, $5, $6, 0)',
    [randomUUID(), orgId, orderId, type.id, type.name, input.quantity]);
  const issued = await issueTickets(db, orgId, { id: orderId, event_id: event.id, contact_id: input.contactId ?? null, buyer_name: input.holderName ?? null },
    [{ ticketTypeId: type.id, ticketPrices: Array(input.quantity).fill(0) as number[] }]);
  return { order: await orderView(db, orgId, orderId), ticketsIssued: issued };
}

// ---------------------------------------------------------------- lists

export async function listOrders(db: Queryable, orgId: string, filter: { eventId?: string; status?: OrderView['status']; contactId?: string; limit: number; cursor?: string }) {
  const where: string[] = [];
  const values: unknown[] = [];
  if (filter.eventId) { values.push(filter.eventId); where.push(`event_id = $${values.length + 3}`); }
  if (filter.status) { values.push(filter.status); where.push(`status = $${values.length + 3}`); }
  if (filter.contactId) { values.push(filter.contactId); where.push(`contact_id = $${values.length + 3}`); }
  const page = await listPage<{ id: string; created_at: Date }>(db, { table: 'ticketing_orders', orgId, limit: filter.limit, cursor: filter.cursor, includeDeleted: true, where: where.join(' AND ') || undefined, values });
  const orders = [];
  for (const row of page.rows) orders.push(await orderView(db, orgId, row.id));
  return { orders, nextCursor: page.nextCursor };
}

export { promoView, type PromoRow };
