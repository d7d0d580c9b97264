import { z } from 'zod';
import { METERED_FEATURES } from '../../core/billing';
import { queryRows } from '../../db/pool';
import { routesFor } from '../routes';
import { setSpendCapTool } from './tools';

/**
 * Billing's dashboard API routes: what the billing page needs that no curated tool gives (the
 * checkouts opened and how they ended, the provider events received and what each did, the caps
 * set). Setting a cap goes through billing_set_spend_cap, so the bridges send it there.
 */
const routes = routesFor('billing', { read: 'billing:read', write: 'billing:write' });

export const billingRoutes = [
  routes.get('checkouts', {
    summary: 'Plan checkouts opened, newest first: plan, amount, status (open, complete, expired); the link itself is not kept here',
    query: z.object({ status: z.enum(['open', 'complete', 'expired']).optional() }).strict(),
    response: z.object({
      checkouts: z.array(z.object({ id: z.uuid(), planCode: z.string(), amountMinor: z.number().int(), currency: z.string(), status: z.string(), createdAt: z.string(), completedAt: z.string().nullable() }).strict()),
    }).strict(),
    run: async (ctx, { query }) => {
      const rows = await queryRows<{ id: string; plan_code: string; amount_minor: number; currency: string; status: string; created_at: Date; completed_at: Date | null }>(ctx.db,
        'SELECT * FROM billing_checkouts WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id DESC LIMIT 100', [ctx.org.id, query.status ?? null]);
      return {
        checkouts: rows.map((row) => ({ id: row.id, planCode: row.plan_code, amountMinor: row.amount_minor, currency: row.currency, status: row.status, createdAt: row.created_at.toISOString(), completedAt: row.completed_at?.toISOString() ?? null })),
      };
    },
  }),
  routes.get('provider-events', {
    summary: 'Payment provider events received for the plan, newest first, with what each did (plan_granted, stale_ignored, duplicate…)',
    response: z.object({ events: z.array(z.object({ id: z.string(), type: z.string(), createdAt: z.string(), outcome: z.string(), receivedAt: z.string() }).strict()) }).strict(),
    run: async (ctx) => {
      const rows = await queryRows<{ provider_event_id: string; type: string; event_created_at: Date; outcome: string; received_at: Date }>(ctx.db,
        'SELECT * FROM billing_webhook_events WHERE org_id = $1 ORDER BY received_at DESC LIMIT 100', [ctx.org.id]);
      return { events: rows.map((row) => ({ id: row.provider_event_id, type: row.type, createdAt: row.event_created_at.toISOString(), outcome: row.outcome, receivedAt: row.received_at.toISOString() })) };
    },
  }),
  routes.put('spend-caps/{feature}', {
    summary: 'Set or remove a spend cap on a metered feature',
    params: z.object({ feature: z.enum(METERED_FEATURES) }).strict(),
    body: z.object({ capUnits: z.number().int().min(0).max(100_000_000).nullable() }).strict(),
    response: setSpendCapTool.output,
    curatedTool: 'billing_set_spend_cap',
  }),
];
