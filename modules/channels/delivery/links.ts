import { createHmac, timingSafeEqual } from 'node:crypto';
import { resolvePayloadKey } from '../../../temporal/payload-key';

/**
 * The public addresses Steward gives providers and recipients for a message: where status
 * callbacks go, and the RFC 8058 one-click unsubscribe link with its signed token.
 *
 * The base is CHANNELS_WEBHOOK_BASE_URL, else PUBLIC_URL, else the local API address. The token is
 * an HMAC over the organisation and the message id, keyed by CHANNELS_SIGNING_KEY, else a key
 * derived from the deployment's payload key (so every process of one deployment agrees on it).
 */

export function webhookBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.CHANNELS_WEBHOOK_BASE_URL ?? env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`;
  return base.replace(/\/+$/, '');
}

export const WEBHOOK_PATHS = {
  smsStatus: '/webhooks/channels/sms/status',
  smsInbound: '/webhooks/channels/sms/inbound',
  whatsapp: '/webhooks/channels/whatsapp',
  emailEvents: '/webhooks/channels/email/events',
  unsubscribe: '/channels/unsubscribe',
} as const;

/** Twilio-style per-message StatusCallback: organisation and message in the path; the provider signs every request to it. */
export function smsStatusCallbackUrl(orgId: string, messageId: string, env: NodeJS.ProcessEnv = process.env): string {
  return `${webhookBaseUrl(env)}${WEBHOOK_PATHS.smsStatus}/${orgId}/${messageId}`;
}

function signingKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.CHANNELS_SIGNING_KEY && env.CHANNELS_SIGNING_KEY.length >= 32) return Buffer.from(env.CHANNELS_SIGNING_KEY, 'utf8');
  return createHmac('sha256', resolvePayloadKey()).update('steward channels unsubscribe links').digest();
}

function mac(payload: string, env?: NodeJS.ProcessEnv): string {
  return createHmac('sha256', signingKey(env)).update(payload).digest('base64url');
}

/** A token naming one message: `<orgId>.<messageId>.<mac>`; it grants unsubscribing that message's recipient and nothing else. */
export function unsubscribeToken(orgId: string, messageId: string, env?: NodeJS.ProcessEnv): string {
  const payload = `${orgId}.${messageId}`;
  return `${payload}.${mac(payload, env)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organisation and message a token names, or null when it is malformed or its signature is wrong. */
export function readUnsubscribeToken(token: string, env?: NodeJS.ProcessEnv): { orgId: string; messageId: string } | null {
  const [orgId, messageId, signature, ...rest] = token.split('.');
  if (rest.length > 0 || !orgId || !messageId || !signature || !UUID.test(orgId) || !UUID.test(messageId)) return null;
  const expected = Buffer.from(mac(`${orgId}.${messageId}`, env));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { orgId, messageId };
}

export function unsubscribeUrl(orgId: string, messageId: string, env: NodeJS.ProcessEnv = process.env): string {
  return `${webhookBaseUrl(env)}${WEBHOOK_PATHS.unsubscribe}/${unsubscribeToken(orgId, messageId, env)}`;
}

/** The mailbox List-Unsubscribe's mailto points at (UNSUBSCRIBE_MAILTO, else unsubscribe@ the sender's domain). */
export function unsubscribeMailto(orgId: string, messageId: string, env: NodeJS.ProcessEnv = process.env): string {
  const from = env.SMTP_FROM ?? 'no-reply@steward.local';
  const domain = /@([A-Za-z0-9.-]+)/.exec(from)?.[1] ?? 'steward.local';
  const mailbox = env.UNSUBSCRIBE_MAILTO ?? `unsubscribe@${domain}`;
  return `mailto:${mailbox}?subject=unsubscribe%20${encodeURIComponent(unsubscribeToken(orgId, messageId, env))}`;
}

/** RFC 8058 headers every marketing email carries. */
export function listUnsubscribeHeaders(orgId: string, messageId: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    'List-Unsubscribe': `<${unsubscribeUrl(orgId, messageId, env)}>, <${unsubscribeMailto(orgId, messageId, env)}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}
