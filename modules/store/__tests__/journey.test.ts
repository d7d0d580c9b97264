import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import type { PaymentsSandbox } from '../../../sandbox/payments/server';
import { call, paymentsStack, refusal } from './stack';

/**
 * The bookstall end to end over MCP: a shop created, refused opening without a product, opened
 * only after a person approves, a digital product bought through the payment sandbox's checkout
 * page, downloaded through its signed link (counted, limited), the link resent, the order refunded
 * through the provider and its link revoked. Another organisation sees none of it.
 */
describe('store journey: the bookstall sells a download', () => {
  let harness: Harness;
  let sandbox: PaymentsSandbox;
  let close: () => Promise<void>;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;

  beforeAll(async () => {
    ({ harness, sandbox, close } = await paymentsStack());
    org = await harness.createOrg({ name: 'St Mary' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await close?.();
  });

  it('opens after approval, sells, downloads, refunds and revokes', async () => {
    const { shop } = await call(mcp, 'store_create_shop', { name: 'Bookstall', fulfilmentModes: ['pickup', 'digital'], refundApprovalAbove: 500 });
    expect(shop).toMatchObject({ status: 'draft', currency: 'GBP', locations: [{ name: 'Main', isDefault: true }] });
    expect((await refusal(mcp, 'store_update_shop', { shopId: shop.id, status: 'open' })).details.reason).toBe('use_open_shop');

    const { product } = await call(mcp, 'store_create_product', {
      shopId: shop.id, kind: 'digital', title: 'Advent reflections (PDF)', status: 'active', downloadUrl: 'https://files.example.org/advent.pdf', downloadLimit: 2,
      variants: [{ sku: 'ADV-PDF', price: 700 }],
    });
    expect(product.variants[0]).toMatchObject({ trackInventory: false, inventory: null, price: 700 });
    const variantId = product.variants[0].id;
    // Closed for sale until it is opened.
    expect((await refusal(mcp, 'store_create_checkout_link', { shopId: shop.id, items: [{ variantId, quantity: 1 }] })).details.reason).toBe('shop_draft');

    // Opening needs a person; approved, it opens.
    const gated = await refusal(mcp, 'store_open_shop', { shopId: shop.id, actionSummary: 'Open the bookstall for Advent' });
    expect(gated.code).toBe('approval_required');
    expect((await call(mcp, 'store_list_shops', {})).shops[0].status).toBe('draft');
    const decided = await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided.execution.result).toMatchObject({ shop: { status: 'open' }, checks: ['1 active product'] });

    // Bought through the sandbox's checkout page.
    const { order } = await call(mcp, 'store_create_checkout_link', { shopId: shop.id, items: [{ variantId, quantity: 1 }], buyerEmail: 'ann@example.org', buyerName: 'Ann' });
    expect(order).toMatchObject({ financialStatus: 'pending', total: 700, downloads: [] });
    expect((await refusal(mcp, 'store_resend_download_link', { orderId: order.id })).details.reason).toBe('order_pending');
    const page = await fetch(order.checkoutUrl);
    expect(await page.text()).toContain('Sandbox checkout');
    expect((await fetch(`${order.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const paid = (await call(mcp, 'store_get_order', { orderId: order.id })).order;
    expect(paid).toMatchObject({ financialStatus: 'paid', fulfilmentStatus: 'fulfilled', downloads: [{ status: 'active', downloads: 0, limit: 2 }] });

    // Downloaded through the signed link: counted, and limited.
    const { links } = await call(mcp, 'store_resend_download_link', { orderId: order.id });
    expect(links).toHaveLength(1);
    const link = new URL(links[0].url);
    const at = `${harness.url}${link.pathname}`;
    const first = await fetch(at, { redirect: 'manual' });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('https://files.example.org/advent.pdf');
    const tampered = at.slice(0, -3) + (at.endsWith('AAA') ? 'BBB' : 'AAA');
    expect((await fetch(tampered, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${harness.url}/store/downloads/not-a-token`, { redirect: 'manual' })).status).toBe(404);
    expect((await call(mcp, 'store_get_order', { orderId: order.id })).order.downloads[0]).toMatchObject({ downloads: 1, status: 'active' });
    // The second download is the last the link allows.
    expect((await fetch(at, { redirect: 'manual' })).status).toBe(302);
    const third = await fetch(at, { redirect: 'manual' });
    expect(third.status).toBe(410);
    expect((await third.json()).error.reason).toBe('used_up');
    expect((await call(mcp, 'store_get_order', { orderId: order.id })).order.downloads[0]).toMatchObject({ downloads: 2, status: 'used_up' });
    expect((await refusal(mcp, 'store_resend_download_link', { orderId: order.id })).details.reason).toBe('no_live_downloads');

    // Another organisation sees nothing.
    expect((await refusal(otherMcp, 'store_get_order', { orderId: order.id })).code).toBe('not_found');
    expect((await refusal(otherMcp, 'store_refund_order', { orderId: order.id })).code).toBe('not_found');
    expect((await call(otherMcp, 'store_list_shops', {})).shops).toEqual([]);

    // Refunded above the threshold: a person approves; the link is revoked.
    const refund = await refusal(mcp, 'store_refund_order', { orderId: order.id, reason: 'Bought twice' });
    expect(refund.code).toBe('approval_required');
    const approved = await call(mcp, 'platform_approve_proposal', { proposalId: refund.details.proposalId });
    expect(approved.execution.result).toMatchObject({ refunded: 700, downloadsRevoked: 1, order: { financialStatus: 'refunded', refundable: 0 } });
    expect(sandbox.refunds().filter((r) => r.metadata.order_id === order.id).map((r) => r.amount)).toEqual([700]);
    const revoked = await fetch(at, { redirect: 'manual' });
    expect(revoked.status).toBe(410);
    expect((await revoked.json()).error.reason).toBe('revoked');
    expect((await call(mcp, 'store_get_order', { orderId: order.id })).order.downloads[0]).toMatchObject({ status: 'revoked', downloads: 2 });
    expect((await refusal(mcp, 'store_resend_download_link', { orderId: order.id })).details.reason).toBe('order_refunded');
    expect((await refusal(mcp, 'store_refund_order', { orderId: order.id, amount: 1 })).details.reason).toBe('order_refunded');

    const report = await call(mcp, 'store_get_sales_report', { shopId: shop.id });
    expect(report.totals).toEqual([{ currency: 'GBP', source: 'online', orders: 1, gross: 700, refunded: 700, net: 0 }]);
  });
  it('takes a "donate £5 extra" with the order and records it once as a separate giving donation, never as a sale', async () => {
    const { shop } = await call(mcp, 'store_create_shop', { name: 'Coffee bar', fulfilmentModes: ['pickup'] });
    const { product } = await call(mcp, 'store_create_product', {
      shopId: shop.id, kind: 'physical', title: 'Fairtrade coffee', status: 'active', variants: [{ sku: 'COF-250', price: 450, initialStock: 10 }],
    });
    const variantId = product.variants[0].id;
    const gated = await refusal(mcp, 'store_open_shop', { shopId: shop.id, actionSummary: 'Open the coffee bar' });
    await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    const { fund } = await call(mcp, 'giving_create_fund', { name: 'Roof appeal' });
    const { contact } = await call(mcp, 'people_create_contact', { firstName: 'Dora', lastName: 'Giver', email: 'dora.giver@example.org' });
    const items = [{ variantId, quantity: 2 }];

    // A fund that is not there (or another organisation's) is refused before anyone is asked to pay, and nothing is held.
    const { fund: foreignFund } = await call(otherMcp, 'giving_create_fund', { name: 'Their fund' });
    expect((await refusal(mcp, 'store_create_checkout_link', { shopId: shop.id, items, donation: { amount: 500, fundId: foreignFund.id } })).code).toBe('not_found');
    expect((await call(mcp, 'store_list_orders', { shopId: shop.id })).orders).toEqual([]);

    const { order } = await call(mcp, 'store_create_checkout_link', { shopId: shop.id, items, contactId: contact.id, donation: { amount: 500, fundId: fund.id } });
    expect(order).toMatchObject({ total: 900, donation: { amount: 500, fundId: fund.id, donationId: null } });
    // One payment for both: the session asks for the goods and the gift, the gift on a line of its own.
    const session = sandbox.sessions().find((s) => s.id === order.checkoutUrl.split('/').pop())!;
    expect(session.amount_total).toBe(1400);
    const paid = await sandbox.pay(session.id, { deliver: false });
    // The signed webhook, delivered three times at once, records one donation.
    const results = await Promise.all([sandbox.deliver(paid.webhook), sandbox.deliver(paid.webhook), sandbox.deliver(paid.webhook)]);
    expect(results.every((result) => result.status === 200)).toBe(true);
    const done = (await call(mcp, 'store_get_order', { orderId: order.id })).order;
    expect(done).toMatchObject({ financialStatus: 'paid', total: 900, refundable: 900, donation: { amount: 500, fundId: fund.id } });
    const { donation } = await call(mcp, 'giving_get_donation', { donationId: done.donation.donationId });
    expect(donation).toMatchObject({
      amount: 500, currency: 'GBP', source: 'store', externalId: `store-order-${order.id}`, contactId: contact.id, batchStatus: 'committed',
      designations: [{ fundId: fund.id, amount: 500 }],
    });
    const storeGifts = (await call(mcp, 'giving_list_donations', { contactId: contact.id })).donations;
    expect(storeGifts).toHaveLength(1);

    // The sale is the goods alone: the report and a full refund leave the donation where it is.
    const today = new Date().toISOString().slice(0, 10);
    const report = await call(mcp, 'store_get_sales_report', { shopId: shop.id, from: today, to: today });
    expect(report.totals).toEqual([expect.objectContaining({ currency: 'GBP', gross: 900 })]);
    const refunded = await call(mcp, 'store_refund_order', { orderId: order.id, amount: 900, reason: 'Spilt', actionSummary: 'Refund the spilt coffee' });
    expect(refunded.refunded).toBe(900);
    expect(sandbox.refunds().map((r) => r.amount)).toContain(900);
    expect((await refusal(mcp, 'store_refund_order', { orderId: order.id, amount: 1, reason: 'More', actionSummary: 'Refund a penny more' })).code).toBe('conflict');
    expect((await call(mcp, 'giving_get_donation', { donationId: donation.id })).donation).toMatchObject({ amount: 500, refunded: 0 });
  });
});
