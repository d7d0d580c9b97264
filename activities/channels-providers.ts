import { PermanentDeliveryError, callProvider, providerFailureOf, type MessageProvider, type OutboundMessage } from './provider-kit';

/**
 * SMS and WhatsApp adapters speaking the request shapes of the two common providers, so the same
 * code talks to the real services or to the local sandbox (`sandbox/messaging/`):
 *
 * - SMS, Twilio-style: `POST {SMS_API_URL}/2010-04-01/Accounts/{SMS_ACCOUNT_SID}/Messages.json`,
 *   form-encoded `To`, `From`, `Body`, `StatusCallback`, HTTP Basic auth (account sid : auth token).
 * - WhatsApp, Meta Cloud API-style: `POST {WHATSAPP_API_URL}/{WHATSAPP_API_VERSION}/{phone-number-id}/messages`,
 *   JSON `{ messaging_product: 'whatsapp', to, type: 'text' | 'template', … }`, Bearer WHATSAPP_ACCESS_TOKEN.
 *
 * Both send the outbox key as `Idempotency-Key`, so a provider that de-duplicates on it delivers a
 * retried call once; the outbox relies on that (`idempotent = true`) to retry after a crash.
 */

export interface TwilioConfig {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  defaultFrom: string | null;
}

export interface MetaConfig {
  baseUrl: string;
  apiVersion: string;
  accessToken: string;
  phoneNumberId: string | null;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function twilioConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TwilioConfig | null {
  if (!env.SMS_API_URL) return null;
  return {
    baseUrl: trimSlash(env.SMS_API_URL),
    accountSid: env.SMS_ACCOUNT_SID ?? '',
    authToken: env.SMS_AUTH_TOKEN ?? '',
    defaultFrom: env.SMS_FROM ?? null,
  };
}

export function metaConfigFromEnv(env: NodeJS.ProcessEnv = process.env): MetaConfig | null {
  if (!env.WHATSAPP_API_URL) return null;
  return {
    baseUrl: trimSlash(env.WHATSAPP_API_URL),
    apiVersion: env.WHATSAPP_API_VERSION ?? 'v21.0',
    accessToken: env.WHATSAPP_ACCESS_TOKEN ?? '',
    phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID ?? null,
  };
}

const CALL_TIMEOUT_MS = 30_000;

function signalFor(signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

export class TwilioSmsProvider implements MessageProvider {
  readonly idempotent = true;

  constructor(private readonly config: TwilioConfig) {}

  async send(message: OutboundMessage, options: { signal?: AbortSignal } = {}): Promise<{ providerMessageId: string }> {
    const from = message.transport?.from ?? this.config.defaultFrom;
    if (!from) throw new PermanentDeliveryError('No SMS sender: register an SMS number or set SMS_FROM');
    const form = new URLSearchParams({ To: message.to, From: from, Body: message.body });
    if (message.transport?.statusCallbackUrl) form.set('StatusCallback', message.transport.statusCallbackUrl);
    const auth = Buffer.from(`${this.config.accountSid}:${this.config.authToken}`).toString('base64');
    const response = await callProvider(`${this.config.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(this.config.accountSid)}/Messages.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${auth}`, 'idempotency-key': message.idempotencyKey },
      body: form.toString(),
      signal: signalFor(options.signal),
    }, 'SMS provider');
    if (!response.ok) throw await providerFailureOf(response, 'SMS provider');
    const body = (await response.json().catch(() => ({}))) as { sid?: unknown };
    return { providerMessageId: typeof body.sid === 'string' ? body.sid : message.idempotencyKey };
  }
}

export class MetaWhatsAppProvider implements MessageProvider {
  readonly idempotent = true;

  constructor(private readonly config: MetaConfig) {}

  async send(message: OutboundMessage, options: { signal?: AbortSignal } = {}): Promise<{ providerMessageId: string }> {
    const phoneNumberId = message.transport?.from ?? this.config.phoneNumberId;
    if (!phoneNumberId) throw new PermanentDeliveryError('No WhatsApp number: register one or set WHATSAPP_PHONE_NUMBER_ID');
    const template = message.transport?.whatsappTemplate;
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.replace(/^\+/, ''),
      ...(template ? { type: 'template', template } : { type: 'text', text: { preview_url: false, body: message.body } }),
      ...(message.transport?.callbackData ? { biz_opaque_callback_data: message.transport.callbackData } : {}),
    };
    const response = await callProvider(`${this.config.baseUrl}/${this.config.apiVersion}/${encodeURIComponent(phoneNumberId)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.config.accessToken}`, 'idempotency-key': message.idempotencyKey },
      body: JSON.stringify(payload),
      signal: signalFor(options.signal),
    }, 'WhatsApp provider');
    if (!response.ok) throw await providerFailureOf(response, 'WhatsApp provider');
    const body = (await response.json().catch(() => ({}))) as { messages?: Array<{ id?: unknown }> };
    const id = body.messages?.[0]?.id;
    return { providerMessageId: typeof id === 'string' ? id : message.idempotencyKey };
  }
}
