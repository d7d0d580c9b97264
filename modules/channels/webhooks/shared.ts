import type express from 'express';
import type { Request, Response } from 'express';
import { queryOne, type Pool, type Queryable } from '../../../db/pool';
import { recordOutsideChange } from '../../audit/api';
import { findSenderOrg } from '../audience/services';

/**
 * What the channels module's webhook handlers share: the raw request, the answers for a bad
 * signature or a missing secret, replay memory, and moving a message's status forward.
 */

/** What each handler file is given to add its routes. */
export interface WebhookContext {
  pool: Pool;
  /** The raw-body parser every verified route reads its signature over. */
  raw: ReturnType<typeof express.raw>;
}

const STATUS_ORDER: Record<string, number> = { queued: 0, sending: 1, sent: 2, delivered: 3, undelivered: 3, failed: 3 };

export interface RawRequest extends Request {
  body: Buffer;
}

export function rawText(req: RawRequest): string {
  return Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
}

export function unauthorized(res: Response, why: string): void {
  res.status(401).json({ ok: false, error: { code: 'unauthorized', message: why } });
}

export function notConfigured(res: Response, setting: string): void {
  res.status(503).json({ ok: false, error: { code: 'not_configured', message: `${setting} is not set on this server` } });
}

/** Remembers an event; false when it was seen before (a replay). */
export async function firstSighting(db: Queryable, provider: string, eventId: string): Promise<boolean> {
  const result = await db.query('INSERT INTO channel_webhook_events (provider, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [provider, eventId.slice(0, 500)]);
  return (result.rowCount ?? 0) > 0;
}

/** What reported a status: the provider's webhook and its event's id (the audit event's source). */
export interface StatusReport {
  provider: 'sms' | 'whatsapp' | 'email';
  eventId: string;
}

function statusVerb(status: 'sent' | 'delivered' | 'undelivered', errorCode: string | null): string {
  if (status === 'delivered') return 'deliver';
  if (status === 'sent') return 'send';
  return errorCode === 'hard_bounce' ? 'bounce' : 'undeliver';
}

/**
 * Moves a message forward to a provider-reported status; never backwards, never out of failed. A move
 * writes its audit event (the provider's webhook as the actor) in the caller's transaction.
 */
export async function applyStatus(db: Queryable, orgId: string, messageId: string, status: 'sent' | 'delivered' | 'undelivered', errorCode: string | null, providerId: string | null, report: StatusReport): Promise<boolean> {
  const row = await queryOne<{ status: string }>(db, 'SELECT status FROM channel_messages WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, messageId]);
  if (!row || row.status === 'failed' || STATUS_ORDER[row.status] >= STATUS_ORDER[status]) return false;
  await db.query(`UPDATE channel_messages SET status = $3, error_code = COALESCE($4, error_code),
      error_message = CASE WHEN $4::text IS NULL THEN error_message ELSE 'The provider reported it undelivered (error ' || $4 || ')' END,
      delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END, sent_at = COALESCE(sent_at, now()),
      provider_message_id = COALESCE(provider_message_id, $5), updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, messageId, status, errorCode, providerId]);
  await recordOutsideChange(db, {
    orgId, actorKind: 'webhook', channel: `webhook:${report.provider}`, source: report.eventId, module: 'channels', noun: 'message', verb: statusVerb(status, errorCode),
    target: { type: 'message', id: messageId }, fields: { status, ...(errorCode ? { errorCode } : {}) }, previous: { status: row.status },
    outcome: status === 'undelivered' ? 'failed' : 'success',
  });
  return true;
}

/**
 * Records the price a provider reported for a message (the latest report wins: a provider may price it only once delivered).
 * A callback without a readable price changes nothing: the actual cost stays what it was, null until one is reported.
 */
export async function applyPrice(db: Queryable, orgId: string, messageId: string, price: { amountMinor: number; currency: string } | null): Promise<boolean> {
  if (!price) return false;
  const result = await db.query(`UPDATE channel_messages SET actual_cost_minor = $3, actual_cost_currency = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2`, [orgId, messageId, price.amountMinor, price.currency]);
  return (result.rowCount ?? 0) > 0;
}

export function twilioStatus(value: string): 'sent' | 'delivered' | 'undelivered' | null {
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
export async function orgOfInbound(db: Queryable, channel: 'sms' | 'whatsapp', to: string[]): Promise<string | null> {
  for (const address of to) {
    const org = address ? await findSenderOrg(db, channel, address) : null;
    if (org) return org;
  }
  return null;
}

/** The one line logged for an inbound message to an unregistered number: no number, no text, nothing personal. */
export function logUnroutedInbound(channel: 'sms' | 'whatsapp'): void {
  console.warn(`channels: an inbound ${channel} message to a number no organisation has registered was ignored`);
}

export function e164(raw: string): string {
  return raw.startsWith('+') ? raw : `+${raw}`;
}

export function twiml(reply?: string): string {
  const escaped = (reply ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${reply ? `<Message>${escaped}</Message>` : ''}</Response>`;
}

export { escapeHtml } from '../../../core/html';
import { escapeHtml } from '../../../core/html';

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>`
    + `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>`
    + `<body>${body}</body></html>`;
}

