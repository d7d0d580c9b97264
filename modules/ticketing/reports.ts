import { queryRows, type Queryable } from '../../db/pool';
import { availability } from './capacity';
import { eventRow } from './events';

export interface SalesReport {
  eventId: string; title: string; status: string; currency: string;
  totals: { ordersPaid: number; ordersPending: number; ticketsSold: number; compTickets: number; checkedIn: number; gross: number; discounts: number; refunded: number; net: number };
  byType: Array<{ ticketTypeId: string; name: string; price: number; sold: number; comps: number; pending: number; held: number; remaining: number | null; gross: number; discounts: number; checkedIn: number }>;
  promoCodes: Array<{ code: string; uses: number; maxUses: number | null; discountGiven: number }>;
  waitlist: { waiting: number; offered: number; purchased: number; expired: number };
}

/** One event's sales: money (gross, discounts, refunds, net) from orders that took money, places from the live rows. */
export async function salesReport(db: Queryable, orgId: string, eventId: string): Promise<SalesReport> {
  const event = await eventRow(db, orgId, eventId);
  const places = await availability(db, orgId, eventId);
  const money = await queryRows<{ ticket_type_id: string; gross: number; discounts: number }>(db, `SELECT l.ticket_type_id, sum(l.unit_price_minor * l.quantity)::int AS gross, sum(l.discount_minor)::int AS discounts
    FROM ticketing_order_lines l JOIN ticketing_orders o ON o.id = l.order_id
    WHERE o.org_id = $1 AND o.event_id = $2 AND o.kind = 'sale' AND o.status IN ('paid', 'partially_refunded', 'refunded') GROUP BY l.ticket_type_id`, [orgId, eventId]);
  const tickets = await queryRows<{ ticket_type_id: string; kind: string; status: string; n: number }>(db, `SELECT k.ticket_type_id, o.kind, k.status, count(*)::int AS n
    FROM ticketing_tickets k JOIN ticketing_orders o ON o.id = k.order_id WHERE k.org_id = $1 AND k.event_id = $2 GROUP BY 1, 2, 3`, [orgId, eventId]);
  const orders = await queryRows<{ status: string; n: number; refunded: number }>(db, `SELECT status, count(*)::int AS n, sum(refunded_minor)::int AS refunded FROM ticketing_orders
    WHERE org_id = $1 AND event_id = $2 AND kind = 'sale' GROUP BY status`, [orgId, eventId]);
  const promos = await queryRows<{ code: string; max_uses: number | null; uses: number; discount: number }>(db, `SELECT p.code, p.max_uses,
      count(o.id) FILTER (WHERE o.status IN ('pending', 'paid', 'partially_refunded'))::int AS uses,
      COALESCE(sum(o.discount_minor) FILTER (WHERE o.status IN ('paid', 'partially_refunded', 'refunded')), 0)::int AS discount
    FROM ticketing_promo_codes p LEFT JOIN ticketing_orders o ON o.promo_code_id = p.id WHERE p.org_id = $1 AND p.event_id = $2 GROUP BY p.id ORDER BY p.code`, [orgId, eventId]);
  const waitlist = await queryRows<{ status: string; n: number }>(db, 'SELECT status, count(*)::int AS n FROM ticketing_waitlist_entries WHERE org_id = $1 AND event_id = $2 GROUP BY status', [orgId, eventId]);
  const prices = await queryRows<{ id: string; price_minor: number }>(db, 'SELECT id, price_minor FROM ticketing_ticket_types WHERE org_id = $1 AND event_id = $2', [orgId, eventId]);
  const count = (typeId: string | null, test: (row: { kind: string; status: string }) => boolean) =>
    tickets.filter((row) => (typeId === null || row.ticket_type_id === typeId) && test(row)).reduce((sum, row) => sum + row.n, 0);
  const live = (row: { status: string }) => row.status !== 'void';
  const byType = places.types.map((type) => {
    const m = money.find((row) => row.ticket_type_id === type.ticketTypeId);
    return {
      ticketTypeId: type.ticketTypeId, name: type.name, price: prices.find((row) => row.id === type.ticketTypeId)?.price_minor ?? 0,
      sold: count(type.ticketTypeId, (row) => row.kind === 'sale' && live(row)), comps: count(type.ticketTypeId, (row) => row.kind === 'comp' && live(row)),
      pending: type.pending, held: type.held, remaining: type.remaining, gross: m?.gross ?? 0, discounts: m?.discounts ?? 0,
      checkedIn: count(type.ticketTypeId, (row) => row.status === 'used'),
    };
  });
  const gross = byType.reduce((sum, row) => sum + row.gross, 0);
  const discounts = byType.reduce((sum, row) => sum + row.discounts, 0);
  const refunded = orders.reduce((sum, row) => sum + (row.refunded ?? 0), 0);
  const orderCount = (status: string) => orders.find((row) => row.status === status)?.n ?? 0;
  const wait = (status: string) => waitlist.find((row) => row.status === status)?.n ?? 0;
  return {
    eventId, title: event.title, status: event.status, currency: event.currency,
    totals: {
      ordersPaid: orderCount('paid') + orderCount('partially_refunded'), ordersPending: orderCount('pending'),
      ticketsSold: count(null, (row) => row.kind === 'sale' && live(row)), compTickets: count(null, (row) => row.kind === 'comp' && live(row)),
      checkedIn: count(null, (row) => row.status === 'used'), gross, discounts, refunded, net: gross - discounts - refunded,
    },
    byType,
    promoCodes: promos.map((row) => ({ code: row.code, uses: row.uses, maxUses: row.max_uses, discountGiven: row.discount })),
    waitlist: { waiting: wait('waiting'), offered: wait('offered'), purchased: wait('purchased'), expired: wait('expired') },
  };
}
