import { StewardError } from '../../../core/errors';
import { giftAidProviderFromEnv, HttpGiftAidProvider, type ClaimSubmission } from '../gift-aid/hmrc-provider';
import { startHmrcSandbox, type HmrcSandbox } from '../gift-aid/hmrc-sandbox';

/** The gateway adapter against the local sandbox: the documented shape, idempotency by claim id, refusals that say what was wrong. */
describe('Gift Aid gateway adapter and sandbox', () => {
  let sandbox: HmrcSandbox;
  beforeAll(async () => {
    sandbox = await startHmrcSandbox();
  });
  afterAll(async () => sandbox.close());

  const claim = (overrides: Partial<ClaimSubmission> = {}): ClaimSubmission => ({
    claimId: '5f7c1c53-0a43-4c1b-9d7e-2b1d1c1e0f01', charityReference: 'AB12345', claimedOn: '2026-11-24', currency: 'GBP',
    totals: { gross: 3000, giftAid: 750, gasds: 0, gasdsTopUp: 0 },
    donations: [{ title: 'Mrs', firstName: 'Ada', lastName: 'Lovelace', houseNameOrNumber: '12', postcode: 'SW1A 1AA', date: '2026-10-01', amount: 5000 }],
    adjustments: [{ date: '2026-05-01', amount: -2000 }],
    smallDonations: [],
    ...overrides,
  });

  it('accepts a well-formed claim once: a repeat with the same claim id gets the same reference', async () => {
    const provider = new HttpGiftAidProvider({ baseUrl: sandbox.url });
    const first = await provider.submit(claim());
    const again = await provider.submit(claim());
    expect(again.reference).toBe(first.reference);
    expect(sandbox.claims).toHaveLength(1);
    expect(sandbox.requests).toBe(2);
    const status = await fetch(`${sandbox.url}/claims/${first.reference}`);
    expect(await status.json()).toEqual({ reference: first.reference, status: 'received' });
  });

  it.each<[string, Partial<ClaimSubmission>, RegExp]>([
    ['a postcode not in HMRC format', { claimId: '5f7c1c53-0a43-4c1b-9d7e-2b1d1c1e0f02', donations: [{ ...claim().donations[0], postcode: 'sw1a1aa' }] }, /invalid donation lines/],
    ['totals that are not the sum of the lines', { claimId: '5f7c1c53-0a43-4c1b-9d7e-2b1d1c1e0f03', totals: { gross: 1, giftAid: 0, gasds: 0, gasdsTopUp: 0 } }, /not the sum/],
    ['no charity reference', { claimId: '5f7c1c53-0a43-4c1b-9d7e-2b1d1c1e0f04', charityReference: '' }, /charityReference/],
  ])('refuses %s as validation_failed, accepting nothing', async (_name, overrides, message) => {
    const before = sandbox.claims.length;
    const provider = new HttpGiftAidProvider({ baseUrl: sandbox.url });
    const error = await provider.submit(claim(overrides)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StewardError);
    expect((error as StewardError).code).toBe('validation_failed');
    expect((error as StewardError).message).toMatch(message);
    expect(sandbox.claims).toHaveLength(before);
  });

  it('a gateway that cannot be reached is a plain error (the call is retried), and none configured is unavailable', async () => {
    const closed = await startHmrcSandbox();
    await closed.close();
    await expect(new HttpGiftAidProvider({ baseUrl: closed.url }).submit(claim())).rejects.toThrow(/could not be reached/);
    expect(() => giftAidProviderFromEnv({})).toThrow(expect.objectContaining({ code: 'unavailable' }));
  });
});
