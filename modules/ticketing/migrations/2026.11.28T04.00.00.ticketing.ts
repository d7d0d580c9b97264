import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = [
  'ticketing_events', 'ticketing_pools', 'ticketing_ticket_types', 'ticketing_type_pools', 'ticketing_holds', 'ticketing_promo_codes',
  'ticketing_reservations', 'ticketing_reservation_items', 'ticketing_orders', 'ticketing_order_lines', 'ticketing_tickets',
  'ticketing_refunds', 'ticketing_waitlist_entries', 'ticketing_payment_events',
];

/**
 * Ticketing: events, their ticket types and the capacity pools the types count against, holds,
 * reservations (carts with a time limit), orders priced on the server, issued tickets with
 * unguessable barcodes, refunds, promo codes, waitlists and the payment provider's events
 * (deduplicated by id). Places in use for a pool are counted from the live rows (tickets not
 * void, pending reservation items, active holds) under a lock on the pool's row, so no sale,
 * hold or offer ever takes a pool past its capacity.
 */
export const ticketingMigration: Migration = {
  name: '2026.11.28T04.00.00.ticketing',
  up: `
CREATE TABLE ticketing_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 4000),
  venue text CHECK (venue IS NULL OR length(venue) <= 300),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz,
  time_zone text NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'sales_closed', 'completed', 'cancelled')),
  schedule_instance_id text CHECK (schedule_instance_id IS NULL OR length(schedule_instance_id) <= 200),
  spaces_booking_id uuid,
  reservation_minutes integer NOT NULL DEFAULT 15 CHECK (reservation_minutes BETWEEN 1 AND 1440),
  offer_minutes integer NOT NULL DEFAULT 1440 CHECK (offer_minutes BETWEEN 1 AND 20160),
  refund_approval_above_minor integer NOT NULL DEFAULT 10000 CHECK (refund_approval_above_minor >= 0),
  published_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at IS NULL OR ends_at > starts_at)
);
CREATE INDEX ticketing_events_org_idx ON ticketing_events (org_id, starts_at);

CREATE TABLE ticketing_pools (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('event', 'type', 'shared')),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  capacity integer NOT NULL CHECK (capacity BETWEEN 0 AND 1000000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_pools_event_idx ON ticketing_pools (org_id, event_id);
CREATE UNIQUE INDEX ticketing_pools_one_event_pool ON ticketing_pools (event_id) WHERE kind = 'event';

CREATE TABLE ticketing_ticket_types (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 1000),
  price_minor integer NOT NULL CHECK (price_minor BETWEEN 0 AND 100000000),
  capacity integer CHECK (capacity IS NULL OR capacity BETWEEN 0 AND 1000000),
  min_per_order integer NOT NULL DEFAULT 1 CHECK (min_per_order BETWEEN 1 AND 100),
  max_per_order integer NOT NULL DEFAULT 10 CHECK (max_per_order BETWEEN 1 AND 100),
  sales_start timestamptz,
  sales_end timestamptz,
  access_code_hash text,
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (min_per_order <= max_per_order),
  CHECK (sales_start IS NULL OR sales_end IS NULL OR sales_end > sales_start)
);
CREATE INDEX ticketing_ticket_types_event_idx ON ticketing_ticket_types (org_id, event_id);
CREATE UNIQUE INDEX ticketing_ticket_types_name ON ticketing_ticket_types (event_id, lower(name)) WHERE archived_at IS NULL;

CREATE TABLE ticketing_type_pools (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  pool_id uuid NOT NULL REFERENCES ticketing_pools(id) ON DELETE CASCADE,
  PRIMARY KEY (ticket_type_id, pool_id)
);
CREATE INDEX ticketing_type_pools_pool_idx ON ticketing_type_pools (pool_id);

CREATE TABLE ticketing_holds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 100000),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 300),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'released')),
  created_by_user_id uuid,
  released_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_holds_event_idx ON ticketing_holds (org_id, event_id) WHERE status = 'active';

CREATE TABLE ticketing_promo_codes (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  code text NOT NULL CHECK (code ~ '^[A-Z0-9_-]{3,40}$'),
  kind text NOT NULL CHECK (kind IN ('percent', 'fixed')),
  amount integer NOT NULL CHECK (amount > 0),
  max_uses integer CHECK (max_uses IS NULL OR max_uses > 0),
  valid_from timestamptz,
  valid_until timestamptz,
  ticket_type_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'percent' OR amount <= 100)
);
CREATE UNIQUE INDEX ticketing_promo_codes_code ON ticketing_promo_codes (event_id, code);

CREATE TABLE ticketing_waitlist_entries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  position bigserial NOT NULL,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  name text CHECK (name IS NULL OR length(name) <= 200),
  email text CHECK (email IS NULL OR length(email) <= 320),
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 20),
  status text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'offered', 'purchased', 'expired', 'removed')),
  offered_at timestamptz,
  offer_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_waitlist_queue_idx ON ticketing_waitlist_entries (org_id, event_id, ticket_type_id, position) WHERE status = 'waiting';

CREATE TABLE ticketing_reservations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'expired', 'cancelled')),
  expires_at timestamptz NOT NULL,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  waitlist_entry_id uuid REFERENCES ticketing_waitlist_entries(id) ON DELETE SET NULL,
  access_code text CHECK (access_code IS NULL OR length(access_code) <= 100),
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_reservations_pending_idx ON ticketing_reservations (org_id, event_id) WHERE status = 'pending';

CREATE TABLE ticketing_reservation_items (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  reservation_id uuid NOT NULL REFERENCES ticketing_reservations(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 100),
  PRIMARY KEY (reservation_id, ticket_type_id)
);

CREATE TABLE ticketing_orders (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  reservation_id uuid REFERENCES ticketing_reservations(id) ON DELETE SET NULL,
  kind text NOT NULL DEFAULT 'sale' CHECK (kind IN ('sale', 'comp')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'partially_refunded', 'refunded', 'cancelled')),
  cancel_reason text,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  buyer_name text CHECK (buyer_name IS NULL OR length(buyer_name) <= 200),
  buyer_email text CHECK (buyer_email IS NULL OR length(buyer_email) <= 320),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  subtotal_minor integer NOT NULL CHECK (subtotal_minor >= 0),
  discount_minor integer NOT NULL DEFAULT 0 CHECK (discount_minor >= 0),
  total_minor integer NOT NULL CHECK (total_minor >= 0),
  refunded_minor integer NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
  promo_code_id uuid REFERENCES ticketing_promo_codes(id) ON DELETE SET NULL,
  provider text,
  checkout_session_id text UNIQUE,
  checkout_url text,
  payment_intent_id text,
  paid_at timestamptz,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (total_minor = subtotal_minor - discount_minor),
  CHECK (refunded_minor <= total_minor)
);
CREATE INDEX ticketing_orders_org_idx ON ticketing_orders (org_id, created_at DESC, id DESC);
CREATE INDEX ticketing_orders_event_idx ON ticketing_orders (org_id, event_id, status);
CREATE INDEX ticketing_orders_promo_idx ON ticketing_orders (promo_code_id) WHERE promo_code_id IS NOT NULL;

CREATE TABLE ticketing_order_lines (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES ticketing_orders(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  name text NOT NULL,
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 100),
  unit_price_minor integer NOT NULL CHECK (unit_price_minor >= 0),
  discount_minor integer NOT NULL DEFAULT 0 CHECK (discount_minor >= 0)
);
CREATE INDEX ticketing_order_lines_order_idx ON ticketing_order_lines (order_id);

CREATE TABLE ticketing_tickets (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES ticketing_events(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES ticketing_orders(id) ON DELETE CASCADE,
  ticket_type_id uuid NOT NULL REFERENCES ticketing_ticket_types(id) ON DELETE CASCADE,
  barcode text NOT NULL UNIQUE CHECK (barcode ~ '^TKT-[A-Z2-7]{26}$'),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'void')),
  price_paid_minor integer NOT NULL CHECK (price_paid_minor >= 0),
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  holder_name text CHECK (holder_name IS NULL OR length(holder_name) <= 200),
  checked_in_at timestamptz,
  checked_in_by_user_id uuid,
  voided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_tickets_event_idx ON ticketing_tickets (org_id, event_id, ticket_type_id) WHERE status <> 'void';
CREATE INDEX ticketing_tickets_order_idx ON ticketing_tickets (order_id);

CREATE TABLE ticketing_refunds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  order_id uuid NOT NULL REFERENCES ticketing_orders(id) ON DELETE CASCADE,
  amount_minor integer NOT NULL CHECK (amount_minor >= 0),
  ticket_ids uuid[] NOT NULL DEFAULT '{}',
  reason text CHECK (reason IS NULL OR length(reason) <= 500),
  provider_refund_id text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticketing_refunds_order_idx ON ticketing_refunds (order_id);

CREATE TABLE ticketing_payment_events (
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
DROP TABLE ticketing_payment_events, ticketing_refunds, ticketing_tickets, ticketing_order_lines, ticketing_orders, ticketing_reservation_items,
  ticketing_reservations, ticketing_waitlist_entries, ticketing_promo_codes, ticketing_holds, ticketing_type_pools, ticketing_ticket_types,
  ticketing_pools, ticketing_events;
`,
};
