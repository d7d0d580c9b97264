import type { OutreachChannel } from '../core/approvals';
import type { OutboundTransport } from '../modules/outbox-source';

/**
 * Where messages leave Steward. Every call carries the outbox row's
 * idempotency key. Only a provider that de-duplicates on it (the HTTP
 * messaging API, by its Idempotency-Key header) can make a repeated call
 * harmless; SMTP cannot: a mail server that accepted a message accepts a
 * repeat as a second message (a stable Message-ID lets some mail systems
 * recognise the copy, no more). `idempotent` says which kind a provider is, and
 * the outbox treats the two differently after a crash (activities/outbox.ts).
 */
export interface OutboundMessage {
  idempotencyKey: string;
  channel: OutreachChannel;
  to: string;
  subject: string | null;
  body: string;
  /** Email only: an HTML alternative to the text body. */
  html?: string | null;
  /** What a channel's provider needs besides the text; providers ignore what they cannot use. */
  transport?: OutboundTransport;
}

export type { OutboundTransport };

export interface MessageProvider {
  /** True when repeating a call with the same idempotency key cannot deliver a second copy. */
  readonly idempotent: boolean;
  /** Aborting the signal stops the call: no further bytes are sent to the provider afterwards. */
  send(message: OutboundMessage, options?: { signal?: AbortSignal }): Promise<{ providerMessageId: string }>;
}

/** A provider refused the message for good (a 5xx SMTP reply, a 4xx from the API): retrying will not help. */
export class PermanentDeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentDeliveryError';
  }
}

/**
 * The call failed in a way that proves the provider did not accept the message
 * (the server refused it with a 4xx reply, or the connection failed before the
 * message was transmitted): retrying cannot deliver a duplicate. Any other
 * error from a non-idempotent provider leaves delivery unknown.
 */
export class NotDeliveredError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NotDeliveredError';
  }
}

/**
 * What an HTTP messaging provider's error answer proves: a 4xx other than 408/429 will not change on retry
 * (PermanentDeliveryError); anything else may. Either way the provider answered that it did not take the
 * message, so a retry is a fresh attempt (NotDeliveredError), not the completion of one it may have accepted.
 */
export async function providerFailureOf(response: Response, provider: string): Promise<Error> {
  const detail = await response.text().catch(() => '');
  const summary = detail.slice(0, 300);
  if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
    return new PermanentDeliveryError(`The ${provider} refused the message (${response.status})${summary ? `: ${summary}` : ''}`);
  }
  return new NotDeliveredError(`The ${provider} answered ${response.status}`);
}

/** Failures before a connection was made: the request never reached the provider. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * fetch for a provider call: a request that never reached the provider (refused connection, unknown host,
 * connect timeout) proves it did not take the message (NotDeliveredError); anything else (a timeout after
 * the request went, a dropped connection) leaves it unknown and is thrown as it is.
 */
export async function callProvider(url: string, init: RequestInit, provider: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string' && NEVER_CONNECTED.has(code)) throw new NotDeliveredError(`The ${provider} could not be reached (${code})`, { cause: error });
    throw error;
  }
}

