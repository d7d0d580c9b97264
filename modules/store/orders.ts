import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { openCallCheckout, paymentProviderFromEnv, stableUuid, type CheckoutCall, type CheckoutSession, type PaymentProvider } from '../../kernel/payments';
import { endsToolCall } from '../activity-kit';
import { listPage, notFound } from '../kit';
import { requireContact } from '../people/api';
import { checkOutsideGift, recordOutsideGift } from '../giving/api';
import { getOrgSettings } from '../platform/api';
import { defaultLocation, recordInventoryChange, shopRow, type ShopRow } from './catalogue';

export type FinancialStatus = 'pending' | 'paid' | 'partially_refunded' | 'refunded' | 'voided' | 'expired';
export type FulfilmentStatus = 'unfulfilled' | 'partial' | 'fulfilled';

export interface OrderRow {
  id: string; shop_id: string; location_id: string; source: 'online' | 'cash'; financial_status: FinancialStatus; fulfilment_status: FulfilmentStatus; units_held: boolean;
  contact_id: string | null; buyer_name: string | null; buyer_email: string | null; currency: string; total_minor: number; refunded_minor: number;
  checkout_session_id: string | null; checkout_url: string | null; payment_intent_id: string | null; expires_at: Date | null; paid_at: Date | null;
  cancel_reason: string | null; created_at: Date; donation_minor: number; donation_fund_id: string | null; donation_id: string | null;
}

interface LineRow {
  id: string; variant_id: string; product_id: string; kind: string; title: string; sku: string; tracked: boolean; quantity: number; unit_price_minor: number;
  fulfilled_quantity: number; refunded_quantity: number;
}

export interface OrderView {
  id: string; shopId: string; source: 'online' | 'cash'; financialStatus: FinancialStatus; fulfilmentStatus: FulfilmentStatus; contactId: string | null;
  buyerName: string | null; buyerEmail: string | null; currency: string; total: number; refunded: number; refundable: number;
  checkoutUrl: string | null; expiresAt: string | null; reservation: { id: string; status: 'pending' | 'ended'; expiresAt: string } | null;
  lines: Array<{ id: string; variantId: string; productId: string; kind: string; title: string; sku: string; quantity: number; unitPrice: number; fulfilled: number; refunded: number }>;
  fulfilments: Array<{ id: string; mode: string; lines: Array<{ lineId: string; quantity: number }>; tracking: string | null; createdAt: string }>;
  refunds: Array<{ id: string; amount: number; restock: boolean; reason: string | null; createdAt: string }>;
  downloads: Array<{ entitlementId: string; productId: string; status: 'active' | 'revoked' | 'expired' | 'used_up'; downloads: number; limit: number; expiresAt: string }>;
  donation: { amount: number; fundId: string; donationId: string | null } | null;
  cancelReason: string | null; paidAt: string | null; createdAt: string;
}

export async function orderRow(db: Queryable, orgId: string, orderId: string, options: { forUpdate?: boolean } = {}): Promise<OrderRow> {
  const row = await queryOne<OrderRow>(db, `SELECT * FROM store_orders WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, orderId]);
  if (!row) throw notFound('Order', orderId, 'store_list_orders lists orders.');
  return row;
}

const linesOf = (db: Queryable, orgId: string, orderId: string) => queryRows<LineRow>(db, 'SELECT * FROM store_order_lines WHERE org_id = $1 AND order_id = $2 ORDER BY title, id', [orgId, orderId]);

export async function orderView(db: Queryable, orgId: string, orderId: string): Promise<OrderView> {
  const row = await orderRow(db, orgId, orderId);
  const lines = await linesOf(db, orgId, orderId);
  const fulfilments = await queryRows<{ id: string; mode: string; lines: Array<{ lineId: string; quantity: number }>; tracking: string | null; created_at: Date }>(db,
    'SELECT id, mode, lines, tracking, created_at FROM store_fulfilments WHERE org_id = $1 AND order_id = $2 ORDER BY created_at, id', [orgId, orderId]);
  const refunds = await queryRows<{ id: string; amount_minor: number; restock: boolean; reason: string | null; created_at: Date }>(db,
    'SELECT id, amount_minor, restock, reason, created_at FROM store_refunds WHERE org_id = $1 AND order_id = $2 ORDER BY created_at, id', [orgId, orderId]);
  const entitlements = await queryRows<{ id: string; product_id: string; status: 'active' | 'revoked'; download_count: number; download_limit: number; expires_at: Date }>(db,
    'SELECT id, product_id, status, download_count, download_limit, expires_at FROM store_entitlements WHERE org_id = $1 AND order_id = $2 ORDER BY created_at, id', [orgId, orderId]);
  const now = new Date();
  return {
    id: row.id, shopId: row.shop_id, source: row.source, financialStatus: row.financial_status, fulfilmentStatus: row.fulfilment_status, contactId: row.contact_id,
    buyerName: row.buyer_name, buyerEmail: row.buyer_email, currency: row.currency, total: row.total_minor, refunded: row.refunded_minor,
    refundable: ['paid', 'partially_refunded'].includes(row.financial_status) ? row.total_minor - row.refunded_minor : 0,
    checkoutUrl: row.financial_status === 'pending' ? row.checkout_url : null, expiresAt: row.expires_at?.toISOString() ?? null,
    reservation: row.source === 'online' && row.expires_at ? { id: row.id, status: row.financial_status === 'pending' ? 'pending' : 'ended', expiresAt: row.expires_at.toISOString() } : null,
    lines: lines.map((l) => ({ id: l.id, variantId: l.variant_id, productId: l.product_id, kind: l.kind, title: l.title, sku: l.sku, quantity: l.quantity, unitPrice: l.unit_price_minor, fulfilled: l.fulfilled_quantity, refunded: l.refunded_quantity })),
    fulfilments: fulfilments.map((f) => ({ id: f.id, mode: f.mode, lines: f.lines, tracking: f.tracking, createdAt: f.created_at.toISOString() })),
    refunds: refunds.map((r) => ({ id: r.id, amount: r.amount_minor, restock: r.restock, reason: r.reason, createdAt: r.created_at.toISOString() })),
    downloads: entitlements.map((e) => ({
      entitlementId: e.id, productId: e.product_id, downloads: e.download_count, limit: e.download_limit, expiresAt: e.expires_at.toISOString(),
      status: e.status === 'revoked' ? 'revoked' : e.expires_at <= now ? 'expired' : e.download_count >= e.download_limit ? 'used_up' : 'active',
    })),
    donation: row.donation_minor > 0 ? { amount: row.donation_minor, fundId: row.donation_fund_id!, donationId: row.donation_id } : null,
    cancelReason: row.cancel_reason, paidAt: row.paid_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
  };
}

export async function listOrders(db: Queryable, orgId: string, filter: { shopId?: string; financialStatus?: FinancialStatus; fulfilmentStatus?: FulfilmentStatus; contactId?: string; limit: number; cursor?: string }) {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => { values.push(value); where.push(`${sql} = $${values.length + 3}`); };
  if (filter.shopId) add('shop_id', filter.shopId);
  if (filter.financialStatus) add('financial_status', filter.financialStatus);
  if (filter.fulfilmentStatus) add('fulfilment_status', filter.fulfilmentStatus);
  if (filter.contactId) add('contact_id', filter.contactId);
  const page = await listPage<{ id: string; created_at: Date }>(db, { table: 'store_orders', orgId, limit: filter.limit, cursor: filter.cursor, includeDeleted: true, where: where.join(' AND ') || undefined, values });
  const orders = [];
  for (const row of page.rows) orders.push(await orderView(db, orgId, row.id));
  return { orders, nextCursor: page.nextCursor };
}

// ---------------------------------------------------------------- pricing

export interface ItemInput { variantId: string; quantity: number }

interface PricedLine { variantId: string; productId: string; kind: string; title: string; sku: string; tracked: boolean; oversell: 'deny' | 'continue'; quantity: number; unitPrice: number }

/** The lines of a sale priced from the catalogue now (never from the caller): every variant of this shop, its product active. */
async function priceItems(db: Queryable, orgId: string, shop: ShopRow, items: readonly ItemInput[]): Promise<{ lines: PricedLine[]; total: number }> {
  const ids = items.map((item) => item.variantId);
  if (new Set(ids).size !== ids.length) throw new StewardError('validation_failed', 'A variant is named twice', { issues: [{ path: 'items', message: 'name each variant once' }] });
  const rows = await queryRows<{ id: string; product_id: string; kind: string; product_title: string; status: string; title: string; sku: string; track_inventory: boolean; oversell: 'deny' | 'continue'; price_minor: number }>(db,
    `SELECT v.id, v.product_id, p.kind, p.title AS product_title, p.status, v.title, v.sku, v.track_inventory, v.oversell, v.price_minor
     FROM store_variants v JOIN store_products p ON p.id = v.product_id WHERE v.org_id = $1 AND p.shop_id = $2 AND v.id = ANY($3::uuid[])`, [orgId, shop.id, ids]);
  const lines = items.map((item, index) => {
    const row = rows.find((r) => r.id === item.variantId);
    if (!row) throw notFound('Variant of this shop', item.variantId, 'store_list_products lists the shop\'s products and variants.');
    if (row.status !== 'active') throw new StewardError('conflict', `${row.product_title} is ${row.status}: only active products are sold`, { issues: [{ path: `items.${index}.variantId`, message: `product ${row.status}` }], details: { reason: 'product_not_active' } });
    return { variantId: row.id, productId: row.product_id, kind: row.kind, title: row.title === 'Default' ? row.product_title : `${row.product_title} (${row.title})`, sku: row.sku, tracked: row.track_inventory, oversell: row.oversell, quantity: item.quantity, unitPrice: row.price_minor };
  });
  return { lines, total: lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0) };
}

/** Under deny, units not available are refused, without a lock (a plain early answer); the locked check is `commitUnits`. */
async function assertPlainlyAvailable(db: Queryable, orgId: string, locationId: string, lines: readonly PricedLine[]): Promise<void> {
  for (const line of lines) {
    if (!line.tracked || line.oversell === 'continue') continue;
    const level = await queryOne<{ available: number }>(db, 'SELECT available FROM store_inventory_levels WHERE org_id = $1 AND variant_id = $2 AND location_id = $3', [orgId, line.variantId, locationId]);
    if ((level?.available ?? 0) < line.quantity) soldOut(line, level?.available ?? 0);
  }
}

function soldOut(line: { sku: string; title: string; quantity: number }, available: number): never {
  throw new StewardError('conflict', `${line.title} (${line.sku}): ${available} available, ${line.quantity} wanted`, { hint: 'Sell fewer, or add stock (store_adjust_inventory).', details: { reason: 'sold_out', sku: line.sku, available } });
}

/**
 * Moves units from available to committed, each line one conditional update on its level's row
 * (which Postgres locks): under deny, `available >= quantity` is checked and written in the same
 * statement, so however many checkouts run at once none takes the count below zero.
 */
async function commitUnits(db: Queryable, orgId: string, orderId: string, locationId: string, lines: readonly PricedLine[], options: { to: 'committed' | 'sold' }): Promise<void> {
  for (const line of [...lines].sort((a, b) => a.variantId.localeCompare(b.variantId))) {
    if (!line.tracked) continue;
    await db.query('INSERT INTO store_inventory_levels (org_id, variant_id, location_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orgId, line.variantId, locationId]);
    const done = await db.query(`UPDATE store_inventory_levels SET available = available - $4, committed = committed + $5, updated_at = now()
      WHERE org_id = $1 AND variant_id = $2 AND location_id = $3 AND ($6::boolean OR available >= $4)`,
    [orgId, line.variantId, locationId, line.quantity, options.to === 'committed' ? line.quantity : 0, line.oversell === 'continue']);
    if ((done.rowCount ?? 0) === 0) {
      const level = await queryOne<{ available: number }>(db, 'SELECT available FROM store_inventory_levels WHERE org_id = $1 AND variant_id = $2 AND location_id = $3', [orgId, line.variantId, locationId]);
      soldOut(line, level?.available ?? 0);
    }
    await recordInventoryChange(db, orgId, { variantId: line.variantId, locationId, state: 'available', delta: -line.quantity, reason: options.to === 'committed' ? 'checkout' : 'cash_sale', orderId });
    if (options.to === 'committed') await recordInventoryChange(db, orgId, { variantId: line.variantId, locationId, state: 'committed', delta: line.quantity, reason: 'checkout', orderId });
  }
}

/**
 * Lines in their variants' order, the order checkouts lock inventory levels in (commitUnits), so an
 * order released or fulfilled while another checks out never waits for it in a cycle.
 */
const inVariantOrder = <T extends { line: LineRow }>(items: readonly T[]): T[] => [...items].sort((a, b) => a.line.variant_id.localeCompare(b.line.variant_id));

/** Committed units of an order's lines back to available (an expired or cancelled checkout, a refund with restock before fulfilment). */
async function releaseUnits(db: Queryable, orgId: string, order: OrderRow, quantities: ReadonlyArray<{ line: LineRow; quantity: number }>, reason: string): Promise<void> {
  for (const { line, quantity } of inVariantOrder(quantities)) {
    if (!line.tracked || quantity === 0) continue;
    await db.query(`UPDATE store_inventory_levels SET available = available + $4, committed = committed - $4, updated_at = now() WHERE org_id = $1 AND variant_id = $2 AND location_id = $3`,
      [orgId, line.variant_id, order.location_id, quantity]);
    await recordInventoryChange(db, orgId, { variantId: line.variant_id, locationId: order.location_id, state: 'committed', delta: -quantity, reason, orderId: order.id });
    await recordInventoryChange(db, orgId, { variantId: line.variant_id, locationId: order.location_id, state: 'available', delta: quantity, reason, orderId: order.id });
  }
}

// ---------------------------------------------------------------- checkout

export function requireProvider(): PaymentProvider {
  const provider = paymentProviderFromEnv();
  if (!provider) {
    throw new StewardError('not_configured', 'No payment provider is configured (PAYMENTS_API_URL and PAYMENTS_SECRET_KEY)', {
      hint: 'npm start runs a local payment sandbox; otherwise set PAYMENTS_API_URL, PAYMENTS_SECRET_KEY and PAYMENTS_WEBHOOK_SECRET. A cash sale needs no provider (store_record_cash_sale).',
    });
  }
  return provider;
}

export interface CheckoutInput { shopId: string; items: ItemInput[]; contactId?: string; buyerName?: string; buyerEmail?: string; ttlSeconds?: number; returnUrl?: string; donation?: { amount: number; fundId?: string } }
export interface PreparedCheckout { orderId: string; total: number; session: CheckoutSession; expiresAt: string; donation: { amount: number; fundId: string } | null }

/** The extra donation offered with a checkout, checked by the giving module before the buyer is asked to pay. */
async function prepareDonation(db: Queryable, orgId: string, shop: ShopRow, donation: CheckoutInput['donation']) {
  if (!donation) return null;
  const org = await getOrgSettings(db, orgId);
  const fund = await checkOutsideGift(db, org, { amount: donation.amount, currency: shop.currency, fundId: donation.fundId });
  return { amount: donation.amount, fundId: fund.fundId, lineItem: { name: `Donation: ${fund.fundName}`, unitAmountMinor: donation.amount, quantity: 1 } };
}

function assertSelling(shop: ShopRow): void {
  if (shop.status !== 'open') {
    throw new StewardError('conflict', `${shop.name} is ${shop.status}: it sells only while open`, { hint: shop.status === 'draft' ? 'Open it first (store_open_shop, approval needed).' : undefined, details: { reason: `shop_${shop.status}` } });
  }
}

/**
 * Before the call's transaction: priced, plainly available, and a checkout session opened for exactly
 * that amount (no lock held across the network). The order's id comes from the call's workflow id and
 * its expiry from the call's start, so a retried attempt sends the provider the same request under the
 * same key and gets the first attempt's session back: one call, one session.
 */
export async function prepareCheckout(db: Queryable, orgId: string, input: CheckoutInput, call: CheckoutCall): Promise<PreparedCheckout> {
  const shop = await shopRow(db, orgId, input.shopId);
  assertSelling(shop);
  const { lines, total } = await priceItems(db, orgId, shop, input.items);
  if (total === 0) throw new StewardError('validation_failed', 'A checkout link is for something that costs money', { hint: 'Give free items with store_record_cash_sale (amount 0).', issues: [{ path: 'items', message: 'total is 0' }] });
  await assertPlainlyAvailable(db, orgId, await defaultLocation(db, orgId, shop.id), lines);
  const donation = await prepareDonation(db, orgId, shop, input.donation);
  const orderId = stableUuid(`${call.workflowId}:store-order`);
  const expiresAt = new Date(call.callStartedAt.getTime() + (input.ttlSeconds ?? shop.checkout_minutes * 60) * 1000);
  const base = process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000';
  const session = await openCallCheckout(requireProvider(), {
    idempotencyKey: `store-order-${orderId}`, currency: shop.currency, discountMinor: 0,
    lineItems: [...lines.map((line) => ({ name: line.title, unitAmountMinor: line.unitPrice, quantity: line.quantity })), ...(donation ? [donation.lineItem] : [])],
    metadata: { steward_module: 'store', org_id: orgId, order_id: orderId }, successUrl: input.returnUrl ?? `${base}/`, cancelUrl: input.returnUrl ?? `${base}/`,
    expiresAt, requestedAt: call.callStartedAt, customerEmail: input.buyerEmail ?? null,
  });
  return { orderId, total, session, expiresAt: expiresAt.toISOString(), donation: donation ? { amount: donation.amount, fundId: donation.fundId } : null };
}

async function insertOrder(db: Queryable, orgId: string, userId: string | null, values: {
  id: string; shop: ShopRow; locationId: string; source: 'online' | 'cash'; status: FinancialStatus; contactId: string | null; buyerName?: string; buyerEmail?: string;
  total: number; session?: CheckoutSession | null; expiresAt?: string | null; lines: PricedLine[]; unitsHeld: boolean; donation?: { amount: number; fundId: string } | null;
}): Promise<void> {
  await db.query(`INSERT INTO store_orders (id, org_id, shop_id, location_id, source, financial_status, units_held, contact_id, buyer_name, buyer_email, currency, total_minor,
      checkout_session_id, checkout_url, expires_at, paid_at, created_by_user_id, donation_minor, donation_fund_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
  [values.id, orgId, values.shop.id, values.locationId, values.source, values.status, values.unitsHeld, values.contactId, values.buyerName ?? null, values.buyerEmail ?? null, values.shop.currency,
    values.total, values.session?.id ?? null, values.session?.url ?? null, values.expiresAt ?? null, values.status === 'paid' ? new Date() : null, userId,
    values.donation?.amount ?? 0, values.donation?.fundId ?? null]);
  for (const line of values.lines) {
    await db.query(`INSERT INTO store_order_lines (id, org_id, order_id, variant_id, product_id, kind, title, sku, tracked, quantity, unit_price_minor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [randomUUID(), orgId, values.id, line.variantId, line.productId, line.kind, line.title, line.sku, line.tracked, line.quantity, line.unitPrice]);
  }
}

/**
 * A checkout link: the order is written pending with its lines' prices snapshotted, and its
 * tracked units move from available to committed for as long as the checkout session lasts (a
 * Temporal timer then returns them unless the signed webhook paid it). Refused when the units are
 * not there; the session opened for it is then closed, so nobody pays for nothing. A failure the
 * call will try again (a lost connection) leaves the session open: the next attempt gets it back.
 */
export async function createCheckout(db: Queryable, orgId: string, userId: string | null, input: CheckoutInput, prepared: PreparedCheckout): Promise<OrderView> {
  const shop = await shopRow(db, orgId, input.shopId);
  const close = () => requireProvider().expireCheckoutSession(prepared.session.id).catch(() => undefined);
  try {
    assertSelling(shop);
    if (input.contactId) await requireContact(db, orgId, input.contactId);
    const { lines, total } = await priceItems(db, orgId, shop, input.items);
    if (total !== prepared.total) throw new StewardError('conflict', 'The price changed while the checkout was being made', { hint: 'Ask again: it is priced afresh.' });
    const locationId = await defaultLocation(db, orgId, shop.id);
    await insertOrder(db, orgId, userId, { id: prepared.orderId, shop, locationId, source: 'online', status: 'pending', contactId: input.contactId ?? null, buyerName: input.buyerName, buyerEmail: input.buyerEmail, total, session: prepared.session, expiresAt: prepared.expiresAt, lines, unitsHeld: true, donation: prepared.donation });
    await commitUnits(db, orgId, prepared.orderId, locationId, lines, { to: 'committed' });
    return orderView(db, orgId, prepared.orderId);
  } catch (error) {
    if (endsToolCall(error)) await close();
    throw error;
  }
}

// ---------------------------------------------------------------- payment and expiry

/**
 * The extra donation of a paid order becomes a giving donation (its own batch, committed, the
 * giving module's Gift Aid rule), keyed by the order so a repeated webhook records it once.
 */
async function recordOrderDonation(db: Queryable, orgId: string, order: OrderRow): Promise<void> {
  if (order.donation_minor === 0 || order.donation_id) return;
  const org = await getOrgSettings(db, orgId);
  const { donationId } = await recordOutsideGift(db, org, {
    source: 'store', externalId: `store-order-${order.id}`, contactId: order.contact_id, amount: order.donation_minor, currency: order.currency,
    fundId: order.donation_fund_id!, method: 'card', receivedOn: new Date().toISOString().slice(0, 10), batchName: `Shop donation ${new Date().toISOString().slice(0, 10)}`,
    note: `Given with shop order ${order.id}`,
  });
  await db.query('UPDATE store_orders SET donation_id = $3 WHERE org_id = $1 AND id = $2', [orgId, order.id, donationId]);
}

async function onPaid(db: Queryable, orgId: string, order: OrderRow): Promise<void> {
  await recordOrderDonation(db, orgId, order);
  // Digital lines are delivered when paid: an entitlement each, and they count as fulfilled.
  const lines = await linesOf(db, orgId, order.id);
  const digital = lines.filter((line) => line.kind === 'digital');
  for (const line of digital) {
    const product = (await queryOne<{ download_limit: number; download_days: number }>(db, 'SELECT download_limit, download_days FROM store_products WHERE org_id = $1 AND id = $2', [orgId, line.product_id]))!;
    await db.query(`INSERT INTO store_entitlements (id, org_id, order_id, order_line_id, product_id, contact_id, signing_key, expires_at, download_limit)
      VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(days => $8), $9) ON CONFLICT DO NOTHING`,
    [randomUUID(), orgId, order.id, line.id, line.product_id, order.contact_id, randomBytes(32).toString('base64url'), product.download_days, product.download_limit * line.quantity]);
    await db.query('UPDATE store_order_lines SET fulfilled_quantity = quantity WHERE org_id = $1 AND id = $2', [orgId, line.id]);
  }
  if (digital.length > 0) {
    await db.query(`INSERT INTO store_fulfilments (id, org_id, order_id, mode, lines) VALUES ($1, $2, $3, 'digital', $4)`,
      [randomUUID(), orgId, order.id, JSON.stringify(digital.map((line) => ({ lineId: line.id, quantity: line.quantity })))]);
    await refreshFulfilment(db, orgId, order.id);
  }
}

async function refreshFulfilment(db: Queryable, orgId: string, orderId: string): Promise<void> {
  await db.query(`UPDATE store_orders o SET fulfilment_status = CASE
      WHEN s.fulfilled > 0 AND s.fulfilled >= s.total - s.refunded THEN 'fulfilled' WHEN s.fulfilled > 0 THEN 'partial' ELSE 'unfulfilled' END, updated_at = now()
    FROM (SELECT sum(quantity) AS total, sum(fulfilled_quantity) AS fulfilled, sum(refunded_quantity) AS refunded
      FROM store_order_lines WHERE org_id = $1 AND order_id = $2) s WHERE o.org_id = $1 AND o.id = $2`, [orgId, orderId]);
}

export type PaymentOutcome = 'paid' | 'already_paid' | 'unknown_order' | 'amount_mismatch' | 'late_paid' | 'late_refunded' | 'ignored';

/**
 * The provider's signed word that a checkout session was paid: the only thing that marks an
 * online order paid. A repeat changes nothing; an amount or currency that differs is refused. A
 * payment arriving after the checkout expired takes its units again if they are there, and is
 * refunded in full if not.
 */
export async function applyCheckoutCompleted(db: Queryable, orgId: string, session: CheckoutSession): Promise<{ outcome: PaymentOutcome; orderId: string | null }> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM store_orders WHERE org_id = $1 AND checkout_session_id = $2 FOR UPDATE', [orgId, session.id]);
  if (!order || session.metadata.order_id !== order.id) return { outcome: 'unknown_order', orderId: null };
  if (session.paymentStatus !== 'paid') return { outcome: 'ignored', orderId: order.id };
  if (order.financial_status !== 'pending' && order.financial_status !== 'expired') return { outcome: 'already_paid', orderId: order.id };
  // The buyer pays the goods and any extra donation in one payment.
  const charged = order.total_minor + order.donation_minor;
  if (session.amountTotal !== charged || session.currency.toUpperCase() !== order.currency) return { outcome: 'amount_mismatch', orderId: order.id };
  const mark = () => db.query(`UPDATE store_orders SET financial_status = 'paid', units_held = true, cancel_reason = NULL, paid_at = now(), payment_intent_id = $3, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, order.id, session.paymentIntentId]);
  if (order.financial_status === 'pending') {
    await mark();
    await onPaid(db, orgId, order);
    return { outcome: 'paid', orderId: order.id };
  }
  const lines = await linesOf(db, orgId, order.id);
  const priced = lines.map((l) => ({ variantId: l.variant_id, productId: l.product_id, kind: l.kind, title: l.title, sku: l.sku, tracked: l.tracked, oversell: 'deny' as const, quantity: l.quantity, unitPrice: l.unit_price_minor }));
  try {
    await db.query('SAVEPOINT store_late');
    await commitUnits(db, orgId, order.id, order.location_id, priced, { to: 'committed' });
    await db.query('RELEASE SAVEPOINT store_late');
    await mark();
    await onPaid(db, orgId, order);
    return { outcome: 'late_paid', orderId: order.id };
  } catch (error) {
    if (!(error instanceof StewardError)) throw error;
    await db.query('ROLLBACK TO SAVEPOINT store_late');
    // Nothing was sold, so nothing was given either: the whole payment goes back, donation included.
    const refund = await requireProvider().refund({ paymentIntentId: session.paymentIntentId!, amountMinor: charged, idempotencyKey: `store-late-${order.id}` });
    await db.query(`UPDATE store_orders SET financial_status = 'refunded', refunded_minor = total_minor, paid_at = now(), payment_intent_id = $3,
      cancel_reason = 'paid after its checkout expired, with the units gone: refunded in full', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, order.id, session.paymentIntentId]);
    await db.query(`INSERT INTO store_refunds (id, org_id, order_id, amount_minor, restock, lines, reason, provider_refund_id) VALUES ($1, $2, $3, $4, false, '[]', $5, $6)`,
      [randomUUID(), orgId, order.id, charged, 'Paid after the checkout expired; units gone', refund.id]);
    return { outcome: 'late_refunded', orderId: order.id };
  }
}

/** Step one of expiring, before any lock: the provider's session is closed, so nobody pays for units being returned. */
export async function closeCheckoutFor(db: Queryable, orgId: string, orderId: string): Promise<'closed' | 'paid' | 'none' | 'not_due'> {
  const row = await queryOne<{ financial_status: string; expires_at: Date | null; checkout_session_id: string | null }>(db,
    'SELECT financial_status, expires_at, checkout_session_id FROM store_orders WHERE org_id = $1 AND id = $2', [orgId, orderId]);
  if (!row || row.financial_status !== 'pending' || !row.expires_at || row.expires_at > new Date()) return 'not_due';
  if (!row.checkout_session_id) return 'none';
  const provider = paymentProviderFromEnv();
  if (!provider) return 'none';
  const session = await provider.expireCheckoutSession(row.checkout_session_id);
  return session.status === 'complete' ? 'paid' : 'closed';
}

export type ExpiryOutcome = { outcome: 'expired' } | { outcome: 'not_pending' } | { outcome: 'early'; expiresAt: string };

/** Returns an unpaid checkout's units exactly once: only a pending order past its time becomes expired, under its row lock. */
export async function expireCheckout(db: Queryable, orgId: string, orderId: string): Promise<ExpiryOutcome> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM store_orders WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, orderId]);
  if (!order || order.financial_status !== 'pending') return { outcome: 'not_pending' };
  if (order.expires_at && order.expires_at > new Date()) return { outcome: 'early', expiresAt: order.expires_at.toISOString() };
  await endPending(db, orgId, order, 'expired', 'the checkout ran out before payment');
  return { outcome: 'expired' };
}

async function endPending(db: Queryable, orgId: string, order: OrderRow, status: 'expired' | 'voided', reason: string): Promise<void> {
  const ended = await db.query(`UPDATE store_orders SET financial_status = $3, units_held = false, cancel_reason = $4, updated_at = now()
    WHERE org_id = $1 AND id = $2 AND financial_status = 'pending' AND units_held`, [orgId, order.id, status, reason]);
  if ((ended.rowCount ?? 0) === 0) return;
  const lines = await linesOf(db, orgId, order.id);
  await releaseUnits(db, orgId, order, lines.map((line) => ({ line, quantity: line.quantity })), status === 'expired' ? 'checkout_expired' : 'checkout_cancelled');
}

// ---------------------------------------------------------------- fulfilment, cancellation, refunds

export async function fulfilOrder(db: Queryable, orgId: string, userId: string | null, input: { orderId: string; lines?: Array<{ lineId: string; quantity: number }>; mode: 'pickup' | 'ship' | 'in_person'; tracking?: string }): Promise<OrderView> {
  const order = await orderRow(db, orgId, input.orderId, { forUpdate: true });
  if (order.financial_status !== 'paid' && order.financial_status !== 'partially_refunded') {
    throw new StewardError('conflict', `Order ${order.id} is ${order.financial_status}: only a paid order is fulfilled`, { details: { reason: `order_${order.financial_status}` } });
  }
  const shop = await shopRow(db, orgId, order.shop_id);
  if (input.mode !== 'in_person' && !shop.fulfilment_modes.includes(input.mode)) throw new StewardError('validation_failed', `${shop.name} does not offer ${input.mode}`, { issues: [{ path: 'mode', message: `one of ${shop.fulfilment_modes.join(', ')}` }] });
  const lines = await linesOf(db, orgId, order.id);
  const open = (line: LineRow) => line.quantity - line.fulfilled_quantity - line.refunded_quantity;
  const wanted = input.lines && input.lines.length > 0 ? input.lines : lines.filter((line) => open(line) > 0).map((line) => ({ lineId: line.id, quantity: open(line) }));
  if (wanted.length === 0) throw new StewardError('conflict', `Order ${order.id} has nothing left to fulfil`, { details: { reason: 'nothing_to_fulfil' } });
  const picked = wanted.map((item, index) => {
    const line = lines.find((l) => l.id === item.lineId);
    if (!line) throw new StewardError('validation_failed', `Line ${item.lineId} is not a line of this order`, { issues: [{ path: `lines.${index}.lineId`, message: 'not of this order' }] });
    if (item.quantity > open(line)) throw new StewardError('validation_failed', `${line.title}: ${open(line)} left to fulfil`, { issues: [{ path: `lines.${index}.quantity`, message: `at most ${open(line)}` }] });
    return { line, quantity: item.quantity };
  });
  for (const { line, quantity } of inVariantOrder(picked)) {
    await db.query('UPDATE store_order_lines SET fulfilled_quantity = fulfilled_quantity + $3 WHERE org_id = $1 AND id = $2', [orgId, line.id, quantity]);
    if (line.tracked) {
      // The units leave: committed (and so on hand) goes down.
      await db.query('UPDATE store_inventory_levels SET committed = committed - $4, updated_at = now() WHERE org_id = $1 AND variant_id = $2 AND location_id = $3', [orgId, line.variant_id, order.location_id, quantity]);
      await recordInventoryChange(db, orgId, { variantId: line.variant_id, locationId: order.location_id, state: 'committed', delta: -quantity, reason: 'fulfilled', orderId: order.id, userId });
    }
  }
  await db.query('INSERT INTO store_fulfilments (id, org_id, order_id, mode, lines, tracking, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [randomUUID(), orgId, order.id, input.mode, JSON.stringify(wanted), input.tracking ?? null, userId]);
  await refreshFulfilment(db, orgId, order.id);
  return orderView(db, orgId, order.id);
}

export interface RefundInput { orderId: string; lines?: Array<{ lineId: string; quantity: number }>; amount?: number; restock?: boolean; reason?: string }

/** What a refund returns: the lines named at their snapshotted prices (or all that is left), capped by what is still refundable. */
async function refundPlan(db: Queryable, orgId: string, order: OrderRow, input: RefundInput): Promise<{ amount: number; lines: Array<{ line: LineRow; quantity: number }> }> {
  if (order.financial_status !== 'paid' && order.financial_status !== 'partially_refunded') {
    throw new StewardError('conflict', `Order ${order.id} is ${order.financial_status}: only a paid order can be refunded`, {
      hint: order.financial_status === 'pending' ? 'A pending order has taken no money: cancel it (store_cancel_order).' : undefined, details: { reason: `order_${order.financial_status}` },
    });
  }
  const left = order.total_minor - order.refunded_minor;
  const lines = await linesOf(db, orgId, order.id);
  const chosen = input.lines && input.lines.length > 0
    ? input.lines.map((item, index) => {
      const line = lines.find((l) => l.id === item.lineId);
      if (!line) throw new StewardError('validation_failed', `Line ${item.lineId} is not a line of this order`, { issues: [{ path: `lines.${index}.lineId`, message: 'not of this order' }] });
      if (item.quantity > line.quantity - line.refunded_quantity) throw new StewardError('validation_failed', `${line.title}: ${line.quantity - line.refunded_quantity} left to refund`, { issues: [{ path: `lines.${index}.quantity`, message: 'more than is left' }] });
      return { line, quantity: item.quantity };
    })
    : input.amount !== undefined ? [] : lines.map((line) => ({ line, quantity: line.quantity - line.refunded_quantity })).filter((item) => item.quantity > 0);
  const byLines = chosen.reduce((sum, item) => sum + item.line.unit_price_minor * item.quantity, 0);
  const amount = input.amount ?? Math.min(left, byLines);
  if (amount > left) {
    throw new StewardError('validation_failed', `Only ${left} of ${order.total_minor} is left to refund`, { issues: [{ path: 'amount', message: `at most ${left}` }], details: { reason: 'exceeds_paid', refundable: left } });
  }
  if (amount === 0 && chosen.length === 0) throw new StewardError('validation_failed', 'Nothing to refund', { issues: [{ path: 'amount', message: 'give an amount or lines' }] });
  return { amount, lines: chosen };
}

export async function refundNeedsApproval(db: Queryable, orgId: string, args: Record<string, unknown>): Promise<boolean> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM store_orders WHERE org_id = $1 AND id = $2', [orgId, String(args.orderId)]);
  if (!order || (order.financial_status !== 'paid' && order.financial_status !== 'partially_refunded')) return false;
  const shop = await shopRow(db, orgId, order.shop_id);
  const plan = await refundPlan(db, orgId, order, args as unknown as RefundInput).catch(() => null);
  return plan !== null && plan.amount > shop.refund_approval_above_minor;
}

/**
 * Refunds an order (in full, by lines at the prices they were sold at, or an amount): never more
 * than was paid and not yet refunded. Online payments go back through the provider, keyed by the
 * call (a retry never refunds twice); a cash sale's refund is recorded (handed back in cash).
 * Restocked units return to available; unfulfilled units always do. Digital downloads of a fully
 * refunded line are revoked.
 */
export async function refundOrder(db: Queryable, orgId: string, userId: string | null, workflowId: string, input: RefundInput): Promise<{ order: OrderView; refunded: number; downloadsRevoked: number }> {
  const order = await orderRow(db, orgId, input.orderId, { forUpdate: true });
  const plan = await refundPlan(db, orgId, order, input);
  const refundId = stableUuid(`${workflowId}:store-refund:${order.id}`);
  let providerRefundId: string | null = null;
  if (plan.amount > 0 && order.source === 'online') {
    if (!order.payment_intent_id) throw new StewardError('conflict', `Order ${order.id} has no provider payment to refund`);
    const refund = await requireProvider().refund({ paymentIntentId: order.payment_intent_id, amountMinor: plan.amount, idempotencyKey: `store-refund-${refundId}`, metadata: { steward_module: 'store', org_id: orgId, order_id: order.id } });
    if (refund.status === 'failed') throw new StewardError('conflict', 'The payment provider could not make the refund', { hint: 'Try again later.' });
    providerRefundId = refund.id;
  }
  let revoked = 0;
  for (const { line, quantity } of inVariantOrder(plan.lines)) {
    await db.query('UPDATE store_order_lines SET refunded_quantity = refunded_quantity + $3 WHERE org_id = $1 AND id = $2', [orgId, line.id, quantity]);
    const unfulfilled = Math.min(quantity, Math.max(0, line.quantity - line.fulfilled_quantity - line.refunded_quantity));
    if (line.tracked && order.units_held) await releaseUnits(db, orgId, order, [{ line, quantity: unfulfilled }], 'refunded');
    const shipped = quantity - unfulfilled;
    if (line.tracked && input.restock && shipped > 0) {
      await db.query('UPDATE store_inventory_levels SET available = available + $4, updated_at = now() WHERE org_id = $1 AND variant_id = $2 AND location_id = $3', [orgId, line.variant_id, order.location_id, shipped]);
      await recordInventoryChange(db, orgId, { variantId: line.variant_id, locationId: order.location_id, state: 'available', delta: shipped, reason: 'restocked', orderId: order.id, userId });
    }
    if (line.kind === 'digital') {
      const done = await db.query(`UPDATE store_entitlements SET status = 'revoked', revoked_at = now() WHERE org_id = $1 AND order_line_id = $2 AND status = 'active'`, [orgId, line.id]);
      revoked += done.rowCount ?? 0;
    }
  }
  const refunded = order.refunded_minor + plan.amount;
  await db.query('UPDATE store_orders SET refunded_minor = $3, financial_status = $4, updated_at = now() WHERE org_id = $1 AND id = $2',
    [orgId, order.id, refunded, refunded === order.total_minor ? 'refunded' : 'partially_refunded']);
  if (refunded === order.total_minor) {
    const done = await db.query(`UPDATE store_entitlements SET status = 'revoked', revoked_at = now() WHERE org_id = $1 AND order_id = $2 AND status = 'active'`, [orgId, order.id]);
    revoked += done.rowCount ?? 0;
  }
  await db.query('INSERT INTO store_refunds (id, org_id, order_id, amount_minor, restock, lines, reason, provider_refund_id, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [refundId, orgId, order.id, plan.amount, input.restock ?? false, JSON.stringify(plan.lines.map((item) => ({ lineId: item.line.id, quantity: item.quantity }))), input.reason ?? null, providerRefundId, userId]);
  await refreshFulfilment(db, orgId, order.id);
  return { order: await orderView(db, orgId, order.id), refunded: plan.amount, downloadsRevoked: revoked };
}

/** Whether cancelling refunds more than the shop's refund threshold (a paid order): then a person approves, as for a refund. Read-only. */
export async function cancelNeedsApproval(db: Queryable, orgId: string, args: Record<string, unknown>): Promise<boolean> {
  const order = await queryOne<OrderRow>(db, 'SELECT * FROM store_orders WHERE org_id = $1 AND id = $2', [orgId, String(args.orderId)]);
  if (!order || order.financial_status !== 'paid') return false;
  const shop = await shopRow(db, orgId, order.shop_id);
  return order.total_minor - order.refunded_minor > shop.refund_approval_above_minor;
}

/** Cancels an unpaid order (its checkout closed, its units back at once) or a paid, unfulfilled one (refunded in full, units back). */
export async function cancelOrder(db: Queryable, orgId: string, userId: string | null, workflowId: string, input: { orderId: string; reason?: string }): Promise<{ order: OrderView; refunded: number }> {
  const order = await orderRow(db, orgId, input.orderId, { forUpdate: true });
  if (order.financial_status === 'pending') {
    if (order.checkout_session_id) {
      const session = await requireProvider().expireCheckoutSession(order.checkout_session_id);
      if (session.status === 'complete') throw new StewardError('conflict', 'The buyer has just paid: the order is being confirmed', { hint: 'Wait for it to be paid, then refund it if needed.', details: { reason: 'payment_in_flight' } });
    }
    await endPending(db, orgId, order, 'voided', input.reason ?? 'cancelled');
    return { order: await orderView(db, orgId, order.id), refunded: 0 };
  }
  if (order.financial_status === 'paid' && order.fulfilment_status === 'unfulfilled') {
    const result = await refundOrder(db, orgId, userId, workflowId, { orderId: order.id, reason: input.reason ?? 'cancelled', restock: true });
    await db.query('UPDATE store_orders SET cancel_reason = $3 WHERE org_id = $1 AND id = $2', [orgId, order.id, input.reason ?? 'cancelled']);
    return { order: await orderView(db, orgId, order.id), refunded: result.refunded };
  }
  throw new StewardError('conflict', `Order ${order.id} is ${order.financial_status} and ${order.fulfilment_status}: it cannot be cancelled`, {
    hint: 'A fulfilled order is refunded instead (store_refund_order).', details: { reason: 'not_cancellable' },
  });
}

// ---------------------------------------------------------------- cash sales

export interface CashSaleInput { shopId: string; items: ItemInput[]; contactId?: string; buyerName?: string; amountTendered?: number }

export async function cashSaleTotal(db: Queryable, orgId: string, args: Record<string, unknown>): Promise<{ total: number; limit: number } | null> {
  const shop = await queryOne<ShopRow>(db, 'SELECT * FROM store_shops WHERE org_id = $1 AND id = $2', [orgId, String(args.shopId)]);
  if (!shop) return null;
  const priced = await priceItems(db, orgId, shop, (args.items ?? []) as ItemInput[]).catch(() => null);
  return priced ? { total: priced.total, limit: shop.cash_sale_limit_minor } : null;
}

/** The bookstall: paid at once in cash, handed over at once (units leave available straight away). */
export async function recordCashSale(db: Queryable, orgId: string, userId: string | null, input: CashSaleInput): Promise<{ order: OrderView; change: number | null }> {
  const shop = await shopRow(db, orgId, input.shopId);
  if (shop.status !== 'open' && shop.status !== 'paused') assertSelling(shop);
  if (input.contactId) await requireContact(db, orgId, input.contactId);
  const { lines, total } = await priceItems(db, orgId, shop, input.items);
  if (input.amountTendered !== undefined && input.amountTendered < total) {
    throw new StewardError('validation_failed', `${input.amountTendered} tendered for a total of ${total}`, { issues: [{ path: 'amountTendered', message: `at least ${total}` }] });
  }
  const id = randomUUID();
  const locationId = await defaultLocation(db, orgId, shop.id);
  await insertOrder(db, orgId, userId, { id, shop, locationId, source: 'cash', status: 'paid', contactId: input.contactId ?? null, buyerName: input.buyerName, total, lines, unitsHeld: false });
  await commitUnits(db, orgId, id, locationId, lines, { to: 'sold' });
  const order = await orderRow(db, orgId, id);
  await onPaid(db, orgId, order);
  const physical = (await linesOf(db, orgId, id)).filter((line) => line.kind !== 'digital');
  if (physical.length > 0) {
    await db.query('UPDATE store_order_lines SET fulfilled_quantity = quantity WHERE org_id = $1 AND order_id = $2 AND kind <> $3', [orgId, id, 'digital']);
    await db.query(`INSERT INTO store_fulfilments (id, org_id, order_id, mode, lines, created_by_user_id) VALUES ($1, $2, $3, 'in_person', $4, $5)`,
      [randomUUID(), orgId, id, JSON.stringify(physical.map((line) => ({ lineId: line.id, quantity: line.quantity }))), userId]);
  }
  await refreshFulfilment(db, orgId, id);
  return { order: await orderView(db, orgId, id), change: input.amountTendered !== undefined ? input.amountTendered - total : null };
}

// ---------------------------------------------------------------- digital downloads

export const DOWNLOAD_PATH = '/store/downloads/';

function signatureOf(key: string, payload: string): string {
  return createHmac('sha256', Buffer.from(key, 'base64url')).update(payload).digest('base64url');
}

/** `<org>.<entitlement>.<expires unix>.<HMAC of those with the entitlement's own key>`: signed, expiring, and dead once the entitlement is revoked. */
export function downloadToken(orgId: string, entitlementId: string, key: string, expires: number): string {
  const payload = `${orgId}.${entitlementId}.${expires}`;
  return `${payload}.${signatureOf(key, payload)}`;
}

export function parseDownloadToken(token: string): { orgId: string; entitlementId: string; expires: number; signature: string } | null {
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [orgId, entitlementId, expires, signature] = parts as [string, string, string, string];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  if (!uuid.test(orgId) || !uuid.test(entitlementId) || !/^\d{1,12}$/.test(expires)) return null;
  return { orgId, entitlementId, expires: Number(expires), signature };
}

export function signatureMatches(key: string, parsed: { orgId: string; entitlementId: string; expires: number; signature: string }): boolean {
  const expected = Buffer.from(signatureOf(key, `${parsed.orgId}.${parsed.entitlementId}.${parsed.expires}`));
  const given = Buffer.from(parsed.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export type DownloadOutcome = { ok: true; url: string } | { ok: false; status: 404 | 410; reason: 'not_found' | 'revoked' | 'expired' | 'used_up' };

/** One download: a valid, live link counts once (a conditional update) and answers where the file is. */
export async function takeDownload(db: Queryable, parsed: { orgId: string; entitlementId: string; expires: number; signature: string }): Promise<DownloadOutcome> {
  const row = await queryOne<{ signing_key: string; status: string; expires_at: Date; download_count: number; download_limit: number; download_url: string | null }>(db,
    `SELECT e.signing_key, e.status, e.expires_at, e.download_count, e.download_limit, p.download_url FROM store_entitlements e JOIN store_products p ON p.id = e.product_id
     WHERE e.org_id = $1 AND e.id = $2 FOR UPDATE OF e`, [parsed.orgId, parsed.entitlementId]);
  if (!row || !signatureMatches(row.signing_key, parsed) || !row.download_url) return { ok: false, status: 404, reason: 'not_found' };
  if (row.status === 'revoked') return { ok: false, status: 410, reason: 'revoked' };
  if (parsed.expires * 1000 <= Date.now() || row.expires_at <= new Date()) return { ok: false, status: 410, reason: 'expired' };
  if (row.download_count >= row.download_limit) return { ok: false, status: 410, reason: 'used_up' };
  await db.query('UPDATE store_entitlements SET download_count = download_count + 1 WHERE org_id = $1 AND id = $2', [parsed.orgId, parsed.entitlementId]);
  return { ok: true, url: row.download_url };
}

/** Fresh signed links for a paid order's live downloads (each valid until its entitlement expires). Revoked or used-up ones are not reissued. */
export async function downloadLinks(db: Queryable, orgId: string, orderId: string, options: { extendDays?: number } = {}): Promise<Array<{ entitlementId: string; productId: string; url: string; expiresAt: string; downloadsLeft: number }>> {
  const order = await orderRow(db, orgId, orderId, { forUpdate: true });
  if (order.financial_status !== 'paid' && order.financial_status !== 'partially_refunded') {
    throw new StewardError('conflict', `Order ${order.id} is ${order.financial_status}: downloads are for paid orders`, { details: { reason: `order_${order.financial_status}` } });
  }
  if (options.extendDays) {
    await db.query(`UPDATE store_entitlements SET expires_at = GREATEST(expires_at, now() + make_interval(days => $3)) WHERE org_id = $1 AND order_id = $2 AND status = 'active'`, [orgId, orderId, options.extendDays]);
  }
  const rows = await queryRows<{ id: string; product_id: string; signing_key: string; expires_at: Date; download_count: number; download_limit: number }>(db,
    `SELECT id, product_id, signing_key, expires_at, download_count, download_limit FROM store_entitlements WHERE org_id = $1 AND order_id = $2 AND status = 'active' AND expires_at > now() AND download_count < download_limit ORDER BY created_at, id`, [orgId, orderId]);
  if (rows.length === 0) throw new StewardError('conflict', `Order ${order.id} has no live download`, { hint: 'Revoked (refunded), expired or used up; extendDays renews an expired one.', details: { reason: 'no_live_downloads' } });
  const base = (process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  return rows.map((row) => ({
    entitlementId: row.id, productId: row.product_id, url: `${base}${DOWNLOAD_PATH}${downloadToken(orgId, row.id, row.signing_key, Math.floor(row.expires_at.getTime() / 1000))}`,
    expiresAt: row.expires_at.toISOString(), downloadsLeft: row.download_limit - row.download_count,
  }));
}

// ---------------------------------------------------------------- report

export async function salesReport(db: Queryable, orgId: string, input: { shopId?: string; from: string; to: string }) {
  if (input.shopId) await shopRow(db, orgId, input.shopId);
  const args = [orgId, input.shopId ?? null, input.from, input.to];
  const range = `o.org_id = $1 AND ($2::uuid IS NULL OR o.shop_id = $2) AND o.paid_at >= $3::date AND o.paid_at < $4::date + 1 AND o.financial_status IN ('paid', 'partially_refunded', 'refunded')`;
  const totals = await queryRows<{ currency: string; source: string; orders: number; gross: number; refunded: number }>(db,
    `SELECT o.currency, o.source, count(*)::int AS orders, sum(o.total_minor)::int AS gross, sum(o.refunded_minor)::int AS refunded FROM store_orders o WHERE ${range} GROUP BY o.currency, o.source ORDER BY o.currency, o.source`, args);
  const products = await queryRows<{ productId: string; title: string; units: number; gross: number }>(db,
    `SELECT l.product_id AS "productId", min(l.title) AS title, sum(l.quantity - l.refunded_quantity)::int AS units, sum((l.quantity - l.refunded_quantity) * l.unit_price_minor)::int AS gross
     FROM store_order_lines l JOIN store_orders o ON o.id = l.order_id WHERE ${range} GROUP BY l.product_id ORDER BY gross DESC, title LIMIT 20`, args);
  const pending = (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM store_orders o WHERE o.org_id = $1 AND ($2::uuid IS NULL OR o.shop_id = $2) AND o.financial_status = 'pending'`, [orgId, input.shopId ?? null]))!.n;
  return {
    from: input.from, to: input.to, pendingCheckouts: pending,
    totals: totals.map((row) => ({ ...row, source: row.source as 'online' | 'cash', net: row.gross - row.refunded })),
    topProducts: products,
  };
}
