import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metaSignature, stewardEventSignature, twilioSignature } from '../../modules/channels/delivery/signatures';

/**
 * A local messaging provider for development and tests: it speaks the Twilio-style SMS API and the
 * Meta Cloud API-style WhatsApp API Steward's adapters call, keeps every message (one per
 * Idempotency-Key, as a provider that de-duplicates does), and can send Steward the signed webhooks a
 * real provider would: status callbacks, inbound messages (STOP, HELP, free text), WhatsApp template
 * reviews and email deliveries and bounces. Nothing leaves the machine.
 *
 * Provider endpoints:
 *   POST /2010-04-01/Accounts/{sid}/Messages.json   form To, From, Body, StatusCallback; Basic sid:authToken
 *   POST /{version}/{phone-number-id}/messages        JSON Meta message; Bearer accessToken
 *   POST /{version}/{waba-id}/message_templates       JSON {name, language, category, components} → {id, status: PENDING, category}
 *   GET  /{version}/{template-id}                     → {id, name, language, category, status, rejected_reason?}
 * Inspection and control (for people and tests):
 *   GET  /sandbox/messages[?channel=&to=]             the messages received, oldest first
 *   POST /sandbox/messages/{id}/status                {status: delivered|undelivered|failed|sent|read, errorCode?, price?, priceUnit?} → signed status callback
 *                                                     (a price goes as Twilio's Price/PriceUnit, charged as negative, or in the Meta status's pricing)
 *   POST /sandbox/inbound                             {channel: sms|whatsapp, from, to?, text} → signed inbound webhook
 *   POST /sandbox/whatsapp/templates/{id}/status      {status, reason?, webhook?: boolean} → signed message_template_status_update
 *   POST /sandbox/email/events                        {type: delivery|bounce|complaint, address, messageId?, bounceType?} → signed email event
 * Each control call answers with what Steward answered: {webhook: {status, body}}.
 */

export interface SandboxConfig {
  port?: number;
  host?: string;
  accountSid: string;
  authToken: string;
  accessToken: string;
  appSecret: string;
  wabaId: string;
  phoneNumberId: string;
  smsFrom: string;
  emailEventsSecret: string;
  /** Where Steward listens (its webhooks are under /webhooks/channels/); may be set after start. */
  webhookBaseUrl?: string;
}

export interface SandboxMessage {
  id: string;
  channel: 'sms' | 'whatsapp';
  to: string;
  from: string;
  body: string | null;
  template: unknown;
  idempotencyKey: string | null;
  status: string;
  statusCallback: string | null;
  callbackData: string | null;
  createdAt: string;
}

export interface SandboxTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  components: unknown;
  status: string;
  rejected_reason?: string;
}

export interface WebhookResult {
  status: number;
  body: string;
}

export interface SentWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface MessagingSandbox {
  url: string;
  config: SandboxConfig;
  /** The environment a Steward worker needs to send through this sandbox. */
  env(): Record<string, string>;
  messages(): SandboxMessage[];
  templates(): SandboxTemplate[];
  /** Every provider request, retries with a known Idempotency-Key included. */
  requestCount(): number;
  setWebhookBaseUrl(url: string): void;
  /** The next `count` send requests answer `status` (e.g. 500) without recording anything. */
  failNext(count: number, status: number): void;
  /** Send requests record the message at once but answer only after `ms` (a caller can die in between). */
  holdResponses(ms: number): void;
  /** Resolves when the next send request has recorded its message (before any held answer). */
  nextRecorded(): Promise<SandboxMessage>;
  /** A status callback; with `price` (a decimal such as "0.0400") and `priceUnit` (ISO 4217), it reports what the message cost. */
  setMessageStatus(id: string, status: string, options?: SandboxStatusOptions): Promise<WebhookResult>;
  inbound(input: { channel: 'sms' | 'whatsapp'; from: string; to?: string; text: string }): Promise<WebhookResult>;
  setTemplateStatus(id: string, status: string, options?: { reason?: string; webhook?: boolean }): Promise<WebhookResult | null>;
  /**
   * The next template created is decided at once: its status webhook is sent, and answered, before
   * the create itself answers PENDING, as a provider's instant decision can overtake its own reply.
   */
  decideNextTemplate(status: string): void;
  /** What Steward answered the last webhook this sandbox sent (null if the post itself failed, or none was sent). */
  lastWebhookAnswer(): WebhookResult | null;
  emailEvent(input: { type: 'delivery' | 'bounce' | 'complaint'; address: string; messageId?: string; bounceType?: 'hard' | 'soft' }): Promise<WebhookResult>;
  /** The last webhook sent, exactly as sent (to replay it). */
  lastWebhook(): SentWebhook | null;
  /** Sends a webhook again, byte for byte. */
  replay(webhook: SentWebhook): Promise<WebhookResult>;
  close(): Promise<void>;
}

export interface SandboxStatusOptions {
  errorCode?: string;
  price?: string;
  priceUnit?: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startMessagingSandbox(config: SandboxConfig): Promise<MessagingSandbox> {
  const messages: SandboxMessage[] = [];
  const byKey = new Map<string, SandboxMessage>();
  const templates = new Map<string, SandboxTemplate>();
  const state = { requests: 0, failNext: 0, failStatus: 500, holdMs: 0, webhookBase: config.webhookBaseUrl ?? '', last: null as SentWebhook | null, lastAnswer: null as WebhookResult | null, decideNext: null as string | null };
  let recordedWaiters: Array<(message: SandboxMessage) => void> = [];

  /** Tells waiters a send was recorded, then answers (after the hold, if one is set). */
  async function answerSend(res: http.ServerResponse, stored: SandboxMessage, status: number, body: unknown): Promise<void> {
    const waiting = recordedWaiters;
    recordedWaiters = [];
    for (const resolve of waiting) resolve(stored);
    if (state.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, state.holdMs));
    if (!res.destroyed) json(res, status, body);
  }

  async function post(webhook: SentWebhook): Promise<WebhookResult> {
    state.last = webhook;
    state.lastAnswer = null;
    const response = await fetch(webhook.url, { method: 'POST', headers: webhook.headers, body: webhook.body });
    state.lastAnswer = { status: response.status, body: await response.text() };
    return state.lastAnswer;
  }

  function stewardUrl(path: string): string {
    if (!state.webhookBase) throw new Error('The sandbox does not know Steward\'s address: set webhookBaseUrl');
    return `${state.webhookBase.replace(/\/+$/, '')}${path}`;
  }

  function signedForm(url: string, params: Record<string, string>): SentWebhook {
    return {
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(config.authToken, url, params) },
      body: new URLSearchParams(params).toString(),
    };
  }

  function signedMeta(payload: unknown): SentWebhook {
    const body = JSON.stringify(payload);
    return { url: stewardUrl('/webhooks/channels/whatsapp'), headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(config.appSecret, body) }, body };
  }

  function metaEnvelope(field: string, value: unknown) {
    return { object: 'whatsapp_business_account', entry: [{ id: config.wabaId, time: Math.floor(Date.now() / 1000), changes: [{ field, value }] }] };
  }

  function record(message: Omit<SandboxMessage, 'createdAt' | 'status'>): SandboxMessage {
    const known = message.idempotencyKey ? byKey.get(message.idempotencyKey) : undefined;
    if (known) return known;
    const stored: SandboxMessage = { ...message, status: 'queued', createdAt: new Date().toISOString() };
    messages.push(stored);
    if (message.idempotencyKey) byKey.set(message.idempotencyKey, stored);
    return stored;
  }

  function takeFailure(res: http.ServerResponse): boolean {
    if (state.failNext <= 0) return false;
    state.failNext -= 1;
    json(res, state.failStatus, { error: { message: 'sandbox: failure requested' } });
    return true;
  }

  async function handleTwilioSend(req: http.IncomingMessage, res: http.ServerResponse, sid: string): Promise<void> {
    const expected = `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64')}`;
    if (sid !== config.accountSid || req.headers.authorization !== expected) return json(res, 401, { code: 20003, message: 'Authenticate' });
    const form = new URLSearchParams(await readBody(req));
    if (takeFailure(res)) return;
    const to = form.get('To') ?? '';
    const body = form.get('Body') ?? '';
    if (!E164.test(to)) return json(res, 400, { code: 21211, message: `The 'To' number ${to} is not a valid phone number.` });
    if (!form.get('From')) return json(res, 400, { code: 21603, message: 'A \'From\' phone number is required.' });
    if (body.length === 0 || body.length > 1600) return json(res, 400, { code: 21617, message: 'The concatenated message body exceeds the 1600 character limit.' });
    const stored = record({
      id: `SM${randomUUID().replace(/-/g, '')}`, channel: 'sms', to, from: form.get('From')!, body, template: null,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null, statusCallback: form.get('StatusCallback'), callbackData: null,
    });
    await answerSend(res, stored, 201, { sid: stored.id, account_sid: config.accountSid, to: stored.to, from: stored.from, body: stored.body, status: stored.status });
  }

  async function handleMetaSend(req: http.IncomingMessage, res: http.ServerResponse, phoneNumberId: string): Promise<void> {
    if (req.headers.authorization !== `Bearer ${config.accessToken}`) return json(res, 401, { error: { message: 'Invalid OAuth access token', code: 190 } });
    const payload = JSON.parse((await readBody(req)) || '{}') as { to?: string; type?: string; text?: { body?: string }; template?: unknown; biz_opaque_callback_data?: string };
    if (takeFailure(res)) return;
    if (!payload.to || !/^[1-9]\d{6,14}$/.test(payload.to)) return json(res, 400, { error: { message: 'Invalid parameter: to', code: 100 } });
    if (payload.type === 'text' && !payload.text?.body) return json(res, 400, { error: { message: 'text.body is required', code: 100 } });
    if (payload.type === 'template' && !payload.template) return json(res, 400, { error: { message: 'template is required', code: 100 } });
    const stored = record({
      id: `wamid.${randomUUID().replace(/-/g, '')}`, channel: 'whatsapp', to: `+${payload.to}`, from: phoneNumberId,
      body: payload.text?.body ?? null, template: payload.template ?? null,
      idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null, statusCallback: null, callbackData: payload.biz_opaque_callback_data ?? null,
    });
    await answerSend(res, stored, 200, { messaging_product: 'whatsapp', contacts: [{ input: payload.to, wa_id: payload.to }], messages: [{ id: stored.id }] });
  }

  async function handleTemplateCreate(req: http.IncomingMessage, res: http.ServerResponse, wabaId: string): Promise<void> {
    if (req.headers.authorization !== `Bearer ${config.accessToken}`) return json(res, 401, { error: { message: 'Invalid OAuth access token', code: 190 } });
    const body = JSON.parse((await readBody(req)) || '{}') as { name?: string; language?: string; category?: string; components?: unknown };
    if (wabaId !== config.wabaId) return json(res, 404, { error: { message: 'Unknown WhatsApp Business Account', code: 100 } });
    if (!body.name || !body.language || !body.category) return json(res, 400, { error: { message: 'name, language and category are required', code: 100 } });
    const template: SandboxTemplate = { id: String(Date.now()) + String(templates.size).padStart(4, '0'), name: body.name, language: body.language, category: body.category, components: body.components ?? [], status: 'PENDING' };
    templates.set(template.id, template);
    const decided = state.decideNext;
    state.decideNext = null;
    // A provider's webhook that fails does not fail its create.
    if (decided) await setTemplateStatus(template.id, decided).catch(() => undefined);
    json(res, 200, { id: template.id, status: 'PENDING', category: template.category });
  }

  async function setMessageStatus(id: string, status: string, options: SandboxStatusOptions = {}): Promise<WebhookResult> {
    const message = messages.find((m) => m.id === id);
    if (!message) throw new Error(`No sandbox message ${id}`);
    message.status = status;
    if (message.channel === 'sms') {
      if (!message.statusCallback) throw new Error('The message was sent without a StatusCallback');
      const params: Record<string, string> = { AccountSid: config.accountSid, MessageSid: message.id, MessageStatus: status, To: message.to, From: message.from };
      if (options.errorCode) params.ErrorCode = options.errorCode;
      // Twilio reports a charge as a negative amount.
      if (options.price !== undefined && options.priceUnit) {
        params.Price = options.price.startsWith('-') ? options.price : `-${options.price}`;
        params.PriceUnit = options.priceUnit;
      }
      return post(signedForm(message.statusCallback, params));
    }
    const metaStatus = status === 'undelivered' ? 'failed' : status;
    return post(signedMeta(metaEnvelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: message.from, phone_number_id: message.from },
      statuses: [{
        id: message.id, status: metaStatus, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: message.to.replace(/^\+/, ''),
        ...(message.callbackData ? { biz_opaque_callback_data: message.callbackData } : {}),
        ...(options.errorCode ? { errors: [{ code: Number(options.errorCode) || 131000, title: 'sandbox error' }] } : {}),
        ...(options.price !== undefined && options.priceUnit ? {
          pricing: { billable: true, pricing_model: 'PMP', category: message.template ? 'utility' : 'service', price: options.price, currency: options.priceUnit },
        } : {}),
      }],
    })));
  }

  async function inbound(input: { channel: 'sms' | 'whatsapp'; from: string; to?: string; text: string }): Promise<WebhookResult> {
    if (input.channel === 'sms') {
      const params = { AccountSid: config.accountSid, MessageSid: `SM${randomUUID().replace(/-/g, '')}`, From: input.from, To: input.to ?? config.smsFrom, Body: input.text, NumMedia: '0' };
      return post(signedForm(stewardUrl('/webhooks/channels/sms/inbound'), params));
    }
    const to = input.to ?? config.phoneNumberId;
    return post(signedMeta(metaEnvelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: to, phone_number_id: to },
      contacts: [{ profile: { name: 'Sandbox' }, wa_id: input.from.replace(/^\+/, '') }],
      messages: [{ from: input.from.replace(/^\+/, ''), id: `wamid.${randomUUID().replace(/-/g, '')}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: input.text } }],
    })));
  }

  async function setTemplateStatus(id: string, status: string, options: { reason?: string; webhook?: boolean } = {}): Promise<WebhookResult | null> {
    const template = templates.get(id);
    if (!template) throw new Error(`No sandbox template ${id}`);
    template.status = status;
    if (options.reason) template.rejected_reason = options.reason;
    if (options.webhook === false) return null;
    return post(signedMeta(metaEnvelope('message_template_status_update', {
      event: status, message_template_id: Number.isNaN(Number(id)) ? id : Number(id), message_template_name: template.name,
      message_template_language: template.language, reason: options.reason ?? null,
    })));
  }

  async function emailEvent(input: { type: 'delivery' | 'bounce' | 'complaint'; address: string; messageId?: string; bounceType?: 'hard' | 'soft' }): Promise<WebhookResult> {
    const body = JSON.stringify({ id: `evt_${randomUUID()}`, type: input.type, bounceType: input.bounceType ?? (input.type === 'bounce' ? 'hard' : undefined), address: input.address, messageId: input.messageId, occurredAt: new Date().toISOString() });
    const signature = stewardEventSignature(config.emailEventsSecret, body, Math.floor(Date.now() / 1000));
    return post({ url: stewardUrl('/webhooks/channels/email/events'), headers: { 'content-type': 'application/json', 'x-steward-signature': signature }, body });
  }

  async function control(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && url.pathname === '/sandbox/messages') {
      const channel = url.searchParams.get('channel');
      const to = url.searchParams.get('to');
      return json(res, 200, { messages: messages.filter((m) => (!channel || m.channel === channel) && (!to || m.to === to)) });
    }
    const body = req.method === 'POST' ? JSON.parse((await readBody(req)) || '{}') as Record<string, string | boolean | undefined> : {};
    let webhook: WebhookResult | null;
    if (parts[1] === 'messages' && parts[3] === 'status') {
      webhook = await setMessageStatus(parts[2], String(body.status), {
        errorCode: body.errorCode as string | undefined, price: body.price === undefined ? undefined : String(body.price), priceUnit: body.priceUnit as string | undefined,
      });
    } else if (url.pathname === '/sandbox/inbound') webhook = await inbound({ channel: body.channel as 'sms' | 'whatsapp', from: String(body.from), to: body.to as string | undefined, text: String(body.text ?? '') });
    else if (parts[1] === 'whatsapp' && parts[2] === 'templates' && parts[4] === 'status') {
      webhook = await setTemplateStatus(parts[3], String(body.status), { reason: body.reason as string | undefined, webhook: body.webhook as boolean | undefined });
    } else if (url.pathname === '/sandbox/email/events') webhook = await emailEvent(body as never);
    else return json(res, 404, { error: 'no such sandbox endpoint' });
    json(res, 200, { webhook });
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'sandbox') return control(req, res, url);
    if (req.method === 'POST' && parts[0] === '2010-04-01' && parts[1] === 'Accounts' && parts[3] === 'Messages.json') {
      state.requests += 1;
      return handleTwilioSend(req, res, decodeURIComponent(parts[2]));
    }
    if (/^v\d+(\.\d+)?$/.test(parts[0] ?? '')) {
      if (req.method === 'POST' && parts[2] === 'messages') {
        state.requests += 1;
        return handleMetaSend(req, res, decodeURIComponent(parts[1]));
      }
      if (req.method === 'POST' && parts[2] === 'message_templates') return handleTemplateCreate(req, res, parts[1]);
      if (req.method === 'GET' && parts.length === 2) {
        if (req.headers.authorization !== `Bearer ${config.accessToken}`) return json(res, 401, { error: { message: 'Invalid OAuth access token', code: 190 } });
        const template = templates.get(parts[1]);
        return template ? json(res, 200, template) : json(res, 404, { error: { message: 'Unknown template', code: 100 } });
      }
    }
    json(res, 404, { error: 'not found' });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: Error) => json(res, 500, { error: error.message }));
  });
  await new Promise<void>((resolve) => server.listen(config.port ?? 0, config.host ?? '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host ?? '127.0.0.1'}:${port}`;

  return {
    url,
    config,
    env: () => ({
      SMS_API_URL: url, SMS_ACCOUNT_SID: config.accountSid, SMS_AUTH_TOKEN: config.authToken, SMS_FROM: config.smsFrom,
      WHATSAPP_API_URL: url, WHATSAPP_ACCESS_TOKEN: config.accessToken, WHATSAPP_APP_SECRET: config.appSecret,
      WHATSAPP_BUSINESS_ACCOUNT_ID: config.wabaId, WHATSAPP_PHONE_NUMBER_ID: config.phoneNumberId, EMAIL_EVENTS_SECRET: config.emailEventsSecret,
    }),
    messages: () => [...messages],
    templates: () => [...templates.values()],
    requestCount: () => state.requests,
    setWebhookBaseUrl: (base) => {
      state.webhookBase = base;
    },
    failNext: (count, status) => {
      state.failNext = count;
      state.failStatus = status;
    },
    holdResponses: (ms) => {
      state.holdMs = ms;
    },
    nextRecorded: () => new Promise((resolve) => recordedWaiters.push(resolve)),
    setMessageStatus,
    inbound,
    setTemplateStatus,
    emailEvent,
    lastWebhook: () => state.last,
    lastWebhookAnswer: () => state.lastAnswer,
    decideNextTemplate: (status) => {
      state.decideNext = status;
    },
    replay: (webhook) => post(webhook),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Sandbox credentials for local use: random per start unless given in the environment. */
export function sandboxConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const secret = () => randomUUID().replace(/-/g, '');
  return {
    port: env.MESSAGING_SANDBOX_PORT ? Number(env.MESSAGING_SANDBOX_PORT) : 0,
    accountSid: env.SMS_ACCOUNT_SID ?? `AC${secret()}`,
    authToken: env.SMS_AUTH_TOKEN ?? secret(),
    accessToken: env.WHATSAPP_ACCESS_TOKEN ?? secret(),
    appSecret: env.WHATSAPP_APP_SECRET ?? secret(),
    wabaId: env.WHATSAPP_BUSINESS_ACCOUNT_ID ?? '100000000000001',
    phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID ?? '100000000000002',
    smsFrom: env.SMS_FROM ?? '+447700900000',
    emailEventsSecret: env.EMAIL_EVENTS_SECRET ?? secret(),
  };
}
