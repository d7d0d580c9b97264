import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { failNextInsertOnce, prepareAttempt } from '../../../test/helpers/retried-attempt';
import { canLockNow, holdLock, started, untilWaitingBehind } from '../../../test/helpers/row-locks';
import type { PaymentsSandbox } from '../../../sandbox/payments/server';
import { expireCheckout } from '../orders';
import { attempt, call, eventually, paymentsStack, refusal } from './stack';

/**
 * Store's rules against real Postgres, Temporal and the payment sandbox, through real parallel MCP
 * calls: never oversell (50 checkouts for 10 units), an expired checkout returns its units exactly
 * once (by its Temporal timer), only the signed webhook pays an order, once, in any order or
 * repetition, refunds never pass what was paid, inventory adjust/set refuse what they must, and a
 * price change never alters an order already made.
 */
describe('store: inventory, checkouts, payments and refunds', () => {
  let harness: Harness;
  let sandbox: PaymentsSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let mcp: McpClient;
  let clients: McpClient[];
  let shopId: string;

  const level = async (variantId: string) => (await harness.pool.query('SELECT available, committed, unavailable FROM store_inventory_levels WHERE variant_id = $1', [variantId])).rows[0];
  const product = async (title: string, price: number, stock: number, extra: Record<string, unknown> = {}) => {
    const { product: made } = await call(mcp, 'store_create_product', { shopId, kind: 'physical', title, status: 'active', variants: [{ sku: `${title.replace(/\W/g, '')}-${Date.now()}`, price, initialStock: stock, ...extra }] });
    return { productId: made.id as string, variantId: made.variants[0].id as string };
  };
  const sessionOf = (orderId: string) => sandbox.sessions().find((session) => session.metadata.order_id === orderId)!;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await paymentsStack());
    org = await harness.createOrg({ name: 'St Luke' });
    mcp = await harness.mcpClient(org.apiKey);
    clients = await Promise.all(Array.from({ length: 5 }, () => harness.mcpClient(org.apiKey)));
    shopId = (await call(mcp, 'store_create_shop', { name: 'Bookstall', fulfilmentModes: ['pickup', 'digital'], refundApprovalAbove: 100_000 })).shop.id;
    await product('Opening stock', 100, 1);
    const opened = await refusal(mcp, 'store_open_shop', { shopId });
    expect(opened.code).toBe('approval_required');
    await call(mcp, 'platform_approve_proposal', { proposalId: opened.details.proposalId });
  });

  afterAll(async () => {
    for (const client of clients ?? []) await client.close();
    await mcp?.close();
    await close?.();
  });

  it('commits exactly 10 units when 50 checkouts ask for the last 10 at once, never below zero', async () => {
    const { variantId } = await product('Devotional', 899, 10);
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(clients[i % clients.length]!, 'store_create_checkout_link', {
      shopId, items: [{ variantId, quantity: 1 }], buyerEmail: `b${i}@example.org`,
    })));
    const made = outcomes.filter((o) => o.ok).map((o) => (o as any).result.order);
    const refused = outcomes.filter((o): o is { ok: false; error: any } => !o.ok);
    expect(made).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(new Set(refused.map((o) => o.error.code))).toEqual(new Set(['conflict']));
    expect(refused[0]!.error.details).toMatchObject({ reason: 'sold_out' });
    for (const order of made) expect(order).toMatchObject({ financialStatus: 'pending', total: 899, checkoutUrl: expect.stringContaining('/checkout/cs_test_') });
    expect(await level(variantId)).toEqual({ available: 0, committed: 10, unavailable: 0 });
    // Every refused checkout's session was closed: only the 10 stay open.
    const sessions = sandbox.sessions().filter((s) => s.metadata.org_id === org.orgId && s.line_items[0]?.name === 'Devotional');
    expect(sessions.filter((s) => s.status === 'open').map((s) => s.metadata.order_id).sort()).toEqual(made.map((o) => o.id).sort());
    const listed = await call(mcp, 'store_list_products', { shopId });
    const devotional = listed.products.find((p: any) => p.title === 'Devotional');
    expect(devotional.variants[0].inventory).toMatchObject({ available: 0, committed: 10, onHand: 10 });
  });

  it('gives a cancelled checkout\'s units back in variant order, the order checkouts take them in', async () => {
    const made = [await product('Hymn book', 1200, 5), await product('Prayer card', 150, 5)];
    const [low, high] = [...made].sort((a, b) => a.variantId.localeCompare(b.variantId));
    const { order } = await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId: low!.variantId, quantity: 1 }, { variantId: high!.variantId, quantity: 1 }] });
    // The lines' titles put the higher variant first, so a release in the lines' own order would take its level first.
    await harness.pool.query(`UPDATE store_order_lines SET title = CASE WHEN variant_id = $2 THEN 'A first by title' ELSE 'Z last by title' END WHERE order_id = $1`, [order.id, high!.variantId]);
    const held = await holdLock(harness.pool, 'SELECT variant_id FROM store_inventory_levels WHERE variant_id = $1 FOR UPDATE', [high!.variantId]);
    const cancelled = started(() => call(mcp, 'store_cancel_order', { orderId: order.id, reason: 'Changed their mind' }));
    try {
      await untilWaitingBehind(harness.pool, held);
      // The cancel waits for the higher variant's level holding the lower one's: it went in variant order.
      expect(await canLockNow(harness.pool, 'SELECT variant_id FROM store_inventory_levels WHERE variant_id = $1 FOR UPDATE NOWAIT', [low!.variantId])).toBe(false);
      expect(cancelled.settled()).toBe(false);
    } finally {
      await held.release();
    }
    expect((await cancelled.running).order.financialStatus).toBe('voided');
    for (const { variantId } of made) expect(await level(variantId)).toEqual({ available: 5, committed: 0, unavailable: 0 });
  });

  it('returns an expired checkout\'s units exactly once, by its timer', async () => {
    const { variantId } = await product('Calendar', 500, 3);
    const { order } = await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId, quantity: 2 }], ttlSeconds: 5 });
    expect(await level(variantId)).toEqual({ available: 1, committed: 2, unavailable: 0 });
    const expired = await eventually(async () => (await call(mcp, 'store_get_order', { orderId: order.id })).order, (o) => o.financialStatus === 'expired', 40_000);
    expect(expired.checkoutUrl).toBeNull();
    expect(await level(variantId)).toEqual({ available: 3, committed: 0, unavailable: 0 });
    expect(sessionOf(order.id).status).toBe('expired');
    // A second expiry (a retried activity) returns nothing more.
    expect(await withTenantTransaction(harness.pool, org.orgId, (db) => expireCheckout(db, org.orgId, order.id))).toEqual({ outcome: 'not_pending' });
    expect(await level(variantId)).toEqual({ available: 3, committed: 0, unavailable: 0 });
    const ledger = (await harness.pool.query(`SELECT count(*)::int AS n FROM store_inventory_adjustments WHERE order_id = $1 AND reason = 'checkout_expired' AND state = 'available'`, [order.id])).rows[0].n;
    expect(ledger).toBe(1);
    // The timer's change is in the trail once, the system its actor and the checkout's workflow its source.
    const trail = (await call(mcp, 'audit_list_events', { targetId: order.id, actorKind: 'system' })).events;
    expect(trail).toEqual([expect.objectContaining({ action: 'store.order.expire', tool: 'job:checkout_expiry', workflowId: expect.stringContaining(order.id), category: 'finance' })]);
  });

  it('pays an order only on the signed webhook, once, whatever the order or repetition of events', async () => {
    const { variantId, productId } = await product('Choir CD', 1_000, 5);
    const { order } = await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId, quantity: 2 }], buyerName: 'Ann' });
    // A price change after the checkout never alters it.
    await call(mcp, 'store_update_product', { productId, variants: [{ variantId, price: 1_500 }] });
    const session = sessionOf(order.id);
    const paid = await sandbox.pay(session.id, { deliver: false });
    expect((await call(mcp, 'store_get_order', { orderId: order.id })).order.financialStatus).toBe('pending');
    const forged = { ...paid.webhook, headers: { ...paid.webhook.headers, 'stripe-signature': 't=1,v1=00' } };
    expect((await sandbox.deliver(forged)).status).toBe(401);
    const results = await Promise.all([sandbox.deliver(paid.webhook), sandbox.deliver(paid.webhook), sandbox.deliver(paid.webhook)]);
    const outcomes = results.map((r) => JSON.parse(r.body).outcome).sort();
    expect(outcomes.filter((o) => o === 'paid')).toHaveLength(1);
    // The trail holds the payment once, with the webhook as actor and the provider's event as source.
    const trail = (await call(mcp, 'audit_list_events', { actorKind: 'webhook', targetId: order.id })).events;
    expect(trail).toEqual([expect.objectContaining({
      action: 'store.order.pay', tool: 'webhook:payments', workflowId: JSON.parse(paid.webhook.body).id, outcome: 'success',
      actor: expect.objectContaining({ kind: 'webhook' }), target: { type: 'order', id: order.id }, amountMinor: 2_000, currency: 'GBP',
    })]);
    const after = (await call(mcp, 'store_get_order', { orderId: order.id })).order;
    expect(after).toMatchObject({ financialStatus: 'paid', total: 2_000, lines: [{ unitPrice: 1_000, quantity: 2 }] });
    expect(await level(variantId)).toEqual({ available: 3, committed: 2, unavailable: 0 });
    // Handed over: committed and on hand go down.
    const fulfilled = (await call(mcp, 'store_fulfil_order', { orderId: order.id, mode: 'pickup' })).order;
    expect(fulfilled.fulfilmentStatus).toBe('fulfilled');
    expect(await level(variantId)).toEqual({ available: 3, committed: 0, unavailable: 0 });

    // Refunds never pass what was paid, with or without restock.
    const tooMuch = await refusal(mcp, 'store_refund_order', { orderId: order.id, amount: 2_001 });
    expect(tooMuch).toMatchObject({ code: 'validation_failed', details: { reason: 'exceeds_paid' } });
    const part = await call(mcp, 'store_refund_order', { orderId: order.id, lines: [{ lineId: after.lines[0].id, quantity: 1 }], restock: true });
    expect(part).toMatchObject({ refunded: 1_000, order: { financialStatus: 'partially_refunded', refundable: 1_000 } });
    expect(await level(variantId)).toEqual({ available: 4, committed: 0, unavailable: 0 });
    const parallel = await Promise.all([1, 2, 3].map((i) => attempt(clients[i]!, 'store_refund_order', { orderId: order.id, amount: 600 })));
    expect(parallel.filter((o) => o.ok)).toHaveLength(1);
    const final = (await call(mcp, 'store_get_order', { orderId: order.id })).order;
    expect(final.refunded).toBe(1_600);
    const refundedAtProvider = sandbox.refunds().filter((r) => r.payment_intent === sessionOf(order.id).payment_intent).reduce((sum, r) => sum + r.amount, 0);
    expect(refundedAtProvider).toBe(1_600);
    expect((await refusal(mcp, 'store_refund_order', { orderId: order.id, amount: 401 })).details.reason).toBe('exceeds_paid');
  });

  it('cancels an unpaid order (units back) and a paid, unfulfilled one (refunded in full), gated above the refund threshold', async () => {
    const { variantId } = await product('Tea towel', 700, 4);
    const unpaid = (await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId, quantity: 1 }] })).order;
    const voided = await call(mcp, 'store_cancel_order', { orderId: unpaid.id, reason: 'Changed their mind' });
    expect(voided).toMatchObject({ refunded: 0, order: { financialStatus: 'voided', checkoutUrl: null } });
    expect(sessionOf(unpaid.id).status).toBe('expired');
    expect(await level(variantId)).toEqual({ available: 4, committed: 0, unavailable: 0 });
    const paidOrders = [];
    for (let i = 0; i < 2; i += 1) {
      const { order } = await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId, quantity: 2 }] });
      await sandbox.pay(sessionOf(order.id).id);
      paidOrders.push(order);
    }
    expect(await level(variantId)).toEqual({ available: 0, committed: 4, unavailable: 0 });
    const cancelled = await call(mcp, 'store_cancel_order', { orderId: paidOrders[0].id });
    expect(cancelled).toMatchObject({ refunded: 1_400, order: { financialStatus: 'refunded', refundable: 0 } });
    expect(await level(variantId)).toEqual({ available: 2, committed: 2, unavailable: 0 });
    await call(mcp, 'store_update_shop', { shopId, refundApprovalAbove: 1_000 });
    try {
      const gated = await refusal(mcp, 'store_cancel_order', { orderId: paidOrders[1].id });
      expect(gated.code).toBe('approval_required');
      expect((await call(mcp, 'store_get_order', { orderId: paidOrders[1].id })).order.financialStatus).toBe('paid');
    } finally {
      await call(mcp, 'store_update_shop', { shopId, refundApprovalAbove: 100_000 });
    }
  });

  it('adjusts with a reason, refuses below zero under deny, and sets only by compare-and-set', async () => {
    const { variantId } = await product('Mug', 600, 2);
    expect((await call(mcp, 'store_adjust_inventory', { variantId, delta: 5, reason: 'received', reference: 'PO-7' })).level).toMatchObject({ available: 7, onHand: 7 });
    const below = await refusal(mcp, 'store_adjust_inventory', { variantId, delta: -8, reason: 'damaged' });
    expect(below).toMatchObject({ code: 'conflict', details: { reason: 'below_zero', available: 7 } });
    expect((await call(mcp, 'store_adjust_inventory', { variantId, delta: 2, state: 'unavailable', reason: 'damaged' })).level).toMatchObject({ available: 7, unavailable: 2, onHand: 9 });
    const stale = await refusal(mcp, 'store_set_inventory', { variantId, quantity: 4, expected: 6 });
    expect(stale).toMatchObject({ code: 'conflict', details: { reason: 'stale_expected', actual: 7 } });
    expect((await call(mcp, 'store_set_inventory', { variantId, quantity: 4, expected: 7 })).level).toMatchObject({ available: 4 });
    // Two counts at once from the same reading: one wins.
    const both = await Promise.all([attempt(clients[0]!, 'store_set_inventory', { variantId, quantity: 1, expected: 4 }), attempt(clients[1]!, 'store_set_inventory', { variantId, quantity: 2, expected: 4 })]);
    expect(both.filter((o) => o.ok)).toHaveLength(1);
    await call(mcp, 'store_update_product', { productId: (await harness.pool.query('SELECT product_id FROM store_variants WHERE id = $1', [variantId])).rows[0].product_id, variants: [{ variantId, lowStockThreshold: 3 }] });
    expect((await call(mcp, 'store_list_low_stock', { shopId })).variants.map((v: any) => v.variantId)).toContain(variantId);
    const adjustments = (await harness.pool.query('SELECT reason, delta, state FROM store_inventory_adjustments WHERE variant_id = $1 ORDER BY created_at', [variantId])).rows;
    expect(adjustments.map((a) => a.reason)).toEqual(['received', 'received', 'damaged', 'count', 'count']);
  });

  it('opens one checkout session per call, however many attempts prepare it; another call opens its own', async () => {
    const { productId, variantId } = await product('Prayer card', 250, 10);
    const args = { shopId, items: [{ variantId, quantity: 2 }], buyerEmail: 'retry@example.org', ttlSeconds: 600 };
    const sessions = () => sandbox.sessions().filter((s) => s.metadata.org_id === org.orgId && s.line_items[0]?.name === 'Prayer card');
    // Two attempts of one call (the first died after its provider call): the same order id, session and expiry.
    const one = { workflowId: `test-call-${randomUUID()}`, startedAt: new Date(Math.floor(Date.now() / 1000) * 1000) };
    const first = await prepareAttempt(harness.pool, org, 'store_create_checkout_link', args, one);
    const retried = await prepareAttempt(harness.pool, org, 'store_create_checkout_link', args, one);
    expect(retried).toEqual(first);
    expect(first.expiresAt).toBe(new Date(one.startedAt.getTime() + 600_000).toISOString());
    expect(sessions().map((s) => [s.id, s.metadata.order_id, s.status])).toEqual([[first.session.id, first.orderId, 'open']]);
    // Another call with the same arguments is another order with a session of its own.
    const other = await prepareAttempt(harness.pool, org, 'store_create_checkout_link', args, { ...one, workflowId: `test-call-${randomUUID()}` });
    expect(other.orderId).not.toBe(first.orderId);
    expect(other.session.id).not.toBe(first.session.id);
    expect(sessions()).toHaveLength(2);
    // A retried attempt priced differently (the price changed in between) is refused by the provider: a conflict, no third session.
    await call(mcp, 'store_update_product', { productId, variants: [{ variantId, price: 300 }] });
    await expect(prepareAttempt(harness.pool, org, 'store_create_checkout_link', args, one)).rejects.toMatchObject({ code: 'conflict', details: { reason: 'changed_between_attempts' } });
    expect(sessions()).toHaveLength(2);
  });

  it('keeps the session of an attempt that failed before its commit for the retry: one session, the order\'s, open', async () => {
    const { variantId } = await product('Candle', 300, 5);
    const fault = await failNextInsertOnce(harness.pool, 'store_orders', org.orgId);
    try {
      const { order } = await call(mcp, 'store_create_checkout_link', { shopId, items: [{ variantId, quantity: 1 }] });
      // The first attempt's order insert failed (retried), the second's went in.
      expect(await fault.inserts()).toBe(2);
      const sessions = sandbox.sessions().filter((s) => s.metadata.org_id === org.orgId && s.line_items[0]?.name === 'Candle');
      expect(sessions.map((s) => [s.metadata.order_id, s.status, s.url])).toEqual([[order.id, 'open', order.checkoutUrl]]);
      expect(await level(variantId)).toEqual({ available: 4, committed: 1, unavailable: 0 });
    } finally {
      await fault.remove();
    }
  });

  it('records a cash sale at once, approval-free up to the limit, gated above it', async () => {
    const { variantId } = await product('Hymn book', 1_200, 20);
    const sale = await call(mcp, 'store_record_cash_sale', { shopId, items: [{ variantId, quantity: 2 }], amountTendered: 2_500 });
    expect(sale).toMatchObject({ change: 100, order: { source: 'cash', financialStatus: 'paid', fulfilmentStatus: 'fulfilled', total: 2_400 } });
    expect(await level(variantId)).toEqual({ available: 18, committed: 0, unavailable: 0 });
    const big = await refusal(mcp, 'store_record_cash_sale', { shopId, items: [{ variantId, quantity: 10 }] });
    expect(big.code).toBe('approval_required');
    expect(await level(variantId)).toEqual({ available: 18, committed: 0, unavailable: 0 });
    expect((await refusal(mcp, 'store_record_cash_sale', { shopId, items: [{ variantId, quantity: 1 }], amountTendered: 100 })).code).toBe('validation_failed');
    const report = await call(mcp, 'store_get_sales_report', { shopId });
    expect(report.totals.find((t: any) => t.source === 'cash')).toMatchObject({ gross: 2_400, net: 2_400 });
  });
});
