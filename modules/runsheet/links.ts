import { createHmac, timingSafeEqual } from 'node:crypto';
import { resolvePayloadKey } from '../../temporal/payload-key';

/**
 * A volunteer's own link in a rota request or substitute offer: a page where they accept or
 * decline without signing in. The token names one message (`<orgId>.<notificationId>.<mac>`),
 * signed with RUNSHEET_SIGNING_KEY, else a key derived from the deployment's payload key (every
 * process of one deployment agrees on it). It answers only what that message asked, for the person
 * it was sent to. The base is RUNSHEET_LINK_BASE_URL, else PUBLIC_URL, else the local API address.
 */
export const RESPOND_PATH = '/runsheet/respond';

function signingKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.RUNSHEET_SIGNING_KEY && env.RUNSHEET_SIGNING_KEY.length >= 32) return Buffer.from(env.RUNSHEET_SIGNING_KEY, 'utf8');
  return createHmac('sha256', resolvePayloadKey()).update('steward runsheet response links').digest();
}

const mac = (payload: string, env?: NodeJS.ProcessEnv) => createHmac('sha256', signingKey(env)).update(payload).digest('base64url');

export function respondToken(orgId: string, notificationId: string, env?: NodeJS.ProcessEnv): string {
  const payload = `${orgId}.${notificationId}`;
  return `${payload}.${mac(payload, env)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organisation and message a token names, or null when it is malformed or its signature is wrong. */
export function readRespondToken(token: string, env?: NodeJS.ProcessEnv): { orgId: string; notificationId: string } | null {
  const [orgId, notificationId, signature, ...rest] = token.split('.');
  if (rest.length > 0 || !orgId || !notificationId || !signature || !UUID.test(orgId) || !UUID.test(notificationId)) return null;
  const expected = Buffer.from(mac(`${orgId}.${notificationId}`, env));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { orgId, notificationId };
}

export function respondUrl(orgId: string, notificationId: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = (env.RUNSHEET_LINK_BASE_URL ?? env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`).replace(/\/+$/, '');
  return `${base}${RESPOND_PATH}/${respondToken(orgId, notificationId, env)}`;
}
