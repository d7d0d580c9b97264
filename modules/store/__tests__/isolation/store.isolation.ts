import type { IsolationPart } from '../../../../test/e2e/isolation/part';

/** Store: B's key with A's shops, products, variants, locations and orders (a bookstall cash sale). */
export const isolation: IsolationPart = {
  tables: ['contacts'],
  secrets: ['Apart bookstall', 'Apart hymn book', 'APART-SKU-1', 'Apart buyer'],
  async seed({ harness, a, ids }) {
    const call = (tool: string, args: Record<string, unknown>) => harness.call(a.apiKey, tool, args);
    const { shop } = await call('store_create_shop', { name: 'Apart bookstall', fulfilmentModes: ['pickup', 'digital'], cashSaleLimit: 100_000 });
    const { product } = await call('store_create_product', { shopId: shop.id, kind: 'physical', title: 'Apart hymn book', status: 'active', variants: [{ sku: 'APART-SKU-1', price: 500, initialStock: 20 }] });
    const gated = await harness.invoke(a.apiKey, 'store_open_shop', { shopId: shop.id });
    const proposalId = (gated.body as any).error?.details?.proposalId;
    if (proposalId) await call('platform_approve_proposal', { proposalId });
    const { order } = await call('store_record_cash_sale', { shopId: shop.id, items: [{ variantId: product.variants[0].id, quantity: 1 }], buyerName: 'Apart buyer', contactId: ids.contact });
    return { storeShop: shop.id, storeProduct: product.id, storeVariant: product.variants[0].id, storeLocation: shop.locations[0].id, storeOrder: order.id, storeLine: order.lines[0].id };
  },
  entries: {
    store_update_shop: [{ args: (i) => ({ shopId: i.storeShop, name: 'Taken over' }) }],
    store_open_shop: [{ args: (i) => ({ shopId: i.storeShop }) }],
    store_list_products: [{ args: (i) => ({ shopId: i.storeShop }), outcome: 'no_leak' }],
    store_create_product: [{ args: (i) => ({ shopId: i.storeShop, kind: 'physical', title: 'B product', variants: [{ sku: 'B-SKU', price: 1 }] }) }],
    store_update_product: [
      { args: (i) => ({ productId: i.storeProduct, title: 'Taken over' }) },
      { label: 'variant', args: (i) => ({ productId: i.storeProduct, variants: [{ variantId: i.storeVariant, price: 1 }] }) },
    ],
    store_archive_product: [{ args: (i) => ({ productId: i.storeProduct }) }],
    store_adjust_inventory: [
      { args: (i) => ({ variantId: i.storeVariant, delta: 1, reason: 'received' }) },
      { label: 'location', args: (i) => ({ variantId: i.storeVariant, locationId: i.storeLocation, delta: 1, reason: 'received' }) },
    ],
    store_set_inventory: [{ args: (i) => ({ variantId: i.storeVariant, quantity: 1, expected: 19 }) }],
    store_list_low_stock: [{ args: (i) => ({ shopId: i.storeShop }) }],
    store_create_checkout_link: [{ args: (i) => ({ shopId: i.storeShop, items: [{ variantId: i.storeVariant, quantity: 1 }] }) }],
    store_list_orders: [{ args: (i) => ({ shopId: i.storeShop, contactId: i.contact }), outcome: 'no_leak' }],
    store_get_order: [{ args: (i) => ({ orderId: i.storeOrder }) }],
    store_fulfil_order: [{ args: (i) => ({ orderId: i.storeOrder, mode: 'pickup' }) }],
    store_cancel_order: [{ args: (i) => ({ orderId: i.storeOrder }) }],
    store_refund_order: [
      { args: (i) => ({ orderId: i.storeOrder }) },
      { label: 'lines', args: (i) => ({ orderId: i.storeOrder, lines: [{ lineId: i.storeLine, quantity: 1 }] }) },
    ],
    store_record_cash_sale: [{ args: (i) => ({ shopId: i.storeShop, items: [{ variantId: i.storeVariant, quantity: 1 }] }) }],
    store_resend_download_link: [{ args: (i) => ({ orderId: i.storeOrder }) }],
    store_get_sales_report: [{ args: (i) => ({ shopId: i.storeShop }) }],
  },
};
