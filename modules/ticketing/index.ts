import { defineModule } from '../module';
import { createTicketingActivities } from './activities/reservations';
import { ticketingMigration } from './migrations/2026.11.28T04.00.00.ticketing';
import { ticketingModels } from './models';
import { ticketingTools } from './tools';
import { ticketingWebhooks } from './webhooks/payments';

/**
 * Ticketing: events, ticket types and capacity pools, holds, carts with a time limit, orders paid
 * through the shared payment adapter (kernel/payments.ts), tickets with unguessable barcodes,
 * promo codes, waitlists, refunds, the door and sales reports. Never oversells: every place taken
 * is counted and checked under the locks of the pools it belongs to (capacity.ts).
 */
export default defineModule({
  name: 'ticketing',
  title: 'Ticketing',
  description: 'Ticketed events: ticket types, capacity, holds, orders and payments, promo codes, waitlists, refunds, door check-in and sales reports.',
  tools: ticketingTools,
  models: [...ticketingModels],
  migrations: [ticketingMigration],
  scopes: ['ticketing:read', 'ticketing:write', 'ticketing:refund'],
  uses: ['people', 'schedule'],
  routes: [],
  workflows: require.resolve('./workflows'),
  activities: [createTicketingActivities],
  webhooks: [ticketingWebhooks],
  // Tickets issued (sold or complimentary) count against the plan's monthly allowance.
  meters: [{ feature: 'tickets', allowances: { starter: 500, growth: 5000, enterprise: 100000 } }],
  contactRefs: [
    { table: 'ticketing_orders', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['buyer_name', 'buyer_email'] },
    { table: 'ticketing_tickets', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['holder_name'] },
    { table: 'ticketing_reservations', column: 'contact_id', onMerge: 'move', onErase: 'null' },
    { table: 'ticketing_waitlist_entries', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['name', 'email'] },
  ],
});
