import express, { Router } from 'express';
import { z } from 'zod';
import { withTenantTransaction } from '../../../db/pool';
import { receivePaymentEvent, sessionFromEvent, type PaymentEvent } from '../../../kernel/payments';
import { planOf } from '../../../kernel/billing';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { recordOutsideChange } from '../../audit/api';
import type { Queryable } from '../../../db/pool';
import { applyCheckoutCompleted, applyCheckoutExpired, applyInvoiceEvent, applySubscriptionEvent } from '../service';

export const PAYMENTS_WEBHOOK_PATH = '/webhooks/billing/payments';

/** The organisation an event is about: billing's sessions, subscriptions and invoices carry `metadata.steward_module` and `metadata.org_id`. */
function billingOrgOf(event: PaymentEvent): string | null {
  const object = event.data.object as { metadata?: Record<string, string>; subscription_details?: { metadata?: Record<string, string> } };
  const metadata = object.metadata && Object.keys(object.metadata).length > 0 ? object.metadata : object.subscription_details?.metadata ?? {};
  if (metadata.steward_module !== 'billing') return null;
  return z.uuid().safeParse(metadata.org_id).success ? metadata.org_id! : null;
}

/** What an applied event changed, as the trail names it; outcomes that changed nothing are absent. */
function changeOf(applied: string): { noun: string; verb: string } | null {
  if (applied === 'plan_granted') return { noun: 'checkout', verb: 'complete' };
  if (applied === 'checkout_expired') return { noun: 'checkout', verb: 'expire' };
  if (applied.startsWith('subscription_')) return { noun: 'subscription', verb: 'update' };
  if (applied === 'invoice_paid') return { noun: 'invoice', verb: 'pay' };
  if (applied === 'invoice_payment_failed') return { noun: 'invoice', verb: 'fail' };
  return null;
}

/** The event's change in the audit trail, in the transaction that made it: the webhook acted, the provider's event id is its source. */
async function recordWebhookChange(db: Queryable, orgId: string, event: PaymentEvent, applied: string): Promise<void> {
  const change = changeOf(applied);
  if (!change) return;
  const object = event.data.object as { id?: unknown; amount_due?: unknown; amount_total?: unknown; currency?: unknown };
  const amount = change.noun === 'invoice' ? object.amount_due : change.noun === 'checkout' ? object.amount_total : null;
  await recordOutsideChange(db, {
    orgId, actorKind: 'webhook', channel: 'webhook:payments', source: event.id, module: 'billing', ...change,
    target: typeof object.id === 'string' ? { type: change.noun, id: object.id.slice(0, 255) } : null,
    fields: { outcome: applied, eventType: event.type },
    amountMinor: Number.isSafeInteger(amount) ? amount as number : null,
    currency: Number.isSafeInteger(amount) && typeof object.currency === 'string' ? object.currency.toUpperCase() : null,
  });
}

/**
 * The payment provider's events for the organisation's own plan (kernel/payments.ts). The
 * signature is verified before anything is read: 401 for a missing, wrong or stale one, 503 when
 * no secret is set. Each event is recorded once by its id in the same transaction as its effect,
 * so a replay changes nothing, and each change leaves an audit event with the webhook as actor; events of another module's sessions are left to it. Only
 * `checkout.session.completed` grants a plan bought through a checkout link; subscription events
 * older than the newest applied are ignored (Stripe does not promise order); a paid invoice stays paid.
 */
function paymentsRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.post(PAYMENTS_WEBHOOK_PATH, express.raw({ type: () => true, limit: '256kb' }), async (req, res, next) => {
    try {
      const received = receivePaymentEvent(req.body, req.header('stripe-signature'));
      if ('refusal' in received) return void res.status(received.refusal.status).json(received.refusal.body);
      const { event } = received;
      if (!Number.isSafeInteger(event.created)) return void res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'Not a payment event' } });
      const orgId = billingOrgOf(event);
      if (!orgId) return void res.json({ ok: true, ignored: 'not a billing event' });
      const eventAt = new Date(event.created * 1000);
      const outcome = await withTenantTransaction(deps.pool, orgId, async (db) => {
        // An organisation that does not exist (deleted since, or a made-up id) is noted nowhere.
        if (!await planOf(db, orgId)) return 'unknown_organisation';
        const first = await db.query(`INSERT INTO billing_webhook_events (provider_event_id, org_id, type, event_created_at, outcome)
          VALUES ($1, $2, $3, $4, 'received') ON CONFLICT DO NOTHING`,
        [event.id.slice(0, 255), orgId, event.type.slice(0, 100), eventAt]);
        if ((first.rowCount ?? 0) === 0) return 'duplicate';
        let applied = 'noted';
        const session = sessionFromEvent(event);
        if (event.type === 'checkout.session.completed' && session) applied = await applyCheckoutCompleted(db, orgId, session, eventAt);
        else if (event.type === 'checkout.session.expired' && session) applied = await applyCheckoutExpired(db, orgId, session);
        else if (event.type.startsWith('customer.subscription.')) applied = await applySubscriptionEvent(db, orgId, event.type, event.data.object, eventAt);
        else if (event.type === 'invoice.paid' || event.type === 'invoice.payment_failed') applied = await applyInvoiceEvent(db, orgId, event.type, event.data.object, eventAt);
        await db.query('UPDATE billing_webhook_events SET outcome = $2 WHERE provider_event_id = $1', [event.id.slice(0, 255), applied]);
        await recordWebhookChange(db, orgId, event, applied);
        return applied;
      });
      res.json({ ok: true, outcome });
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const billingWebhooks: ModuleWebhook = { paths: ['/webhooks/billing/'], router: paymentsRouter };
