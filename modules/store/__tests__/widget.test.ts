import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';
import { call, refusal } from './stack';

const HOSTILE = HOSTILE_TEXT;

/** The shop order widget rendered in headless Chromium by a minimal MCP Apps host, from a real cash sale. */
describe('store order widget in headless Chromium', () => {
  let suite: WidgetSuite;
  let mcp: McpClient;
  let host: WidgetHost;

  beforeAll(async () => {
    suite = await openWidgetSuite();
    ({ mcp, host } = suite);
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows the order\'s statuses and lines, user text as text', async () => {
    const { shop } = await call(mcp, 'store_create_shop', { name: 'Bookstall', fulfilmentModes: ['pickup'] });
    const { product } = await call(mcp, 'store_create_product', { shopId: shop.id, kind: 'physical', title: HOSTILE, status: 'active', variants: [{ sku: 'HOST-1', price: 450, initialStock: 5 }] });
    const gated = await refusal(mcp, 'store_open_shop', { shopId: shop.id });
    await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    const { order } = await call(mcp, 'store_record_cash_sale', { shopId: shop.id, items: [{ variantId: product.variants[0].id, quantity: 2 }], buyerName: 'Ann' });

    const { frame } = await host.callAndShow('store_get_order', { orderId: order.id });
    await expect(frame.locator('h1').textContent()).resolves.toBe('Order for Ann');
    await expect(frame.locator('[data-field=financialStatus]').textContent()).resolves.toBe('paid');
    await expect(frame.locator('[data-field=fulfilmentStatus]').textContent()).resolves.toBe('fulfilled');
    const rows = await frame.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual([[HOSTILE, 'HOST-1', '2', '£4.50', '2', '0']]);
    expect(await frame.locator('dl').textContent()).toContain('Total£9.00');
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
  });
});
