import { entitlementsOf, GRACE_DAYS, isMarketingUse, type Subscription } from '../service';

const DAY = 86_400_000;
const now = new Date('2026-11-28T12:00:00Z');
const sub = (over: Partial<Subscription>): Subscription => ({
  planCode: 'growth', status: 'active', billed: true, trialEndsAt: null, currentPeriodStart: '2026-11-01T00:00:00Z', currentPeriodEnd: '2026-12-01T00:00:00Z',
  cancelAtPeriodEnd: false, canceledAt: null, pastDueSince: null, ...over,
});

describe('entitlements from plan and state', () => {
  it('trialing and active allow everything', () => {
    for (const status of ['trialing', 'active'] as const) {
      expect(entitlementsOf(sub({ status }), now)).toMatchObject({ meteredUse: true, serviceMessages: true, marketingSends: true, readOnly: false, graceEndsAt: null });
    }
  });

  it('past_due keeps service messages and stops marketing during the grace window, then turns read-only', () => {
    const within = entitlementsOf(sub({ status: 'past_due', pastDueSince: new Date(now.getTime() - 2 * DAY).toISOString() }), now);
    expect(within).toMatchObject({ meteredUse: true, serviceMessages: true, marketingSends: false, readOnly: false });
    expect(Date.parse(within.graceEndsAt!)).toBe(now.getTime() - 2 * DAY + GRACE_DAYS * DAY);
    const after = entitlementsOf(sub({ status: 'past_due', pastDueSince: new Date(now.getTime() - (GRACE_DAYS + 1) * DAY).toISOString() }), now);
    expect(after).toMatchObject({ meteredUse: false, serviceMessages: false, marketingSends: false, readOnly: true });
    expect(after.reason).toMatch(/grace period ended/);
  });

  it('canceled, unpaid and paused are read-only and say nothing was deleted', () => {
    for (const status of ['canceled', 'unpaid', 'paused'] as const) {
      const entitlements = entitlementsOf(sub({ status }), now);
      expect(entitlements).toMatchObject({ status, meteredUse: false, marketingSends: false, readOnly: true });
      expect(entitlements.reason).toMatch(/Nothing has been deleted/);
    }
  });

  it('counts a marketing-purpose message or a broadcast as a marketing use, a service message not', () => {
    expect(isMarketingUse({ purpose: 'marketing' })).toBe(true);
    expect(isMarketingUse({ tool: 'channels_schedule_broadcast', purpose: undefined })).toBe(true);
    expect(isMarketingUse({ tool: 'channels_send_sms', purpose: 'service' })).toBe(false);
    expect(isMarketingUse({ tool: 'channels_schedule_broadcast', purpose: 'service' })).toBe(false);
    expect(isMarketingUse({})).toBe(false);
  });
});
