import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows } from '../../db/pool';
import { routesFor } from '../routes';
import { eventRow } from './events';
import { holdSchema, promoSchema, ticketSchema, waitlistEntrySchema } from './schemas';
import { promoView, ticketsOf, type PromoRow } from './sales';
import { listWaitlist } from './waitlist';

/**
 * Ticketing's dashboard API routes: the lists an event's pages need that no curated tool gives
 * (its tickets, holds, promo codes, waitlist), and taking someone off a waitlist. Selling goes
 * through ticketing_create_order, so the bridges send a sale there.
 */
const routes = routesFor('ticketing', { read: 'ticketing:read', write: 'ticketing:write' });
const eventParams = z.object({ eventId: z.uuid() }).strict();

export const ticketingRoutes = [
  routes.get('events/{eventId}/tickets', {
    summary: 'An event\'s issued tickets (barcodes, holders, status, check-in time)',
    params: eventParams,
    query: z.object({ status: z.enum(['active', 'used', 'void']).optional() }).strict(),
    response: z.object({ tickets: z.array(ticketSchema) }).strict(),
    run: async (ctx, { params, query }) => {
      await eventRow(ctx.db, ctx.org.id, params.eventId);
      return { tickets: (await ticketsOf(ctx.db, ctx.org.id, { eventId: params.eventId })).filter((ticket) => !query.status || ticket.status === query.status) };
    },
  }),
  routes.get('events/{eventId}/holds', {
    summary: 'An event\'s holds, active and released',
    params: eventParams,
    response: z.object({ holds: z.array(holdSchema) }).strict(),
    run: async (ctx, { params }) => {
      await eventRow(ctx.db, ctx.org.id, params.eventId);
      const rows = await queryRows<{ id: string; event_id: string; ticket_type_id: string; quantity: number; reason: string; status: 'active' | 'released'; released_at: Date | null; created_at: Date }>(ctx.db,
        'SELECT * FROM ticketing_holds WHERE org_id = $1 AND event_id = $2 ORDER BY created_at, id', [ctx.org.id, params.eventId]);
      return {
        holds: rows.map((row) => ({ id: row.id, eventId: row.event_id, ticketTypeId: row.ticket_type_id, quantity: row.quantity, reason: row.reason, status: row.status, releasedAt: row.released_at?.toISOString() ?? null, createdAt: row.created_at.toISOString() })),
      };
    },
  }),
  routes.get('events/{eventId}/promo-codes', {
    summary: 'An event\'s promo codes with their uses',
    params: eventParams,
    response: z.object({ promoCodes: z.array(promoSchema) }).strict(),
    run: async (ctx, { params }) => {
      await eventRow(ctx.db, ctx.org.id, params.eventId);
      const rows = await queryRows<PromoRow>(ctx.db, 'SELECT * FROM ticketing_promo_codes WHERE org_id = $1 AND event_id = $2 ORDER BY code', [ctx.org.id, params.eventId]);
      const promoCodes = [];
      for (const row of rows) promoCodes.push(await promoView(ctx.db, ctx.org.id, row));
      return { promoCodes };
    },
  }),
  routes.get('events/{eventId}/waitlist', {
    summary: 'An event\'s waitlist in the order people joined',
    params: eventParams,
    response: z.object({ waitlist: z.array(waitlistEntrySchema) }).strict(),
    run: async (ctx, { params }) => {
      await eventRow(ctx.db, ctx.org.id, params.eventId);
      return { waitlist: await listWaitlist(ctx.db, ctx.org.id, params.eventId) };
    },
  }),
  routes.delete('waitlist/{entryId}', {
    summary: 'Take someone off a waitlist (an offer they hold is withdrawn and its places return)',
    params: z.object({ entryId: z.uuid() }).strict(),
    response: z.object({ id: z.uuid(), status: z.literal('removed') }).strict(),
    run: async (ctx, { params }) => {
      const entry = await queryOne<{ status: string }>(ctx.db, 'SELECT status FROM ticketing_waitlist_entries WHERE org_id = $1 AND id = $2 FOR UPDATE', [ctx.org.id, params.entryId]);
      if (!entry) throw new StewardError('not_found', `Waitlist entry ${params.entryId} was not found`);
      if (entry.status !== 'waiting' && entry.status !== 'offered') throw new StewardError('conflict', `The entry is ${entry.status}; only a waiting or offered entry can be removed`);
      await ctx.db.query(`UPDATE ticketing_reservations SET status = 'cancelled', ended_at = now() WHERE org_id = $1 AND waitlist_entry_id = $2 AND status = 'pending'
        AND NOT EXISTS (SELECT 1 FROM ticketing_orders o WHERE o.reservation_id = ticketing_reservations.id AND o.status = 'pending')`, [ctx.org.id, params.entryId]);
      await ctx.db.query(`UPDATE ticketing_waitlist_entries SET status = 'removed', updated_at = now() WHERE org_id = $1 AND id = $2`, [ctx.org.id, params.entryId]);
      return { id: params.entryId, status: 'removed' as const };
    },
  }),
  routes.post('events/{eventId}/orders', {
    summary: 'Sell tickets for an event',
    params: eventParams,
    body: z.object({ items: z.array(z.object({ ticketTypeId: z.uuid(), quantity: z.number().int().min(1).max(100) }).strict()).min(1).max(20) }).strict(),
    response: z.object({}).passthrough(),
    curatedTool: 'ticketing_create_order',
  }),
];
