import type { Response, Router } from 'express';
import { withTransaction } from '../../../db/pool';
import { applyInboundKeyword } from '../audience/services';
import { WEBHOOK_PATHS, webhookBaseUrl } from '../delivery/links';
import { reportedPrice } from '../delivery/pricing';
import { verifyTwilioSignature } from '../delivery/signatures';
import {
  applyPrice, applyStatus, e164, firstSighting, logUnroutedInbound, notConfigured, orgOfInbound, rawText, twilioStatus, twiml, unauthorized,
  type RawRequest, type WebhookContext,
} from './shared';

/** Twilio-style SMS webhooks, each signed with `X-Twilio-Signature` (SMS_AUTH_TOKEN) over the published URL and the sorted form parameters. */
export function smsRoutes(router: Router, { pool, raw }: WebhookContext): void {
  function twilioVerified(req: RawRequest, res: Response): Record<string, string> | null {
    const token = process.env.SMS_AUTH_TOKEN;
    if (!token) {
      notConfigured(res, 'SMS_AUTH_TOKEN');
      return null;
    }
    const params = Object.fromEntries(new URLSearchParams(rawText(req)));
    const url = `${webhookBaseUrl()}${req.originalUrl}`;
    if (!verifyTwilioSignature(token, url, params, req.header('x-twilio-signature'))) {
      unauthorized(res, 'The X-Twilio-Signature header is missing or does not match');
      return null;
    }
    return params;
  }

  // Delivery status of one SMS (the StatusCallback Steward gave with it).
  router.post(`${WEBHOOK_PATHS.smsStatus}/:orgId/:messageId`, raw, async (req, res, next) => {
    try {
      const params = twilioVerified(req as RawRequest, res);
      if (!params) return;
      const status = twilioStatus(params.MessageStatus ?? '');
      const eventId = `status:${params.MessageSid}:${params.MessageStatus}`;
      const result = await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'sms', eventId)) return 'replay';
        const priced = await applyPrice(db, req.params.orgId, req.params.messageId, reportedPrice(params.Price, params.PriceUnit));
        const moved = status ? await applyStatus(db, req.params.orgId, req.params.messageId, status, params.ErrorCode ?? null, params.MessageSid ?? null, { provider: 'sms', eventId }) : false;
        return moved || priced ? 'applied' : 'ignored';
      });
      res.status(200).json(result === 'applied' ? { ok: true } : { ok: true, ignored: result });
    } catch (error) {
      next(error);
    }
  });

  // Inbound SMS: STOP/START/HELP keywords; the reply (HELP, STOP confirmation) goes back as TwiML.
  router.post(WEBHOOK_PATHS.smsInbound, raw, async (req, res, next) => {
    try {
      const params = twilioVerified(req as RawRequest, res);
      if (!params) return;
      const reply = await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'sms', `inbound:${params.MessageSid}`)) return undefined;
        const orgId = await orgOfInbound(db, 'sms', [params.To ?? '']);
        if (!orgId) {
          logUnroutedInbound('sms');
          return undefined;
        }
        const from = e164(params.From ?? '');
        const outcome = await applyInboundKeyword(db, orgId, { channel: 'sms', from, text: params.Body ?? '', at: new Date() });
        return outcome.reply;
      });
      res.status(200).type('text/xml').send(twiml(reply));
    } catch (error) {
      next(error);
    }
  });
}
