import path from 'node:path';
import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { defineModule } from '../module';
import { defineWidget } from '../widget';
import { createTicketingActivities } from './activities/reservations';
import { ticketingMigration } from './migrations/2026.11.28T04.00.00.ticketing';
import { ticketingMetrics, upcomingEvents } from './metrics';
import { ticketingModels } from './models';
import { ticketingPlaybooks } from './playbooks';
import { ticketingRoutes } from './routes';
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
  uses: ['people', 'schedule', 'audit'],
  routes: ticketingRoutes,
  playbooks: ticketingPlaybooks,
  metrics: ticketingMetrics,
  widgets: [defineWidget({
    id: 'ticketing-event-sales', module: 'ticketing', title: 'Event sales',
    description: 'An event\'s sales at a glance: tickets sold, takings, discounts, refunds and what is left of each ticket type.',
    tools: ['ticketing_get_sales_report'], script: path.join(__dirname, 'widgets', 'event-sales.mts'),
  })],
  overview: {
    shape: {
      upcomingEvents: z.array(z.object({ eventId: z.uuid(), title: z.string(), startsAt: z.string(), status: z.string(), sold: z.number().int(), capacity: z.number().int().nullable() }).strict()).nullable()
        .describe('The next ticketed events on sale (up to 5): tickets sold and capacity; null without ticketing:read'),
    },
    compute: async (ctx) => ({ upcomingEvents: hasScope(ctx.principal, 'ticketing:read') ? await upcomingEvents(ctx.db, ctx.org.id, 5) : null }),
  },
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
