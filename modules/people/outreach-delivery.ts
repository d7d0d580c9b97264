import type { OutreachChannel, OutreachItemRecord } from '../../core/approvals';
import type { MeteredFeature } from '../../core/billing';
import { StewardError } from '../../core/errors';
import { queryOne, type Queryable } from '../../db/pool';
import { defineOutboxSource, type OutboxDraft, type OutboxProblem } from '../outbox-source';
import { OUTREACH_SOURCE_KIND, clearSendError, consentRefusal, loadDeliveryContact, requireOutreachItem, type OutreachItem } from './outreach';
import { syncTimelineEntries } from './timeline';
import { crisisHoldRefusal, isOnCrisisHold } from './pastoral/care/crisis';

/**
 * Delivery of approved pastoral messages: the people module's outbox source.
 * The outbox (activities/outbox.ts) leases the row, calls the provider and
 * counts the message once; this says what an outreach item allows: only an
 * approved item goes, to a contact who still consents, at their current
 * address; a sent item is marked sent and put on the care timeline; a message
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
    // Locked (FOR SHARE) so consent cannot be withdrawn between this check and the claim.
    const contact = await loadDeliveryContact(db, orgId, draft.contactId, true);
    // A crisis hold placed after approval still stops the message: it stays approved and unsent until the hold is cleared and it is approved again.
    if (contact && await isOnCrisisHold(db, orgId, draft.contactId)) return { refused: crisisHoldRefusal() };
    const refusal = consentRefusal(contact, channel);
    if (refusal) return { refused: refusal };
    return { to: channel === 'email' ? contact!.email! : contact!.phone! };
  },

  async delivered(db, orgId, itemId) {
    await db.query(`UPDATE outreach_items SET status = 'sent', sent_at = COALESCE(sent_at, now()), send_error = NULL, updated_at = now()
      WHERE org_id = $1 AND id = $2 AND status = 'approved'`, [orgId, itemId]);
    const sent = await requireOutreachItem(db, orgId, itemId);
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
