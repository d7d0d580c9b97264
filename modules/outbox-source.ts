import type { OutreachChannel } from '../core/approvals';
import type { MeteredFeature } from '../core/billing';
import type { Queryable } from '../db/pool';

/** The channels the outbox's providers deliver on. */
export type OutboxChannel = OutreachChannel;

/** Why a message did not go, as recorded on its source (shown to people, e.g. as an item's sendError). */
export interface OutboxProblem {
  code: string;
  message: string;
}

/** Per-message details a provider adapter needs beyond the text. */
export interface OutboundTransport {
  /** SMS: the sending number or alphanumeric id (else SMS_FROM). WhatsApp: the phone-number id (else WHATSAPP_PHONE_NUMBER_ID). */
  from?: string | null;
  /** SMS (Twilio-style): where the provider posts this message's status changes. */
  statusCallbackUrl?: string | null;
  /** Email: extra headers (List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
  /** WhatsApp: a Meta-style `template` object; a free-form text message when absent. */
  whatsappTemplate?: unknown;
  /** WhatsApp: echoed back by the provider in status webhooks (biz_opaque_callback_data). */
  callbackData?: string | null;
}

/** What a source wants sent: fixed when its outbox row is created, so every attempt sends the same text. */
export interface OutboxDraft {
  channel: OutboxChannel;
  subject: string | null;
  body: string;
  /** Email only: an HTML rendering of the same message, sent beside the plain text. */
  html?: string | null;
  /** Units of the metered feature this message counts (SMS segments); 1 when absent. */
  units?: number;
  /** The tool its usage is recorded against, when it differs per record (else the source's usageTool). */
  usageTool?: string;
  /** Why the message is sent (marketing, service…), when the source knows: billing pauses marketing sends while a payment is past due. */
  purpose?: string;
  /** What the provider needs besides the text (sender, status callback, email headers, a WhatsApp template). */
  transport?: OutboundTransport;
}

/** What the outbox knows of earlier attempts when it asks a source about the recipient. */
export interface OutboxAttempt {
  /**
   * An earlier attempt handed the message to an idempotent provider and its outcome is unknown (the worker stopped, or the
   * answer was lost): the provider may already have accepted it, and calling again with the same key only learns which.
   */
  inFlight: boolean;
}

/** Where a source record stands when a send attempt has locked it. */
export type OutboxSourceState<D extends OutboxDraft = OutboxDraft> =
  /** The source already records the message as delivered. */
  | { kind: 'delivered' }
  /** It no longer wants sending (not approved, cancelled, withdrawn). */
  | { kind: 'not_ready' }
  /** Approved and waiting to go. */
  | { kind: 'ready'; draft: D };

/**
 * A kind of record whose approved message leaves through the outbox
 * (`outbox_messages`, activities/outbox.ts): the outbox owns the lease, the
 * provider call with its idempotency key and counting the message once; the
 * source owns its record (what may be sent, to whom, and what became of it).
 * A module lists its sources in its definition (`outboxSources`), and the
 * outbox finds one by the `source_kind` its rows carry.
 *
 * Every hook runs inside the outbox's transaction (the `db` given) unless said
 * otherwise, and must name the organisation in every statement.
 */
export interface OutboxSource<D extends OutboxDraft = OutboxDraft> {
  /** `<module>.<record>`, stored in outbox_messages.source_kind; never renamed once rows carry it. */
  kind: string;
  /**
   * The message's key: its outbox row id is derived from it, providers get it
   * as Idempotency-Key (SMTP as Message-ID) and usage is recorded under it.
   * Stable per source record and unique across every source (prefix it with the record kind).
   */
  keyOf(sourceId: string): string;
  /** The tool usage is recorded against (the tool whose approval sends it). */
  usageTool: string;
  /** The metered feature one message on this channel counts against. */
  meterFor(channel: OutboxChannel): MeteredFeature;
  /** Locks the source record (FOR UPDATE) for the attempt and says where it stands; throws not_found when it does not exist. */
  lock(db: Queryable, orgId: string, sourceId: string): Promise<OutboxSourceState<D>>;
  /** Consent and the current address, checked on every attempt: where it goes now, why it may not, or when it may (quiet hours: nothing is claimed or counted yet). */
  recipient(
    db: Queryable, orgId: string, draft: D, channel: OutboxChannel, attempt?: OutboxAttempt,
  ): Promise<{ to: string } | { refused: OutboxProblem } | { deferUntil: Date }>;
  /** Records on the source that the message went; idempotent (a finished send may be reported again). The provider's id when known. */
  delivered(db: Queryable, orgId: string, sourceId: string, sent?: { providerMessageId: string }): Promise<void>;
  /** Called in the transaction that counted the message (once per message). */
  metered?(db: Queryable, orgId: string, sourceId: string, units: number): Promise<void>;
  /** The provider refused the message for good (outside any transaction). */
  providerRefused?(db: Queryable, orgId: string, sourceId: string, problem: OutboxProblem): Promise<void>;
  /** The provider provably did not take it (a 4xx, no connection): the next attempt is a fresh one. In the transaction that gives the claim up. */
  notTaken?(db: Queryable, orgId: string, sourceId: string): Promise<void>;
  /** Records on the source why it did not go (refused, or needs a person's review). */
  undelivered(db: Queryable, orgId: string, sourceId: string, problem: OutboxProblem): Promise<void>;
  /** A person chose to send it again after a review: the source clears the problem it recorded. Called only while it is ready. */
  released(db: Queryable, orgId: string, sourceId: string): Promise<void>;
}

/** Declares an outbox source; the draft type `D` stays checked inside the source while the registry holds plain `OutboxSource`s. */
export function defineOutboxSource<D extends OutboxDraft>(source: OutboxSource<D>): OutboxSource {
  if (!/^[a-z][a-z0-9]*\.[a-z][a-z0-9_]*$/.test(source.kind)) throw new Error(`Outbox source kind ${source.kind} must be <module>.<record>`);
  return source as unknown as OutboxSource;
}

/** What one send attempt came to (a failure worth retrying is thrown instead). */
export type OutboxOutcome =
  | { status: 'sent' }
  | { status: 'refused'; error: OutboxProblem }
  | { status: 'needs_review' }
  /** The source no longer wants it sent (for outreach: not approved, or cancelled). */
  | { status: 'not_ready' }
  /** Not yet (quiet hours): nothing was claimed or counted; send again at `until` (ISO time). */
  | { status: 'deferred'; until: string };

/**
 * The shared outbox as a module's activities see it (activities/outbox.ts; handed to them in
 * `ActivityDeps`): one leased attempt for a record of a registered source kind, counted once,
 * never handed to a provider twice without a person deciding.
 */
export interface OutboxPort {
  send(kind: string, orgId: string, sourceId: string): Promise<OutboxOutcome>;
  release(kind: string, orgId: string, sourceId: string, userId: string): Promise<boolean>;
}

/** The kernel's outbox activities (activities/outbox-activities.ts), as a module's workflow schedules them. */
export interface OutboxActivities {
  sendOutboxMessage(kind: string, orgId: string, sourceId: string): Promise<OutboxOutcome>;
  releaseOutboxMessage(kind: string, orgId: string, sourceId: string, userId: string): Promise<boolean>;
}
