import { z } from 'zod';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange } from '../metrics';
import { formatMinorUnits } from '../../core/money';

/** What store answers through platform_analytics_query. Store sales are takings, never donations. */

const shopTakings = defineMetric({
  name: 'shop_takings',
  description: 'Shop takings over a range (default: this month so far), by the day orders were paid: orders, gross, refunded and net per currency and source (online, cash at the bookstall).',
  scope: 'store:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(),
    takings: z.array(z.object({ currency: z.string(), source: z.string(), orders: z.number().int(), gross: z.number().int(), refunded: z.number().int(), net: z.number().int() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rows = await queryRows<{ currency: string; source: string; orders: number; gross: number; refunded: number }>(ctx.db, `SELECT currency, source, count(*)::int AS orders,
      sum(total_minor)::int AS gross, sum(refunded_minor)::int AS refunded FROM store_orders WHERE org_id = $1 AND financial_status IN ('paid', 'partially_refunded', 'refunded')
      AND paid_at >= $2::date AND paid_at < $3::date + 1 GROUP BY currency, source ORDER BY currency, source`, [ctx.org.id, from, to]);
    const takings = rows.map((row) => ({ ...row, net: row.gross - row.refunded }));
    const orders = takings.reduce((sum, row) => sum + row.orders, 0);
    const net = takings.map((row) => `${formatMinorUnits(row.net, row.currency)} ${row.source}`).join(', ');
    return { data: { from, to, takings }, speakToUser: orders === 0 ? `The shops took nothing ${spokenRange(from, to)}.` : `${countOf(orders, 'order')} ${spokenRange(from, to)}: ${net} net.` };
  },
});

/** The overview's figures: open shops, checkouts awaiting payment, paid orders not yet handed over, variants at or below their threshold. */
export async function storeOverview(db: Queryable, orgId: string) {
  const row = (await queryOne<{ open_shops: number; pending: number; to_fulfil: number; low: number }>(db, `SELECT
      (SELECT count(*)::int FROM store_shops WHERE org_id = $1 AND status = 'open') AS open_shops,
      (SELECT count(*)::int FROM store_orders WHERE org_id = $1 AND financial_status = 'pending') AS pending,
      (SELECT count(*)::int FROM store_orders WHERE org_id = $1 AND financial_status IN ('paid', 'partially_refunded') AND fulfilment_status <> 'fulfilled') AS to_fulfil,
      (SELECT count(*)::int FROM (SELECT v.id FROM store_variants v JOIN store_products p ON p.id = v.product_id LEFT JOIN store_inventory_levels i ON i.variant_id = v.id
        WHERE v.org_id = $1 AND v.track_inventory AND p.status = 'active' GROUP BY v.id HAVING coalesce(sum(i.available), 0) <= v.low_stock_threshold) s) AS low`, [orgId]))!;
  return { openShops: row.open_shops, pendingCheckouts: row.pending, ordersToFulfil: row.to_fulfil, lowStockVariants: row.low };
}

export const storeMetrics = [shopTakings];
