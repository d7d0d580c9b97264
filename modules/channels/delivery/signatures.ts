import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Provider webhook signatures, as the real providers compute them, used both to verify what
 * arrives (webhooks/router.ts) and by the local sandbox provider to sign what it sends.
 *
 * - Twilio-style `X-Twilio-Signature`: base64 HMAC-SHA1, keyed by the account's auth token, of the
 *   full URL the provider requested followed by every POST parameter, sorted by name, as name+value.
 * - Meta-style `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256, keyed by the app secret, of the raw body.
 * - Steward's own email events webhook (bounces, complaints): `X-Steward-Signature: t=<unix seconds>,v1=<hex>`
 *   with v1 = HMAC-SHA256(secret, `${t}.${raw body}`), so the timestamp is covered and old events can be refused.
 */

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params).sort().reduce((text, name) => text + name + params[name], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export function verifyTwilioSignature(authToken: string, url: string, params: Record<string, string>, header: string | undefined): boolean {
  return typeof header === 'string' && header.length > 0 && safeEqual(twilioSignature(authToken, url, params), header);
}

export function metaSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  return typeof header === 'string' && header.length > 0 && safeEqual(metaSignature(appSecret, rawBody), header);
}

export function stewardEventSignature(secret: string, rawBody: Buffer | string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** The timestamp a valid X-Steward-Signature carries, or null. */
export function verifyStewardEventSignature(secret: string, rawBody: Buffer, header: string | undefined): number | null {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return null;
  const timestamp = Number(match[1]);
  return safeEqual(stewardEventSignature(secret, rawBody, timestamp), header!) ? timestamp : null;
}
