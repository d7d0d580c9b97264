import type { OutreachChannel } from '../../core/approvals';
import type { Queryable } from '../../db/pool';
import { contributionsTo, soleContributionTo } from '../registry';
import type { CareSignal } from './pastoral/care/care-status';

/**
 * Where the people module needs other modules to act in its own direction, it declares an extension
 * point here and they fill it from their definitions (`contributes`): people calls no module above it,
 * and a module that uses people does not have to be imported by it.
 */

/** A contact's old consent fields, as people's contact writes see them. */
export interface ContactConsentFields {
  status: string;
  whatsappConsent: boolean;
  email: string | null;
}

/** Told of contact writes that may change consent (channels keeps its consent records, the source of truth, in step). */
export interface ContactConsentListener {
  /** A contact created (`before` null) or updated through people's tools, in the write's transaction. */
  contactWritten(db: Queryable, orgId: string, contactId: string, before: ContactConsentFields | null, after: ContactConsentFields, actor: string | null): Promise<void>;
  /** Contacts people's bulk WhatsApp opt-in newly opted in, in the write's transaction. */
  bulkWhatsappOptIn(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<void>;
}

/** One care signal another module observes (attendance: a regular who stopped coming). */
export interface CareSignalSource {
  signal: CareSignal;
  /** The contacts it applies to now, in the order they are listed, each with the figures behind it in words. */
  contacts(db: Queryable, orgId: string): Promise<Array<{ contactId: string; contactName: string; detail: string }>>;
}

/** What the delivery check answers for an outreach recipient; the refusal reason is the sending module's code. */
export type OutreachRecipientCheck =
  | { ok: true; address: string; quietUntil: Date | null }
  | { ok: false; reason: string; message: string; hint?: string };

/** An approved pastoral message the provider took, to be recorded beside the sending module's other messages. */
export interface OutreachSend {
  contactId: string;
  channel: OutreachChannel;
  subject: string | null;
  body: string;
  html: string | null;
  /** The outreach item's outbox key (`outreach-<itemId>`). */
  idempotencyKey: string;
  recipientAddress: string | null;
  providerMessageId: string | null;
  usageTool: string;
}

/** How pastoral outreach and portal invitations reach a person: the sending module's recipient check and message record. */
export interface OutreachDelivery {
  checkRecipient(db: Queryable, orgId: string, input: { contactId: string; channel: OutreachChannel; purpose: 'service' | 'charitable_purpose'; now: Date; lock?: boolean; freeForm?: boolean }): Promise<OutreachRecipientCheck>;
  recordSend(db: Queryable, orgId: string, send: OutreachSend): Promise<void>;
}

/** One message another module sent a contact (channels: email, SMS, WhatsApp), as a contact's profile lists it. */
export interface ContactMessage {
  id: string;
  channel: string;
  purpose: string;
  status: string;
  subject: string | null;
  preview: string;
  recipientAddress: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** The messages sent to one contact, newest first (the sending module fills it). */
export interface ContactMessageSource {
  list(db: Queryable, orgId: string, contactId: string, options: { channel?: string; limit: number }): Promise<ContactMessage[]>;
}

/** One contact's attendance over a date range (the attendance module fills it). */
export interface ContactAttendanceSource {
  history(db: Queryable, orgId: string, contactId: string, range: { from: string; to: string }): Promise<{
    visits: Array<{ title: string | null; localDate: string; locations: string[]; firstTime: boolean }>;
    services: number; weeksAttended: number; firstVisit: string | null; lastVisit: string | null;
  }>;
}

declare module '../module' {
  interface ModuleContributions {
    /** At most one module fills each: the profile says "not available" when none does. */
    peopleContactMessages?: ContactMessageSource;
    peopleContactAttendance?: ContactAttendanceSource;
    peopleContactConsent?: ContactConsentListener;
    peopleCareSignals?: readonly CareSignalSource[];
    /** Exactly one module fills it. */
    peopleOutreachDelivery?: OutreachDelivery;
  }
}

export async function contactConsentWritten(
  db: Queryable, orgId: string, contactId: string, before: ContactConsentFields | null, after: ContactConsentFields, actor: string | null,
): Promise<void> {
  for (const listener of contributionsTo('peopleContactConsent')) await listener.contactWritten(db, orgId, contactId, before, after, actor);
}

export async function bulkWhatsappOptedIn(db: Queryable, orgId: string, contactIds: readonly string[]): Promise<void> {
  for (const listener of contributionsTo('peopleContactConsent')) await listener.bulkWhatsappOptIn(db, orgId, contactIds);
}

export function careSignalSources(): CareSignalSource[] {
  return contributionsTo('peopleCareSignals').flat();
}

export function outreachDelivery(): OutreachDelivery {
  return soleContributionTo('peopleOutreachDelivery');
}

export function contactMessageSource(): ContactMessageSource | undefined {
  return contributionsTo('peopleContactMessages')[0];
}

export function contactAttendanceSource(): ContactAttendanceSource | undefined {
  return contributionsTo('peopleContactAttendance')[0];
}
