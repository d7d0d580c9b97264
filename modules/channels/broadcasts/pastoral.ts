import { randomUUID } from 'node:crypto';
import { smsSegments } from '../../templates/api';
import type { Channel } from '../audience/addresses';
import { PRICE_CURRENCY, estimateCost, whatsappCategoryFor } from '../delivery/pricing';

/**
 * Pastoral outreach (the people module's approved messages) leaves through the shared outbox under
 * its own source, with its approval flow, and is checked at dispatch by the channels module's
 * `checkRecipient`. Once the provider has taken it, it is recorded here as a channel message
 * (purpose service, status sent), so it appears in `channels_list_messages` and the usage report
 * beside every other message. It was metered when the outbox counted it, so this row is marked as
 * metered and counts nothing again. One row per item: the outreach key finds it on a repeated report.
 */
export interface PastoralSend {
  contactId: string;
  channel: Channel;
  subject: string | null;
  body: string;
  html: string | null;
  /** The outreach item's outbox key (`outreach-<itemId>`). */
  idempotencyKey: string;
  recipientAddress: string | null;
  providerMessageId: string | null;
  usageTool: string;
}

export async function recordPastoralSend(db: { query: (text: string, values?: unknown[]) => Promise<unknown> }, orgId: string, send: PastoralSend): Promise<void> {
  const sms = send.channel === 'sms' ? smsSegments(send.body) : null;
  const units = sms ? Math.max(sms.segments, 1) : 1;
  const category = send.channel === 'whatsapp' ? whatsappCategoryFor(true, 'service') : null;
  const cost = estimateCost(send.channel, units, category);
  await db.query(`
    INSERT INTO channel_messages (id, org_id, channel, contact_id, purpose, recipient_address, subject, body, html, whatsapp_category, sms_encoding, segments,
      metered_units, estimated_cost_minor, currency, status, provider_message_id, idempotency_key, usage_tool, metered_at, sent_at)
    VALUES ($1, $2, $3, $4, 'service', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'sent', $15, $16, $17, now(), now())
    ON CONFLICT (org_id, idempotency_key) DO UPDATE SET provider_message_id = COALESCE(channel_messages.provider_message_id, EXCLUDED.provider_message_id)`, [
    randomUUID(), orgId, send.channel, send.contactId, send.recipientAddress, send.subject, send.body, send.html, category,
    sms?.encoding ?? null, sms ? units : null, units, cost.amountMinor, cost.currency ?? PRICE_CURRENCY, send.providerMessageId, send.idempotencyKey, send.usageTool,
  ]);
}
