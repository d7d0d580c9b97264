import { PaymentRefusedError } from '../../kernel/payments';
import { useSandboxProvider } from '../helpers/payments-sandbox';

/**
 * The payment adapter's subscription price change against the local sandbox over real HTTP: the
 * existing item is replaced (never a second added), without proration, once per Idempotency-Key;
 * an unknown subscription, a bad price or proration, and a canceled subscription are refused.
 */
describe('payments: subscription price change (sandbox, Stripe-shaped)', () => {
  const payments = useSandboxProvider();

  const postForm = (path: string, body: string, key?: string) => fetch(`${payments.sandbox.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${payments.sandbox.config.secretKey}`, 'content-type': 'application/x-www-form-urlencoded', ...(key ? { 'idempotency-key': key } : {}) },
    body,
  });

  it('replaces the item\'s price without proration, once per key', async () => {
    const made = payments.sandbox.createSubscription({ customer: 'cus_1', currency: 'gbp', unitAmountMinor: 4900, product: 'steward-plan-growth' });
    const input = { subscriptionId: made.id, productId: 'steward-plan-enterprise', currency: 'GBP', unitAmountMinor: 19900, idempotencyKey: 'change-1', metadata: { plan_code: 'enterprise' } };
    const first = await payments.provider.updateSubscriptionPrice(input);
    const again = await payments.provider.updateSubscriptionPrice(input);
    expect(first).toEqual({ id: made.id, status: 'active', unitAmountMinor: 19900, currency: 'GBP' });
    expect(again).toEqual(first);
    expect(payments.sandbox.subscriptionUpdates()).toEqual([expect.objectContaining({ subscription: made.id, proration_behavior: 'none', idempotency_key: 'change-1' })]);
    const stored = payments.sandbox.subscriptions().find((subscription) => subscription.id === made.id)!;
    expect(stored.items.data).toHaveLength(1);
    expect(stored.items.data[0].price).toMatchObject({ unit_amount: 19900, currency: 'gbp', product: 'steward-plan-enterprise', recurring: { interval: 'month' } });
    expect(stored.metadata).toEqual({ plan_code: 'enterprise' });
  });

  it('puts the new price on the subscription\'s own product unless told another', async () => {
    const made = payments.sandbox.createSubscription({ customer: 'cus_3', currency: 'gbp', unitAmountMinor: 4900, product: 'prod_Existing' });
    await payments.provider.updateSubscriptionPrice({ subscriptionId: made.id, currency: 'GBP', unitAmountMinor: 19900, idempotencyKey: 'change-own-product' });
    const stored = payments.sandbox.subscriptions().find((subscription) => subscription.id === made.id)!;
    expect(stored.items.data[0].price).toMatchObject({ unit_amount: 19900, product: 'prod_Existing' });
  });

  it('refuses an unknown subscription or item, a bad price or proration, and a canceled subscription', async () => {
    await expect(payments.provider.updateSubscriptionPrice({ subscriptionId: 'sub_missing', productId: 'p', currency: 'gbp', unitAmountMinor: 100, idempotencyKey: 'k-missing' }))
      .rejects.toMatchObject({ status: 404, message: expect.stringContaining("No such subscription: 'sub_missing'") });
    const made = payments.sandbox.createSubscription({ customer: 'cus_2', currency: 'gbp', unitAmountMinor: 4900 });
    const item = made.items.data[0].id;
    const price = 'items[0][price_data][currency]=gbp&items[0][price_data][product]=p&items[0][price_data][recurring][interval]=month';
    const unknownItem = await postForm(`/v1/subscriptions/${made.id}`, `items[0][id]=si_nope&${price}&items[0][price_data][unit_amount]=100`);
    expect(unknownItem.status).toBe(404);
    const negative = await postForm(`/v1/subscriptions/${made.id}`, `items[0][id]=${item}&${price}&items[0][price_data][unit_amount]=-1`);
    expect(negative.status).toBe(400);
    expect((await negative.json()).error.param).toBe('items[0][price_data][unit_amount]');
    const proration = await postForm(`/v1/subscriptions/${made.id}`, `items[0][id]=${item}&${price}&items[0][price_data][unit_amount]=100&proration_behavior=sometimes`);
    expect(proration.status).toBe(400);
    made.status = 'canceled';
    await expect(payments.provider.updateSubscriptionPrice({ subscriptionId: made.id, productId: 'p', currency: 'gbp', unitAmountMinor: 100, idempotencyKey: 'k-canceled' }))
      .rejects.toBeInstanceOf(PaymentRefusedError);
    // None of the refused requests changed the price.
    expect(payments.sandbox.subscriptions().find((subscription) => subscription.id === made.id)!.items.data[0].price.unit_amount).toBe(4900);
  });
});
