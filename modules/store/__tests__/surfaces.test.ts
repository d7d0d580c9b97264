import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { call, refusal } from './stack';

/**
 * Store's surfaces over MCP without a payment provider: the bookstall's cash sales, the overview
 * and the takings metric, the dashboard routes at their paths and through the invoke bridges
 * (a sale sent to its curated tool), and the playbook served as a prompt.
 */
describe('store surfaces', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('answers the overview, the metric, the routes and the playbook', async () => {
    const { shop } = await call(mcp, 'store_create_shop', { name: 'Bookstall', fulfilmentModes: ['pickup'], locations: ['Back of church', 'Vestry'] });
    expect(shop.locations.map((l: any) => [l.name, l.isDefault])).toEqual([['Back of church', true], ['Vestry', false]]);
    const { product } = await call(mcp, 'store_create_product', { shopId: shop.id, kind: 'physical', title: 'Candle', status: 'active', variants: [{ sku: 'CANDLE', price: 300, initialStock: 4, lowStockThreshold: 2 }] });
    const variantId = product.variants[0].id;
    // Not open yet: no sale, not even in cash.
    expect((await refusal(mcp, 'store_record_cash_sale', { shopId: shop.id, items: [{ variantId, quantity: 1 }] })).details.reason).toBe('shop_draft');
    const gated = await refusal(mcp, 'store_open_shop', { shopId: shop.id });
    await call(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    await call(mcp, 'store_record_cash_sale', { shopId: shop.id, items: [{ variantId, quantity: 2 }] });
    // Stock at the vestry is its own level; the default location sold 2 of 4.
    const vestry = shop.locations[1].id;
    expect((await call(mcp, 'store_adjust_inventory', { variantId, locationId: vestry, delta: 3, reason: 'received', reference: 'Vestry box' })).level).toMatchObject({ locationId: vestry, available: 3 });
    const listed = (await call(mcp, 'store_list_products', { shopId: shop.id })).products[0].variants[0].inventory;
    expect(listed).toMatchObject({ available: 5, committed: 0, onHand: 5, locations: [{ name: 'Back of church', available: 2 }, { name: 'Vestry', available: 3 }] });

    const overview = await call(mcp, 'platform_overview', {});
    expect(overview.store).toEqual({ openShops: 1, pendingCheckouts: 0, ordersToFulfil: 0, lowStockVariants: 0 });
    const takings = await call(mcp, 'platform_analytics_query', { metric: 'shop_takings', period: 'this_month' });
    expect(takings).toMatchObject({ module: 'store', data: { takings: [{ currency: 'GBP', source: 'cash', orders: 1, gross: 600, refunded: 0, net: 600 }] } });
    expect(takings.speakToUser).toMatch(/^1 order .*6\.00 GBP cash net\.$/);

    const history = await call(mcp, 'store_invoke_api_read', { method: 'GET', path: `/api/store/products/${product.id}/inventory-history` });
    expect(history.result.adjustments.map((a: any) => [a.reason, a.delta])).toEqual([['received', 3], ['cash_sale', -2], ['received', 4]]);
    const foreign = await harness.createOrg({ name: 'Elsewhere' });
    expect((await fetch(`${harness.url}/api/store/products/${product.id}/inventory-history`, { headers: { authorization: `Bearer ${foreign.apiKey}` } })).status).toBe(404);
    const curated = await refusal(mcp, 'store_invoke_api_write', { method: 'POST', path: `/api/store/shops/${shop.id}/checkouts`, body: { items: [{ variantId, quantity: 1 }] }, actionSummary: 'Sell one' });
    expect(curated.code).toBe('use_workflow_tool');
    expect(JSON.stringify(curated)).toContain('store_create_checkout_link');

    const prompt = await mcp.getPrompt({ name: 'open-the-bookstall-shop', arguments: { shop: 'the bookstall' } });
    expect(JSON.stringify(prompt.messages)).toContain('store_open_shop');
  });
});
