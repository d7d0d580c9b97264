import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = [
  'store_shops', 'store_locations', 'store_products', 'store_variants', 'store_inventory_levels', 'store_inventory_adjustments',
  'store_orders', 'store_order_lines', 'store_fulfilments', 'store_refunds', 'store_entitlements', 'store_payment_events',
];

/**
 * Store: shops, products and their variants, inventory per location in Shopify's quantity states
 * (available, committed, unavailable; on hand is their sum) with a ledger of every change, orders
 * (online through a checkout session whose units are committed until it is paid or expires, or a
 * cash sale at the bookstall) with their lines' prices snapshotted, fulfilments, refunds, digital
 * entitlements and the payment provider's events (deduplicated by id).
 */
export const storeMigration: Migration = {
  name: '2026.11.28T05.00.00.store',
  up: `
CREATE TABLE store_shops (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 2000),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  fulfilment_modes text[] NOT NULL CHECK (cardinality(fulfilment_modes) >= 1 AND fulfilment_modes <@ ARRAY['pickup', 'ship', 'digital']),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'paused', 'closed')),
  refund_approval_above_minor integer NOT NULL DEFAULT 5000 CHECK (refund_approval_above_minor >= 0),
  cash_sale_limit_minor integer NOT NULL DEFAULT 10000 CHECK (cash_sale_limit_minor >= 0),
  checkout_minutes integer NOT NULL DEFAULT 30 CHECK (checkout_minutes BETWEEN 1 AND 1440),
  opened_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_shops_name ON store_shops (org_id, lower(name));

CREATE TABLE store_locations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  shop_id uuid NOT NULL REFERENCES store_shops(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_locations_name ON store_locations (shop_id, lower(name));
CREATE UNIQUE INDEX store_locations_default ON store_locations (shop_id) WHERE is_default;

CREATE TABLE store_products (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  shop_id uuid NOT NULL REFERENCES store_shops(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('physical', 'digital', 'ticket')),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 4000),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
  image_media_id uuid,
  download_url text CHECK (download_url IS NULL OR length(download_url) <= 2000),
  download_limit integer NOT NULL DEFAULT 5 CHECK (download_limit BETWEEN 1 AND 100),
  download_days integer NOT NULL DEFAULT 7 CHECK (download_days BETWEEN 1 AND 365),
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'digital' OR download_url IS NOT NULL)
);
CREATE INDEX store_products_shop_idx ON store_products (org_id, shop_id, created_at);

CREATE TABLE store_variants (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES store_products(id) ON DELETE CASCADE,
  sku text NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  price_minor integer NOT NULL CHECK (price_minor BETWEEN 0 AND 100000000),
  track_inventory boolean NOT NULL DEFAULT true,
  oversell text NOT NULL DEFAULT 'deny' CHECK (oversell IN ('deny', 'continue')),
  low_stock_threshold integer NOT NULL DEFAULT 0 CHECK (low_stock_threshold >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX store_variants_sku ON store_variants (org_id, lower(sku));
CREATE INDEX store_variants_product_idx ON store_variants (product_id);

CREATE TABLE store_inventory_levels (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  variant_id uuid NOT NULL REFERENCES store_variants(id) ON DELETE CASCADE,
  location_id uuid NOT NULL REFERENCES store_locations(id) ON DELETE CASCADE,
  available integer NOT NULL DEFAULT 0,
  committed integer NOT NULL DEFAULT 0 CHECK (committed >= 0),
  unavailable integer NOT NULL DEFAULT 0 CHECK (unavailable >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (variant_id, location_id)
);

CREATE TABLE store_inventory_adjustments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  variant_id uuid NOT NULL REFERENCES store_variants(id) ON DELETE CASCADE,
  location_id uuid NOT NULL REFERENCES store_locations(id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('available', 'committed', 'unavailable')),
  delta integer NOT NULL,
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 100),
  reference text CHECK (reference IS NULL OR length(reference) <= 200),
  order_id uuid,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX store_inventory_adjustments_variant_idx ON store_inventory_adjustments (org_id, variant_id, created_at);

CREATE TABLE store_orders (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  shop_id uuid NOT NULL REFERENCES store_shops(id) ON DELETE CASCADE,
  location_id uuid NOT NULL REFERENCES store_locations(id),
  source text NOT NULL CHECK (source IN ('online', 'cash')),
  financial_status text NOT NULL CHECK (financial_status IN ('pending', 'paid', 'partially_refunded', 'refunded', 'voided', 'expired')),
  fulfilment_status text NOT NULL DEFAULT 'unfulfilled' CHECK (fulfilment_status IN ('unfulfilled', 'partial', 'fulfilled')),
  units_held boolean NOT NULL DEFAULT false,
  contact_id uuid,
  buyer_name text CHECK (buyer_name IS NULL OR length(buyer_name) <= 200),
  buyer_email text CHECK (buyer_email IS NULL OR length(buyer_email) <= 320),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  total_minor integer NOT NULL CHECK (total_minor >= 0),
  refunded_minor integer NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
  checkout_session_id text,
  checkout_url text,
  payment_intent_id text,
  expires_at timestamptz,
  paid_at timestamptz,
  cancel_reason text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (refunded_minor <= total_minor)
);
CREATE INDEX store_orders_org_idx ON store_orders (org_id, created_at, id);
CREATE UNIQUE INDEX store_orders_session ON store_orders (checkout_session_id) WHERE checkout_session_id IS NOT NULL;

CREATE TABLE store_order_lines (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES store_orders(id) ON DELETE CASCADE,
  variant_id uuid NOT NULL REFERENCES store_variants(id),
  product_id uuid NOT NULL REFERENCES store_products(id),
  kind text NOT NULL,
  title text NOT NULL,
  sku text NOT NULL,
  tracked boolean NOT NULL,
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
  unit_price_minor integer NOT NULL CHECK (unit_price_minor >= 0),
  fulfilled_quantity integer NOT NULL DEFAULT 0 CHECK (fulfilled_quantity >= 0),
  refunded_quantity integer NOT NULL DEFAULT 0 CHECK (refunded_quantity >= 0),
  CHECK (fulfilled_quantity <= quantity AND refunded_quantity <= quantity)
);
CREATE INDEX store_order_lines_order_idx ON store_order_lines (order_id);

CREATE TABLE store_fulfilments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES store_orders(id) ON DELETE CASCADE,
  mode text NOT NULL CHECK (mode IN ('pickup', 'ship', 'digital', 'in_person')),
  lines jsonb NOT NULL,
  tracking text CHECK (tracking IS NULL OR length(tracking) <= 200),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX store_fulfilments_order_idx ON store_fulfilments (order_id);

CREATE TABLE store_refunds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES store_orders(id) ON DELETE CASCADE,
  amount_minor integer NOT NULL CHECK (amount_minor >= 0),
  restock boolean NOT NULL,
  lines jsonb NOT NULL,
  reason text CHECK (reason IS NULL OR length(reason) <= 500),
  provider_refund_id text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX store_refunds_order_idx ON store_refunds (order_id);

CREATE TABLE store_entitlements (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES store_orders(id) ON DELETE CASCADE,
  order_line_id uuid NOT NULL REFERENCES store_order_lines(id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES store_products(id),
  contact_id uuid,
  signing_key text NOT NULL,
  expires_at timestamptz NOT NULL,
  download_limit integer NOT NULL,
  download_count integer NOT NULL DEFAULT 0 CHECK (download_count >= 0),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (download_count <= download_limit)
);
CREATE UNIQUE INDEX store_entitlements_line ON store_entitlements (order_line_id);

CREATE TABLE store_payment_events (
  provider_event_id text PRIMARY KEY CHECK (length(provider_event_id) BETWEEN 1 AND 255),
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  type text NOT NULL,
  order_id uuid,
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE store_payment_events, store_entitlements, store_refunds, store_fulfilments, store_order_lines, store_orders, store_inventory_adjustments,
  store_inventory_levels, store_variants, store_products, store_locations, store_shops;
`,
};
