import { defineModule } from '../module';
import { createStoreActivities } from './activities/checkouts';
import { storeMigration } from './migrations/2026.11.28T05.00.00.store';
import { storeModels } from './models';
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
  migrations: [storeMigration],
  scopes: ['store:read', 'store:write'],
  uses: ['people'],
  routes: [],
  workflows: require.resolve('./workflows'),
  activities: [createStoreActivities],
  webhooks: [storeWebhooks],
  contactRefs: [
    { table: 'store_orders', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['buyer_name', 'buyer_email'] },
    { table: 'store_entitlements', column: 'contact_id', onMerge: 'move', onErase: 'null' },
  ],
});
