import express, { Router } from 'express';
import { z } from 'zod';
import { withTenantTransaction } from '../../../db/pool';
import { receivePaymentEvent, sessionFromEvent } from '../../../kernel/payments';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { applyCheckoutCompleted } from '../sales';

export const PAYMENTS_WEBHOOK_PATH = '/webhooks/ticketing/payments';

/**
 * The payment provider's events for ticket orders (kernel/payments.ts). The signature
 * (`Stripe-Signature`, PAYMENTS_WEBHOOK_SECRET) is verified before anything is read: 401 for a
 * missing, wrong or stale one, 503 when no secret is set. Each event is recorded once by its id in
 * the same transaction as its effect, so a replay changes nothing; a session another module opened
 * is left to that module. Only `checkout.session.completed` moves money state (the order paid, its
 * tickets issued); events may come in any order, and a paid order is never unpaid by a later one.
 */
function paymentsRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.post(PAYMENTS_WEBHOOK_PATH, express.raw({ type: () => true, limit: '256kb' }), async (req, res, next) => {
    try {
      const received = receivePaymentEvent(req.body, req.header('stripe-signature'));
      if ('refusal' in received) return void res.status(received.refusal.status).json(received.refusal.body);
      const { event } = received;
      const session = sessionFromEvent(event);
      const orgId = session?.metadata.org_id;
      if (!session || session.metadata.steward_module !== 'ticketing' || !z.uuid().safeParse(orgId).success) {
        return void res.json({ ok: true, ignored: 'not a ticketing checkout session' });
      }
      const outcome = await withTenantTransaction(deps.pool, orgId!, async (db) => {
        const first = await db.query('INSERT INTO ticketing_payment_events (provider_event_id, org_id, type, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [event.id, orgId, event.type.slice(0, 100), 'received']);
        if ((first.rowCount ?? 0) === 0) return { outcome: 'duplicate', orderId: null as string | null };
        const applied = event.type === 'checkout.session.completed'
          ? await applyCheckoutCompleted(db, orgId!, session)
          // Expiry is Steward's own timer's to apply (it closes the session first); other events are noted only.
          : { outcome: 'noted', orderId: session.metadata.order_id ?? null };
        await db.query('UPDATE ticketing_payment_events SET outcome = $2, order_id = $3 WHERE provider_event_id = $1',
          [event.id, applied.outcome, z.uuid().safeParse(applied.orderId).success ? applied.orderId : null]);
        return applied;
      });
      res.json({ ok: true, outcome: outcome.outcome });
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const ticketingWebhooks: ModuleWebhook = { paths: ['/webhooks/ticketing/'], router: paymentsRouter };
