import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { StewardError } from '../core/errors';

/**
 * The payment-provider adapter every selling module shares (ticketing now; store and billing
 * later): a Stripe Checkout-shaped contract, one HTTP implementation of it, and the webhook
 * signature. It speaks Stripe's own API shape (form-encoded `POST /v1/checkout/sessions`,
 * `POST /v1/checkout/sessions/{id}/expire`, `POST /v1/refunds`, `Idempotency-Key`, and the
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` webhook header), so the
 * local sandbox (`sandbox/payments/`, which `npm start` runs when no provider is configured) and a
 * real Stripe account are configured the same way:
 *
 *   PAYMENTS_API_URL         https://api.stripe.com, or the sandbox's address
 *   PAYMENTS_SECRET_KEY      the secret API key (Bearer)
 *   PAYMENTS_WEBHOOK_SECRET  the signing secret of the webhook endpoints
 *
 * It lives beneath the modules (kernel/) so modules reach it without importing each other.
 * A module routes its own payments: sessions carry `metadata.steward_module` and
 * `metadata.org_id`, and each module's webhook (`/webhooks/<module>/payments`) ignores events of
 * sessions another module created. An order is paid only when the signed webhook says so: the
 * adapter has no "mark paid" of its own.
 */

export interface CheckoutLineItem {
  name: string;
  unitAmountMinor: number;
  quantity: number;
}

export interface CheckoutSessionInput {
  /** The same key always answers the same session (a retried call creates nothing new). */
  idempotencyKey: string;
  currency: string;
  lineItems: readonly CheckoutLineItem[];
  /** A discount the seller already applied, in minor units (sent as a negative line is not allowed, so the session carries the total). */
  discountMinor: number;
  /** Names the selling module and organisation (`steward_module`, `org_id`) and the record paid for. */
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
  /**
   * When the checkout was first asked for (the tool call's start, the same on every attempt): the
   * session's expiry is bounded from it rather than from the clock, so a retried attempt sends the
   * very same parameters under its Idempotency-Key, which a provider refuses otherwise.
   */
  requestedAt: Date;
  customerEmail?: string | null;
}

export type CheckoutStatus = 'open' | 'complete' | 'expired';

export interface CheckoutSession {
  id: string;
  url: string | null;
  status: CheckoutStatus;
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  paymentIntentId: string | null;
  amountTotal: number;
  currency: string;
  metadata: Record<string, string>;
  /** The provider's customer the session paid as, when it made one (Stripe's `customer`). */
  customerId?: string | null;
}

export interface RefundInput {
  paymentIntentId: string;
  amountMinor: number;
  idempotencyKey: string;
  metadata?: Record<string, string>;
}

export interface ProviderRefund {
  id: string;
  status: 'succeeded' | 'pending' | 'failed';
  amountMinor: number;
}

export interface PaymentProvider {
  readonly name: string;
  createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession>;
  getCheckoutSession(id: string): Promise<CheckoutSession>;
  /** Expires an open session; a session already paid answers as it is (status complete), so the caller waits for its webhook. */
  expireCheckoutSession(id: string): Promise<CheckoutSession>;
  refund(input: RefundInput): Promise<ProviderRefund>;
  /**
   * A customer-portal session (Stripe's `POST /v1/billing_portal/sessions`): a short-lived bearer
   * URL where the customer manages their payment method and invoices. Optional: a provider
   * without one leaves it out.
   */
  createPortalSession?(input: PortalSessionInput): Promise<PortalSession>;
  /**
   * Moves a subscription to another price (Stripe's `POST /v1/subscriptions/{id}`): its one item's
   * price replaced, without proration (the new price applies from the next period). Optional: a
   * provider without subscriptions leaves it out.
   */
  updateSubscriptionPrice?(input: SubscriptionPriceInput): Promise<ProviderSubscription>;
}

export interface SubscriptionPriceInput {
  subscriptionId: string;
  /**
   * The product the new price belongs to (Stripe's price_data.product); by default the subscription's
   * current product, since a provider account knows only the products it made (a checkout's inline
   * product gets an id like prod_…): a plan change is a new price on the same product.
   */
  productId?: string;
  currency: string;
  /** Per month, in minor units. */
  unitAmountMinor: number;
  idempotencyKey: string;
  metadata?: Record<string, string>;
}

export interface ProviderSubscription {
  id: string;
  status: string;
  /** The item's price after the update. */
  unitAmountMinor: number;
  currency: string;
}

export interface PortalSessionInput {
  customerId: string;
  returnUrl: string;
}

export interface PortalSession {
  id: string;
  /** A bearer URL: whoever holds it manages the customer's billing. Never log it. */
  url: string;
}

/** The provider refused a request for good (a 4xx other than 408/429): retrying the same request will not help. */
export class PaymentRefusedError extends Error {
  /** `type` is the provider's error type (Stripe's `error.type`, such as `idempotency_error`), when it gave one. */
  constructor(message: string, readonly status: number, readonly type?: string) {
    super(message);
    this.name = 'PaymentRefusedError';
  }
}

/**
 * The provider refused an Idempotency-Key already used with other parameters (Stripe's
 * `idempotency_error`): an earlier attempt of the same call asked for something else (a price that
 * changed in between), and the provider keeps the first answer only for the first request.
 */
export function isIdempotencyMismatch(error: unknown): boolean {
  return error instanceof PaymentRefusedError && error.type === 'idempotency_error';
}

export interface PaymentsConfig {
  apiUrl: string;
  secretKey: string;
}

/** Read at call time, so a process picks up the sandbox `npm start` points it at. Null when no provider is configured. */
export function paymentsConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentsConfig | null {
  if (!env.PAYMENTS_API_URL || !env.PAYMENTS_SECRET_KEY) return null;
  return { apiUrl: env.PAYMENTS_API_URL.replace(/\/+$/, ''), secretKey: env.PAYMENTS_SECRET_KEY };
}

export function paymentsWebhookSecret(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.PAYMENTS_WEBHOOK_SECRET || null;
}

export function paymentProviderFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentProvider | null {
  const config = paymentsConfigFromEnv(env);
  return config ? new StripeCheckoutProvider(config) : null;
}

/** Stripe's nested form encoding: `line_items[0][price_data][currency]=gbp`. */
export function formEncode(value: unknown, prefix = '', out: URLSearchParams = new URLSearchParams()): URLSearchParams {
  if (value === undefined || value === null) return out;
  if (Array.isArray(value)) value.forEach((item, index) => formEncode(item, `${prefix}[${index}]`, out));
  else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) formEncode(item, prefix ? `${prefix}[${key}]` : key, out);
  } else out.append(prefix, String(value));
  return out;
}

interface StripeSession {
  id: string;
  url: string | null;
  status: CheckoutStatus;
  payment_status: CheckoutSession['paymentStatus'];
  payment_intent: string | null;
  amount_total: number;
  currency: string;
  metadata?: Record<string, string>;
  customer?: string | null;
}

export function sessionOf(raw: StripeSession): CheckoutSession {
  return {
    id: raw.id, url: raw.url ?? null, status: raw.status, paymentStatus: raw.payment_status, paymentIntentId: raw.payment_intent ?? null,
    amountTotal: raw.amount_total, currency: raw.currency, metadata: raw.metadata ?? {}, customerId: raw.customer ?? null,
  };
}

/**
 * Stripe keeps a session open between 30 minutes and 24 hours from its request: a seller's shorter
 * hold (a 15-minute cart) opens the session for 40 minutes and closes it itself when the hold ends
 * (expireCheckoutSession), so nobody pays after the places were given back. Bounded from when the
 * checkout was asked for (`requestedAt`), never the clock, so every attempt of one call sends the
 * same `expires_at`; the 10 minutes above Stripe's 30 leave room for a retried attempt whose request
 * is the first to reach the provider minutes later.
 */
export function sessionExpiry(wanted: Date, requestedAt: Date): number {
  const from = requestedAt.getTime();
  const earliest = from + 40 * 60_000;
  const latest = from + 23 * 3_600_000 + 59 * 60_000;
  return Math.floor(Math.min(latest, Math.max(earliest, wanted.getTime())) / 1000);
}

/** The fields of Stripe's subscription object Steward reads. */
interface StripeSubscription {
  id: string;
  status: string;
  items?: { data?: Array<{ id: string; price?: { unit_amount?: number; currency?: string; product?: string } }> };
}

/** The Stripe Checkout API (or the sandbox that speaks it). */
export class StripeCheckoutProvider implements PaymentProvider {
  readonly name = 'stripe';

  constructor(private readonly config: PaymentsConfig) {}

  private async request<T>(method: 'GET' | 'POST', path: string, body?: URLSearchParams, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.config.secretKey}` };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(`${this.config.apiUrl}${path}`, { method, headers, body: body?.toString(), signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300);
      let type: string | undefined;
      try {
        const refusal = (JSON.parse(text) as { error?: { message?: string; type?: string } }).error;
        message = refusal?.message ?? message;
        type = typeof refusal?.type === 'string' ? refusal.type : undefined;
      } catch {
        // keep the text
      }
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        throw new PaymentRefusedError(`The payment provider refused the request (${response.status}): ${message}`, response.status, type);
      }
      throw new Error(`The payment provider answered ${response.status}`);
    }
    return JSON.parse(text) as T;
  }

  async createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession> {
    const total = input.lineItems.reduce((sum, item) => sum + item.unitAmountMinor * item.quantity, 0) - input.discountMinor;
    // Stripe has no negative line: a discounted order is sent as one line of its total, its items named in the description.
    const lineItems = input.discountMinor > 0
      ? [{ price_data: { currency: input.currency.toLowerCase(), unit_amount: total, product_data: { name: input.lineItems.map((item) => `${item.quantity} × ${item.name}`).join(', ').slice(0, 250) } }, quantity: 1 }]
      : input.lineItems.map((item) => ({ price_data: { currency: input.currency.toLowerCase(), unit_amount: item.unitAmountMinor, product_data: { name: item.name.slice(0, 250) } }, quantity: item.quantity }));
    const body = formEncode({
      mode: 'payment', line_items: lineItems, metadata: input.metadata, payment_intent_data: { metadata: input.metadata },
      success_url: input.successUrl, cancel_url: input.cancelUrl, expires_at: sessionExpiry(input.expiresAt, input.requestedAt),
      ...(input.customerEmail ? { customer_email: input.customerEmail } : {}),
    });
    return sessionOf(await this.request<StripeSession>('POST', '/v1/checkout/sessions', body, input.idempotencyKey));
  }

  async getCheckoutSession(id: string): Promise<CheckoutSession> {
    return sessionOf(await this.request<StripeSession>('GET', `/v1/checkout/sessions/${encodeURIComponent(id)}`));
  }

  async expireCheckoutSession(id: string): Promise<CheckoutSession> {
    try {
      return sessionOf(await this.request<StripeSession>('POST', `/v1/checkout/sessions/${encodeURIComponent(id)}/expire`, new URLSearchParams()));
    } catch (error) {
      // Stripe refuses to expire a session that is no longer open; read it instead.
      if (error instanceof PaymentRefusedError && error.status === 400) return this.getCheckoutSession(id);
      throw error;
    }
  }

  async createPortalSession(input: PortalSessionInput): Promise<PortalSession> {
    const raw = await this.request<{ id: string; url: string }>('POST', '/v1/billing_portal/sessions', formEncode({ customer: input.customerId, return_url: input.returnUrl }));
    return { id: raw.id, url: raw.url };
  }

  async updateSubscriptionPrice(input: SubscriptionPriceInput): Promise<ProviderSubscription> {
    const path = `/v1/subscriptions/${encodeURIComponent(input.subscriptionId)}`;
    // The existing item is named, so its price is replaced rather than a second item added beside it.
    const current = await this.request<StripeSubscription>('GET', path);
    const item = current.items?.data?.[0];
    if (!item) throw new PaymentRefusedError(`The payment provider's subscription ${input.subscriptionId} has no item to change`, 400);
    const product = input.productId ?? item.price?.product;
    if (!product) throw new PaymentRefusedError(`The payment provider's subscription ${input.subscriptionId} names no product for the new price`, 400);
    const body = formEncode({
      items: [{ id: item.id, price_data: { currency: input.currency.toLowerCase(), product, unit_amount: input.unitAmountMinor, recurring: { interval: 'month' } } }],
      proration_behavior: 'none', metadata: input.metadata ?? {},
    });
    const updated = await this.request<StripeSubscription>('POST', path, body, input.idempotencyKey);
    const price = updated.items?.data?.[0]?.price;
    return { id: updated.id, status: updated.status, unitAmountMinor: Number(price?.unit_amount ?? input.unitAmountMinor), currency: String(price?.currency ?? input.currency).toUpperCase() };
  }

  async refund(input: RefundInput): Promise<ProviderRefund> {
    const body = formEncode({ payment_intent: input.paymentIntentId, amount: input.amountMinor, metadata: input.metadata ?? {} });
    const raw = await this.request<{ id: string; status: ProviderRefund['status']; amount: number }>('POST', '/v1/refunds', body, input.idempotencyKey);
    return { id: raw.id, status: raw.status, amountMinor: raw.amount };
  }
}

// ---------------------------------------------------------------- webhooks

/** How old a signed event may be (seconds) before it is refused as a replay of an old capture. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, as Stripe signs its webhooks. */
export function paymentSignature(secret: string, rawBody: Buffer | string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Whether a `Stripe-Signature` header signs this raw body with this secret, within the tolerance.
 * Several `v1=` entries (a secret being rolled) are accepted if any matches.
 */
export function verifyPaymentSignature(secret: string, rawBody: Buffer, header: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  if (!header) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isSafeInteger(timestamp) || Math.abs(nowSeconds - timestamp) > WEBHOOK_TOLERANCE_SECONDS) return false;
  const expected = paymentSignature(secret, rawBody, timestamp).split('v1=')[1]!;
  return parts.filter(([key]) => key === 'v1').some(([, value]) => safeEqual(value ?? '', expected));
}

/** A provider event as it arrives: Stripe's envelope. */
export interface PaymentEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Record<string, unknown> };
}

export function parsePaymentEvent(rawBody: Buffer): PaymentEvent | null {
  try {
    const event = JSON.parse(rawBody.toString('utf8')) as PaymentEvent;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.data?.object !== 'object' || event.data.object === null) return null;
    return event;
  } catch {
    return null;
  }
}

/** A checkout session object from an event's data. */
export function sessionFromEvent(event: PaymentEvent): CheckoutSession | null {
  const raw = event.data.object as Partial<StripeSession> & { object?: string };
  if (raw.object !== 'checkout.session' || typeof raw.id !== 'string') return null;
  return sessionOf(raw as StripeSession);
}

/**
 * A stable uuid (version 5 layout: SHA-256 of the name, version and variant bits set) from a name
 * such as `<workflow id>:store-order`: the same workflow's retries get the same record id, so the
 * provider's idempotency holds.
 */
export function stableUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The tool call a checkout is opened for, as every attempt of it sees the call (a tool's
 * PrepareDeps): its workflow id and when it began. A selling module derives the record's id from the
 * first (stableUuid) and the session's times from the second, so each attempt sends the provider
 * the same request under the same Idempotency-Key and one call opens at most one session.
 */
export interface CheckoutCall {
  workflowId: string;
  callStartedAt: Date;
}

/**
 * Opens a call's checkout session: a repeat of an earlier attempt's request gets that attempt's
 * session back. An earlier attempt that asked for something else (a price changed between the
 * attempts) is refused by the provider; the call then fails as a conflict, to be asked again (that
 * attempt's session, never shown to anyone, closes by itself at its expiry).
 */
export async function openCallCheckout(provider: PaymentProvider, input: CheckoutSessionInput): Promise<CheckoutSession> {
  try {
    return await provider.createCheckoutSession(input);
  } catch (error) {
    if (!isIdempotencyMismatch(error)) throw error;
    throw new StewardError('conflict', 'What the checkout asks for (a price or a name) changed while it was being made', {
      hint: 'Ask again: it is priced afresh.', details: { reason: 'changed_between_attempts' },
    });
  }
}

/** A webhook's answer when an event cannot be taken: the HTTP status and the JSON body. */
export interface PaymentEventRefusal { status: 400 | 401 | 503; body: { ok: false; error: { code: string; message: string } } }

/**
 * What every module's payments webhook does first, before it reads anything: the secret must be
 * set (503), the `Stripe-Signature` must match the raw body and be fresh (401), and the body must be
 * a payment event (400). Answers the event, or the refusal to send as it is.
 */
export function receivePaymentEvent(rawBody: unknown, signature: string | undefined, env: NodeJS.ProcessEnv = process.env): { event: PaymentEvent } | { refusal: PaymentEventRefusal } {
  const refuse = (status: PaymentEventRefusal['status'], code: string, message: string) => ({ refusal: { status, body: { ok: false as const, error: { code, message } } } });
  const secret = paymentsWebhookSecret(env);
  if (!secret) return refuse(503, 'not_configured', 'PAYMENTS_WEBHOOK_SECRET is not set on this server');
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.alloc(0);
  if (!verifyPaymentSignature(secret, body, signature)) return refuse(401, 'unauthorized', 'The Stripe-Signature header is missing, does not match, or is too old');
  const event = parsePaymentEvent(body);
  return event ? { event } : refuse(400, 'validation_failed', 'Not a payment event');
}
