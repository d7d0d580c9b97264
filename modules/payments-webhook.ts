import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { withTenantTransaction, type Pool, type Queryable } from '../db/pool';
import { sqlIdentifier } from '../db/sql';
import { receivePaymentEvent, sessionFromEvent, type CheckoutSession } from '../kernel/payments';
import { recordOutsideChange } from './audit/api';

/** Outcomes of a completed checkout that changed an order, and the verb the trail records for each. */
const ORDER_CHANGES: Readonly<Record<string, string>> = { paid: 'pay', late_paid: 'pay', late_refunded: 'refund' };

/**
 * The payment provider's checkout events for one module's orders (kernel/payments.ts): the signature
 * (`Stripe-Signature`, PAYMENTS_WEBHOOK_SECRET) is verified before anything is read (401 for a missing,
 * wrong or stale one, 503 without a secret); a session another module opened is left to it. Each event
 * is recorded once by its id in the module's events table, in the same transaction as its effect, so a
 * replay changes nothing, and each change it makes leaves an audit event with the webhook as its actor.
 * Only `checkout.session.completed` is applied; expiry is Steward's own
 * timer's to apply (it closes the session first), and other events are noted only.
 */
export function checkoutEventsHandler(pool: Pool, options: {
  module: string;
  /** The module's table of provider events: provider_event_id, org_id, type, outcome, order_id. */
  eventsTable: string;
  applyCompleted: (db: Queryable, orgId: string, session: CheckoutSession) => Promise<{ outcome: string; orderId: string | null }>;
}): RequestHandler[] {
  const table = sqlIdentifier(options.eventsTable);
  const handle: RequestHandler = async (req, res, next) => {
    try {
      const received = receivePaymentEvent(req.body, req.header('stripe-signature'));
      if ('refusal' in received) return void res.status(received.refusal.status).json(received.refusal.body);
      const { event } = received;
      const session = sessionFromEvent(event);
      const orgId = session?.metadata.org_id;
      if (!session || session.metadata.steward_module !== options.module || !z.uuid().safeParse(orgId).success) {
        return void res.json({ ok: true, ignored: `not a ${options.module} checkout session` });
      }
      const outcome = await withTenantTransaction(pool, orgId!, async (db) => {
        const first = await db.query(`INSERT INTO ${table} (provider_event_id, org_id, type, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [event.id, orgId, event.type.slice(0, 100), 'received']);
        if ((first.rowCount ?? 0) === 0) return { outcome: 'duplicate', orderId: null as string | null };
        const applied = event.type === 'checkout.session.completed'
          ? await options.applyCompleted(db, orgId!, session)
          : { outcome: 'noted', orderId: session.metadata.order_id ?? null };
        const orderId = z.uuid().safeParse(applied.orderId).success ? applied.orderId : null;
        await db.query(`UPDATE ${table} SET outcome = $2, order_id = $3 WHERE provider_event_id = $1`, [event.id, applied.outcome, orderId]);
        const verb = ORDER_CHANGES[applied.outcome];
        // In the same transaction as the change: the webhook is the actor, the provider's event id its source.
        if (verb && orderId) {
          await recordOutsideChange(db, {
            orgId: orgId!, actorKind: 'webhook', channel: 'webhook:payments', source: event.id, module: options.module, noun: 'order', verb,
            target: { type: 'order', id: orderId }, fields: { outcome: applied.outcome, eventType: event.type, checkoutSession: session.id },
            amountMinor: session.amountTotal, currency: session.currency.toUpperCase(),
          });
        }
        return applied;
      });
      res.json({ ok: true, outcome: outcome.outcome });
    } catch (error) {
      next(error);
    }
  };
  return [express.raw({ type: () => true, limit: '256kb' }), handle];
}
