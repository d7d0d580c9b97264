import { timingSafeEqual } from 'node:crypto';
import { peopleSignature } from '../dashboard/qr';

/**
 * A member's pass to a live stream's viewer page: the portal, where the member is signed in, hands the
 * page a short-lived signed pass naming the organisation and the member's contact, so the stream counts
 * them as themselves once a day (not as an anonymous browser) and their chat, votes and prayer
 * requests are linked to their record. Stateless: nothing to store, and it lapses after PASS_HOURS.
 */
const PASS_PREFIX = 'lvp';
const PASS_HOURS = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function memberViewerPass(orgId: string, contactId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + PASS_HOURS * 3600;
  const payload = `${PASS_PREFIX}.${orgId}.${contactId}.${expires}`;
  return `${payload}.${peopleSignature(payload)}`;
}

/** The contact a pass names, when it is this organisation's, unexpired and signed by us; else null. */
export function verifyMemberViewerPass(orgId: string, pass: string, now = Date.now()): string | null {
  const parts = pass.split('.');
  if (parts.length !== 5 || parts[0] !== PASS_PREFIX || parts[1] !== orgId || !UUID.test(parts[2]!)) return null;
  if (!/^\d{1,12}$/.test(parts[3]!) || Number(parts[3]) * 1000 <= now) return null;
  const expected = Buffer.from(peopleSignature(parts.slice(0, 4).join('.')));
  const given = Buffer.from(parts[4]!);
  return given.length === expected.length && timingSafeEqual(given, expected) ? parts[2]! : null;
}

/** Where a signed-in member opens a stream: the portal gives them their pass and sends them on to the viewer page. */
export const memberWatchPath = (orgId: string, streamId: string) => `/people/portal/${orgId}/live/${streamId}`;
