import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { routesFor } from '../routes';
import { productRow, shopRow } from './catalogue';

/**
 * Store's dashboard API routes: what a shop's pages need that no curated tool gives (a variant's
 * stock ledger, an order's payment events). Selling and refunding go through the curated tools,
 * so the bridges send those there.
 */
const routes = routesFor('store', { read: 'store:read', write: 'store:write' });

export const storeRoutes = [
  routes.get('products/{productId}/inventory-history', {
    summary: 'A product\'s stock ledger: every change to each variant\'s quantities, with its reason and reference, newest first',
    params: z.object({ productId: z.uuid() }).strict(),
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict(),
    response: z.object({
      adjustments: z.array(z.object({
        id: z.uuid(), variantId: z.uuid(), sku: z.string(), locationId: z.uuid(), state: z.string(), delta: z.number().int(), reason: z.string(),
        reference: z.string().nullable(), orderId: z.uuid().nullable(), createdAt: z.string(),
      }).strict()),
    }).strict(),
    run: async (ctx, { params, query }) => {
      await productRow(ctx.db, ctx.org.id, params.productId);
      const rows = await queryRows<{ id: string; variant_id: string; sku: string; location_id: string; state: string; delta: number; reason: string; reference: string | null; order_id: string | null; created_at: Date }>(ctx.db,
        `SELECT a.id, a.variant_id, v.sku, a.location_id, a.state, a.delta, a.reason, a.reference, a.order_id, a.created_at FROM store_inventory_adjustments a
         JOIN store_variants v ON v.id = a.variant_id WHERE a.org_id = $1 AND v.product_id = $2 ORDER BY a.created_at DESC, a.id LIMIT $3`, [ctx.org.id, params.productId, query.limit]);
      return {
        adjustments: rows.map((r) => ({ id: r.id, variantId: r.variant_id, sku: r.sku, locationId: r.location_id, state: r.state, delta: r.delta, reason: r.reason, reference: r.reference, orderId: r.order_id, createdAt: r.created_at.toISOString() })),
      };
    },
  }),
  routes.get('shops/{shopId}/locations', {
    summary: 'A shop\'s stock locations',
    params: z.object({ shopId: z.uuid() }).strict(),
    response: z.object({ locations: z.array(z.object({ id: z.uuid(), name: z.string(), isDefault: z.boolean() }).strict()) }).strict(),
    run: async (ctx, { params }) => {
      await shopRow(ctx.db, ctx.org.id, params.shopId);
      const rows = await queryRows<{ id: string; name: string; is_default: boolean }>(ctx.db, 'SELECT id, name, is_default FROM store_locations WHERE org_id = $1 AND shop_id = $2 ORDER BY is_default DESC, created_at, id', [ctx.org.id, params.shopId]);
      return { locations: rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.is_default })) };
    },
  }),
  routes.post('shops/{shopId}/checkouts', {
    summary: 'Create a checkout link for items of a shop',
    params: z.object({ shopId: z.uuid() }).strict(),
    body: z.object({ items: z.array(z.object({ variantId: z.uuid(), quantity: z.number().int().min(1).max(1000) }).strict()).min(1).max(50) }).strict(),
    response: z.object({}).passthrough(),
    curatedTool: 'store_create_checkout_link',
  }),
  routes.post('orders/{orderId}/refunds', {
    summary: 'Refund a shop order',
    params: z.object({ orderId: z.uuid() }).strict(),
    body: z.object({ amount: z.number().int().min(0).max(100_000_000).optional() }).strict(),
    response: z.object({}).passthrough(),
    curatedTool: 'store_refund_order',
  }),
];
