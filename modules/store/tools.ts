import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { calendarDate, cursorInput, cursorOutput, toolsFor } from '../kit';
import { periodRange } from '../metrics';
import type { ToolContext } from '../tool';
import {
  adjustInventory, archiveProduct, createProduct, createShop, listProducts, listShops, lowStock, openShop, setInventory, shopExists, shopView, updateProduct, updateShop,
} from './catalogue';
import {
  cancelNeedsApproval, cancelOrder, cashSaleTotal, createCheckout, downloadLinks, fulfilOrder, listOrders, orderView, prepareCheckout, recordCashSale, refundNeedsApproval, refundOrder,
  salesReport, type PreparedCheckout,
} from './orders';
import { downloadLinkSchema, levelSchema, orderSchema, productSchema, shopSchema } from './schemas';

const tools = toolsFor('store', { read: 'store:read', write: 'store:write' });

const money = (what: string) => z.number().int().min(0).max(100_000_000).describe(`${what}, in minor units (pence, cents)`);
const currency = z.string().max(3).regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as GBP').describe('ISO 4217 currency (default: the organisation\'s country\'s)');
const shopId = z.uuid().describe('The shop (store_list_shops)');
const productId = z.uuid().describe('The product (store_list_products)');
const variantId = z.uuid().describe('A product variant (store_list_products shows each product\'s variants)');
const orderId = z.uuid().describe('The order (store_list_orders)');
const items = z.array(z.object({ variantId, quantity: z.number().int().min(1).max(1000) })).min(1).max(50);
const modes = z.array(z.enum(['pickup', 'ship', 'digital'])).min(1).max(3);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');

const COUNTRY_CURRENCY: Record<string, string> = { GB: 'GBP', US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', IE: 'EUR', FR: 'EUR', DE: 'EUR', NL: 'EUR', ZA: 'ZAR', KE: 'KES', NG: 'NGN', SG: 'SGD' };
function currencyFor(ctx: ToolContext, given: string | undefined): string {
  const found = given ?? COUNTRY_CURRENCY[ctx.org.country?.toUpperCase() ?? ''];
  if (!found) throw new StewardError('validation_failed', `The organisation's country (${ctx.org.country}) has no default currency`, { issues: [{ path: 'currency', message: 'give the currency' }] });
  return found;
}

const shopFields = {
  description: z.string().trim().max(2000).nullable().optional(),
  refundApprovalAbove: money('Refunds above this need a person\'s approval (default 5000)').optional(),
  cashSaleLimit: money('Cash sales up to this need no approval (default 10000)').optional(),
  checkoutMinutes: z.number().int().min(1).max(1440).optional().describe('How long a checkout link keeps its units (default 30)'),
  locations: z.array(z.string().trim().min(1).max(200)).max(20).optional().describe('Stock locations (the first is the default; default "Main")'),
};

// ---------------------------------------------------------------- shops

const listShopsTool = tools.read('list_shops', {
  title: 'List shops',
  description: 'The organisation\'s shops (the bookstall, the online shop): status (draft, open, paused, closed), currency, fulfilment modes (pickup, ship, digital), limits and stock locations.',
  keywords: ['shops', 'bookstall', 'online shop', 'storefront', 'shop status', 'which shops', 'open or paused'],
  examples: ['what shops do we have', 'is the bookstall open', 'list our online shops', 'show the church shop settings', 'which of our shops are set up', 'is any shop closed or paused', 'what currency is our online shop in', 'our shops', "Nadia's taking over the bookstall, which shops have we got and are they open?", 'have we got an online shop set up already'],
  input: z.object({ status: z.enum(['draft', 'open', 'paused', 'closed']).optional() }),
  output: z.object({ shops: z.array(shopSchema) }).strict(),
  run: async (ctx, input) => ({ shops: await listShops(ctx.db, ctx.org.id, input.status) }),
});

const createShopTool = tools.write('create_shop', {
  title: 'Create a shop',
  description: 'Creates a shop as a draft: name, currency, fulfilment modes (pickup, ship, digital), refund approval threshold, cash sale limit, checkout time and stock locations. Add products, then open it (store_open_shop, approval needed). Store sales are not donations (no Gift Aid).',
  keywords: ['new shop', 'set up bookstall', 'sell merchandise', 'storefront'],
  examples: ['set up a bookstall shop', 'create an online shop for the church', 'we want to sell CDs and books after services', 'start a shop for the youth fundraiser merchandise', 'open a Christmas cards stall, pickup only, in pounds', 'new draft shop for Fairtrade goods after the 10:30', 'make a shop for the youth camp hoodies with posting', 'new shop', "the Mothers' Union want to sell knitted goods at the fair, make them a shop for collection only", 'I need a place to sell the youth CD as downloads'],
  input: z.object({ name: z.string().trim().min(1).max(200), currency: currency.optional(), fulfilmentModes: modes, ...shopFields }),
  output: z.object({ shop: shopSchema }).strict(),
  run: async (ctx, input) => ({ shop: await createShop(ctx.db, ctx.org.id, { ...input, currency: currencyFor(ctx, input.currency) }) }),
});

const updateShopTool = tools.write('update_shop', {
  title: 'Update a shop',
  description: 'Changes a shop\'s name, fulfilment modes, limits, checkout time, adds locations, or moves it: open → paused → open, or closed (for good). Opening a draft is store_open_shop (approval).',
  keywords: ['pause shop', 'close shop', 'edit shop', 'reopen shop', 'shut shop', 'temporarily closed', 'holiday'],
  examples: ['pause the bookstall over the summer', 'close the online shop for good', 'reopen the bookstall', 'raise the cash sale limit to £200', 'add a store room location', 'rename the bookstall to the Welcome Desk Shop', 'let the bookstall post things as well as collection', 'pause the online shop', "Nadia's away in August, so shut the bookstall for now and reopen in September", 'can the shop let people pay within 30 minutes instead of 15'],
  input: z.object({ shopId, name: z.string().trim().min(1).max(200).optional(), currency: currency.optional(), fulfilmentModes: modes.optional(), ...shopFields, status: z.enum(['open', 'paused', 'closed']).optional() }),
  output: z.object({ shop: shopSchema }).strict(),
  run: async (ctx, input) => ({ shop: await updateShop(ctx.db, ctx.org.id, input.shopId, input) }),
});

const openShopTool = tools.write('open_shop', {
  title: 'Open a shop',
  description: 'Opens a draft (or paused) shop for sale once it has an active product. Always needs a person\'s approval (an owner or admin), then runs.',
  keywords: ['launch shop', 'go live', 'start selling'],
  examples: ['open the bookstall shop', 'launch the online shop', 'start selling in the church shop', 'make the shop live', 'the Fairtrade stall is ready, get approval to open it', 'we\'re back from the break, open the paused shop again', 'put the Christmas cards shop on sale', "open the Mothers' Union shop", "the knitted goods are all listed, so let's start selling", 'can the new online shop go live today'],
  approval: { kind: 'gated', when: { reason: 'opening a shop starts taking money from the public', applies: async (args, deps) => shopExists(deps.db, deps.orgId, String(args.shopId)) } },
  task: {},
  input: z.object({ shopId, actionSummary }),
  output: z.object({ shop: shopSchema, checks: z.array(z.string()) }).strict(),
  run: async (ctx, input) => openShop(ctx.db, ctx.org.id, input.shopId),
});

// ---------------------------------------------------------------- products

const variantInput = z.object({
  sku: z.string().trim().max(64).regex(/^[A-Za-z0-9._-]{1,64}$/, '1 to 64 letters, digits, . _ or -'), title: z.string().trim().min(1).max(200).optional().describe('e.g. "Large" (default "Default")'),
  price: money('Price'), trackInventory: z.boolean().optional().describe('Count stock (default: yes, except digital)'),
  oversell: z.enum(['deny', 'continue']).optional().describe('deny (default): never sell what is not there'), lowStockThreshold: z.number().int().min(0).max(1_000_000).optional(),
  initialStock: z.number().int().min(0).max(1_000_000).optional().describe('Units available at the default location'),
});

const listProductsTool = tools.read('list_products', {
  title: 'List products',
  description: 'A shop\'s products (physical, digital, ticket) with status, variants (SKU, price, oversell policy) and stock per location in Shopify\'s states: available, committed, unavailable and on hand.',
  keywords: ['products', 'stock', 'inventory', 'catalogue', 'price list', 'items for sale', 'what we sell', 'prices', 'cost'],
  examples: ['what do we sell on the bookstall', 'how many hymn books are in stock', 'show the shop\'s products and prices', 'list digital downloads we sell', 'what items are on sale in the shop and how much are they', 'how much is the Lent book on the bookstall', 'show me all the shop items that are still drafts', 'bookstall items and prices', "Nadia's doing a display, what's for sale and how many of each do we have?", 'which products are digital downloads'],
  input: z.object({ shopId: shopId.optional(), status: z.enum(['draft', 'active', 'archived']).optional(), kind: z.enum(['physical', 'digital', 'ticket']).optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ products: z.array(productSchema) }).strict(),
  run: async (ctx, input) => ({ products: await listProducts(ctx.db, ctx.org.id, input) }),
});

const createProductTool = tools.write('create_product', {
  title: 'Create a product',
  description: 'Adds a product to a shop: kind (physical, digital with its downloadUrl, or ticket), title, an image from the media library, status (draft or active) and one or more variants (SKU, price, inventory tracked or not, oversell deny by default, initial stock).',
  keywords: ['add product', 'sell book', 'new item', 'digital download'],
  examples: ['add the Advent devotional book at £8.99, 40 in stock', 'sell the choir CD as a download for £5', 'add mugs in two colours at £6', 'put the church calendar on the bookstall', 'new item: Alpha course handbook, £5, 30 copies', 'add Fairtrade chocolate at £2.50 to the stall', 'sell the Easter sermon series as an mp3 download for £3', 'add a new book', "the Mothers' Union knitted teddies are £7 each and we have 20, list them", "I'd like to sell the parish history booklet for £4"],
  input: z.object({
    shopId, kind: z.enum(['physical', 'digital', 'ticket']), title: z.string().trim().min(1).max(200), description: z.string().trim().max(4000).nullable().optional(),
    status: z.enum(['draft', 'active']).optional(), imageMediaId: z.uuid().nullable().optional().describe('An image in the media library'),
    downloadUrl: z.url().max(2000).optional().describe('Digital only: where the file is (served only through signed links)'),
    downloadLimit: z.number().int().min(1).max(100).optional().describe('Downloads per unit bought (default 5)'), downloadDays: z.number().int().min(1).max(365).optional().describe('Days a download link lasts (default 7)'),
    variants: z.array(variantInput).min(1).max(50),
  }),
  output: z.object({ product: productSchema }).strict(),
  run: async (ctx, input) => ({ product: await createProduct(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const updateProductTool = tools.write('update_product', {
  title: 'Update a product',
  description: 'Changes a product (title, description, image, status draft/active, download settings), its variants\' prices, titles, oversell policy and low-stock thresholds, or adds variants. A price change applies to new checkouts only: orders already made keep the prices they were sold at.',
  keywords: ['change price', 'edit product', 'activate product', 'raise price', 'increase price', 'new price', 'reprice', 'price of item'],
  examples: ['make the devotional £9.50', 'activate the choir CD', 'allow the mugs to be back-ordered', 'add a large size to the T-shirt', 'put the price of the shop\'s candles up to £4', 'the shop item should cost more now', 'add a children\'s size to the hoodies', 'don\'t let the Lent books sell once they run out', 'teddies £8 now', "we've reprinted the parish history, so put its price up to £5", 'can the bookstall mugs warn us when only 3 are left'],
  input: z.object({
    productId, title: z.string().trim().min(1).max(200).optional(), description: z.string().trim().max(4000).nullable().optional(), status: z.enum(['draft', 'active']).optional(),
    imageMediaId: z.uuid().nullable().optional(), downloadUrl: z.url().max(2000).optional(), downloadLimit: z.number().int().min(1).max(100).optional(), downloadDays: z.number().int().min(1).max(365).optional(),
    variants: z.array(z.object({ variantId, price: money('New price').optional(), title: z.string().trim().min(1).max(200).optional(), oversell: z.enum(['deny', 'continue']).optional(), lowStockThreshold: z.number().int().min(0).max(1_000_000).optional() })).max(50).optional(),
    addVariants: z.array(variantInput).max(50).optional(),
  }),
  output: z.object({ product: productSchema }).strict(),
  run: async (ctx, input) => ({ product: await updateProduct(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const archiveProductTool = tools.write('archive_product', {
  title: 'Archive a product',
  description: 'Stops selling a product (archived): it leaves new checkouts; orders already made are unchanged. Archiving one already archived changes nothing (alreadyArchived says so).',
  keywords: ['stop selling', 'remove product', 'discontinue'],
  examples: ['stop selling the old calendar', 'archive the Easter mugs', 'take the CD off the shop', 'we\'ve stopped doing the Fairtrade chocolate', 'the Lent book is finished for this year, retire it', 'discontinue the old hymn book in the shop', 'hide the Christmas cards from the shop now it\'s January', 'stop selling teddies', 'the parish history booklet is out of print, take it off the shop', 'can we withdraw the youth CD from sale'],
  idempotent: true,
  input: z.object({ productId }),
  output: z.object({ product: productSchema, alreadyArchived: z.boolean() }).strict(),
  run: async (ctx, input) => archiveProduct(ctx.db, ctx.org.id, input.productId),
});

// ---------------------------------------------------------------- inventory

const adjustInventoryTool = tools.write('adjust_inventory', {
  title: 'Adjust inventory',
  description: 'Changes a variant\'s stock at a location by a delta with a reason (received, damaged, count, returned…) and a reference, in the available state or unavailable (damaged, quality control). Refuses to go below zero under the deny policy, and changes nothing then.',
  keywords: ['add stock', 'received books', 'damaged', 'delivery arrived', 'came in', 'new stock', 'more copies', 'broken'],
  examples: ['we received 20 more devotionals', '3 mugs arrived broken', 'take 2 CDs off stock, given to the choir', 'mark 5 books as damaged', 'a box of 25 Lent books came in today', 'one hoodie was returned to the stall', 'write off 4 chocolate bars that went out of date', '10 more teddies came in', 'Nadia dropped a box and 2 mugs smashed, knock them off stock', 'a delivery of 30 parish history booklets arrived'],
  input: z.object({
    variantId, locationId: z.uuid().optional().describe('Default: the shop\'s default location'), delta: z.number().int().min(-1_000_000).max(1_000_000).refine((n) => n !== 0, 'not 0'),
    state: z.enum(['available', 'unavailable']).optional().describe('Which quantity (default available)'), reason: z.string().trim().min(1).max(100), reference: z.string().trim().max(200).optional(),
  }),
  output: z.object({ level: levelSchema }).strict(),
  run: async (ctx, input) => ({ level: await adjustInventory(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const setInventoryTool = tools.write('set_inventory', {
  title: 'Set inventory',
  description: 'Sets a variant\'s stock at a location to a counted quantity, only if it still holds `expected` (what you last read): compare-and-set, so a count never overwrites a sale made meanwhile (refused with the actual value).',
  keywords: ['stock count', 'set stock', 'recount', 'stock take', 'counted', 'correct stock', 'fix stock level', 'shelf count'],
  examples: ['we counted 34 hymn books, set it', 'the stock take says 12 mugs', 'correct the CD stock to 8', 'the real number of books on the shelf is 20, update the stock', 'after counting, we have 15 Christmas card packs', 'reset the hoodie stock to 9 after the stock check', 'Fairtrade coffee count is 22 packs, update it', 'the stall\'s stock check says 40 Lent books', 'stock is 17 teddies', "Nadia's done the shelf count: exactly 23 booklets, set it to that", 'after the year-end count there are 11 mugs'],
  input: z.object({
    variantId, locationId: z.uuid().optional(), quantity: z.number().int().min(0).max(1_000_000), expected: z.number().int().min(-1_000_000).max(1_000_000).describe('The quantity last read'),
    state: z.enum(['available', 'unavailable']).optional(), reason: z.string().trim().min(1).max(100).default('count'), reference: z.string().trim().max(200).optional(),
  }),
  output: z.object({ level: levelSchema }).strict(),
  run: async (ctx, input) => ({ level: await setInventory(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const listLowStockTool = tools.read('list_low_stock', {
  title: 'List low stock',
  description: 'Tracked variants whose available stock (all locations) is at or below their low-stock threshold, fewest first.',
  keywords: ['running out', 'reorder', 'low stock', 'out of stock'],
  examples: ['what is running low on the bookstall', 'what do we need to reorder', 'which items are out of stock', 'are we nearly out of Lent books', 'which bookstall products need more stock', 'show items below their minimum stock', 'anything we should order more of before Advent', 'low stock', "Nadia's placing an order on Friday, what's about to run out?", 'which items are below their reorder level'],
  input: z.object({ shopId: shopId.optional(), limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({ variants: z.array(z.object({ variantId: z.uuid(), sku: z.string(), productId: z.uuid(), productTitle: z.string(), available: z.number().int(), threshold: z.number().int() }).strict()) }).strict(),
  run: async (ctx, input) => ({ variants: await lowStock(ctx.db, ctx.org.id, input.shopId, input.limit) }),
});

// ---------------------------------------------------------------- orders

const createCheckoutLinkTool = tools.write('create_checkout_link', {
  title: 'Create a checkout link',
  description: 'A payment link for items of an open shop, priced by Steward (never the caller): the units are committed for the checkout\'s time (the shop\'s checkoutMinutes or ttlSeconds) and return by themselves if it is not paid. The order becomes paid only when the payment provider\'s signed webhook says so. Refused when the units are not there (deny).',
  keywords: ['payment link', 'buy', 'checkout', 'sell online'],
  examples: ['send Jane a payment link for two devotionals', 'make a checkout link for the choir CD', 'I want to buy the Advent book online', 'get a link to pay for 3 mugs', 'I\'d like to pay online for the Lent book and a mug', 'create a pay link for two youth hoodies for Mrs Okafor', 'send a card payment link for the Christmas cards order', 'pay link for a teddy', "Raj can't make Sunday, so send him a link to pay for the parish history booklet", "I need a checkout for 2 mugs for Nadia's friend"],
  followUp: { kind: 'store.checkout_timer' },
  input: z.object({
    shopId, items, contactId: z.uuid().optional().describe('The buyer, when a contact'), buyerName: z.string().trim().min(1).max(200).optional(), buyerEmail: z.email().max(320).optional(),
    ttlSeconds: z.number().int().min(5).max(86_400).optional().describe('How long the units are kept (default the shop\'s checkoutMinutes)'),
    returnUrl: z.url().max(2000).optional(),
    donation: z.object({
      amount: z.number().int().min(1).max(10_000_000).describe('Minor units the buyer gives on top (500 = £5.00)'),
      fundId: z.uuid().optional().describe('The giving fund it goes to; the default fund when left out'),
    }).strict().optional().describe('"Donate £X extra": paid with the order, recorded as a separate giving donation once paid (never a sale, never refunded by the store)'),
  }),
  output: z.object({ order: orderSchema }).strict(),
  prepare: async (input, deps) => prepareCheckout(deps.db, deps.org.id, input, deps),
  run: async (ctx, input) => ({ order: await createCheckout(ctx.db, ctx.org.id, ctx.principal.userId, input, ctx.prepared as PreparedCheckout) }),
});

const listOrdersTool = tools.read('list_orders', {
  title: 'List orders',
  description: 'Shop orders, newest first: filter by shop, financial status (pending, paid, partially_refunded, refunded, voided, expired), fulfilment status or buyer; page with nextCursor.',
  keywords: ['sales', 'shop orders', 'unfulfilled', 'who bought', 'not collected', 'awaiting pickup', 'recent orders'],
  examples: ['which shop orders still need posting', 'list unpaid checkouts', 'what has Sam bought from the shop', 'show refunded orders', 'show all the hoodie orders from the online shop', 'which bookstall orders are still awaiting collection', 'list orders that were paid this week', 'shop orders', "Nadia's packing this afternoon, which orders still need sending out?", 'what has Raj ordered from the shop'],
  input: z.object({
    ...cursorInput, shopId: shopId.optional(), financialStatus: orderSchema.shape.financialStatus.optional(), fulfilmentStatus: orderSchema.shape.fulfilmentStatus.optional(), contactId: z.uuid().optional(),
  }),
  output: z.object({ orders: z.array(orderSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listOrders(ctx.db, ctx.org.id, input),
});

const getOrderTool = tools.read('get_order', {
  title: 'Get a shop order',
  description: 'One shop order: statuses, lines at the prices sold, fulfilments, refunds, downloads and, while unpaid, its checkout link and when it runs out.',
  keywords: ['order status', 'has it been paid', 'order details'],
  examples: ['has Jane paid for her books', 'show the shop order', 'was the CD order delivered', 'what did Mrs Okafor\'s shop order include', 'is the hoodie order paid yet', 'show the tracking on Tom\'s shop order', 'how much was refunded on Jane\'s shop order', "Raj's shop order", "Nadia says the teddy order looks odd, what's in it and has it been paid?", 'when does the unpaid checkout on that order expire'],
  input: z.object({ orderId }),
  output: z.object({ order: orderSchema }).strict(),
  run: async (ctx, input) => ({ order: await orderView(ctx.db, ctx.org.id, input.orderId) }),
});

const fulfilOrderTool = tools.write('fulfil_order', {
  title: 'Fulfil an order',
  description: 'Records a paid order (or chosen lines and quantities) handed over, collected or posted (mode pickup, ship with tracking, in_person): the units leave stock (committed and on hand go down). Digital lines are delivered when paid.',
  keywords: ['posted', 'collected', 'shipped', 'dispatch', 'picked up', 'handed over', 'delivered', 'fulfil', 'fulfilled'],
  examples: ['Jane collected her books', 'mark the mug order as posted with tracking AB123', 'the order was handed over after church', 'Tom came and picked up what he ordered from the shop', 'the hoodies went in the post today, tracking RM12345', 'Mrs Okafor took her Lent book home on Sunday', 'give out the first two items of that order, the rest later', 'Raj picked up his order', 'the teddies for Ellen went out by Royal Mail, tracking JX55', 'can you mark the mug order as handed over on Sunday'],
  input: z.object({
    orderId, mode: z.enum(['pickup', 'ship', 'in_person']), lines: z.array(z.object({ lineId: z.uuid(), quantity: z.number().int().min(1).max(1000) })).max(50).optional().describe('Default: everything left'),
    tracking: z.string().trim().max(200).optional(),
  }),
  output: z.object({ order: orderSchema }).strict(),
  run: async (ctx, input) => ({ order: await fulfilOrder(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const cancelOrderTool = tools.write('cancel_order', {
  title: 'Cancel an order',
  description: 'Cancels an unpaid order (its checkout closed, units back at once: voided) or a paid, unfulfilled one (refunded in full through the provider, units back; above the shop\'s refund threshold a person approves). A fulfilled order is refunded instead (store_refund_order).',
  keywords: ['cancel order', 'void checkout'],
  examples: ['cancel Jane\'s unpaid order', 'they changed their mind, cancel the book order', 'void that checkout link', 'Mrs Okafor doesn\'t want the hoodies any more, they aren\'t posted yet', 'scrap that pending shop order, nobody paid', 'cancel the Christmas card order before we send it', 'call off the book order and put the stock back', "cancel Raj's order", "Ellen ordered twice by mistake and hasn't paid the second, cancel it", 'can we void the unpaid teddy checkout'],
  approval: { kind: 'gated', when: { reason: 'cancelling a paid order refunds more than the shop\'s refund approval threshold', applies: async (args, deps) => cancelNeedsApproval(deps.db, deps.orgId, args) } },
  task: {},
  input: z.object({ orderId, reason: z.string().trim().min(1).max(500).optional(), actionSummary }),
  output: z.object({ order: orderSchema, refunded: z.number().int() }).strict(),
  run: async (ctx, input) => cancelOrder(ctx.db, ctx.org.id, ctx.principal.userId, ctx.workflowId, input),
});

const refundOrderTool = tools.write('refund_order', {
  title: 'Refund a shop order',
  description: 'Refunds a paid order in full, by lines (at the prices they were sold at) or an amount: never more than was paid and not yet refunded. Online payments go back through the provider; restock puts returned units back on sale; refunded downloads are revoked. A refund above the shop\'s threshold needs a person\'s approval.',
  keywords: ['refund', 'money back', 'return'],
  examples: ['refund Jane\'s book order', 'give £3 back for the chipped mug', 'refund the CD download', 'they returned one devotional, refund and restock it', 'return the £12 for the hoodie that didn\'t fit', 'Tom sent back the Lent book, refund him and put it back in stock', 'partial refund of £2 on the Christmas cards order', 'refund Ellen', "a teddy arrived with a torn ear, refund it and don't restock", 'can Raj have £2 back on his booklet order'],
  approval: { kind: 'gated', when: { reason: 'the refund is above the shop\'s refund approval threshold', applies: async (args, deps) => refundNeedsApproval(deps.db, deps.orgId, args) } },
  task: {},
  input: z.object({
    orderId, lines: z.array(z.object({ lineId: z.uuid(), quantity: z.number().int().min(1).max(1000) })).max(50).optional().describe('Only these; omit for the whole order'),
    amount: money('An amount instead of lines').optional(), restock: z.boolean().optional().describe('Put returned (already handed over) units back on sale'),
    reason: z.string().trim().min(1).max(500).optional(), actionSummary,
  }),
  output: z.object({ order: orderSchema, refunded: z.number().int().describe('Minor units returned by this refund'), downloadsRevoked: z.number().int() }).strict(),
  run: async (ctx, input) => refundOrder(ctx.db, ctx.org.id, ctx.principal.userId, ctx.workflowId, input),
});

const recordCashSaleTool = tools.write('record_cash_sale', {
  title: 'Record a cash sale',
  description: 'The bookstall: a sale paid in cash there and then, handed over at once (stock goes down straight away; refused under deny when it is not there). Up to the shop\'s cash sale limit it needs no approval; above it a person approves. A sale, not a donation (no Gift Aid).',
  keywords: ['bookstall sale', 'cash', 'sold after church'],
  examples: ['sold two devotionals for cash at the bookstall', 'record a cash sale of a mug', 'someone paid £10 cash for the calendar', 'bookstall: 3 CDs sold', 'put through a £5 cash sale for an Alpha handbook', 'someone bought Fairtrade coffee with cash after the service', 'till sale: two Christmas card packs paid in cash', 'cash sale, one teddy', 'after the 10:30 Nadia sold 4 booklets for cash, record it', 'someone paid £6 in coins for a mug'],
  approval: {
    kind: 'gated', when: {
      reason: 'the cash sale is above the shop\'s cash sale limit',
      applies: async (args, deps) => { const sale = await cashSaleTotal(deps.db, deps.orgId, args); return sale !== null && sale.total > sale.limit; },
    },
  },
  input: z.object({ shopId, items, contactId: z.uuid().optional(), buyerName: z.string().trim().min(1).max(200).optional(), amountTendered: money('Cash handed over (for the change)').optional(), actionSummary }),
  output: z.object({ order: orderSchema, change: z.number().int().nullable() }).strict(),
  run: async (ctx, input) => recordCashSale(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

const resendDownloadLinkTool = tools.write('resend_download_link', {
  title: 'Resend download links',
  description: 'Fresh signed links to a paid order\'s live digital downloads (each counted and expiring); extendDays renews expired ones. Revoked (refunded) downloads are never reissued. Give the links to the buyer only.',
  keywords: ['download link', 'lost link', 'resend'],
  examples: ['Jane lost her download link for the CD', 'resend the download for the devotional PDF', 'the download expired, give them a new link', 'Tom can\'t download the sermon mp3, send a new link', 'the Easter series download has expired, extend it a week', 'email the buyer their download links again', 're-issue the download for Mrs Okafor\'s order', 'new download link', "Raj's youth CD link has expired, extend it another week", 'can Ellen get her download link again'],
  input: z.object({ orderId, extendDays: z.number().int().min(1).max(365).optional() }),
  output: z.object({ links: z.array(downloadLinkSchema) }).strict(),
  run: async (ctx, input) => ({ links: await downloadLinks(ctx.db, ctx.org.id, input.orderId, input) }),
});

const getSalesReportTool = tools.read('get_sales_report', {
  title: 'Shop sales report',
  description: 'Takings over a range (default this month) per currency and source (online, cash): orders paid, gross, refunded and net, the top products by units, and checkouts awaiting payment. Store sales only (donations are giving\'s).',
  keywords: ['takings', 'shop sales', 'revenue', 'bookstall report'],
  examples: ['how much did the bookstall take this month', 'shop sales report for Advent', 'what sold best in the shop', 'how much cash did we take at the bookstall', 'how much have we made from the shop since Easter', 'bookstall cash versus online sales this quarter', 'top selling items in the shop this year', 'shop takings', 'the PCC wants to know what the bookstall made last quarter, cash and online', "what's been our best seller this month"],
  input: z.object({ shopId: shopId.optional(), from: calendarDate().optional(), to: calendarDate().optional() }),
  output: z.object({
    from: z.string(), to: z.string(), pendingCheckouts: z.number().int(),
    totals: z.array(z.object({ currency: z.string(), source: z.enum(['online', 'cash']), orders: z.number().int(), gross: z.number().int(), refunded: z.number().int(), net: z.number().int() }).strict()),
    topProducts: z.array(z.object({ productId: z.uuid(), title: z.string(), units: z.number().int(), gross: z.number().int() }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const month = periodRange('this_month');
    return salesReport(ctx.db, ctx.org.id, { shopId: input.shopId, from: input.from ?? month.from, to: input.to ?? month.to });
  },
});

export const storeTools = [
  listShopsTool, createShopTool, updateShopTool, openShopTool, listProductsTool, createProductTool, updateProductTool, archiveProductTool,
  adjustInventoryTool, setInventoryTool, listLowStockTool, createCheckoutLinkTool, listOrdersTool, getOrderTool, fulfilOrderTool, cancelOrderTool,
  refundOrderTool, recordCashSaleTool, resendDownloadLinkTool, getSalesReportTool,
];

export { shopView };
