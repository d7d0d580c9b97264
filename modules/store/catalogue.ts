import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';

/** Shops, products, variants and inventory: the store's catalogue and its stock. */

export type ShopStatus = 'draft' | 'open' | 'paused' | 'closed';
export type FulfilmentMode = 'pickup' | 'ship' | 'digital';

export interface ShopRow {
  id: string; name: string; description: string | null; currency: string; fulfilment_modes: FulfilmentMode[]; status: ShopStatus;
  refund_approval_above_minor: number; cash_sale_limit_minor: number; checkout_minutes: number; opened_at: Date | null; created_at: Date;
}

export interface ShopView {
  id: string; name: string; description: string | null; currency: string; fulfilmentModes: FulfilmentMode[]; status: ShopStatus;
  refundApprovalAbove: number; cashSaleLimit: number; checkoutMinutes: number; openedAt: string | null;
  locations: Array<{ id: string; name: string; isDefault: boolean }>; createdAt: string;
}

const unique = (error: unknown, message: string, path: string): never => {
  if ((error as { code?: string }).code === '23505') throw new StewardError('conflict', message, { issues: [{ path, message }] });
  throw error;
};

export async function shopRow(db: Queryable, orgId: string, shopId: string, options: { forUpdate?: boolean } = {}): Promise<ShopRow> {
  const row = await queryOne<ShopRow>(db, `SELECT * FROM store_shops WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, shopId]);
  if (!row) throw notFound('Shop', shopId, 'store_list_shops lists the shops.');
  return row;
}

export async function shopView(db: Queryable, orgId: string, shopId: string): Promise<ShopView> {
  const row = await shopRow(db, orgId, shopId);
  const locations = await queryRows<{ id: string; name: string; is_default: boolean }>(db,
    'SELECT id, name, is_default FROM store_locations WHERE org_id = $1 AND shop_id = $2 ORDER BY is_default DESC, created_at, id', [orgId, shopId]);
  return {
    id: row.id, name: row.name, description: row.description, currency: row.currency, fulfilmentModes: row.fulfilment_modes, status: row.status,
    refundApprovalAbove: row.refund_approval_above_minor, cashSaleLimit: row.cash_sale_limit_minor, checkoutMinutes: row.checkout_minutes,
    openedAt: row.opened_at?.toISOString() ?? null, locations: locations.map((l) => ({ id: l.id, name: l.name, isDefault: l.is_default })), createdAt: row.created_at.toISOString(),
  };
}

export async function listShops(db: Queryable, orgId: string, status?: ShopStatus): Promise<ShopView[]> {
  const rows = await queryRows<{ id: string }>(db, 'SELECT id FROM store_shops WHERE org_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY lower(name), id', [orgId, status ?? null]);
  const views = [];
  for (const row of rows) views.push(await shopView(db, orgId, row.id));
  return views;
}

export interface ShopInput {
  name?: string; description?: string | null; currency?: string; fulfilmentModes?: FulfilmentMode[]; refundApprovalAbove?: number; cashSaleLimit?: number;
  checkoutMinutes?: number; locations?: string[];
}

export async function createShop(db: Queryable, orgId: string, input: ShopInput & { name: string; currency: string; fulfilmentModes: FulfilmentMode[] }): Promise<ShopView> {
  const id = randomUUID();
  try {
    await db.query('SAVEPOINT store_shop');
    await db.query(`INSERT INTO store_shops (id, org_id, name, description, currency, fulfilment_modes, refund_approval_above_minor, cash_sale_limit_minor, checkout_minutes)
      VALUES ($1, $2, $3, $4, $5, $6, coalesce($7, 5000), coalesce($8, 10000), coalesce($9, 30))`,
    [id, orgId, input.name, input.description ?? null, input.currency, [...new Set(input.fulfilmentModes)], input.refundApprovalAbove ?? null, input.cashSaleLimit ?? null, input.checkoutMinutes ?? null]);
    await db.query('RELEASE SAVEPOINT store_shop');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT store_shop');
    unique(error, `There is a shop called ${input.name} already`, 'name');
  }
  const names = input.locations && input.locations.length > 0 ? input.locations : ['Main'];
  if (new Set(names.map((n) => n.toLowerCase())).size !== names.length) throw new StewardError('validation_failed', 'A location is named twice', { issues: [{ path: 'locations', message: 'name each location once' }] });
  for (const [index, name] of names.entries()) {
    await db.query('INSERT INTO store_locations (id, org_id, shop_id, name, is_default) VALUES ($1, $2, $3, $4, $5)', [randomUUID(), orgId, id, name, index === 0]);
  }
  return shopView(db, orgId, id);
}

const SHOP_MOVES: Record<ShopStatus, ShopStatus[]> = { draft: ['closed'], open: ['paused', 'closed'], paused: ['open', 'closed'], closed: [] };

export async function updateShop(db: Queryable, orgId: string, shopId: string, input: ShopInput & { status?: 'paused' | 'open' | 'closed' }): Promise<ShopView> {
  const shop = await shopRow(db, orgId, shopId, { forUpdate: true });
  if (shop.status === 'closed') throw new StewardError('conflict', `${shop.name} is closed`, { details: { reason: 'shop_closed' } });
  if (input.status && input.status !== shop.status) {
    if (input.status === 'open' && shop.status === 'draft') {
      throw new StewardError('conflict', `${shop.name} is a draft: opening it needs a person's approval`, { hint: 'Use store_open_shop.', details: { reason: 'use_open_shop' } });
    }
    if (!SHOP_MOVES[shop.status].includes(input.status)) {
      throw new StewardError('conflict', `${shop.name} cannot go from ${shop.status} to ${input.status}`, { details: { reason: 'invalid_transition', from: shop.status, to: input.status } });
    }
  }
  if (input.currency && input.currency !== shop.currency && await queryOne(db, 'SELECT 1 FROM store_orders WHERE org_id = $1 AND shop_id = $2 LIMIT 1', [orgId, shopId])) {
    throw new StewardError('conflict', `${shop.name} has orders: its currency cannot change`, { issues: [{ path: 'currency', message: 'fixed once the shop has orders' }] });
  }
  try {
    await db.query('SAVEPOINT store_shop');
    await db.query(`UPDATE store_shops SET name = coalesce($3, name), description = CASE WHEN $4::boolean THEN $5 ELSE description END, currency = coalesce($6, currency),
      fulfilment_modes = coalesce($7, fulfilment_modes), refund_approval_above_minor = coalesce($8, refund_approval_above_minor), cash_sale_limit_minor = coalesce($9, cash_sale_limit_minor),
      checkout_minutes = coalesce($10, checkout_minutes), status = coalesce($11, status), updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, shopId, input.name ?? null, input.description !== undefined, input.description ?? null, input.currency ?? null, input.fulfilmentModes ? [...new Set(input.fulfilmentModes)] : null,
      input.refundApprovalAbove ?? null, input.cashSaleLimit ?? null, input.checkoutMinutes ?? null, input.status ?? null]);
    await db.query('RELEASE SAVEPOINT store_shop');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT store_shop');
    unique(error, `There is a shop called ${input.name} already`, 'name');
  }
  for (const name of input.locations ?? []) {
    await db.query('INSERT INTO store_locations (id, org_id, shop_id, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [randomUUID(), orgId, shopId, name]);
  }
  return shopView(db, orgId, shopId);
}

/** Whether opening this shop needs approval: it is the caller's and a draft or paused (read-only). */
export async function shopExists(db: Queryable, orgId: string, shopId: string): Promise<boolean> {
  return Boolean(await queryOne(db, 'SELECT 1 FROM store_shops WHERE org_id = $1 AND id = $2', [orgId, shopId]));
}

export async function openShop(db: Queryable, orgId: string, shopId: string): Promise<{ shop: ShopView; checks: string[] }> {
  const shop = await shopRow(db, orgId, shopId, { forUpdate: true });
  if (shop.status === 'open') throw new StewardError('conflict', `${shop.name} is open already`, { details: { reason: 'already_open' } });
  if (shop.status === 'closed') throw new StewardError('conflict', `${shop.name} is closed for good`, { hint: 'Create a new shop.', details: { reason: 'shop_closed' } });
  const active = (await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM store_products WHERE org_id = $1 AND shop_id = $2 AND status = 'active'`, [orgId, shopId]))!.n;
  if (active === 0) throw new StewardError('conflict', `${shop.name} has no active product to sell`, { hint: 'Create a product with status active first (store_create_product).', details: { reason: 'no_active_products' } });
  await db.query(`UPDATE store_shops SET status = 'open', opened_at = coalesce(opened_at, now()), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, shopId]);
  return { shop: await shopView(db, orgId, shopId), checks: [`${active} active product${active === 1 ? '' : 's'}`] };
}

// ---------------------------------------------------------------- products and variants

export type ProductKind = 'physical' | 'digital' | 'ticket';
export type ProductStatus = 'draft' | 'active' | 'archived';

interface ProductRow {
  id: string; shop_id: string; kind: ProductKind; title: string; description: string | null; status: ProductStatus; image_media_id: string | null;
  download_url: string | null; download_limit: number; download_days: number; created_at: Date;
}

export interface VariantView {
  id: string; sku: string; title: string; price: number; trackInventory: boolean; oversell: 'deny' | 'continue'; lowStockThreshold: number;
  inventory: { available: number; committed: number; unavailable: number; onHand: number; locations: Array<{ locationId: string; name: string; available: number; committed: number; unavailable: number; onHand: number }> } | null;
}

export interface ProductView {
  id: string; shopId: string; kind: ProductKind; title: string; description: string | null; status: ProductStatus; imageMediaId: string | null;
  hasDownload: boolean; downloadLimit: number; downloadDays: number; variants: VariantView[]; createdAt: string;
}

export async function productRow(db: Queryable, orgId: string, productId: string, options: { forUpdate?: boolean } = {}): Promise<ProductRow> {
  const row = await queryOne<ProductRow>(db, `SELECT * FROM store_products WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, productId]);
  if (!row) throw notFound('Product', productId, 'store_list_products lists a shop\'s products.');
  return row;
}

export async function variantView(db: Queryable, orgId: string, variant: { id: string; sku: string; title: string; price_minor: number; track_inventory: boolean; oversell: 'deny' | 'continue'; low_stock_threshold: number }): Promise<VariantView> {
  let inventory: VariantView['inventory'] = null;
  if (variant.track_inventory) {
    const levels = await queryRows<{ location_id: string; name: string; available: number; committed: number; unavailable: number }>(db, `SELECT i.location_id, l.name, i.available, i.committed, i.unavailable
      FROM store_inventory_levels i JOIN store_locations l ON l.id = i.location_id WHERE i.org_id = $1 AND i.variant_id = $2 ORDER BY l.is_default DESC, l.created_at, l.id`, [orgId, variant.id]);
    const sum = (key: 'available' | 'committed' | 'unavailable') => levels.reduce((total, level) => total + level[key], 0);
    inventory = {
      available: sum('available'), committed: sum('committed'), unavailable: sum('unavailable'), onHand: sum('available') + sum('committed') + sum('unavailable'),
      locations: levels.map((l) => ({ locationId: l.location_id, name: l.name, available: l.available, committed: l.committed, unavailable: l.unavailable, onHand: l.available + l.committed + l.unavailable })),
    };
  }
  return { id: variant.id, sku: variant.sku, title: variant.title, price: variant.price_minor, trackInventory: variant.track_inventory, oversell: variant.oversell, lowStockThreshold: variant.low_stock_threshold, inventory };
}

export async function productView(db: Queryable, orgId: string, productId: string): Promise<ProductView> {
  const row = await productRow(db, orgId, productId);
  const variants = await queryRows<{ id: string; sku: string; title: string; price_minor: number; track_inventory: boolean; oversell: 'deny' | 'continue'; low_stock_threshold: number }>(db,
    'SELECT * FROM store_variants WHERE org_id = $1 AND product_id = $2 ORDER BY created_at, id', [orgId, productId]);
  const views = [];
  for (const variant of variants) views.push(await variantView(db, orgId, variant));
  return {
    id: row.id, shopId: row.shop_id, kind: row.kind, title: row.title, description: row.description, status: row.status, imageMediaId: row.image_media_id,
    hasDownload: row.download_url !== null, downloadLimit: row.download_limit, downloadDays: row.download_days, variants: views, createdAt: row.created_at.toISOString(),
  };
}

export async function listProducts(db: Queryable, orgId: string, filter: { shopId?: string; status?: ProductStatus; kind?: ProductKind; limit: number }): Promise<ProductView[]> {
  const rows = await queryRows<{ id: string }>(db, `SELECT id FROM store_products WHERE org_id = $1 AND ($2::uuid IS NULL OR shop_id = $2) AND ($3::text IS NULL OR status = $3)
    AND ($4::text IS NULL OR kind = $4) ORDER BY created_at, id LIMIT $5`, [orgId, filter.shopId ?? null, filter.status ?? null, filter.kind ?? null, filter.limit]);
  const views = [];
  for (const row of rows) views.push(await productView(db, orgId, row.id));
  return views;
}

export interface VariantInput { sku: string; title?: string; price: number; trackInventory?: boolean; oversell?: 'deny' | 'continue'; lowStockThreshold?: number; initialStock?: number }

async function insertVariant(db: Queryable, orgId: string, shopId: string, productId: string, kind: ProductKind, input: VariantInput, userId: string | null): Promise<void> {
  const id = randomUUID();
  const tracked = input.trackInventory ?? kind !== 'digital';
  try {
    await db.query('SAVEPOINT store_variant');
    await db.query(`INSERT INTO store_variants (id, org_id, product_id, sku, title, price_minor, track_inventory, oversell, low_stock_threshold) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [id, orgId, productId, input.sku, input.title ?? 'Default', input.price, tracked, input.oversell ?? 'deny', input.lowStockThreshold ?? 0]);
    await db.query('RELEASE SAVEPOINT store_variant');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT store_variant');
    unique(error, `SKU ${input.sku} is used already`, 'variants.sku');
  }
  if (tracked) {
    const location = await defaultLocation(db, orgId, shopId);
    await db.query('INSERT INTO store_inventory_levels (org_id, variant_id, location_id, available) VALUES ($1, $2, $3, $4)', [orgId, id, location, input.initialStock ?? 0]);
    if (input.initialStock) await ledger(db, orgId, { variantId: id, locationId: location, state: 'available', delta: input.initialStock, reason: 'received', reference: 'initial stock', userId });
  } else if (input.initialStock) {
    throw new StewardError('validation_failed', 'An untracked variant has no stock to set', { issues: [{ path: 'variants.initialStock', message: 'only for tracked variants' }] });
  }
}

export async function defaultLocation(db: Queryable, orgId: string, shopId: string): Promise<string> {
  return (await queryOne<{ id: string }>(db, 'SELECT id FROM store_locations WHERE org_id = $1 AND shop_id = $2 AND is_default', [orgId, shopId]))!.id;
}

export async function createProduct(db: Queryable, orgId: string, userId: string | null, input: {
  shopId: string; kind: ProductKind; title: string; description?: string | null; status?: 'draft' | 'active'; imageMediaId?: string | null;
  downloadUrl?: string | null; downloadLimit?: number; downloadDays?: number; variants: VariantInput[];
}): Promise<ProductView> {
  const shop = await shopRow(db, orgId, input.shopId);
  if (shop.status === 'closed') throw new StewardError('conflict', `${shop.name} is closed`, { details: { reason: 'shop_closed' } });
  if (input.kind === 'digital' && !input.downloadUrl) throw new StewardError('validation_failed', 'A digital product needs its downloadUrl', { issues: [{ path: 'downloadUrl', message: 'required for digital products' }] });
  if (input.kind !== 'digital' && input.downloadUrl) throw new StewardError('validation_failed', 'Only a digital product has a download', { issues: [{ path: 'downloadUrl', message: 'only for digital products' }] });
  if (input.kind === 'digital' && !shop.fulfilment_modes.includes('digital')) {
    throw new StewardError('conflict', `${shop.name} does not deliver digitally`, { hint: 'Add digital to its fulfilmentModes (store_update_shop).', issues: [{ path: 'kind', message: 'the shop has no digital fulfilment' }] });
  }
  const id = randomUUID();
  await db.query(`INSERT INTO store_products (id, org_id, shop_id, kind, title, description, status, image_media_id, download_url, download_limit, download_days)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10, 5), coalesce($11, 7))`,
  [id, orgId, shop.id, input.kind, input.title, input.description ?? null, input.status ?? 'draft', input.imageMediaId ?? null, input.downloadUrl ?? null, input.downloadLimit ?? null, input.downloadDays ?? null]);
  for (const variant of input.variants) await insertVariant(db, orgId, shop.id, id, input.kind, variant, userId);
  return productView(db, orgId, id);
}

export async function updateProduct(db: Queryable, orgId: string, userId: string | null, input: {
  productId: string; title?: string; description?: string | null; status?: 'draft' | 'active'; imageMediaId?: string | null; downloadUrl?: string;
  downloadLimit?: number; downloadDays?: number; variants?: Array<{ variantId: string; price?: number; title?: string; oversell?: 'deny' | 'continue'; lowStockThreshold?: number }>;
  addVariants?: VariantInput[];
}): Promise<ProductView> {
  const product = await productRow(db, orgId, input.productId, { forUpdate: true });
  if (product.status === 'archived') throw new StewardError('conflict', `${product.title} is archived`, { details: { reason: 'product_archived' } });
  if (input.downloadUrl && product.kind !== 'digital') throw new StewardError('validation_failed', 'Only a digital product has a download', { issues: [{ path: 'downloadUrl', message: 'only for digital products' }] });
  await db.query(`UPDATE store_products SET title = coalesce($3, title), description = CASE WHEN $4::boolean THEN $5 ELSE description END, status = coalesce($6, status),
    image_media_id = CASE WHEN $7::boolean THEN $8::uuid ELSE image_media_id END, download_url = coalesce($9, download_url), download_limit = coalesce($10, download_limit),
    download_days = coalesce($11, download_days), updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, product.id, input.title ?? null, input.description !== undefined, input.description ?? null, input.status ?? null, input.imageMediaId !== undefined, input.imageMediaId ?? null,
    input.downloadUrl ?? null, input.downloadLimit ?? null, input.downloadDays ?? null]);
  for (const [index, change] of (input.variants ?? []).entries()) {
    // A price change reaches new checkouts only: every order's lines keep the price they were sold at.
    const done = await db.query(`UPDATE store_variants SET price_minor = coalesce($4, price_minor), title = coalesce($5, title), oversell = coalesce($6, oversell),
      low_stock_threshold = coalesce($7, low_stock_threshold), updated_at = now() WHERE org_id = $1 AND product_id = $2 AND id = $3`,
    [orgId, product.id, change.variantId, change.price ?? null, change.title ?? null, change.oversell ?? null, change.lowStockThreshold ?? null]);
    if ((done.rowCount ?? 0) === 0) throw new StewardError('not_found', `Variant ${change.variantId} of this product was not found`, { issues: [{ path: `variants.${index}.variantId`, message: 'not a variant of this product' }] });
  }
  for (const variant of input.addVariants ?? []) await insertVariant(db, orgId, product.shop_id, product.id, product.kind, variant, userId);
  return productView(db, orgId, product.id);
}

export async function archiveProduct(db: Queryable, orgId: string, productId: string): Promise<{ product: ProductView; alreadyArchived: boolean }> {
  const done = await db.query(`UPDATE store_products SET status = 'archived', archived_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2 AND status <> 'archived'`, [orgId, productId]);
  const product = await productView(db, orgId, productId);
  return { product, alreadyArchived: (done.rowCount ?? 0) === 0 };
}

// ---------------------------------------------------------------- inventory

export type InventoryState = 'available' | 'committed' | 'unavailable';

async function ledger(db: Queryable, orgId: string, entry: { variantId: string; locationId: string; state: InventoryState; delta: number; reason: string; reference?: string | null; orderId?: string | null; userId?: string | null }): Promise<void> {
  await db.query(`INSERT INTO store_inventory_adjustments (id, org_id, variant_id, location_id, state, delta, reason, reference, order_id, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [randomUUID(), orgId, entry.variantId, entry.locationId, entry.state, entry.delta, entry.reason, entry.reference ?? null, entry.orderId ?? null, entry.userId ?? null]);
}
export { ledger as recordInventoryChange };

interface LevelTarget { variantId: string; locationId?: string }

async function trackedVariant(db: Queryable, orgId: string, target: LevelTarget): Promise<{ variant: { id: string; sku: string; oversell: 'deny' | 'continue' }; locationId: string }> {
  const variant = await queryOne<{ id: string; sku: string; oversell: 'deny' | 'continue'; track_inventory: boolean; shop_id: string }>(db,
    'SELECT v.id, v.sku, v.oversell, v.track_inventory, p.shop_id FROM store_variants v JOIN store_products p ON p.id = v.product_id WHERE v.org_id = $1 AND v.id = $2', [orgId, target.variantId]);
  if (!variant) throw notFound('Variant', target.variantId, 'store_list_products lists products with their variants.');
  if (!variant.track_inventory) throw new StewardError('conflict', `${variant.sku} does not track inventory`, { details: { reason: 'not_tracked' } });
  let locationId = target.locationId;
  if (locationId) {
    if (!await queryOne(db, 'SELECT 1 FROM store_locations WHERE org_id = $1 AND shop_id = $2 AND id = $3', [orgId, variant.shop_id, locationId])) throw notFound('Location of this shop', locationId);
  } else locationId = await defaultLocation(db, orgId, variant.shop_id);
  await db.query('INSERT INTO store_inventory_levels (org_id, variant_id, location_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [orgId, variant.id, locationId]);
  return { variant, locationId };
}

async function levelOf(db: Queryable, orgId: string, variantId: string, locationId: string) {
  return (await queryOne<{ available: number; committed: number; unavailable: number }>(db,
    'SELECT available, committed, unavailable FROM store_inventory_levels WHERE org_id = $1 AND variant_id = $2 AND location_id = $3', [orgId, variantId, locationId]))!;
}

export interface LevelView { variantId: string; locationId: string; available: number; committed: number; unavailable: number; onHand: number }

const levelView = (variantId: string, locationId: string, level: { available: number; committed: number; unavailable: number }): LevelView =>
  ({ variantId, locationId, ...level, onHand: level.available + level.committed + level.unavailable });

/**
 * Moves a quantity state by a delta (received stock, a count, damage), with a reason and a
 * reference recorded in the ledger. One conditional update: under deny, available never goes
 * below zero (refused, nothing changed); committed and unavailable never do.
 */
export async function adjustInventory(db: Queryable, orgId: string, userId: string | null, input: LevelTarget & { delta: number; state?: 'available' | 'unavailable'; reason: string; reference?: string }): Promise<LevelView> {
  const { variant, locationId } = await trackedVariant(db, orgId, input);
  const state = input.state ?? 'available';
  const floor = state === 'available' && variant.oversell === 'continue' ? null : 0;
  const done = await db.query(`UPDATE store_inventory_levels SET ${state} = ${state} + $4, updated_at = now()
    WHERE org_id = $1 AND variant_id = $2 AND location_id = $3 AND ($5::int IS NULL OR ${state} + $4 >= $5)`, [orgId, variant.id, locationId, input.delta, floor]);
  if ((done.rowCount ?? 0) === 0) {
    const level = await levelOf(db, orgId, variant.id, locationId);
    throw new StewardError('conflict', `${variant.sku} has ${level[state]} ${state}: taking ${-input.delta} would go below zero`, {
      hint: 'Its oversell policy is deny. Count the stock again (store_set_inventory) or adjust by less.', details: { reason: 'below_zero', [state]: level[state] },
    });
  }
  await ledger(db, orgId, { variantId: variant.id, locationId, state, delta: input.delta, reason: input.reason, reference: input.reference, userId });
  return levelView(variant.id, locationId, await levelOf(db, orgId, variant.id, locationId));
}

/** Sets a quantity state to a counted value, only if it still holds what the caller last saw (compare-and-set). */
export async function setInventory(db: Queryable, orgId: string, userId: string | null, input: LevelTarget & { quantity: number; expected: number; state?: 'available' | 'unavailable'; reason: string; reference?: string }): Promise<LevelView> {
  const { variant, locationId } = await trackedVariant(db, orgId, input);
  const state = input.state ?? 'available';
  const done = await db.query(`UPDATE store_inventory_levels SET ${state} = $4, updated_at = now() WHERE org_id = $1 AND variant_id = $2 AND location_id = $3 AND ${state} = $5`,
    [orgId, variant.id, locationId, input.quantity, input.expected]);
  if ((done.rowCount ?? 0) === 0) {
    const level = await levelOf(db, orgId, variant.id, locationId);
    throw new StewardError('conflict', `${variant.sku} has ${level[state]} ${state}, not ${input.expected}: it changed since it was read`, {
      hint: 'Read it again (store_list_products) and set it with the new expected value.', details: { reason: 'stale_expected', actual: level[state] },
    });
  }
  if (input.quantity !== input.expected) await ledger(db, orgId, { variantId: variant.id, locationId, state, delta: input.quantity - input.expected, reason: input.reason, reference: input.reference, userId });
  return levelView(variant.id, locationId, await levelOf(db, orgId, variant.id, locationId));
}

export async function lowStock(db: Queryable, orgId: string, shopId: string | undefined, limit: number) {
  if (shopId) await shopRow(db, orgId, shopId);
  return queryRows<{ variantId: string; sku: string; productId: string; productTitle: string; available: number; threshold: number }>(db, `SELECT v.id AS "variantId", v.sku, p.id AS "productId",
    p.title AS "productTitle", coalesce(sum(i.available), 0)::int AS available, v.low_stock_threshold AS threshold
    FROM store_variants v JOIN store_products p ON p.id = v.product_id LEFT JOIN store_inventory_levels i ON i.variant_id = v.id
    WHERE v.org_id = $1 AND v.track_inventory AND p.status <> 'archived' AND ($2::uuid IS NULL OR p.shop_id = $2)
    GROUP BY v.id, p.id HAVING coalesce(sum(i.available), 0) <= v.low_stock_threshold ORDER BY available, v.sku LIMIT $3`, [orgId, shopId ?? null, limit]);
}
