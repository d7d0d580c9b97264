import path from 'node:path';
import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { defineModule } from '../module';
import { defineWidget } from '../widget';
import { createStoreActivities } from './activities/checkouts';
import { storeMigration } from './migrations/2026.11.28T05.00.00.store';
import { storeDonationsMigration } from './migrations/2026.11.28T18.00.00.store-donations';
import { storeMetrics, storeOverview } from './metrics';
import { storeModels } from './models';
import { storePlaybooks } from './playbooks';
import { storeRoutes } from './routes';
import { storeTools } from './tools';
import { storeWebhooks } from './webhooks/payments';

/**
 * Store: shops (draft → open → paused → closed; opening needs approval), products and variants,
 * inventory per location in Shopify's quantity states, checkout links whose units are committed
 * for the checkout's time (a Temporal timer returns them), orders paid only by the payment
 * provider's signed webhook (kernel/payments.ts), the bookstall's cash sales, fulfilment, refunds
 * (never past what was paid) and digital downloads through signed, expiring, counted links.
 * Store sales are not donations: no Gift Aid, and nothing here records a gift.
 */
export default defineModule({
  name: 'store',
  title: 'Store',
  description: 'Shops and the bookstall: products and variants, stock per location, checkout links, cash sales, orders, fulfilment, refunds, digital downloads and sales reports.',
  tools: storeTools,
  models: [...storeModels],
  migrations: [storeMigration, storeDonationsMigration],
  scopes: ['store:read', 'store:write'],
  // giving: a donation added at checkout becomes a giving donation (modules/giving/api.ts).
  uses: ['people', 'platform', 'giving', 'audit'],
  routes: storeRoutes,
  playbooks: storePlaybooks,
  metrics: storeMetrics,
  widgets: [defineWidget({
    id: 'store-order', module: 'store', title: 'Shop order',
    description: 'A shop order at a glance: payment and fulfilment status, its lines at the prices sold, refunds and download use.',
    tools: ['store_get_order'], script: path.join(__dirname, 'widgets', 'order.mts'),
  })],
  overview: {
    shape: {
      store: z.object({ openShops: z.number().int(), pendingCheckouts: z.number().int(), ordersToFulfil: z.number().int(), lowStockVariants: z.number().int() }).strict().nullable()
        .describe('Shops open, checkouts awaiting payment, paid orders still to hand over, variants at or below their low-stock threshold; null without store:read'),
    },
    compute: async (ctx) => ({ store: hasScope(ctx.principal, 'store:read') ? await storeOverview(ctx.db, ctx.org.id) : null }),
  },
  workflows: require.resolve('./workflows'),
  activities: [createStoreActivities],
  webhooks: [storeWebhooks],
  contactRefs: [
    { table: 'store_orders', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['buyer_name', 'buyer_email'] },
    { table: 'store_entitlements', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  ],
});
