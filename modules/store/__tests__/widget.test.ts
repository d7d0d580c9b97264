import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { CHROMIUM } from '../../../test/helpers/oauth';
import { WidgetHost } from '../../../test/helpers/widget-host';
import { call, refusal } from './stack';

/** User text that would become markup, or run, if the widget parsed what it shows as HTML. */
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b> & "quoted"';

/** The shop order widget rendered in headless Chromium by a minimal MCP Apps host, from a real cash sale. */
describe('store order widget in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let mcp: McpClient;
  let host: WidgetHost;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Widget Parish' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
    browser = await chromium.launch(CHROMIUM);
    host = await WidgetHost.open(browser, mcp);
  });

  afterAll(async () => {
    await host?.close();
    await browser?.close();
    await mcp?.close();
    await harness?.close();
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
