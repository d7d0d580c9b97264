import type { OutreachChannel } from '../../core/approvals';
import type { Queryable } from '../../db/pool';
import { outreachDelivery } from './extension-points';

/** Pastoral messages to one person are service messages: no marketing consent is needed, but a suppression (STOP, unsubscribe, bounce) still stops them. */
export const OUTREACH_PURPOSE = 'service' as const;

export interface OutreachRefusal {
  /** Channels' reason code (no_address, suppressed, no_consent, crisis_hold, contact_missing), as dispatch gives it. */
  reason: string;
  message: string;
  hint?: string;
}

/**
 * Why a message on this channel could never reach the person, by channels' own rules: the check
 * every dispatch makes, so an item is not queued for review only to be refused when approved. Left
 * to dispatch is what may change before a person approves it: WhatsApp's 24-hour window, quiet
 * hours, and (for a person's own draft) a crisis hold, which the draft waits out. Null: it could go.
 */
export async function outreachRefusal(
  db: Queryable, orgId: string, contactId: string, channel: OutreachChannel, options: { draftWaitsOutCrisisHold?: boolean } = {},
): Promise<OutreachRefusal | null> {
  const check = await outreachDelivery().checkRecipient(db, orgId, { contactId, channel, purpose: OUTREACH_PURPOSE, now: new Date() });
  if (check.ok) return null;
  if (check.reason === 'crisis_hold' && options.draftWaitsOutCrisisHold) return null;
  return { reason: check.reason, message: check.message, ...(check.hint ? { hint: check.hint } : {}) };
}
