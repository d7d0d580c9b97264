import { z } from 'zod';
import { queryRows, type Queryable } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';
import { formatMinorUnits } from '../../core/money';

/** What ticketing answers through platform_analytics_query. */

const ticketsSold = defineMetric({
  name: 'tickets_sold',
  description: 'Tickets sold and issued over a range (default: this month so far), by the day their order was paid: sold, complimentary, and takings per currency after discounts and refunds.',
  scope: 'ticketing:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), sold: z.number().int(), comps: z.number().int(),
    takings: z.array(z.object({ currency: z.string(), gross: z.number().int(), discounts: z.number().int(), refunded: z.number().int(), net: z.number().int() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const tickets = await queryRows<{ kind: string; n: number }>(ctx.db, `SELECT o.kind, count(*)::int AS n FROM ticketing_tickets k JOIN ticketing_orders o ON o.id = k.order_id
      WHERE k.org_id = $1 AND k.status <> 'void' AND o.paid_at >= $2::date AND o.paid_at < $3::date + 1 GROUP BY o.kind`, [ctx.org.id, from, to]);
    const money = await queryRows<{ currency: string; gross: number; discounts: number; refunded: number }>(ctx.db, `SELECT currency, sum(subtotal_minor)::int AS gross, sum(discount_minor)::int AS discounts, sum(refunded_minor)::int AS refunded
      FROM ticketing_orders WHERE org_id = $1 AND kind = 'sale' AND status IN ('paid', 'partially_refunded', 'refunded') AND paid_at >= $2::date AND paid_at < $3::date + 1
      GROUP BY currency ORDER BY currency`, [ctx.org.id, from, to]);
    const sold = tickets.find((row) => row.kind === 'sale')?.n ?? 0;
    const comps = tickets.find((row) => row.kind === 'comp')?.n ?? 0;
    const takings = money.map((row) => ({ ...row, net: row.gross - row.discounts - row.refunded }));
    const net = takings.map((row) => formatMinorUnits(row.net, row.currency)).join(' and ');
    return {
      data: { from, to, sold, comps, takings },
      speakToUser: sold + comps === 0 ? `No tickets were sold ${spokenRange(from, to)}.` : `${countOf(sold, 'ticket')} sold${comps ? ` and ${comps} complimentary` : ''} ${spokenRange(from, to)}${net ? `, taking ${net} net` : ''}.`,
    };
  },
});

const upcomingEventSales = defineMetric({
  name: 'upcoming_event_sales',
  description: 'The next events on sale or closed for sales (up to limit, default 10), soonest first: tickets sold and the capacity left.',
  scope: 'ticketing:read',
  params: ['limit'],
  output: z.object({ events: z.array(z.object({ eventId: z.uuid(), title: z.string(), startsAt: z.string(), status: z.string(), sold: z.number().int(), capacity: z.number().int().nullable() }).strict()) }).strict(),
  compute: async (ctx, params) => {
    const events = await upcomingEvents(ctx.db, ctx.org.id, params.limit ?? 10);
    return {
      data: { events },
      speakToUser: events.length === 0 ? 'No ticketed events are coming up.' : events.map((e) => `${e.title}: ${e.sold}${e.capacity === null ? '' : ` of ${e.capacity}`} sold`).join('; ') + '.',
    };
  },
});

/** Events still to come that are on sale or have closed sales, with tickets sold (not void) and the whole-event capacity. */
export async function upcomingEvents(db: Queryable, orgId: string, limit: number) {
  const rows = await queryRows<{ id: string; title: string; starts_at: Date; status: string; sold: number; capacity: number | null }>(db, `SELECT e.id, e.title, e.starts_at, e.status,
      (SELECT count(*)::int FROM ticketing_tickets k WHERE k.event_id = e.id AND k.status <> 'void') AS sold,
      (SELECT capacity FROM ticketing_pools p WHERE p.event_id = e.id AND p.kind = 'event') AS capacity
    FROM ticketing_events e WHERE e.org_id = $1 AND e.status IN ('published', 'sales_closed') AND e.starts_at >= now() ORDER BY e.starts_at, e.id LIMIT $2`, [orgId, limit]);
  return rows.map((row) => ({ eventId: row.id, title: row.title, startsAt: row.starts_at.toISOString(), status: row.status, sold: row.sold, capacity: row.capacity }));
}

export const ticketingMetrics = [ticketsSold, upcomingEventSales];
