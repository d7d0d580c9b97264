import type { OutreachChannel, OutreachItemRecord } from '../../core/approvals';
import type { MeteredFeature } from '../../core/billing';
import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import { defineOutboxSource, type OutboxDraft, type OutboxProblem } from '../outbox-source';
import { outreachDelivery as deliveryChannel } from './extension-points';
import { OUTREACH_SOURCE_KIND, clearSendError, requireOutreachItem, type OutreachItem } from './outreach';
import { OUTREACH_PURPOSE } from './outreach-recipient';
import { syncTimelineEntries } from './timeline';

/**
 * Delivery of approved pastoral messages: the people module's outbox source.
 * The outbox (activities/outbox.ts) leases the row, calls the provider and
 * counts the message once; this says what an outreach item allows: only an
 * approved item goes. Pastoral outreach sends through the channels module:
 * at every attempt the recipient is checked by its `checkRecipient`, exactly
 * as channels' own messages and channels_check_sendability are, with the same
 * reason codes (consent for a service message, suppression of the address,
 * crisis holds, WhatsApp's 24-hour window for free text, quiet hours, which
 * defer it), at their current address; a sent item is marked
 * sent, put on the care timeline and recorded as a channel message; a message
 * that did not go leaves its reason on the item (sendError).
 */

export { OUTREACH_SOURCE_KIND };

/** The outreach item as a draft: the outbox needs its contact to find the address each attempt. */
interface OutreachDraft extends OutboxDraft {
  contactId: string;
}

const FEATURE_FOR_CHANNEL: Record<OutreachChannel, MeteredFeature> = { email: 'email_sends', sms: 'messaging_credits', whatsapp: 'messaging_credits' };

/** One key per item, the same as before the outbox served other modules: rows made then carry it. */
export const outreachOutboxKeyOf = (itemId: string) => `outreach-${itemId}`;

export async function recordOutreachSendError(db: Queryable, orgId: string, itemId: string, problem: OutboxProblem): Promise<void> {
  await db.query('UPDATE outreach_items SET send_error = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, itemId, JSON.stringify(problem)]);
}

/** Where the message went: the address the dispatch check gives now (the one it was sent to moments ago). */
async function currentAddress(db: Queryable, orgId: string, contactId: string, channel: OutreachChannel): Promise<string | null> {
  const check = await deliveryChannel().checkRecipient(db, orgId, { contactId, channel, purpose: OUTREACH_PURPOSE, now: new Date() });
  return check.ok ? check.address : null;
}

function sentSummary(item: OutreachItem): string {
  if (item.channel === 'email') return `Email "${item.subject ?? ''}" sent`;
  return `${item.channel === 'sms' ? 'SMS' : 'WhatsApp message'} sent`;
}

export const outreachDelivery = defineOutboxSource<OutreachDraft>({
  kind: OUTREACH_SOURCE_KIND,
  keyOf: outreachOutboxKeyOf,
  // Usage is recorded against the tool whose approval sends the message.
  usageTool: 'people_approve_outreach',
  meterFor: (channel) => FEATURE_FOR_CHANNEL[channel],

  async lock(db, orgId, itemId) {
    const item = await queryOne<{ status: string; channel: OutreachChannel; subject: string | null; body: string; contact_id: string }>(db,
      'SELECT status, channel, subject, body, contact_id FROM outreach_items WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, itemId]);
    if (!item) throw new StewardError('not_found', `Outreach item ${itemId} was not found`);
    if (item.status === 'sent') return { kind: 'delivered' };
    if (item.status !== 'approved') return { kind: 'not_ready' };
    return { kind: 'ready', draft: { channel: item.channel, subject: item.subject, body: item.body, contactId: item.contact_id } };
  },

  async recipient(db, orgId, draft, channel) {
    const now = new Date();
    // Exactly the channels module's sendability check (channels_check_sendability gives the same answer and reason code), locked
    // (FOR SHARE and the channels module's advisory locks) so a STOP or a withdrawal cannot slip in between this check and the claim.
    // A crisis hold placed after approval still stops the message: it stays approved and unsent until the hold is cleared and it is approved again.
    // An outreach WhatsApp message is free text (never a template): WhatsApp consent for the purpose, and the 24-hour window.
    const check = await deliveryChannel().checkRecipient(db, orgId, {
      contactId: draft.contactId, channel, purpose: OUTREACH_PURPOSE, now, lock: true, freeForm: channel === 'whatsapp',
    });
    if (!check.ok) return { refused: { code: check.reason, message: check.hint ? `${check.message}. ${check.hint}` : check.message } };
    if (check.quietUntil && check.quietUntil.getTime() > now.getTime()) return { deferUntil: check.quietUntil };
    return { to: check.address };
  },

  async delivered(db, orgId, itemId, provider) {
    await db.query(`UPDATE outreach_items SET status = 'sent', sent_at = COALESCE(sent_at, now()), send_error = NULL, updated_at = now()
      WHERE org_id = $1 AND id = $2 AND status = 'approved'`, [orgId, itemId]);
    const sent = await requireOutreachItem(db, orgId, itemId);
    await deliveryChannel().recordSend(db, orgId, {
      contactId: sent.contactId, channel: sent.channel, subject: sent.subject, body: sent.body, html: null, idempotencyKey: outreachOutboxKeyOf(itemId),
      recipientAddress: await currentAddress(db, orgId, sent.contactId, sent.channel), providerMessageId: provider?.providerMessageId ?? null,
      usageTool: 'people_approve_outreach',
    });
    await syncTimelineEntries(db, orgId, [{
      contactId: sent.contactId, kind: 'outreach_sent', sourceKind: 'outreach', sourceId: itemId, summary: sentSummary(sent),
      occurredAt: sent.sentAt ?? undefined,
    }]);
  },

  undelivered: recordOutreachSendError,

  async released(db, orgId, itemId) {
    await clearSendError(db, orgId, itemId);
  },
});

// The workflow boundary carries items as core's OutreachItemRecord: the two shapes must stay one.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const itemShapesAgree: Same<OutreachItem, OutreachItemRecord> = true;
void itemShapesAgree;
