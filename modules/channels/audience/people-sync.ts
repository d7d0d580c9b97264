import type { Queryable } from '../../../db/pool';
import { normaliseEmail } from './addresses';
import { insertConsent, insertSuppression, liftSuppression, withdrawConsents } from './store';

/** The contact fields that used to be consent, as people's contact writes see them. */
export interface ContactConsentFields {
  status: string;
  whatsappConsent: boolean;
  email: string | null;
}

const PEOPLE_SOURCE = 'people.contact';

/**
 * Keeps consent evidence the one source of truth when a contact's old consent fields are written
 * through people's tools (create, update): the change becomes a consent record, a withdrawal or a
 * suppression, with the same mapping the data migration used. Only a change does anything, so an
 * update that leaves the fields alone records nothing.
 *
 * - status becomes subscribed: email marketing consent; an unsubscribe suppression of the address is
 *   lifted (a person recorded the new consent). A bounce suppression stays: the address still bounces.
 * - status becomes unsubscribed: email consents withdrawn, the address suppressed (unsubscribe).
 * - status becomes bounced: the address suppressed (hard_bounce).
 * - status becomes non_subscribed: email marketing consent withdrawn.
 * - whatsappConsent true / false: WhatsApp consent (purpose service) recorded / every WhatsApp consent withdrawn.
 */
export async function applyContactConsentFields(
  db: Queryable, orgId: string, contactId: string,
  before: ContactConsentFields | null, after: ContactConsentFields, actor: string | null,
): Promise<void> {
  const now = new Date();
  const email = after.email ? normaliseEmail(after.email) : undefined;
  if (after.status !== (before?.status ?? 'non_subscribed')) {
    switch (after.status) {
      case 'subscribed':
        await insertConsent(db, orgId, {
          contactId, channel: 'email', purpose: 'marketing', basis: 'consent', source: PEOPLE_SOURCE,
          wording: 'Recorded as subscribed on the contact record; the wording shown was not given.', capturedAt: now, recordedBy: actor,
        });
        if (email) await liftSuppression(db, orgId, { channel: 'email', address: email, reasons: ['unsubscribe'], evidence: 'Contact status set to subscribed', by: actor });
        break;
      case 'unsubscribed':
        await withdrawConsents(db, orgId, { contactId, channel: 'email', at: now, source: PEOPLE_SOURCE });
        if (email) await insertSuppression(db, orgId, { channel: 'email', address: email, reason: 'unsubscribe', source: PEOPLE_SOURCE });
        break;
      case 'bounced':
        if (email) await insertSuppression(db, orgId, { channel: 'email', address: email, reason: 'hard_bounce', source: PEOPLE_SOURCE });
        break;
      default:
        await withdrawConsents(db, orgId, { contactId, channel: 'email', purposes: ['marketing'], at: now, source: PEOPLE_SOURCE });
    }
  }
  if (after.whatsappConsent !== (before?.whatsappConsent ?? false)) {
    if (after.whatsappConsent) {
      await insertConsent(db, orgId, {
        contactId, channel: 'whatsapp', purpose: 'service', basis: 'consent', source: PEOPLE_SOURCE,
        wording: 'Recorded as consenting to WhatsApp on the contact record; the wording shown was not given.', capturedAt: now, recordedBy: actor,
      });
    } else {
      await withdrawConsents(db, orgId, { contactId, channel: 'whatsapp', at: now, source: PEOPLE_SOURCE });
    }
  }
}

/**
 * people's bulk WhatsApp opt-in: one WhatsApp consent (purpose service) per contact it newly opted
 * in, in one statement. Those contacts had no WhatsApp consent (their flag was false), so nothing is superseded.
 */
export async function recordBulkWhatsappOptIn(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<void> {
  if (contactIds.length === 0) return;
  await db.query(`
    INSERT INTO channel_consents (id, org_id, contact_id, channel, purpose, basis, source, wording, captured_at)
    SELECT gen_random_uuid(), $1, contact_id, 'whatsapp', 'service', 'consent', 'people.bulk_opt_in_whatsapp',
      'Opted in to WhatsApp in bulk by staff; the wording shown was not given.', now()
    FROM unnest($2::uuid[]) AS contact_id`, [orgId, contactIds]);
}
