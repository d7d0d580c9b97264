import type { Router } from 'express';
import type { Client } from '@temporalio/client';
import { withTransaction } from '../../../db/pool';
import { applyWhatsAppTemplateStatus } from '../../templates/api';
import { applyInboundKeyword, recordInbound } from '../audience/services';
import { WEBHOOK_PATHS } from '../delivery/links';
import { reportedPrice } from '../delivery/pricing';
import { verifyMetaSignature } from '../delivery/signatures';
import {
  applyPrice, applyStatus, e164, firstSighting, logUnroutedInbound, notConfigured, orgOfInbound, twilioStatus, unauthorized,
  type RawRequest, type WebhookContext,
} from './shared';

/**
 * Meta-style WhatsApp webhooks, signed with `X-Hub-Signature-256` (WHATSAPP_APP_SECRET) over the raw
 * body: the verification handshake, message statuses, inbound messages, and template reviews (handed
 * to the templates module, whose review workflow is told).
 */
export function whatsappRoutes(router: Router, { pool, raw, temporal }: WebhookContext & { temporal?: Client }): void {
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
      const total: ChangeCounts = { applied: 0, replays: 0, unknownTemplates: 0 };
      for (const entry of payload.entry ?? []) {
        for (const change of entry.changes ?? []) {
          const outcome = await applyMetaChange(entry, change);
          total.applied += outcome.applied;
          total.replays += outcome.replays;
          total.unknownTemplates += outcome.unknownTemplates;
        }
      }
      res.status(200).json(answerOf(total));
    } catch (error) {
      next(error);
    }
  });

  async function applyMetaChange(entry: MetaEntry, change: MetaChange): Promise<ChangeCounts> {
    const counts: ChangeCounts = { applied: 0, replays: 0, unknownTemplates: 0 };
    const value = change.value ?? {};
    if (change.field === 'message_template_status_update') {
      const eventId = `template:${value.message_template_id}:${value.event}:${entry.time ?? ''}`;
      const outcome = await applyWhatsAppTemplateStatus(pool, { providerTemplateId: String(value.message_template_id), status: String(value.event) as never, reason: value.reason ?? undefined, eventId }, {
        temporal, firstSighting: (db) => firstSighting(db, 'whatsapp', eventId),
      });
      if (outcome.result === 'replay') counts.replays += 1;
      else if (outcome.result === 'unknown_template') counts.unknownTemplates += 1;
      else if (outcome.result !== 'unsupported_status') counts.applied += 1;
      return counts;
    }
    if (change.field !== 'messages') return counts;
    for (const status of value.statuses ?? []) {
      const statusEventId = `status:${status.id}:${status.status}`;
      await withTransaction(pool, async (db) => {
        if (!await firstSighting(db, 'whatsapp', statusEventId)) {
          counts.replays += 1;
          return;
        }
        const [orgId, messageId] = (status.biz_opaque_callback_data ?? '').split(':');
        const mapped = twilioStatus(status.status === 'failed' ? 'undelivered' : status.status);
        if (!orgId || !messageId) return;
        const priced = await applyPrice(db, orgId, messageId, reportedPrice(status.pricing?.price, status.pricing?.currency));
        const moved = mapped ? await applyStatus(db, orgId, messageId, mapped, status.errors?.[0]?.code ? String(status.errors[0].code) : null, status.id, { provider: 'whatsapp', eventId: statusEventId }) : false;
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
}

interface ChangeCounts {
  applied: number;
  replays: number;
  /** Template reviews for a template no version here was submitted as (yet): not remembered, so a resend can match. */
  unknownTemplates: number;
}

/** Nothing applied says why: every event seen before, or a template review nobody here submitted (or whose submission has not committed yet). */
function answerOf(counts: ChangeCounts): { ok: true; applied: number } | { ok: true; ignored: 'replay' | 'unknown_template' } {
  if (counts.applied > 0) return { ok: true, applied: counts.applied };
  if (counts.replays > 0) return { ok: true, ignored: 'replay' };
  if (counts.unknownTemplates > 0) return { ok: true, ignored: 'unknown_template' };
  return { ok: true, applied: 0 };
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
