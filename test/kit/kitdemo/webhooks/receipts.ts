import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import { z } from 'zod';
import { withTenantTransaction } from '../../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../../../modules/module';
import { markThanksRead } from '../thanks';
import { thanksReadSignal, thanksWorkflowId } from '../workflows/thanks';

export const RECEIPTS_PATH = '/webhooks/kitdemo/receipts';

/** HMAC-SHA256 of the raw body with KITDEMO_WEBHOOK_SECRET, hex, as the sender signs it (`X-Kitdemo-Signature`). */
export function receiptSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function signedBy(secret: string, body: Buffer, given: string | undefined): boolean {
  const expected = Buffer.from(receiptSignature(secret, body.toString('utf8')), 'utf8');
  const actual = Buffer.from(given ?? '', 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A receipt names the organisation and the thank-you; anything else is refused before it is read further. */
const receiptSchema = z.object({ orgId: z.uuid(), thanksId: z.uuid() });

function parseReceipt(body: Buffer): { orgId: string; thanksId: string } | undefined {
  try {
    const parsed = receiptSchema.safeParse(JSON.parse(body.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Read receipts for thank-you emails: verified before anything is read from them (401 for a
 * missing or wrong signature, 503 when no secret is configured), recorded under the
 * organisation's row-level security, then told to the thank-you's workflow. A receipt for a
 * thank-you that does not exist, or was not sent, is answered 404 and changes nothing.
 */
function receiptsRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.post(RECEIPTS_PATH, express.raw({ type: () => true, limit: '16kb' }), async (req, res, next) => {
    try {
      const secret = process.env.KITDEMO_WEBHOOK_SECRET;
      if (!secret) return void res.status(503).json({ ok: false, error: { code: 'not_configured', message: 'KITDEMO_WEBHOOK_SECRET is not set on this server' } });
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!signedBy(secret, body, req.header('x-kitdemo-signature'))) {
        return void res.status(401).json({ ok: false, error: { code: 'unauthorized', message: 'The X-Kitdemo-Signature header is missing or does not match' } });
      }
      const receipt = parseReceipt(body);
      if (!receipt) return void res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'A receipt names orgId and thanksId (uuids)' } });
      const { orgId, thanksId } = receipt;
      const marked = await withTenantTransaction(deps.pool, orgId, (db) => markThanksRead(db, orgId, thanksId));
      if (!marked) return void res.status(404).json({ ok: false, error: { code: 'not_found', message: `No sent thank-you ${thanksId}` } });
      await deps.temporal.workflow.getHandle(thanksWorkflowId(thanksId)).signal(thanksReadSignal).catch(() => undefined);
      res.json({ ok: true });
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const kitdemoWebhooks: ModuleWebhook = { paths: ['/webhooks/kitdemo/'], router: receiptsRouter };
