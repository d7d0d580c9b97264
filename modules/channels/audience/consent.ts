import { StewardError } from '../../../core/errors';
import { queryOne, type Queryable } from '../../../db/pool';
import { listPage, notFound } from '../../kit';
import { findLikelyDuplicates, lockContactsForUpdate, requireContact, setConsentProjection } from '../../people/api';
import { getOrgSettings } from '../../platform/api';
import { normaliseAddress, normaliseEmail, toE164, type Channel, type Purpose } from './addresses';
import {
  activeConsents, insertConsent, insertSuppression, liftSuppression, liveSuppression, withdrawConsents,
  type ConsentBasis, type ConsentRow, type SuppressionReason, type SuppressionRow,
} from './store';

/** Consent and suppression as the tools show and change them; every change keeps people's contact fields in step. */

export interface ConsentView {
  id: string;
  contactId: string;
  channel: Channel;
  purpose: Purpose;
  basis: ConsentBasis;
  source: string;
  wording: string;
  capturedAt: string;
  recordedBy: string | null;
  state: 'active' | 'withdrawn' | 'superseded';
  withdrawnAt: string | null;
  withdrawalSource: string | null;
  createdAt: string;
}

export function consentView(row: ConsentRow): ConsentView {
  return {
    id: row.id, contactId: row.contact_id, channel: row.channel, purpose: row.purpose, basis: row.basis, source: row.source,
    wording: row.wording, capturedAt: new Date(row.captured_at).toISOString(), recordedBy: row.recorded_by,
    state: row.withdrawn_at ? 'withdrawn' : row.superseded_by ? 'superseded' : 'active',
    withdrawnAt: row.withdrawn_at ? new Date(row.withdrawn_at).toISOString() : null, withdrawalSource: row.withdrawal_source,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export interface SuppressionView {
  id: string;
  channel: Channel;
  address: string;
  reason: SuppressionReason;
  source: string;
  note: string | null;
  createdAt: string;
  liftedAt: string | null;
  liftEvidence: string | null;
}

export function suppressionView(row: SuppressionRow): SuppressionView {
  return {
    id: row.id, channel: row.channel, address: row.address, reason: row.reason, source: row.source, note: row.note,
    createdAt: new Date(row.created_at).toISOString(), liftedAt: row.lifted_at ? new Date(row.lifted_at).toISOString() : null, liftEvidence: row.lift_evidence,
  };
}

/** The contact's address on a channel, normalised, or null when they have none that can be one. */
export async function contactAddress(db: Queryable, orgId: string, contact: { email: string | null; phone: string | null }, channel: Channel): Promise<string | null> {
  if (channel === 'email') return (contact.email && normaliseEmail(contact.email)) || null;
  if (!contact.phone) return null;
  return toE164(contact.phone, (await getOrgSettings(db, orgId)).country) ?? null;
}

/**
 * people's contact fields, recomputed from the records: status is bounced (the email address
 * suppressed for a hard bounce), unsubscribed (suppressed for any other reason), subscribed (an
 * active email marketing consent) or non_subscribed; whatsappConsent is any active WhatsApp consent.
 */
export async function projectConsent(db: Queryable, orgId: string, contactId: string): Promise<void> {
  const contact = await requireContact(db, orgId, contactId);
  const consents = await activeConsents(db, orgId, contactId);
  const email = contact.email ? normaliseEmail(contact.email) : undefined;
  const suppression = email ? await liveSuppression(db, orgId, 'email', email) : undefined;
  const status = suppression
    ? (suppression.reason === 'hard_bounce' ? 'bounced' : 'unsubscribed')
    : consents.some((c) => c.channel === 'email' && c.purpose === 'marketing') ? 'subscribed' : 'non_subscribed';
  await setConsentProjection(db, orgId, contactId, { status, whatsappConsent: consents.some((c) => c.channel === 'whatsapp') });
}

/** The contacts holding an email address (whose projection a suppression of it changes). */
async function emailHolders(db: Queryable, orgId: string, address: string): Promise<string[]> {
  const holders = await findLikelyDuplicates(db, orgId, { email: address });
  return holders.filter((match) => match.matchedOn.includes('email')).map((match) => match.id);
}

/** Before an email address is suppressed: its holders' rows, locked first (see lockContactsForUpdate). */
export async function lockEmailHolders(db: Queryable, orgId: string, address: string): Promise<void> {
  await lockContactsForUpdate(db, orgId, await emailHolders(db, orgId, address));
}

/** After an email address is suppressed: the contacts holding it show bounced or unsubscribed, as the record says. */
export async function projectEmailSuppression(db: Queryable, orgId: string, address: string): Promise<void> {
  for (const holder of await emailHolders(db, orgId, address)) await projectConsent(db, orgId, holder);
}

export interface RecordConsentInput {
  contactId: string;
  channel: Channel;
  purpose: Purpose;
  basis: ConsentBasis;
  source: string;
  wording: string;
  capturedAt?: string;
}

function capturedAtOf(capturedAt: string | undefined, now: Date): Date {
  const at = capturedAt ? new Date(capturedAt) : now;
  // A little clock skew between the capturing system and this one is not a future consent.
  if (at.getTime() > now.getTime() + 5 * 60_000) {
    throw new StewardError('validation_failed', 'capturedAt is in the future', { issues: [{ path: 'capturedAt', message: 'must not be in the future' }] });
  }
  return at;
}

export function assertBasisFits(input: { channel: Channel; purpose: Purpose; basis: ConsentBasis }): void {
  if (input.basis === 'charitable_soft_opt_in' && (input.purpose !== 'charitable_purpose' || input.channel === 'whatsapp')) {
    throw new StewardError('validation_failed', 'The charity soft opt-in covers only charitable-purpose messages by email or SMS', {
      issues: [{ path: 'basis', message: 'charitable_soft_opt_in needs purpose charitable_purpose and channel email or sms' }],
      hint: 'For marketing, or any WhatsApp message, record basis consent with the wording the person agreed to.',
    });
  }
}

export async function recordConsent(
  db: Queryable, orgId: string, input: RecordConsentInput, recordedBy: string | null, now = new Date(),
): Promise<{ consent: ConsentView; addressSuppressed: boolean }> {
  assertBasisFits(input);
  const contact = await requireContact(db, orgId, input.contactId);
  // The contact row before the consent lock insertConsent takes: the order a send's check locks them in.
  await lockContactsForUpdate(db, orgId, [contact.id]);
  const row = await insertConsent(db, orgId, {
    contactId: contact.id, channel: input.channel, purpose: input.purpose, basis: input.basis, source: input.source,
    wording: input.wording, capturedAt: capturedAtOf(input.capturedAt, now), recordedBy,
  });
  await projectConsent(db, orgId, contact.id);
  const address = await contactAddress(db, orgId, contact, input.channel);
  return { consent: consentView(row), addressSuppressed: Boolean(address && await liveSuppression(db, orgId, input.channel, address)) };
}

export async function withdrawConsent(
  db: Queryable, orgId: string, input: { contactId: string; channel: Channel; purpose?: Purpose; source: string }, now = new Date(),
): Promise<ConsentView[]> {
  const contact = await requireContact(db, orgId, input.contactId);
  // The contact row before the consent lock withdrawConsents takes: the order a send's check locks them in.
  await lockContactsForUpdate(db, orgId, [contact.id]);
  const rows = await withdrawConsents(db, orgId, {
    contactId: contact.id, channel: input.channel, purposes: input.purpose ? [input.purpose] : undefined, at: now, source: input.source,
  });
  await projectConsent(db, orgId, contact.id);
  return rows.map(consentView);
}

export async function listConsents(
  db: Queryable, orgId: string, input: { contactId?: string; channel?: Channel; includeHistory: boolean; limit: number; cursor?: string },
): Promise<{ consents: ConsentView[]; nextCursor: string | null }> {
  if (input.contactId) await requireContact(db, orgId, input.contactId);
  const where = ['($4::uuid IS NULL OR contact_id = $4)', '($5::text IS NULL OR channel = $5)'];
  if (!input.includeHistory) where.push('withdrawn_at IS NULL AND superseded_by IS NULL');
  const page = await listPage<ConsentRow>(db, {
    table: 'channel_consents', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true,
    where: where.join(' AND '), values: [input.contactId ?? null, input.channel ?? null],
  });
  return { consents: page.rows.map(consentView), nextCursor: page.nextCursor };
}

// ---------------------------------------------------------------- suppressions

export async function listSuppressions(
  db: Queryable, orgId: string, input: { channel?: Channel; reason?: SuppressionReason; address?: string; includeLifted: boolean; limit: number; cursor?: string },
): Promise<{ suppressions: SuppressionView[]; nextCursor: string | null }> {
  const where = ['($4::text IS NULL OR channel = $4)', '($5::text IS NULL OR reason = $5)', '($6::text IS NULL OR address = $6)'];
  if (!input.includeLifted) where.push('lifted_at IS NULL');
  const address = input.address ? (normaliseEmail(input.address) ?? toE164(input.address) ?? input.address.trim()) : null;
  const page = await listPage<SuppressionRow>(db, {
    table: 'channel_suppressions', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true,
    where: where.join(' AND '), values: [input.channel ?? null, input.reason ?? null, address],
  });
  return { suppressions: page.rows.map(suppressionView), nextCursor: page.nextCursor };
}

export async function addManualSuppression(
  db: Queryable, orgId: string, input: { channel: Channel; address: string; note?: string }, actor: string,
): Promise<{ suppression: SuppressionView; created: boolean }> {
  const country = (await getOrgSettings(db, orgId)).country;
  const result = await insertSuppression(db, orgId, {
    channel: input.channel, address: normaliseAddress(input.channel, input.address, { country }), reason: 'manual', source: `staff:${actor}`, note: input.note ?? null,
  });
  if (input.channel === 'email' && result.created) await projectEmailSuppression(db, orgId, result.suppression.address);
  return { suppression: suppressionView(result.suppression), created: result.created };
}

/**
 * Lifts a live suppression, but only on fresh consent evidence: a consent from the contact whose
 * address it is, captured after the address was suppressed, recorded in the same transaction. The
 * suppression record stays, stamped with when and on what evidence it was lifted.
 */
export async function removeSuppression(
  db: Queryable, orgId: string,
  input: { suppressionId: string; consent: Omit<RecordConsentInput, 'channel'> },
  actor: string, now = new Date(),
): Promise<{ suppression: SuppressionView; consent: ConsentView }> {
  const row = await queryOne<SuppressionRow>(db, 'SELECT * FROM channel_suppressions WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, input.suppressionId]);
  if (!row) throw notFound('Suppression', input.suppressionId, 'List them with channels_list_suppressions.');
  if (row.lifted_at) {
    throw new StewardError('conflict', `Suppression ${row.id} was already lifted`, { hint: 'channels_list_suppressions shows the live ones.' });
  }
  const contact = await requireContact(db, orgId, input.consent.contactId);
  const address = await contactAddress(db, orgId, contact, row.channel);
  if (address !== row.address) {
    throw new StewardError('validation_failed', 'The consent must come from the person whose address is suppressed', {
      issues: [{ path: 'consent.contactId', message: `this contact's ${row.channel} address is not the suppressed one` }],
      hint: 'Name the contact who holds the suppressed address.',
    });
  }
  const capturedAt = capturedAtOf(input.consent.capturedAt, now);
  if (capturedAt <= new Date(row.created_at)) {
    throw new StewardError('validation_failed', 'The consent evidence predates the suppression', {
      issues: [{ path: 'consent.capturedAt', message: `must be after ${new Date(row.created_at).toISOString()}` }],
      hint: 'Lifting a suppression needs consent given after it, e.g. the person opting in again.',
    });
  }
  const consent = await recordConsent(db, orgId, { ...input.consent, channel: row.channel, capturedAt: capturedAt.toISOString() }, actor, now);
  const lifted = await liftSuppression(db, orgId, {
    channel: row.channel, address: row.address, evidence: `Consent ${consent.consent.id} (${input.consent.source}) captured ${capturedAt.toISOString()}`, by: actor,
  });
  await projectConsent(db, orgId, contact.id);
  return { suppression: suppressionView(lifted!), consent: consent.consent };
}
