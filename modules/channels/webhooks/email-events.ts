import type { Router } from 'express';
import { withTransaction } from '../../../db/pool';
import { normaliseEmail } from '../audience/addresses';
import { suppressAddress } from '../audience/services';
import { findReportedEmail, recordEmailEvent } from '../delivery/email-events';
import { WEBHOOK_PATHS } from '../delivery/links';
import { verifyStewardEventSignature } from '../delivery/signatures';
import { applyStatus, firstSighting, notConfigured, unauthorized, type RawRequest, type WebhookContext } from './shared';

const EMAIL_EVENT_MAX_AGE_S = 300;

const EVENT_TYPES = ['delivery', 'bounce', 'complaint'] as const;
type EventType = typeof EVENT_TYPES[number];

/** One provider event, checked: a bounce is hard unless it says soft. */
interface EmailEvent { id: string; type: EventType; hard: boolean; address: string; messageId: string }

/** Text Postgres can store and compare: non-empty, no NUL, at most `max` characters. */
const usableText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max && !value.includes('\u0000');

/**
 * The event; `unsupported` for a type Steward keeps nothing of (an open, a click); null when the body
 * is not one (not JSON, not an object, a field missing or of the wrong kind).
 */
function parseEvent(body: Buffer): EmailEvent | 'unsupported' | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { id, type, bounceType, address, messageId } = parsed as Record<string, unknown>;
  if (!usableText(id, 500) || typeof type !== 'string') return null;
  if (!EVENT_TYPES.includes(type as EventType)) return 'unsupported';
  if (!usableText(messageId, 1000) || !usableText(address, 320)) return null;
  if (bounceType !== undefined && bounceType !== null && bounceType !== 'hard' && bounceType !== 'soft') return null;
  const email = normaliseEmail(address);
  if (!email) return null;
  return { id, type: type as EventType, hard: type === 'complaint' || (type === 'bounce' && bounceType !== 'soft'), address: email, messageId };
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
      if (!event) {
        res.status(400).json({ ok: false, error: {
          code: 'validation_failed', message: 'The event must be a JSON object with id, type, address (an email address) and messageId, each a string',
          hint: 'bounceType, when given, is hard or soft; modules/channels/README.md describes the shape.',
        } });
        return;
      }
      // Kinds Steward keeps nothing of are acknowledged, so the provider does not send them again.
      if (event === 'unsupported') {
        res.status(200).json({ ok: true, ignored: 'unsupported_type' });
        return;
      }
      const result = await withTransaction(pool, async (db) => {
        // Looked up first: an event for no message is not remembered, so the provider's retry can still match once it is recorded.
        const message = await findReportedEmail(db, event.messageId);
        if (!message) return 'unknown_message';
        if (!await firstSighting(db, 'email', event.id)) return 'replay';
        const sourced = { provider: 'email' as const, eventId: event.id };
        // Accepted by the recipient's mail server: the message moves to delivered (never back from undelivered or failed).
        if (event.type === 'delivery') return await applyStatus(db, message.orgId, message.id, 'delivered', null, null, sourced) ? 'applied' : 'status_unchanged';
        await recordEmailEvent(db, message.orgId, message.id, event.type === 'complaint' ? 'complaint' : event.hard ? 'hard_bounce' : 'soft_bounce');
        if (!event.hard) return 'soft_bounce_recorded';
        // The address Steward sent to is the one suppressed; the event's own is used only for a message with none recorded.
        await suppressAddress(db, message.orgId, {
          channel: 'email', address: message.recipientAddress ?? event.address, reason: event.type === 'complaint' ? 'complaint' : 'hard_bounce', source: 'email_events_webhook',
        });
        if (event.type === 'bounce') await applyStatus(db, message.orgId, message.id, 'undelivered', 'hard_bounce', null, sourced);
        return 'applied';
      });
      res.status(200).json(result === 'applied' ? { ok: true } : { ok: true, ignored: result });
    } catch (error) {
      next(error);
    }
  });
}
