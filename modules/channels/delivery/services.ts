import { randomUUID } from 'node:crypto';
import { StewardError } from '../../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../../db/pool';
import { listPage, notFound, type RowOf } from '../../kit';
import { requireContact } from '../../people/api';
import type { Contact } from '../../people/api';
import { getOrgSettings } from '../../platform/api';
import { renderForSend } from '../../templates/api';
import { smsSegments } from '../../templates/api';
import { normaliseAddress, type Channel, type Purpose } from '../audience/addresses';
import {
  PRICE_CURRENCY, SMS_MAX_CHARACTERS, SMS_MAX_SEGMENTS, WHATSAPP_MAX_CHARACTERS, estimateCost, whatsappCategoryFor, type WhatsAppCategory,
} from './pricing';
import type { ChannelMessage } from './models/messages';

/**
 * Messages on the channels: queueing one (render, snapshot, validate, idempotent on its key),
 * reading them, and what this period's sends used. Dispatch (consent and suppression at every
 * attempt, metering once, the provider call) is the `channels.message` outbox source (./source.ts).
 */

export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface QueueMessageInput {
  contactId: string;
  channel: Channel;
  purpose: Purpose;
  /** Send the template's active version (C's renderForSend); or name a version with templateVersionId. */
  templateId?: string;
  templateVersionId?: string;
  /** templateVersionId is what a person previewed or approved (a broadcast): it is sent even if a newer version was activated since. */
  templateVersionApproved?: boolean;
  variables?: Record<string, string>;
  /** Free-form content when no template is named (email needs a subject). */
  subject?: string | null;
  body?: string;
  html?: string | null;
  broadcastId?: string;
  /** Unique per organisation: the same key finds the same message. */
  idempotencyKey: string;
  /** The tool usage is recorded against when the message is metered. */
  usageTool: string;
}

export interface ChannelMessageView {
  id: string;
  channel: Channel;
  contactId: string | null;
  purpose: Purpose;
  status: MessageStatus;
  recipientAddress: string | null;
  sender: string | null;
  templateId: string | null;
  templateVersionId: string | null;
  subject: string | null;
  body: string;
  html: string | null;
  whatsappCategory: WhatsAppCategory | null;
  sms: { encoding: 'GSM-7' | 'UCS-2'; segments: number } | null;
  meteredUnits: number;
  estimatedCost: { amountMinor: number; currency: string };
  actualCost: { amountMinor: number; currency: string } | null;
  providerMessageId: string | null;
  error: { code: string; message: string } | null;
  deferredUntil: string | null;
  broadcastId: string | null;
  idempotencyKey: string;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
}

/** A message as `SELECT *` reads it, typed by its model. */
export type MessageRow = RowOf<ChannelMessage>;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

export function messageView(row: MessageRow): ChannelMessageView {
  return {
    id: row.id,
    channel: row.channel,
    contactId: row.contact_id,
    purpose: row.purpose,
    status: row.status,
    recipientAddress: row.recipient_address,
    sender: row.sender,
    templateId: row.template_id,
    templateVersionId: row.template_version_id,
    subject: row.subject,
    body: row.body,
    html: row.html,
    whatsappCategory: row.whatsapp_category,
    sms: row.sms_encoding && row.segments !== null ? { encoding: row.sms_encoding, segments: row.segments } : null,
    meteredUnits: row.metered_units,
    estimatedCost: { amountMinor: row.estimated_cost_minor, currency: row.currency },
    actualCost: row.actual_cost_minor === null || row.actual_cost_currency === null ? null : { amountMinor: row.actual_cost_minor, currency: row.actual_cost_currency },
    providerMessageId: row.provider_message_id,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? row.error_code } : null,
    deferredUntil: iso(row.deferred_until),
    broadcastId: row.broadcast_id,
    idempotencyKey: row.idempotency_key,
    createdAt: new Date(row.created_at).toISOString(),
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
  };
}

interface RenderedContent {
  subject: string | null;
  body: string;
  html: string | null;
  templateId: string | null;
  templateVersionId: string | null;
  whatsappPayload: unknown | null;
}

function contentIssue(path: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', message, { issues: [{ path, message }], ...(hint ? { hint } : {}) });
}

async function renderContent(db: Queryable, orgId: string, input: QueueMessageInput): Promise<RenderedContent> {
  if (input.templateId || input.templateVersionId) {
    if (input.body !== undefined || input.html !== undefined) {
      throw contentIssue('body', 'Give either a template or a free-form body, not both');
    }
    const rendered = await renderForSend(db, orgId, {
      templateId: input.templateId, versionId: input.templateVersionId, contactId: input.contactId, variables: input.variables ?? {}, channel: input.channel,
      approvedSend: input.templateVersionApproved,
    });
    return {
      subject: rendered.subject, body: rendered.text, html: rendered.html, templateId: rendered.templateId ?? input.templateId ?? null,
      templateVersionId: rendered.versionId, whatsappPayload: rendered.whatsapp ?? null,
    };
  }
  if (!input.body || input.body.trim().length === 0) {
    throw contentIssue('body', 'A free-form message needs a body (or name a template)', 'Pass body, or templateId to send a template\'s active version.');
  }
  if (input.channel === 'email' && !input.subject?.trim()) throw contentIssue('subject', 'An email needs a subject');
  if (input.channel !== 'email' && (input.subject || input.html)) throw contentIssue('subject', `A ${input.channel} message has no subject or HTML`);
  return { subject: input.subject ?? null, body: input.body, html: input.html ?? null, templateId: null, templateVersionId: null, whatsappPayload: null };
}

/** The contact's address on a channel, normalised; refuses a contact without one, or with a phone that is not E.164. */
export function contactAddress(contact: Pick<Contact, 'email' | 'phone'>, channel: Channel, country?: string): string {
  const raw = channel === 'email' ? contact.email : contact.phone;
  if (!raw) {
    throw new StewardError('validation_failed', `The contact has no ${channel === 'email' ? 'email address' : 'phone number'}`, {
      issues: [{ path: 'contactId', message: `no ${channel === 'email' ? 'email address' : 'phone number'}` }],
      hint: 'Add one with people_update_contact first.',
    });
  }
  return normaliseAddress(channel, raw, { path: 'contactId', country });
}

interface Metering {
  smsEncoding: 'GSM-7' | 'UCS-2' | null;
  segments: number | null;
  whatsappCategory: WhatsAppCategory | null;
  units: number;
}

/** SMS length rules and the units the message meters: segments for SMS, one per WhatsApp message or email. */
export function meteringOf(channel: Channel, purpose: Purpose, content: Pick<RenderedContent, 'body' | 'whatsappPayload'>): Metering {
  if (channel === 'sms') {
    const sms = smsSegments(content.body);
    if (sms.characters > SMS_MAX_CHARACTERS || sms.segments > SMS_MAX_SEGMENTS) {
      throw new StewardError('validation_failed', `This SMS is ${sms.characters} characters, ${sms.segments} segments (${sms.encoding}); at most ${SMS_MAX_SEGMENTS} segments and ${SMS_MAX_CHARACTERS} characters are sent`, {
        issues: [{ path: 'body', message: `over ${SMS_MAX_SEGMENTS} segments` }],
        hint: 'Shorten it, or send a link to the full text. One emoji or non-GSM character halves a segment (UCS-2: 70/67 characters).',
        details: { encoding: sms.encoding, characters: sms.characters, segments: sms.segments },
      });
    }
    return { smsEncoding: sms.encoding, segments: Math.max(sms.segments, 1), whatsappCategory: null, units: Math.max(sms.segments, 1) };
  }
  if (channel === 'whatsapp') {
    if (content.whatsappPayload === null && content.body.length > WHATSAPP_MAX_CHARACTERS) {
      throw contentIssue('body', `A WhatsApp text is at most ${WHATSAPP_MAX_CHARACTERS} characters`);
    }
    return { smsEncoding: null, segments: null, whatsappCategory: whatsappCategoryFor(content.whatsappPayload === null, purpose), units: 1 };
  }
  return { smsEncoding: null, segments: null, whatsappCategory: null, units: 1 };
}

const SELECT_MESSAGE = 'SELECT * FROM channel_messages';

/** The message a key already made, provided the request names the same recipient, channel and purpose; a key reused for another message is refused. */
function sameRequest(existing: MessageRow, input: QueueMessageInput): ChannelMessageView {
  if (existing.contact_id !== input.contactId || existing.channel !== input.channel || existing.purpose !== input.purpose) {
    throw new StewardError('idempotency_conflict', `The idempotency key ${input.idempotencyKey} already sent message ${existing.id} to another recipient, channel or purpose`, {
      hint: 'Use a new key for a different message; repeat a key only to repeat the same send.',
      details: { messageId: existing.id },
    });
  }
  return messageView(existing);
}

export async function findMessageByKey(db: Queryable, orgId: string, idempotencyKey: string): Promise<MessageRow | undefined> {
  return queryOne<MessageRow>(db, `${SELECT_MESSAGE} WHERE org_id = $1 AND idempotency_key = $2`, [orgId, idempotencyKey]);
}

/**
 * Queues one message: renders it (a template's active or named version, or the free-form body),
 * checks it can be sent on the channel (an address, E.164, SMS length), and stores the snapshot with
 * its segments, metered units and estimated cost, status queued. The same idempotency key returns the
 * message it made the first time (`created: false`), even under concurrent calls. Consent,
 * suppression, quiet hours and the allowance are checked at dispatch, not here.
 */
export async function queueMessage(db: Queryable, orgId: string, input: QueueMessageInput): Promise<{ messageId: string; created: boolean; message: ChannelMessageView }> {
  const existing = await findMessageByKey(db, orgId, input.idempotencyKey);
  if (existing) return { messageId: existing.id, created: false, message: sameRequest(existing, input) };
  const contact = await requireContact(db, orgId, input.contactId);
  // A number written nationally ("07700 900123") reads in the organisation's country.
  if (input.channel !== 'email') contactAddress(contact, input.channel, (await getOrgSettings(db, orgId)).country);
  else contactAddress(contact, input.channel);
  const content = await renderContent(db, orgId, input);
  const metering = meteringOf(input.channel, input.purpose, content);
  const cost = estimateCost(input.channel, metering.units, metering.whatsappCategory);
  const id = randomUUID();
  const inserted = await queryOne<MessageRow>(db, `
    INSERT INTO channel_messages (id, org_id, channel, contact_id, purpose, template_id, template_version_id, subject, body, html,
      whatsapp_payload, whatsapp_category, sms_encoding, segments, metered_units, estimated_cost_minor, currency, broadcast_id,
      idempotency_key, usage_tool)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
    ON CONFLICT (org_id, idempotency_key) DO NOTHING
    RETURNING *`, [
    id, orgId, input.channel, input.contactId, input.purpose, content.templateId, content.templateVersionId, content.subject, content.body, content.html,
    content.whatsappPayload === null ? null : JSON.stringify(content.whatsappPayload), metering.whatsappCategory, metering.smsEncoding, metering.segments,
    metering.units, cost.amountMinor, PRICE_CURRENCY, input.broadcastId ?? null, input.idempotencyKey, input.usageTool,
  ]);
  if (inserted) return { messageId: inserted.id, created: true, message: messageView(inserted) };
  // A concurrent call with the same key committed first: that message is the answer.
  const winner = await findMessageByKey(db, orgId, input.idempotencyKey);
  if (!winner) throw new StewardError('conflict', 'The message could not be queued; try again');
  return { messageId: winner.id, created: false, message: sameRequest(winner, input) };
}

export async function getMessageRow(db: Queryable, orgId: string, messageId: string): Promise<MessageRow | undefined> {
  return queryOne<MessageRow>(db, `${SELECT_MESSAGE} WHERE org_id = $1 AND id = $2`, [orgId, messageId]);
}

export async function requireMessage(db: Queryable, orgId: string, messageId: string): Promise<ChannelMessageView> {
  const row = await getMessageRow(db, orgId, messageId);
  if (!row) throw notFound('Message', messageId, 'List messages with channels_list_messages.');
  return messageView(row);
}

export interface MessageFilters {
  channel?: Channel;
  status?: MessageStatus;
  contactId?: string;
  broadcastId?: string;
  purpose?: Purpose;
  cursor?: string;
  limit: number;
}

/** Newest first, filtered, one cursor page. */
export async function listMessages(db: Queryable, orgId: string, filters: MessageFilters): Promise<{ items: ChannelMessageView[]; nextCursor: string | null }> {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (column: string, value: unknown) => {
    if (value === undefined) return;
    values.push(value);
    // listPage numbers its own three parameters first.
    conditions.push(`${column} = $${values.length + 3}`);
  };
  add('channel', filters.channel);
  add('status', filters.status);
  add('contact_id', filters.contactId);
  add('broadcast_id', filters.broadcastId);
  add('purpose', filters.purpose);
  const page = await listPage<MessageRow>(db, {
    table: 'channel_messages', orgId, limit: filters.limit, cursor: filters.cursor, includeDeleted: true,
    where: conditions.length > 0 ? conditions.join(' AND ') : undefined, values,
  });
  return { items: page.rows.map(messageView), nextCursor: page.nextCursor };
}

/** Messages of a broadcast by status (D-broadcasts' progress counts). */
export async function channelMessageCounts(db: Queryable, orgId: string, broadcastId: string): Promise<Record<MessageStatus, number>> {
  const rows = await queryRows<{ status: MessageStatus; n: number }>(db,
    'SELECT status, count(*)::int AS n FROM channel_messages WHERE org_id = $1 AND broadcast_id = $2 GROUP BY status', [orgId, broadcastId]);
  const counts = Object.fromEntries(MESSAGE_STATUSES.map((status) => [status, 0])) as Record<MessageStatus, number>;
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

export interface BroadcastCost {
  /** What the messages queued so far were estimated to cost (the preview's estimate, per message). */
  estimated: { amountMinor: number; currency: string };
  /** What providers reported they charged, one total per currency billed (messages: how many reported a price). */
  actual: Array<{ amountMinor: number; currency: string; messages: number }>;
  /** Messages no provider has reported a price for yet: their actual cost is unknown, not zero. */
  messagesWithoutActualCost: number;
}

/** A broadcast's messages' estimated cost and, where providers reported it, their actual cost by currency. */
export async function channelMessageCosts(db: Queryable, orgId: string, broadcastId: string): Promise<BroadcastCost> {
  const rows = await queryRows<{ currency: string | null; amount: string; messages: number; estimated: string }>(db, `
    SELECT actual_cost_currency AS currency, COALESCE(sum(actual_cost_minor), 0)::text AS amount, count(*)::int AS messages,
      COALESCE(sum(estimated_cost_minor), 0)::text AS estimated
    FROM channel_messages WHERE org_id = $1 AND broadcast_id = $2
    GROUP BY actual_cost_currency ORDER BY actual_cost_currency NULLS LAST`, [orgId, broadcastId]);
  const cost: BroadcastCost = { estimated: { amountMinor: 0, currency: PRICE_CURRENCY }, actual: [], messagesWithoutActualCost: 0 };
  for (const row of rows) {
    cost.estimated.amountMinor += Number(row.estimated);
    if (row.currency === null) cost.messagesWithoutActualCost += row.messages;
    else cost.actual.push({ amountMinor: Number(row.amount), currency: row.currency, messages: row.messages });
  }
  return cost;
}

export interface ChannelUsage {
  periodStart: string;
  email: { sends: number };
  sms: { messages: number; segments: number };
  whatsapp: { messages: number; byCategory: Record<WhatsAppCategory, number> };
  estimatedCost: { amountMinor: number; currency: string };
}

/** What this calendar month's metered messages used, by channel (WhatsApp by category); a message counts once it was metered. */
export async function channelUsageThisPeriod(db: Queryable, orgId: string): Promise<ChannelUsage> {
  const rows = await queryRows<{ channel: Channel; category: WhatsAppCategory | null; messages: number; units: number; cost: number; period_start: Date }>(db, `
    SELECT channel, whatsapp_category AS category, count(*)::int AS messages, COALESCE(sum(metered_units), 0)::int AS units,
      COALESCE(sum(estimated_cost_minor), 0)::int AS cost, date_trunc('month', now()) AS period_start
    FROM channel_messages
    WHERE org_id = $1 AND metered_at >= date_trunc('month', now())
      AND metered_at IS NOT NULL
    GROUP BY channel, whatsapp_category`, [orgId]);
  const period = await queryOne<{ start: Date }>(db, "SELECT date_trunc('month', now()) AS start");
  const usage: ChannelUsage = {
    periodStart: new Date(period!.start).toISOString(),
    email: { sends: 0 },
    sms: { messages: 0, segments: 0 },
    whatsapp: { messages: 0, byCategory: { service: 0, utility: 0, marketing: 0, authentication: 0 } },
    estimatedCost: { amountMinor: 0, currency: PRICE_CURRENCY },
  };
  for (const row of rows) {
    usage.estimatedCost.amountMinor += row.cost;
    if (row.channel === 'email') usage.email.sends += row.messages;
    else if (row.channel === 'sms') {
      usage.sms.messages += row.messages;
      usage.sms.segments += row.units;
    } else {
      usage.whatsapp.messages += row.messages;
      usage.whatsapp.byCategory[row.category ?? 'service'] += row.messages;
    }
  }
  return usage;
}
