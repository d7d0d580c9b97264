import express, { type Request, type Response, Router } from 'express';
import type { Client } from '@temporalio/client';
import { queryOne, withTransaction, type Pool, type Queryable } from '../../../db/pool';
import { withdrawConsent } from '../audience/consent';
import { applyInboundKeyword, findSenderOrg, recordInbound, suppressAddress } from '../audience/services';
import { WEBHOOK_PATHS, readUnsubscribeToken, webhookBaseUrl } from '../delivery/links';
import { reportedPrice } from '../delivery/pricing';
import { verifyMetaSignature, verifyStewardEventSignature, verifyTwilioSignature } from '../delivery/signatures';
import { applyWhatsAppTemplateStatus } from '../../templates/api';
import type { ModuleWebhook } from '../../module';

/**
 * Provider webhooks for the channels module, and the one-click unsubscribe page.
 *
 * Every webhook is verified before anything is read from it: Twilio-style `X-Twilio-Signature`
 * (SMS_AUTH_TOKEN) over the URL Steward published plus the sorted form parameters; Meta-style
 * `X-Hub-Signature-256` (WHATSAPP_APP_SECRET) over the raw body; Steward's email events
 * `X-Steward-Signature` (EMAIL_EVENTS_SECRET, timestamp within 5 minutes). A missing or wrong
 * signature is answered 401 and changes nothing; a secret that is not configured, 503.
 *
 * Replays: every accepted event is remembered (`channel_webhook_events`: provider + event id, e.g. a
 * message sid with its status). The same event again is answered 200 `{ ignored: 'replay' }` and
 * changes nothing: 200, because providers redeliver anything else. A status never moves a message
 * backwards (delivered stays delivered).
 */

const STATUS_ORDER: Record<string, number> = { queued: 0, sending: 1, sent: 2, delivered: 3, undelivered: 3, failed: 3 };
const EMAIL_EVENT_MAX_AGE_S = 300;

interface RawRequest extends Request {
  body: Buffer;
}

function rawText(req: RawRequest): string {
  return Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
}

function unauthorized(res: Response, why: string): void {
  res.status(401).json({ ok: false, error: { code: 'unauthorized', message: why } });
}

function notConfigured(res: Response, setting: string): void {
  res.status(503).json({ ok: false, error: { code: 'not_configured', message: `${setting} is not set on this server` } });
}

/** Remembers an event; false when it was seen before (a replay). */
async function firstSighting(db: Queryable, provider: string, eventId: string): Promise<boolean> {
  const result = await db.query('INSERT INTO channel_webhook_events (provider, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [provider, eventId.slice(0, 500)]);
  return (result.rowCount ?? 0) > 0;
}

/** Moves a message forward to a provider-reported status; never backwards, never out of failed. */
async function applyStatus(db: Queryable, orgId: string, messageId: string, status: 'sent' | 'delivered' | 'undelivered', errorCode: string | null, providerId: string | null): Promise<boolean> {
  const row = await queryOne<{ status: string }>(db, 'SELECT status FROM channel_messages WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, messageId]);
  if (!row || row.status === 'failed' || STATUS_ORDER[row.status] >= STATUS_ORDER[status]) return false;
  await db.query(`UPDATE channel_messages SET status = $3, error_code = COALESCE($4, error_code),
      error_message = CASE WHEN $4::text IS NULL THEN error_message ELSE 'The provider reported it undelivered (error ' || $4 || ')' END,
      delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END, sent_at = COALESCE(sent_at, now()),
      provider_message_id = COALESCE(provider_message_id, $5), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, messageId, status, errorCode, providerId]);
  return true;
}

/**
 * Records the price a provider reported for a message (the latest report wins: a provider may price it only once delivered).
 * A callback without a readable price changes nothing: the actual cost stays what it was, null until one is reported.
 */
async function applyPrice(db: Queryable, orgId: string, messageId: string, price: { amountMinor: number; currency: string } | null): Promise<boolean> {
  if (!price) return false;
  const result = await db.query(`UPDATE channel_messages SET actual_cost_minor = $3, actual_cost_currency = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, messageId, price.amountMinor, price.currency]);
  return (result.rowCount ?? 0) > 0;
}

function twilioStatus(value: string): 'sent' | 'delivered' | 'undelivered' | null {
  if (value === 'delivered' || value === 'read') return 'delivered';
  if (value === 'undelivered' || value === 'failed') return 'undelivered';
  if (value === 'sent') return 'sent';
  return null;
}

/**
 * The organisation an inbound message belongs to: the one that registered the number it was sent to
 * (channel_senders). Nothing else decides it: a number no organisation registered belongs to none, so
 * the message is attributed to no one (never to whoever last wrote to the sender).
 */
async function orgOfInbound(db: Queryable, channel: 'sms' | 'whatsapp', to: string[]): Promise<string | null> {
  for (const address of to) {
    const org = address ? await findSenderOrg(db, channel, address) : null;
    if (org) return org;
  }
  return null;
}

/** The one line logged for an inbound message to an unregistered number: no number, no text, nothing personal. */
function logUnroutedInbound(channel: 'sms' | 'whatsapp'): void {
  console.warn(`channels: an inbound ${channel} message to a number no organisation has registered was ignored`);
}

function e164(raw: string): string {
  return raw.startsWith('+') ? raw : `+${raw}`;
}

function twiml(reply?: string): string {
  const escaped = (reply ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${reply ? `<Message>${escaped}</Message>` : ''}</Response>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>`
    + `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>`
    + `<body>${body}</body></html>`;
}

export function channelsWebhookRouter(options: { pool: Pool; temporal?: Client }): Router {
  const { pool } = options;
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '256kb' });

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
      const result = await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'sms', `status:${params.MessageSid}:${params.MessageStatus}`)) return 'replay';
        const priced = await applyPrice(db, req.params.orgId, req.params.messageId, reportedPrice(params.Price, params.PriceUnit));
        const moved = status ? await applyStatus(db, req.params.orgId, req.params.messageId, status, params.ErrorCode ?? null, params.MessageSid ?? null) : false;
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

  // Meta-style webhooks: verification handshake, message statuses, inbound messages, template reviews.
  router.get(WEBHOOK_PATHS.whatsapp, (req, res) => {
    const verifyToken = process.env.WHATSAPP_VERIFY_TOKEN;
    if (verifyToken && req.query['hub.mode'] === 'subscribe' && req.query['hub.verify_token'] === verifyToken) {
      res.status(200).type('text/plain').send(String(req.query['hub.challenge'] ?? ''));
      return;
    }
    res.status(403).json({ ok: false, error: { code: 'forbidden', message: 'Verification token does not match' } });
  });

  router.post(WEBHOOK_PATHS.whatsapp, raw, async (req, res, next) => {
    try {
      const secret = process.env.WHATSAPP_APP_SECRET;
      if (!secret) return notConfigured(res, 'WHATSAPP_APP_SECRET');
      const body = (req as RawRequest).body;
      if (!Buffer.isBuffer(body) || !verifyMetaSignature(secret, body, req.header('x-hub-signature-256'))) {
        return unauthorized(res, 'The X-Hub-Signature-256 header is missing or does not match');
      }
      const payload = JSON.parse(body.toString('utf8')) as MetaPayload;
      let applied = 0;
      let replays = 0;
      for (const entry of payload.entry ?? []) {
        for (const change of entry.changes ?? []) {
          const outcome = await applyMetaChange(entry, change);
          applied += outcome.applied;
          replays += outcome.replays;
        }
      }
      res.status(200).json(applied === 0 && replays > 0 ? { ok: true, ignored: 'replay' } : { ok: true, applied });
    } catch (error) {
      next(error);
    }
  });

  async function applyMetaChange(entry: MetaEntry, change: MetaChange): Promise<{ applied: number; replays: number }> {
    const counts = { applied: 0, replays: 0 };
    const value = change.value ?? {};
    if (change.field === 'message_template_status_update') {
      const eventId = `template:${value.message_template_id}:${value.event}:${entry.time ?? ''}`;
      const first = await withTransaction(pool, (db) => firstSighting(db, 'whatsapp', eventId));
      if (!first) return { applied: 0, replays: 1 };
      await applyWhatsAppTemplateStatus(pool, { providerTemplateId: String(value.message_template_id), status: String(value.event) as never, reason: value.reason ?? undefined, eventId }, { temporal: options.temporal });
      return { applied: 1, replays: 0 };
    }
    if (change.field !== 'messages') return counts;
    for (const status of value.statuses ?? []) {
      await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'whatsapp', `status:${status.id}:${status.status}`)) {
          counts.replays += 1;
          return;
        }
        const [orgId, messageId] = (status.biz_opaque_callback_data ?? '').split(':');
        const mapped = twilioStatus(status.status === 'failed' ? 'undelivered' : status.status);
        if (!orgId || !messageId) return;
        const priced = await applyPrice(db, orgId, messageId, reportedPrice(status.pricing?.price, status.pricing?.currency));
        const moved = mapped ? await applyStatus(db, orgId, messageId, mapped, status.errors?.[0]?.code ? String(status.errors[0].code) : null, status.id) : false;
        if (moved || priced) counts.applied += 1;
      });
    }
    for (const message of value.messages ?? []) {
      await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'whatsapp', `inbound:${message.id}`)) {
          counts.replays += 1;
          return;
        }
        // Routed by the business number it was written to (display_phone_number); phone_number_id is an id, not a number.
        const display = value.metadata?.display_phone_number;
        const orgId = display ? await orgOfInbound(db, 'whatsapp', [e164(display)]) : null;
        if (!orgId) {
          logUnroutedInbound('whatsapp');
          return;
        }
        const from = e164(message.from);
        const at = message.timestamp ? new Date(Number(message.timestamp) * 1000) : new Date();
        await recordInbound(db, orgId, { channel: 'whatsapp', from, at });
        if (message.text?.body) await applyInboundKeyword(db, orgId, { channel: 'whatsapp', from, text: message.text.body, at });
        counts.applied += 1;
      });
    }
    return counts;
  }

  // Email bounces and complaints, from the mail provider (Steward's signed JSON shape, README "Channels").
  router.post(WEBHOOK_PATHS.emailEvents, raw, async (req, res, next) => {
    try {
      const secret = process.env.EMAIL_EVENTS_SECRET;
      if (!secret) return notConfigured(res, 'EMAIL_EVENTS_SECRET');
      const body = (req as RawRequest).body;
      const timestamp = Buffer.isBuffer(body) ? verifyStewardEventSignature(secret, body, req.header('x-steward-signature')) : null;
      if (timestamp === null) return unauthorized(res, 'The X-Steward-Signature header is missing or does not match');
      if (Math.abs(Date.now() / 1000 - timestamp) > EMAIL_EVENT_MAX_AGE_S) return unauthorized(res, 'The signature timestamp is more than 5 minutes old');
      const event = JSON.parse(body.toString('utf8')) as { id?: string; type?: string; bounceType?: string; address?: string; messageId?: string };
      if (!event.id || !event.address || !event.messageId) {
        res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'id, address and messageId are required' } });
        return;
      }
      const result = await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'email', event.id!)) return 'replay';
        const message = await queryOne<{ org_id: string }>(db, "SELECT org_id FROM channel_messages WHERE id = $1 AND channel = 'email'", [event.messageId]);
        if (!message) return 'unknown_message';
        const hard = event.type === 'complaint' || (event.type === 'bounce' && event.bounceType !== 'soft');
        if (!hard) return 'ignored';
        await suppressAddress(db, message.org_id, { channel: 'email', address: event.address!, reason: event.type === 'complaint' ? 'complaint' : 'hard_bounce', source: 'email_events_webhook' });
        if (event.type === 'bounce') await applyStatus(db, message.org_id, event.messageId!, 'undelivered', 'hard_bounce', null);
        return 'applied';
      });
      res.status(200).json(result === 'applied' ? { ok: true } : { ok: true, ignored: result });
    } catch (error) {
      next(error);
    }
  });

  // RFC 8058 one-click unsubscribe. GET only shows a confirm page (mail scanners follow links); POST withdraws the
  // contact's email consent for the message's purpose (consent history keeps the withdrawal as evidence).
  router.get(`${WEBHOOK_PATHS.unsubscribe}/:token`, (req, res) => {
    if (!readUnsubscribeToken(req.params.token)) {
      res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1><p>It may have been copied incompletely.</p>'));
      return;
    }
    res.status(200).type('html').send(page('Unsubscribe', '<h1>Unsubscribe from these emails?</h1>'
      + `<form method="post" action="${escapeHtml(req.originalUrl)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`));
  });

  router.post(`${WEBHOOK_PATHS.unsubscribe}/:token`, raw, async (req, res, next) => {
    try {
      const named = readUnsubscribeToken(req.params.token);
      if (!named) {
        res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1>'));
        return;
      }
      const form = new URLSearchParams(rawText(req as RawRequest));
      if (form.get('List-Unsubscribe') !== 'One-Click') {
        res.status(400).type('html').send(page('Unsubscribe', '<h1>Nothing changed</h1><p>The request did not confirm the unsubscribe.</p>'));
        return;
      }
      const done = await withTransaction(pool, async (db) => {
        const message = await queryOne<{ contact_id: string | null; purpose: 'marketing' | 'charitable_purpose' | 'service' }>(db,
          "SELECT contact_id, purpose FROM channel_messages WHERE org_id = $1 AND id = $2 AND channel = 'email'", [named.orgId, named.messageId]);
        if (!message?.contact_id) return false;
        // Leaves the list this email came from (its purpose by email), as RFC 8058 means; service email still reaches them.
        await withdrawConsent(db, named.orgId, { contactId: message.contact_id, channel: 'email', purpose: message.purpose, source: 'one_click_unsubscribe' });
        return true;
      });
      if (!done) {
        res.status(404).type('html').send(page('Link not recognised', '<h1>This unsubscribe link is not recognised</h1>'));
        return;
      }
      res.status(200).type('html').send(page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will get no more of these emails.</p>'));
    } catch (error) {
      next(error);
    }
  });

  return router;
}

interface MetaPayload {
  entry?: MetaEntry[];
}

interface MetaEntry {
  id?: string;
  time?: number;
  changes?: MetaChange[];
}

interface MetaChange {
  field?: string;
  value?: {
    metadata?: { display_phone_number?: string; phone_number_id?: string };
    statuses?: Array<{
      id: string; status: string; biz_opaque_callback_data?: string; errors?: Array<{ code?: number }>;
      /** Meta's pricing block (billable, pricing_model, category); `price` and `currency` when the provider states the charge. */
      pricing?: { billable?: boolean; pricing_model?: string; category?: string; price?: number | string; currency?: string };
    }>;
    messages?: Array<{ id: string; from: string; timestamp?: string; text?: { body?: string } }>;
    event?: string;
    message_template_id?: string | number;
    reason?: string | null;
  };
}

/** The channels module's inbound routes, mounted by the kernel before the JSON parser (ModuleWebhook). */
export const channelsWebhooks: ModuleWebhook = {
  paths: ['/webhooks/channels/', `${WEBHOOK_PATHS.unsubscribe}/`],
  router: channelsWebhookRouter,
};
