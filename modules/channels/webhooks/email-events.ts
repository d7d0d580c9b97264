import type { Router } from 'express';
import { withTransaction } from '../../../db/pool';
import { suppressAddress } from '../audience/services';
import { findReportedEmail, recordEmailEvent } from '../delivery/email-events';
import { WEBHOOK_PATHS } from '../delivery/links';
import { verifyStewardEventSignature } from '../delivery/signatures';
import { applyStatus, firstSighting, notConfigured, unauthorized, type RawRequest, type WebhookContext } from './shared';

const EMAIL_EVENT_MAX_AGE_S = 300;

interface EmailEvent { id?: unknown; type?: unknown; bounceType?: unknown; address?: unknown; messageId?: unknown }

const nonEmptyText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function parseEvent(body: Buffer): EmailEvent | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as EmailEvent : null;
  } catch {
    return null;
  }
}

/** The mail provider's delivery, bounce and complaint events, signed with `X-Steward-Signature` (EMAIL_EVENTS_SECRET, timestamp within 5 minutes). */
export function emailEventRoutes(router: Router, { pool, raw }: WebhookContext): void {
  // Email deliveries, bounces and complaints, from the mail provider (Steward's signed JSON shape, modules/channels/README.md).
  router.post(WEBHOOK_PATHS.emailEvents, raw, async (req, res, next) => {
    try {
      const secret = process.env.EMAIL_EVENTS_SECRET;
      if (!secret) return notConfigured(res, 'EMAIL_EVENTS_SECRET');
      const body = (req as RawRequest).body;
      const timestamp = Buffer.isBuffer(body) ? verifyStewardEventSignature(secret, body, req.header('x-steward-signature')) : null;
      if (timestamp === null) return unauthorized(res, 'The X-Steward-Signature header is missing or does not match');
      if (Math.abs(Date.now() / 1000 - timestamp) > EMAIL_EVENT_MAX_AGE_S) return unauthorized(res, 'The signature timestamp is more than 5 minutes old');
      const event = parseEvent(body);
      const { id: eventId, address, messageId } = event ?? {};
      if (!event || !nonEmptyText(eventId) || !nonEmptyText(address) || !nonEmptyText(messageId)) {
        res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'The event must be a JSON object whose id, address and messageId are non-empty strings' } });
        return;
      }
      const result = await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'email', eventId)) return 'replay';
        const message = await findReportedEmail(db, messageId);
        if (!message) return 'unknown_message';
        const sourced = { provider: 'email' as const, eventId };
        // Accepted by the recipient's mail server: the message moves to delivered (never back from undelivered or failed).
        if (event.type === 'delivery') return await applyStatus(db, message.orgId, message.id, 'delivered', null, null, sourced) ? 'applied' : 'status_unchanged';
        const hard = event.type === 'complaint' || (event.type === 'bounce' && event.bounceType !== 'soft');
        if (event.type === 'bounce' || event.type === 'complaint') await recordEmailEvent(db, message.orgId, message.id, event.type === 'complaint' ? 'complaint' : hard ? 'hard_bounce' : 'soft_bounce');
        if (!hard) return event.type === 'bounce' ? 'soft_bounce_recorded' : 'ignored';
        await suppressAddress(db, message.orgId, { channel: 'email', address, reason: event.type === 'complaint' ? 'complaint' : 'hard_bounce', source: 'email_events_webhook' });
        if (event.type === 'bounce') await applyStatus(db, message.orgId, message.id, 'undelivered', 'hard_bounce', null, sourced);
        return 'applied';
      });
      res.status(200).json(result === 'applied' ? { ok: true } : { ok: true, ignored: result });
    } catch (error) {
      next(error);
    }
  });
}
