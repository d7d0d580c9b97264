import { Router } from 'express';
import { checkoutEventsHandler } from '../../payments-webhook';
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
  router.post(PAYMENTS_WEBHOOK_PATH, ...checkoutEventsHandler(deps.pool, { module: 'ticketing', eventsTable: 'ticketing_payment_events', applyCompleted: applyCheckoutCompleted }));
  return router;
}

export const ticketingWebhooks: ModuleWebhook = { paths: ['/webhooks/ticketing/'], router: paymentsRouter };
