import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { paymentSignature } from '../../kernel/payments';
import { escapeHtml } from '../../core/html';

/**
 * A local payment provider for development and tests, shaped like Stripe Checkout: it speaks the
 * API Steward's adapter (kernel/payments.ts) calls, keeps every session and refund in memory (one
 * per Idempotency-Key, as Stripe does: a repeated request gets its first answer, the key with other
 * parameters an `idempotency_error`), serves a checkout page a person can pay on, and sends
 * Steward the signed webhooks a real provider would. Nothing leaves the machine; no card is asked for.
 *
 * Provider endpoints (Bearer secret key; form-encoded bodies):
 *   POST /v1/checkout/sessions                  → session {id, url, status: open, payment_status: unpaid, amount_total, …}
 *   GET  /v1/checkout/sessions/{id}             → the session
 *   POST /v1/checkout/sessions/{id}/expire      → expired (400 when it is no longer open)
 *   POST /v1/refunds                            payment_intent, amount → {id, status: succeeded, amount} (400 past what was paid)
 *   POST /v1/billing_portal/sessions            customer, return_url → {id, url} (a customer-portal page)
 *   POST /v1/subscriptions                      customer, items[0][price_data][…], metadata → subscription (active, one item)
 *   GET  /v1/subscriptions/{id}                 → the subscription
 *   POST /v1/subscriptions/{id}                 items[0][id] + items[0][price_data][currency|product|unit_amount|recurring][interval],
 *                                               proration_behavior (create_prorations | none | always_invoice), metadata → the subscription
 *                                               (404 for an unknown subscription or item; 400 once canceled or for a bad price)
 * A person's page:
 *   GET  /checkout/{id}                         the hosted page; its button pays (POST /checkout/{id}/pay)
 * Inspection and control (for people and tests):
 *   GET  /sandbox/sessions                      every session, oldest first
 *   POST /sandbox/sessions/{id}/pay             completes it → signed checkout.session.completed
 *   POST /sandbox/sessions/{id}/expire          expires it → signed checkout.session.expired
 * A paid session names the customer it made (`customer: cus_…`); `sendEvent` sends any other
 * signed event (a subscription or invoice update) as the provider would.
 * Events go to `<webhookBaseUrl>/webhooks/<metadata.steward_module>/payments`, signed
 * `Stripe-Signature: t=…,v1=…` with the webhook secret.
 */

export interface PaymentsSandboxConfig {
  port?: number;
  host?: string;
  secretKey: string;
  webhookSecret: string;
  /** Where Steward listens; may be set after start. */
  webhookBaseUrl?: string;
}

export interface SandboxSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid';
  payment_intent: string | null;
  amount_total: number;
  amount_refunded: number;
  currency: string;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  expires_at: number;
  customer_email: string | null;
  /** Set when paid: the customer the payment made. */
  customer: string | null;
  line_items: Array<{ name: string; unit_amount: number; quantity: number }>;
  created: number;
}

export interface SandboxRefund {
  id: string;
  object: 'refund';
  payment_intent: string;
  amount: number;
  status: 'succeeded';
  metadata: Record<string, string>;
  created: number;
}

export interface SandboxPrice {
  id: string;
  object: 'price';
  currency: string;
  product: string;
  unit_amount: number;
  recurring: { interval: string };
}

export interface SandboxSubscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: 'active' | 'canceled';
  items: { object: 'list'; data: Array<{ id: string; object: 'subscription_item'; price: SandboxPrice; quantity: number }> };
  metadata: Record<string, string>;
  current_period_start: number;
  current_period_end: number;
  cancel_at_period_end: boolean;
  created: number;
}

/** One accepted subscription update as the sandbox received it (tests read what was asked, such as the proration). */
export interface SandboxSubscriptionUpdate {
  subscription: string;
  proration_behavior: string;
  price: SandboxPrice;
  idempotency_key: string | null;
}

export interface SentWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResult {
  status: number;
  body: string;
}

export interface PaymentsSandbox {
  url: string;
  config: PaymentsSandboxConfig;
  /** The environment Steward needs to take payments through this sandbox. */
  env(): Record<string, string>;
  sessions(): SandboxSession[];
  refunds(): SandboxRefund[];
  setWebhookBaseUrl(url: string): void;
  /** Completes a session as a paying customer would; the signed webhook is sent unless `deliver` is false (then it is returned, to send later). */
  pay(sessionId: string, options?: { deliver?: boolean }): Promise<{ webhook: SentWebhook; result: WebhookResult | null }>;
  /** Expires an open session; the signed webhook is sent unless `deliver` is false. */
  expire(sessionId: string, options?: { deliver?: boolean }): Promise<{ webhook: SentWebhook; result: WebhookResult | null }>;
  /** Signs an event of any type about `object` for `module`'s webhook; sent unless `deliver` is false. */
  sendEvent(type: string, object: unknown, module: string, options?: { deliver?: boolean; created?: number }): Promise<{ webhook: SentWebhook; result: WebhookResult | null }>;
  /** Makes a subscription as the provider would after a subscription checkout (tests and local use). */
  createSubscription(input: { id?: string; customer: string; currency: string; unitAmountMinor: number; product?: string; metadata?: Record<string, string> }): SandboxSubscription;
  subscriptions(): SandboxSubscription[];
  /** Every accepted update of a subscription's price, oldest first. */
  subscriptionUpdates(): SandboxSubscriptionUpdate[];
  /** Customer-portal sessions opened, oldest first. */
  portalSessions(): Array<{ id: string; customer: string; url: string; return_url: string }>;
  /** Sends a webhook (again), byte for byte. */
  deliver(webhook: SentWebhook): Promise<WebhookResult>;
  /** Every provider API request made (retries with a known Idempotency-Key included). */
  requestCount(): number;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Stripe's nested form keys (`line_items[0][price_data][currency]`) back into objects and arrays. */
export function formDecode(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return root;
}

const listOf = (value: unknown): Array<Record<string, unknown>> => (value && typeof value === 'object' ? Object.values(value as Record<string, Record<string, unknown>>) : []);

export async function startPaymentsSandbox(config: PaymentsSandboxConfig): Promise<PaymentsSandbox> {
  const sessions = new Map<string, SandboxSession>();
  const refunds: SandboxRefund[] = [];
  const byKey = new Map<string, { request: string; status: number; body: unknown }>();
  const state = { requests: 0, webhookBase: config.webhookBaseUrl ?? '', url: '' };

  const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const now = () => Math.floor(Date.now() / 1000);

  const portals: Array<{ id: string; customer: string; url: string; return_url: string }> = [];
  const subscriptions = new Map<string, SandboxSubscription>();
  const subscriptionUpdates: SandboxSubscriptionUpdate[] = [];

  const invalid = (message: string, param?: string) => ({ status: 400, body: { error: { message, type: 'invalid_request_error', ...(param ? { param } : {}) } } });

  /** Stripe's price_data for a recurring item: currency, product, a whole unit_amount and recurring[interval]. */
  function priceOf(data: unknown, param: string): SandboxPrice | { status: number; body: unknown } {
    const price = (data ?? {}) as Record<string, unknown>;
    const amount = Number(price.unit_amount);
    const interval = String((price.recurring as Record<string, unknown> | undefined)?.interval ?? '');
    if (!/^[a-z]{3}$/.test(String(price.currency ?? ''))) return invalid('price_data[currency] must be a three-letter ISO code in lower case', `${param}[currency]`);
    if (typeof price.product !== 'string' || !price.product) return invalid('price_data[product] is required', `${param}[product]`);
    if (!Number.isSafeInteger(amount) || amount < 0) return invalid('price_data[unit_amount] must be a whole number of at least 0', `${param}[unit_amount]`);
    if (!['day', 'week', 'month', 'year'].includes(interval)) return invalid('price_data[recurring][interval] must be day, week, month or year', `${param}[recurring][interval]`);
    return { id: id('price'), object: 'price', currency: String(price.currency), product: price.product, unit_amount: amount, recurring: { interval } };
  }

  function makeSubscription(input: { id?: string; customer: string; price: SandboxPrice; metadata?: Record<string, string> }): SandboxSubscription {
    const start = now();
    const subscription: SandboxSubscription = {
      id: input.id ?? id('sub'), object: 'subscription', customer: input.customer, status: 'active',
      items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', price: input.price, quantity: 1 }] },
      metadata: { ...(input.metadata ?? {}) }, current_period_start: start, current_period_end: start + 30 * 86_400, cancel_at_period_end: false, created: start,
    };
    subscriptions.set(subscription.id, subscription);
    return subscription;
  }

  function createSubscriptionFromForm(form: Record<string, unknown>): { status: number; body: unknown } {
    if (typeof form.customer !== 'string' || !form.customer) return invalid('customer is required', 'customer');
    const [item] = listOf(form.items);
    const price = priceOf(item?.price_data, 'items[0][price_data]');
    if ('status' in price) return price;
    return { status: 200, body: makeSubscription({ customer: form.customer, price, metadata: form.metadata as Record<string, string> | undefined }) };
  }

  /** Stripe's subscription update, for the one thing Steward changes: the item's price (named by its id), with a proration behaviour. */
  function updateSubscription(subscription: SandboxSubscription, form: Record<string, unknown>, key: string | null): { status: number; body: unknown } {
    if (subscription.status === 'canceled') return invalid('A canceled subscription can only update its cancellation_details and metadata.');
    const proration = String(form.proration_behavior ?? 'create_prorations');
    if (!['create_prorations', 'none', 'always_invoice'].includes(proration)) return invalid(`Invalid proration_behavior: must be one of create_prorations, none, or always_invoice`, 'proration_behavior');
    const [change] = listOf(form.items);
    if (change) {
      const item = subscription.items.data.find((candidate) => candidate.id === change.id);
      if (!item) return { status: 404, body: { error: { message: `No such subscription item: '${String(change.id ?? '')}'`, type: 'invalid_request_error', code: 'resource_missing', param: 'items[0][id]' } } };
      const price = priceOf(change.price_data, 'items[0][price_data]');
      if ('status' in price) return price;
      item.price = price;
      subscriptionUpdates.push({ subscription: subscription.id, proration_behavior: proration, price, idempotency_key: key });
    }
    if (form.metadata && typeof form.metadata === 'object') Object.assign(subscription.metadata, form.metadata);
    return { status: 200, body: subscription };
  }

  function signedEvent(type: string, object: unknown, module: string, created = now()): SentWebhook {
    if (!state.webhookBase) throw new Error('The payments sandbox does not know Steward\'s address: set webhookBaseUrl');
    const body = JSON.stringify({ id: id('evt'), object: 'event', type, created, data: { object } });
    return {
      url: `${state.webhookBase.replace(/\/+$/, '')}/webhooks/${module}/payments`,
      headers: { 'content-type': 'application/json', 'stripe-signature': paymentSignature(config.webhookSecret, body, now()) },
      body,
    };
  }

  async function deliver(webhook: SentWebhook): Promise<WebhookResult> {
    const response = await fetch(webhook.url, { method: 'POST', headers: webhook.headers, body: webhook.body });
    return { status: response.status, body: await response.text() };
  }

  function sessionFor(sessionId: string): SandboxSession {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`No sandbox checkout session ${sessionId}`);
    return session;
  }

  async function pay(sessionId: string, options: { deliver?: boolean } = {}) {
    const session = sessionFor(sessionId);
    if (session.status === 'open') {
      session.status = 'complete';
      session.payment_status = 'paid';
      session.payment_intent = id('pi');
      session.customer = id('cus');
    }
    const webhook = signedEvent('checkout.session.completed', session, session.metadata.steward_module ?? 'unknown');
    return { webhook, result: options.deliver === false ? null : await deliver(webhook) };
  }

  async function expire(sessionId: string, options: { deliver?: boolean } = {}) {
    const session = sessionFor(sessionId);
    if (session.status === 'open') session.status = 'expired';
    const webhook = signedEvent('checkout.session.expired', session, session.metadata.steward_module ?? 'unknown');
    return { webhook, result: options.deliver === false ? null : await deliver(webhook) };
  }

  /**
   * One answer per Idempotency-Key, as Stripe keeps them: a repeat of the same request (method, path
   * and parameters) gets the first answer again, as it was then (marked `Idempotent-Replayed`); the
   * same key with anything else is refused with Stripe's `idempotency_error`, and creates nothing.
   */
  function idempotent(req: http.IncomingMessage, res: http.ServerResponse, request: string, work: () => { status: number; body: unknown }): void {
    const key = req.headers['idempotency-key'] as string | undefined;
    const known = key ? byKey.get(key) : undefined;
    if (known && known.request !== request) {
      return json(res, 400, { error: {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      } });
    }
    if (known) {
      res.setHeader('idempotent-replayed', 'true');
      return json(res, known.status, known.body);
    }
    const answer = work();
    // A copy: the replay is the answer as first given, not the object as it is now (a session since paid or expired).
    if (key && answer.status < 500) byKey.set(key, { request, status: answer.status, body: structuredClone(answer.body) });
    json(res, answer.status, answer.body);
  }

  function createSession(form: Record<string, unknown>): { status: number; body: unknown } {
    const items = listOf(form.line_items).map((item) => {
      const price = (item.price_data ?? {}) as Record<string, unknown>;
      return { name: String((price.product_data as Record<string, unknown> | undefined)?.name ?? ''), unit_amount: Number(price.unit_amount), quantity: Number(item.quantity), currency: String(price.currency ?? '') };
    });
    if (items.length === 0) return { status: 400, body: { error: { message: 'line_items is required', type: 'invalid_request_error' } } };
    if (items.some((item) => !Number.isSafeInteger(item.unit_amount) || item.unit_amount < 0 || !Number.isSafeInteger(item.quantity) || item.quantity < 1 || !/^[a-z]{3}$/.test(item.currency))) {
      return { status: 400, body: { error: { message: 'Each line item needs a currency, a whole unit_amount and a quantity of at least 1', type: 'invalid_request_error' } } };
    }
    if (!form.success_url) return { status: 400, body: { error: { message: 'success_url is required', type: 'invalid_request_error' } } };
    const sessionId = id('cs_test');
    const session: SandboxSession = {
      id: sessionId, object: 'checkout.session', url: `${state.url}/checkout/${sessionId}`, status: 'open', payment_status: 'unpaid', payment_intent: null,
      amount_total: items.reduce((sum, item) => sum + item.unit_amount * item.quantity, 0), amount_refunded: 0, currency: items[0]!.currency,
      metadata: Object.fromEntries(Object.entries((form.metadata ?? {}) as Record<string, string>)), success_url: String(form.success_url), cancel_url: String(form.cancel_url ?? form.success_url),
      expires_at: Number(form.expires_at ?? now() + 86_400), customer_email: (form.customer_email as string | undefined) ?? null, customer: null,
      line_items: items.map(({ name, unit_amount, quantity }) => ({ name, unit_amount, quantity })), created: now(),
    };
    sessions.set(sessionId, session);
    return { status: 200, body: session };
  }

  function refund(form: Record<string, unknown>): { status: number; body: unknown } {
    const session = [...sessions.values()].find((s) => s.payment_intent !== null && s.payment_intent === form.payment_intent);
    if (!session) return { status: 404, body: { error: { message: `No such payment_intent: '${String(form.payment_intent)}'`, type: 'invalid_request_error' } } };
    const amount = form.amount === undefined ? session.amount_total - session.amount_refunded : Number(form.amount);
    if (!Number.isSafeInteger(amount) || amount < 1) return { status: 400, body: { error: { message: 'amount must be a positive whole number', type: 'invalid_request_error' } } };
    if (amount > session.amount_total - session.amount_refunded) {
      return { status: 400, body: { error: { message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${session.amount_total - session.amount_refunded})`, type: 'invalid_request_error', code: 'charge_already_refunded' } } };
    }
    session.amount_refunded += amount;
    const made: SandboxRefund = { id: id('re'), object: 'refund', payment_intent: session.payment_intent!, amount, status: 'succeeded', metadata: (form.metadata ?? {}) as Record<string, string>, created: now() };
    refunds.push(made);
    return { status: 200, body: made };
  }

  function checkoutPage(res: http.ServerResponse, session: SandboxSession): void {
    const rows = session.line_items.map((item) => `<li>${item.quantity} × ${escapeHtml(item.name)}: ${(item.unit_amount / 100).toFixed(2)} ${session.currency.toUpperCase()}</li>`).join('');
    const action = session.status === 'open'
      ? `<form method="post" action="/checkout/${session.id}/pay"><button>Pay ${(session.amount_total / 100).toFixed(2)} ${session.currency.toUpperCase()}</button></form>`
      : `<p>This checkout is ${session.status}.</p>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>
<body><h1>Sandbox checkout</h1><p>No card is charged: this is Steward's local payment sandbox.</p><ul>${rows}</ul>${action}</body></html>`);
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'sandbox') {
      if (req.method === 'GET' && parts[1] === 'sessions' && parts.length === 2) return json(res, 200, { sessions: [...sessions.values()] });
      if (req.method === 'POST' && parts[1] === 'sessions' && parts[3] === 'pay' && sessions.has(parts[2] ?? '')) return json(res, 200, { webhook: (await pay(parts[2]!)).result });
      if (req.method === 'POST' && parts[1] === 'sessions' && parts[3] === 'expire' && sessions.has(parts[2] ?? '')) return json(res, 200, { webhook: (await expire(parts[2]!)).result });
      return json(res, 404, { error: 'no such sandbox endpoint' });
    }
    if (parts[0] === 'checkout' && parts[1] && sessions.has(parts[1])) {
      if (req.method === 'GET' && parts.length === 2) return checkoutPage(res, sessions.get(parts[1])!);
      if (req.method === 'POST' && parts[2] === 'pay') {
        const session = sessions.get(parts[1])!;
        if (session.status === 'open') await pay(session.id);
        res.writeHead(303, { location: session.success_url }).end();
        return;
      }
    }
    if (parts[0] === 'portal' && req.method === 'GET' && portals.some((portal) => portal.id === parts[1])) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox billing portal</title></head><body><h1>Sandbox billing portal</h1><p>No card is kept: this is Steward\'s local payment sandbox.</p></body></html>');
      return;
    }
    if (parts[0] !== 'v1') return json(res, 404, { error: { message: 'Unrecognized request URL', type: 'invalid_request_error' } });
    state.requests += 1;
    if (req.headers.authorization !== `Bearer ${config.secretKey}`) return json(res, 401, { error: { message: 'Invalid API Key provided', type: 'invalid_request_error' } });
    const raw = req.method === 'POST' ? await readBody(req) : '';
    const form = req.method === 'POST' ? formDecode(raw) : {};
    // What an Idempotency-Key is bound to: the method, the path and the parameters as sent.
    const request = `${req.method} ${url.pathname}\n${raw}`;
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') return idempotent(req, res, request, () => createSession(form));
    if (req.method === 'POST' && url.pathname === '/v1/refunds') return idempotent(req, res, request, () => refund(form));
    if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      if (typeof form.customer !== 'string' || !form.customer) return json(res, 400, { error: { message: 'customer is required', type: 'invalid_request_error' } });
      const portalId = id('bps');
      const portal = { id: portalId, customer: form.customer, url: `${state.url}/portal/${portalId}`, return_url: String(form.return_url ?? '') };
      portals.push(portal);
      return json(res, 200, { id: portal.id, object: 'billing_portal.session', customer: portal.customer, url: portal.url, return_url: portal.return_url });
    }
    if (req.method === 'POST' && url.pathname === '/v1/subscriptions') return idempotent(req, res, request, () => createSubscriptionFromForm(form));
    if (parts[1] === 'subscriptions' && parts[2] && parts.length === 3) {
      const subscription = subscriptions.get(parts[2]);
      if (!subscription) return json(res, 404, { error: { message: `No such subscription: '${parts[2]}'`, type: 'invalid_request_error', code: 'resource_missing' } });
      if (req.method === 'GET') return json(res, 200, subscription);
      if (req.method === 'POST') {
        const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
        return idempotent(req, res, request, () => updateSubscription(subscription, form, key));
      }
    }
    if (parts[1] === 'checkout' && parts[2] === 'sessions' && parts[3]) {
      const session = sessions.get(parts[3]);
      if (!session) return json(res, 404, { error: { message: `No such checkout.session: '${parts[3]}'`, type: 'invalid_request_error' } });
      if (req.method === 'GET' && parts.length === 4) return json(res, 200, session);
      if (req.method === 'POST' && parts[4] === 'expire') {
        if (session.status !== 'open') return json(res, 400, { error: { message: `Only Checkout Sessions with a status of "open" can be expired; this one is "${session.status}"`, type: 'invalid_request_error' } });
        session.status = 'expired';
        return json(res, 200, session);
      }
    }
    json(res, 404, { error: { message: 'Unrecognized request URL', type: 'invalid_request_error' } });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: Error) => json(res, 500, { error: { message: error.message } }));
  });
  await new Promise<void>((resolve) => server.listen(config.port ?? 0, config.host ?? '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  state.url = `http://${config.host ?? '127.0.0.1'}:${port}`;

  return {
    url: state.url,
    config,
    env: () => ({ PAYMENTS_API_URL: state.url, PAYMENTS_SECRET_KEY: config.secretKey, PAYMENTS_WEBHOOK_SECRET: config.webhookSecret }),
    sessions: () => [...sessions.values()],
    refunds: () => [...refunds],
    setWebhookBaseUrl: (base) => {
      state.webhookBase = base;
    },
    pay,
    expire,
    sendEvent: async (type, object, module, options = {}) => {
      const webhook = signedEvent(type, object, module, options.created ?? now());
      return { webhook, result: options.deliver === false ? null : await deliver(webhook) };
    },
    createSubscription: (input) => makeSubscription({
      id: input.id, customer: input.customer, metadata: input.metadata,
      price: { id: id('price'), object: 'price', currency: input.currency.toLowerCase(), product: input.product ?? 'prod_sandbox', unit_amount: input.unitAmountMinor, recurring: { interval: 'month' } },
    }),
    subscriptions: () => [...subscriptions.values()],
    subscriptionUpdates: () => [...subscriptionUpdates],
    portalSessions: () => [...portals],
    deliver,
    requestCount: () => state.requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Sandbox credentials for local use: random per start unless given in the environment. */
export function paymentsSandboxConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentsSandboxConfig {
  const secret = () => randomUUID().replace(/-/g, '');
  return {
    port: env.PAYMENTS_SANDBOX_PORT ? Number(env.PAYMENTS_SANDBOX_PORT) : 0,
    secretKey: env.PAYMENTS_SECRET_KEY ?? `sk_test_${secret()}`,
    webhookSecret: env.PAYMENTS_WEBHOOK_SECRET ?? `whsec_${secret()}`,
  };
}
