import { randomBytes, randomUUID } from 'node:crypto';
import { downloadToken, parseDownloadToken, signatureMatches } from '../orders';

/** Download links: signed with the entitlement's own key, bound to its organisation, entitlement and expiry. */
describe('store download tokens', () => {
  const orgId = randomUUID();
  const entitlementId = randomUUID();
  const key = randomBytes(32).toString('base64url');
  const expires = Math.floor(Date.now() / 1000) + 3600;

  it('round-trips a signed token', () => {
    const parsed = parseDownloadToken(downloadToken(orgId, entitlementId, key, expires));
    expect(parsed).toMatchObject({ orgId, entitlementId, expires });
    expect(signatureMatches(key, parsed!)).toBe(true);
  });

  it('refuses another key, a changed expiry, another organisation or entitlement', () => {
    const parsed = parseDownloadToken(downloadToken(orgId, entitlementId, key, expires))!;
    expect(signatureMatches(randomBytes(32).toString('base64url'), parsed)).toBe(false);
    expect(signatureMatches(key, { ...parsed, expires: expires + 86_400 })).toBe(false);
    expect(signatureMatches(key, { ...parsed, orgId: randomUUID() })).toBe(false);
    expect(signatureMatches(key, { ...parsed, entitlementId: randomUUID() })).toBe(false);
  });

  it('does not parse what is not a token', () => {
    for (const bad of ['', 'a.b.c', `${orgId}.${entitlementId}.soon.sig`, `not-a-uuid.${entitlementId}.1.sig`, `${orgId}.${entitlementId}.1.sig.extra`]) {
      expect(parseDownloadToken(bad)).toBeNull();
    }
  });
});
