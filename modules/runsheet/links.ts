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
  return `${linkBase(env)}${RESPOND_PATH}/${respondToken(orgId, notificationId, env)}`;
}

/**
 * A volunteer's own blockout page: the dates they cannot serve, added and removed without signing
 * in. The token names the organisation, the contact and when it stops working
 * (`<orgId>.<contactId>.<expiresEpochSeconds>.<mac>`), signed with the same key as the answer
 * links but over a different payload, so neither kind of token passes for the other.
 */
export const BLOCKOUT_PATH = '/runsheet/blockouts';
export const BLOCKOUT_LINK_DAYS = 180;

const blockoutPayload = (orgId: string, contactId: string, expires: number) => `blockouts.${orgId}.${contactId}.${expires}`;

export function blockoutToken(orgId: string, contactId: string, expiresAt: Date, env?: NodeJS.ProcessEnv): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${orgId}.${contactId}.${expires}.${mac(blockoutPayload(orgId, contactId, expires), env)}`;
}

/** The organisation and contact a blockout token names, or null when it is malformed, forged or past its expiry. */
export function readBlockoutToken(token: string, now = new Date(), env?: NodeJS.ProcessEnv): { orgId: string; contactId: string; expiresAt: Date } | null {
  const [orgId, contactId, expires, signature, ...rest] = token.split('.');
  if (rest.length > 0 || !orgId || !contactId || !expires || !signature || !UUID.test(orgId) || !UUID.test(contactId) || !/^\d{9,11}$/.test(expires)) return null;
  const expected = Buffer.from(mac(blockoutPayload(orgId, contactId, Number(expires)), env));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const expiresAt = new Date(Number(expires) * 1000);
  return expiresAt > now ? { orgId, contactId, expiresAt } : null;
}

function linkBase(env: NodeJS.ProcessEnv): string {
  return (env.RUNSHEET_LINK_BASE_URL ?? env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`).replace(/\/+$/, '');
}

export function blockoutUrl(orgId: string, contactId: string, expiresAt: Date, env: NodeJS.ProcessEnv = process.env): string {
  return `${linkBase(env)}${BLOCKOUT_PATH}/${blockoutToken(orgId, contactId, expiresAt, env)}`;
}

/**
 * The form token a blockout page carries in its forms (against cross-site requests): an HMAC over the
 * page's link token and the time the page was served, good for a day.
 */
const FORM_TOKEN_TTL_MS = 24 * 3600_000;

export function blockoutFormToken(linkToken: string, issuedAt: number, env?: NodeJS.ProcessEnv): string {
  return `${issuedAt}.${mac(`blockout-form.${linkToken}.${issuedAt}`, env)}`;
}

export function checkBlockoutFormToken(linkToken: string, formToken: string, now: number, env?: NodeJS.ProcessEnv): boolean {
  const [issued, signature, ...rest] = formToken.split('.');
  if (rest.length > 0 || !issued || !signature || !/^\d{10,16}$/.test(issued)) return false;
  const issuedAt = Number(issued);
  if (issuedAt > now + 60_000 || now - issuedAt > FORM_TOKEN_TTL_MS) return false;
  const expected = Buffer.from(blockoutFormToken(linkToken, issuedAt, env).split('.')[1]!);
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
