import type { Queryable } from '../../../db/pool';
import { queryOne } from '../../../db/pool';
import { notFound } from '../../kit';
import { displayNameOf } from '../../people/api';
import { loadDeliveryContact, type DeliveryContact } from '../../people/api';
import { crisisHoldRefusal, isOnCrisisHold } from '../../people/api';
import { getOrgSettings } from '../../platform/api';
import { CHANNELS, PURPOSES, normaliseAddress, normaliseEmail, toE164, type Channel, type Purpose } from './addresses';
import { lockEmailHolders, projectEmailSuppression } from './consent';
import { getChannelSettings, quietUntil } from './quiet-hours';
import {
  activeConsents, insertSuppression, liftSuppression, liveSuppression, lockAddress, lockContactConsent,
  type ConsentRow, type SuppressionReason, type SuppressionRow,
} from './store';

/**
 * The audience part's services for the rest of the channels module (delivery checks every message
 * at dispatch with checkRecipient; webhooks call applyInboundKeyword, recordInbound, suppressAddress
 * and findSenderOrg). Every function takes the organisation explicitly and filters by it, so it works
 * inside a tool's tenant transaction and in the outbox's owner connection alike.
 */
export { CHANNELS, PURPOSES, normaliseAddress, toE164, type Channel, type Purpose };
export type { SuppressionReason } from './store';
export { oneWayOptOutRefusal, senderFor, type SendingSender } from './senders';

export type RecipientRefusal = 'contact_missing' | 'no_address' | 'no_consent' | 'suppressed' | 'crisis_hold' | 'window_closed';

export type RecipientCheck =
  | {
    ok: true;
    /** Where to send: the contact's email, lower-cased, or phone as E.164. */
    address: string;
    /** Inside quiet hours: when sending may resume (defer until then, never drop); null: send now. */
    quietUntil: Date | null;
    /** The zone quiet hours were read in (the recipient's: the organisation's, as people keep none per contact). */
    timeZone: string;
  }
  | { ok: false; reason: RecipientRefusal; message: string; hint?: string };

/** WhatsApp's customer-service window: free-form messages only within this long of the person's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether this message may go to this contact now, checked in this order (the first refusal wins):
 * the contact exists; no crisis hold (a hold wins over everything, any purpose); an address for the
 * channel; the address not suppressed (any reason blocks every purpose on that channel); consent for
 * the purpose (below); for a free-form WhatsApp message, an open 24 hour window. An allowed message
 * inside quiet hours comes back ok with `quietUntil`.
 *
 * Consent needed: marketing, an active marketing consent on the channel; charitable_purpose, an
 * active charitable-purpose consent (consent or the charity soft opt-in) or a marketing one; service,
 * none by email or SMS (a message the person's relationship with the church needs), but any active
 * WhatsApp consent on WhatsApp (WhatsApp requires an opt-in for every business message).
 *
 * With `lock`, the contact row is read FOR SHARE and the address and consent are locked shared until
 * the caller's transaction ends: a STOP, bounce or withdrawal arriving meanwhile waits for the
 * caller's claim to commit and the next check sees it, so nothing slips between check and claim.
 */
export async function checkRecipient(
  db: Queryable, orgId: string,
  input: { contactId: string; channel: Channel; purpose: Purpose; now: Date; lock?: boolean; freeForm?: boolean },
): Promise<RecipientCheck> {
  const contact = await loadDeliveryContact(db, orgId, input.contactId, input.lock ?? false);
  if (!contact || contact.deleted_at) {
    return { ok: false, reason: 'contact_missing', message: `Contact ${input.contactId} was not found`, hint: 'Find contacts with people_search_contacts.' };
  }
  const name = displayNameOf(contact);
  if (await isOnCrisisHold(db, orgId, contact.id)) {
    return { ok: false, reason: 'crisis_hold', message: crisisHoldRefusal().message, hint: 'A staff member must reach them first; people_list_crisis_holds shows the hold.' };
  }
  const address = await addressOf(db, orgId, contact, input.channel);
  if (!address.ok) return address;
  if (input.lock) {
    await lockAddress(db, orgId, input.channel, address.address, 'share');
    await lockContactConsent(db, orgId, contact.id, input.channel, 'share');
  }
  const suppression = await liveSuppression(db, orgId, input.channel, address.address);
  if (suppression) {
    return {
      ok: false, reason: 'suppressed', message: `${name}'s ${channelName(input.channel)} address is suppressed (${suppression.reason.replace('_', ' ')})`,
      hint: 'channels_list_suppressions shows it; channels_remove_suppression lifts it only with fresh consent evidence.',
    };
  }
  const consents = await activeConsents(db, orgId, contact.id, input.channel);
  if (!consentCovers(consents, input.channel, input.purpose)) {
    return {
      ok: false, reason: 'no_consent', message: `${name} has no ${input.purpose.replace('_', ' ')} consent for ${channelName(input.channel)}`,
      hint: 'Record their consent with channels_record_consent (with the wording they saw), or use another channel.',
    };
  }
  if (input.channel === 'whatsapp' && input.freeForm) {
    const window = await windowOf(db, orgId, address.address, input.now);
    if (!window.open) {
      return {
        ok: false, reason: 'window_closed',
        message: `${name} has not written on WhatsApp in the last 24 hours, so free-form text cannot be sent`,
        hint: 'Send an approved WhatsApp template instead (templates_list_templates).',
      };
    }
  }
  const settings = await getChannelSettings(db, orgId);
  return { ok: true, address: address.address, quietUntil: quietUntil(input.now, settings.quietHours, settings.timeZone), timeZone: settings.timeZone };
}

function channelName(channel: Channel): string {
  return channel === 'email' ? 'email' : channel === 'sms' ? 'SMS' : 'WhatsApp';
}

function consentCovers(consents: readonly ConsentRow[], channel: Channel, purpose: Purpose): boolean {
  switch (purpose) {
    case 'marketing': return consents.some((c) => c.purpose === 'marketing');
    case 'charitable_purpose': return consents.some((c) => c.purpose === 'charitable_purpose' || c.purpose === 'marketing');
    default: return channel !== 'whatsapp' || consents.length > 0;
  }
}

async function addressOf(
  db: Queryable, orgId: string, contact: DeliveryContact, channel: Channel,
): Promise<{ ok: true; address: string } | { ok: false; reason: 'no_address'; message: string; hint: string }> {
  const name = displayNameOf(contact);
  if (channel === 'email') {
    const email = contact.email ? normaliseEmail(contact.email) : undefined;
    return email ? { ok: true, address: email } : { ok: false, reason: 'no_address', message: `${name} has no usable email address`, hint: 'Add one with people_update_contact, or use another channel.' };
  }
  if (!contact.phone) return { ok: false, reason: 'no_address', message: `${name} has no phone number`, hint: 'Add one with people_update_contact, or use another channel.' };
  const phone = toE164(contact.phone, (await getOrgSettings(db, orgId)).country);
  return phone
    ? { ok: true, address: phone }
    : { ok: false, reason: 'no_address', message: `${name}'s phone number cannot be read as an international (E.164) number`, hint: 'Correct it with people_update_contact, e.g. +447700900123.' };
}

// ---------------------------------------------------------------- suppression

/** Suppresses an address on a channel (bounce, complaint, STOP, unsubscribe, manual); repeating it keeps the first live record. */
export async function suppressAddress(
  db: Queryable, orgId: string, input: { channel: Channel; address: string; reason: SuppressionReason; source: string; note?: string | null },
): Promise<{ suppression: SuppressionRow; created: boolean }> {
  const address = normaliseAddress(input.channel, input.address);
  // The holders' contact rows before the address lock insertSuppression takes: the order a send's check locks them in
  // (contact, then address), so a bounce or STOP arriving mid-send waits for it instead of deadlocking with it.
  if (input.channel === 'email') await lockEmailHolders(db, orgId, address);
  const result = await insertSuppression(db, orgId, { ...input, address });
  if (input.channel === 'email' && result.created) await projectEmailSuppression(db, orgId, result.suppression.address);
  return result;
}

export async function isSuppressed(db: Queryable, orgId: string, channel: Channel, address: string): Promise<boolean> {
  const normalised = channel === 'email' ? normaliseEmail(address) : toE164(address);
  if (!normalised) return false;
  return Boolean(await liveSuppression(db, orgId, channel, normalised));
}

// ---------------------------------------------------------------- inbound keywords

const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'END', 'QUIT', 'CANCEL']);
const START_WORDS = new Set(['START', 'UNSTOP']);
const HELP_WORDS = new Set(['HELP']);

export type KeywordAction = 'stopped' | 'resubscribed' | 'help' | 'none';

/** The keyword an inbound message is, if the whole message is one (case and surrounding whitespace or a final full stop ignored). */
export function keywordOf(text: string): Exclude<KeywordAction, 'none'> | null {
  const word = text.trim().replace(/[.!]+$/, '').trim().toUpperCase();
  if (STOP_WORDS.has(word)) return 'stopped';
  if (START_WORDS.has(word)) return 'resubscribed';
  if (HELP_WORDS.has(word)) return 'help';
  return null;
}

/**
 * Acts on an inbound SMS or WhatsApp message that is a keyword: STOP (and STOPALL, UNSUBSCRIBE, END,
 * QUIT, CANCEL) suppresses the sender's number on that channel (reason stop_keyword); START or
 * UNSTOP lifts a stop_keyword suppression only (a bounce, complaint or manual block stays); HELP
 * answers with how to stop. Anything else, including a keyword inside a longer message, is `none`.
 */
export async function applyInboundKeyword(
  db: Queryable, orgId: string, input: { channel: 'sms' | 'whatsapp'; from: string; text: string; at: Date },
): Promise<{ action: KeywordAction; reply?: string }> {
  const keyword = keywordOf(input.text);
  const from = toE164(input.from);
  if (!keyword || !from) return { action: 'none' };
  const org = (await getOrgSettings(db, orgId)).name;
  if (keyword === 'stopped') {
    await insertSuppression(db, orgId, { channel: input.channel, address: from, reason: 'stop_keyword', source: `inbound_${input.channel}` });
    return { action: 'stopped', reply: `You will get no more messages from ${org}. Reply START to resubscribe.` };
  }
  if (keyword === 'resubscribed') {
    await liftSuppression(db, orgId, {
      channel: input.channel, address: from, reasons: ['stop_keyword'], evidence: `Replied "${input.text.trim().slice(0, 40)}" at ${input.at.toISOString()}`, by: null,
    });
    return { action: 'resubscribed', reply: `You are resubscribed to messages from ${org}. Reply STOP to unsubscribe.` };
  }
  return { action: 'help', reply: `${org}: reply STOP to stop messages, START to resubscribe.` };
}

// ---------------------------------------------------------------- WhatsApp window

/** Records that an address wrote in (opens or extends the WhatsApp 24 hour window; an older timestamp never moves it back). */
export async function recordInbound(db: Queryable, orgId: string, input: { channel: 'sms' | 'whatsapp'; from: string; at: Date }): Promise<void> {
  const from = normaliseAddress(input.channel, input.from, { path: 'from' });
  await db.query(`
    INSERT INTO channel_inbound_windows (org_id, channel, address, last_inbound_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (org_id, channel, address) DO UPDATE SET last_inbound_at = GREATEST(channel_inbound_windows.last_inbound_at, EXCLUDED.last_inbound_at)`,
  [orgId, input.channel, from, input.at]);
}

export interface WhatsappWindow {
  contactId: string;
  address: string | null;
  open: boolean;
  lastInboundAt: Date | null;
  closesAt: Date | null;
}

async function windowOf(db: Queryable, orgId: string, address: string, now: Date): Promise<Omit<WhatsappWindow, 'contactId'>> {
  const row = await queryOne<{ last_inbound_at: Date }>(db,
    "SELECT last_inbound_at FROM channel_inbound_windows WHERE org_id = $1 AND channel = 'whatsapp' AND address = $2", [orgId, address]);
  if (!row) return { address, open: false, lastInboundAt: null, closesAt: null };
  const closesAt = new Date(row.last_inbound_at.getTime() + WHATSAPP_WINDOW_MS);
  return { address, open: closesAt > now, lastInboundAt: row.last_inbound_at, closesAt };
}

/** The contact's WhatsApp window: open while their last message is under 24 hours old. A missing or another organisation's contact is not_found. */
export async function whatsappWindow(db: Queryable, orgId: string, contactId: string, now: Date): Promise<WhatsappWindow> {
  const contact = await loadDeliveryContact(db, orgId, contactId);
  if (!contact || contact.deleted_at) throw notFound('Contact', contactId, 'Find contacts with people_search_contacts.');
  const phone = contact.phone ? toE164(contact.phone, (await getOrgSettings(db, orgId)).country) : undefined;
  if (!phone) return { contactId, address: null, open: false, lastInboundAt: null, closesAt: null };
  return { contactId, ...await windowOf(db, orgId, phone, now) };
}

// ---------------------------------------------------------------- senders across organisations

/**
 * Which organisation owns a sender (an SMS or WhatsApp number, or a verified email domain): inbound
 * webhooks are routed by the number they were sent to before anyone knows the organisation. Reads
 * through a SECURITY DEFINER function, so it answers the same under any role or tenant setting.
 */
export async function findSenderOrg(db: Queryable, channel: Channel, address: string): Promise<string | null> {
  const normalised = channel === 'email' ? address.trim().toLowerCase().replace(/^.*@/, '') : toE164(address);
  if (!normalised) return null;
  const row = await queryOne<{ org_id: string | null }>(db, 'SELECT channel_sender_org($1, $2) AS org_id', [channel, normalised]);
  return row?.org_id ?? null;
}
