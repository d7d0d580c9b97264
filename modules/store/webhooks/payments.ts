import { Router } from 'express';
import { withTenantTransaction } from '../../../db/pool';
import { checkoutEventsHandler } from '../../payments-webhook';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { applyCheckoutCompleted, DOWNLOAD_PATH, parseDownloadToken, takeDownload } from '../orders';

export const PAYMENTS_WEBHOOK_PATH = '/webhooks/store/payments';

/**
 * The payment provider's events for store orders (kernel/payments.ts), verified before anything is
 * read (401 for a missing, wrong or stale signature, 503 without a secret). Each event is recorded
 * once by its id in the same transaction as its effect, so a replay changes nothing; sessions
 * another module opened are left to it. Only `checkout.session.completed` pays an order, whatever
 * order the events come in; expiry is Steward's own timer's to apply.
 *
 * Also the download route a digital buyer's link opens (`/store/downloads/<signed token>`): a
 * valid, live link counts one download and redirects to the file; a revoked, expired or used-up
 * one answers 410, anything else 404.
 */
function storeRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.post(PAYMENTS_WEBHOOK_PATH, ...checkoutEventsHandler(deps.pool, { module: 'store', eventsTable: 'store_payment_events', applyCompleted: applyCheckoutCompleted }));
  router.get(`${DOWNLOAD_PATH}:token`, async (req, res, next) => {
    try {
      res.setHeader('cache-control', 'no-store');
      res.setHeader('referrer-policy', 'no-referrer');
      const parsed = parseDownloadToken(String(req.params.token ?? ''));
      if (!parsed) return void res.status(404).json({ ok: false, error: { code: 'not_found', message: 'This download link is not valid' } });
      const outcome = await withTenantTransaction(deps.pool, parsed.orgId, (db) => takeDownload(db, parsed));
      if (!outcome.ok) {
        const messages = { not_found: 'This download link is not valid', revoked: 'This download was withdrawn (the order was refunded)', expired: 'This download link has expired', used_up: 'This download link has been used as many times as it allows' };
        return void res.status(outcome.status).json({ ok: false, error: { code: outcome.status === 404 ? 'not_found' : 'gone', reason: outcome.reason, message: messages[outcome.reason] } });
      }
      res.redirect(302, outcome.url);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const storeWebhooks: ModuleWebhook = { paths: ['/webhooks/store/', '/store/'], router: storeRouter };
