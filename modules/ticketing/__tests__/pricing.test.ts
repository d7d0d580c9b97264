import { formEncode, paymentSignature, sessionExpiry, stableUuid, verifyPaymentSignature } from '../../../kernel/payments';
import { formDecode } from '../../../sandbox/payments/server';
import { pendingReservations } from '../workflows/follow-ups';
import { newBarcode, priceOrder } from '../sales';

const type = (id: string, price: number) => ({ id, name: id, price_minor: price });

describe('ticketing pricing, barcodes and the payment adapter (pure)', () => {
  it('shares a discount over the tickets it applies to, adding up exactly', () => {
    const priced = priceOrder([{ type: type('a', 1_000), quantity: 3 }, { type: type('b', 333), quantity: 1 }], { kind: 'percent', amount: 10, ticket_type_ids: [] });
    expect(priced).toMatchObject({ subtotal: 3_333, discount: 333 });
    const paid = priced.lines.flatMap((line) => line.ticketPrices);
    expect(paid.reduce((sum, price) => sum + price, 0)).toBe(3_000);
    expect(priced.lines.reduce((sum, line) => sum + line.discount, 0)).toBe(333);
    // A fixed sum never passes what it applies to; types outside the code pay full price.
    const fixed = priceOrder([{ type: type('a', 500), quantity: 1 }, { type: type('b', 800), quantity: 1 }], { kind: 'fixed', amount: 2_000, ticket_type_ids: ['a'] });
    expect(fixed).toMatchObject({ subtotal: 1_300, discount: 500 });
    expect(fixed.lines.map((line) => line.ticketPrices)).toEqual([[0], [800]]);
    expect(priceOrder([{ type: type('a', 0), quantity: 2 }], { kind: 'percent', amount: 50, ticket_type_ids: [] }).discount).toBe(0);
  });

  it('makes unguessable, well-formed barcodes', () => {
    const codes = new Set(Array.from({ length: 2_000 }, () => newBarcode()));
    expect(codes.size).toBe(2_000);
    for (const code of codes) expect(code).toMatch(/^TKT-[A-Z2-7]{26}$/);
  });

  it('verifies Stripe-style signatures: right secret, untouched body, fresh timestamp', () => {
    const body = Buffer.from('{"id":"evt_1"}');
    const now = 1_800_000_000;
    const header = paymentSignature('whsec_a', body, now);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyPaymentSignature('whsec_a', body, header, now)).toBe(true);
    expect(verifyPaymentSignature('whsec_a', body, `${header},v1=${'0'.repeat(64)}`, now)).toBe(true);
    expect(verifyPaymentSignature('whsec_b', body, header, now)).toBe(false);
    expect(verifyPaymentSignature('whsec_a', Buffer.from('{"id":"evt_2"}'), header, now)).toBe(false);
    expect(verifyPaymentSignature('whsec_a', body, header, now + 301)).toBe(false);
    expect(verifyPaymentSignature('whsec_a', body, undefined, now)).toBe(false);
    expect(verifyPaymentSignature('whsec_a', body, 'garbage', now)).toBe(false);
  });

  it('encodes Stripe forms the sandbox reads back, and derives stable ids', () => {
    const form = formEncode({ line_items: [{ price_data: { currency: 'gbp', unit_amount: 500 }, quantity: 2 }], metadata: { org_id: 'x' } });
    expect(form.get('line_items[0][price_data][unit_amount]')).toBe('500');
    expect(formDecode(form.toString())).toEqual({ line_items: { 0: { price_data: { currency: 'gbp', unit_amount: '500' }, quantity: '2' } }, metadata: { org_id: 'x' } });
    expect(stableUuid('w1')).toBe(stableUuid('w1'));
    expect(stableUuid('w1')).not.toBe(stableUuid('w2'));
    expect(stableUuid('w1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keeps a checkout session open within Stripe\'s 30 minutes to 24 hours, reckoned from the call\'s start', () => {
    const start = new Date(Date.UTC(2026, 11, 1, 12, 0, 0));
    const at = (ms: number) => new Date(start.getTime() + ms);
    // A short hold opens the session for 40 minutes: room above Stripe's 30 for a retried attempt's request.
    expect(sessionExpiry(at(15 * 60_000), start)).toBe((start.getTime() + 40 * 60_000) / 1000);
    expect(sessionExpiry(at(2 * 3_600_000), start)).toBe((start.getTime() + 2 * 3_600_000) / 1000);
    expect(sessionExpiry(at(3 * 86_400_000), start)).toBe((start.getTime() + 1_439 * 60_000) / 1000);
    // Whole seconds, whenever it is asked: the clock plays no part.
    expect(sessionExpiry(at(2 * 3_600_000 + 999), start)).toBe((start.getTime() + 2 * 3_600_000) / 1000);
  });

  it('starts timers only for pending reservations a result names', () => {
    const r = (id: string, status: string) => ({ id, status, expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(pendingReservations({ reservation: r('a', 'pending'), order: { reservation: r('b', 'confirmed') }, offers: [{ reservation: r('c', 'pending') }] }).map((x) => x.id)).toEqual(['a', 'c']);
    expect(pendingReservations(null)).toEqual([]);
  });
});
