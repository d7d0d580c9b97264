import { PaymentRefusedError, isIdempotencyMismatch, openCallCheckout, type CheckoutSessionInput } from '../../kernel/payments';
import { useSandboxProvider } from '../helpers/payments-sandbox';

/**
 * A checkout session's Idempotency-Key against the local sandbox over real HTTP, as Stripe keeps
 * it: the same request again gets the first session back (as it was first given), creating nothing;
 * the same key with other parameters is refused (`idempotency_error`), and a call's checkout turns
 * that refusal into a conflict. What lets one tool call open at most one session, however many
 * attempts it takes.
 */
describe('payments: a checkout session per Idempotency-Key (sandbox, Stripe-shaped)', () => {
  const payments = useSandboxProvider();

  const requestedAt = new Date(Date.UTC(2030, 0, 1, 12, 0, 0));
  const input = (key: string, unitAmountMinor = 500): CheckoutSessionInput => ({
    idempotencyKey: key, currency: 'GBP', discountMinor: 0, lineItems: [{ name: 'Concert: Adult', unitAmountMinor, quantity: 2 }],
    metadata: { steward_module: 'ticketing', org_id: 'org-1', order_id: key }, successUrl: 'https://example.org/done', cancelUrl: 'https://example.org/done',
    expiresAt: new Date(requestedAt.getTime() + 15 * 60_000), requestedAt,
  });
  const withKey = (key: string) => payments.sandbox.sessions().filter((session) => session.metadata.order_id === key);

  it('answers a repeated request with the first session, as first given, and opens nothing more', async () => {
    const first = await payments.provider.createCheckoutSession(input('order-a'));
    expect(first).toMatchObject({ status: 'open', amountTotal: 1_000, currency: 'gbp' });
    // The session closes (the first attempt's order was refused); the repeat still answers it as it was made.
    await payments.provider.expireCheckoutSession(first.id);
    expect(await payments.provider.createCheckoutSession(input('order-a'))).toEqual(first);
    expect(withKey('order-a').map((session) => [session.id, session.status, session.expires_at])).toEqual([[first.id, 'expired', requestedAt.getTime() / 1000 + 40 * 60]]);
    // Another key is another session.
    expect((await payments.provider.createCheckoutSession(input('order-b'))).id).not.toBe(first.id);
  });

  it('refuses the key with other parameters, opening nothing; a call\'s checkout says conflict', async () => {
    const first = await payments.provider.createCheckoutSession(input('order-c'));
    const refused = await payments.provider.createCheckoutSession(input('order-c', 600)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentRefusedError);
    expect(refused).toMatchObject({ status: 400, type: 'idempotency_error' });
    expect(isIdempotencyMismatch(refused)).toBe(true);
    await expect(openCallCheckout(payments.provider, input('order-c', 600))).rejects.toMatchObject({ code: 'conflict', details: { reason: 'changed_between_attempts' } });
    expect(withKey('order-c').map((session) => session.id)).toEqual([first.id]);
    // The same request still answers the first session.
    expect((await openCallCheckout(payments.provider, input('order-c'))).id).toBe(first.id);
  });
});
