import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['billing_subscriptions', 'billing_checkouts', 'billing_invoices', 'billing_spend_caps', 'billing_webhook_events'];

/**
 * Billing: the organisation's own Steward plan. Plan prices (reference data beside the kernel's
 * plans), one subscription per organisation with Stripe's states, the checkout sessions opened to
 * change plan (granted only by the signed webhook), invoices, spend caps per metered feature, and
 * the provider's events (deduplicated by id; the subscription keeps the time of the newest event
 * applied, so an older one arriving late changes nothing).
 */
export const billingMigration: Migration = {
  name: '2026.11.28T06.00.00.billing',
  up: `
CREATE TABLE billing_plan_prices (
  plan_code text PRIMARY KEY REFERENCES plans(code),
  amount_minor integer NOT NULL CHECK (amount_minor >= 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  rank integer NOT NULL UNIQUE
);
INSERT INTO billing_plan_prices (plan_code, amount_minor, currency, rank) VALUES
  ('starter', 0, 'GBP', 1), ('growth', 4900, 'GBP', 2), ('enterprise', 19900, 'GBP', 3)
ON CONFLICT DO NOTHING;

CREATE TABLE billing_subscriptions (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  plan_code text NOT NULL REFERENCES plans(code),
  status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused')),
  trial_ends_at timestamptz,
  current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  canceled_at timestamptz,
  past_due_since timestamptz,
  provider_customer_id text CHECK (provider_customer_id IS NULL OR length(provider_customer_id) <= 255),
  provider_subscription_id text CHECK (provider_subscription_id IS NULL OR length(provider_subscription_id) <= 255),
  last_event_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (current_period_end > current_period_start)
);

CREATE TABLE billing_checkouts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_code text NOT NULL REFERENCES plans(code),
  provider_session_id text NOT NULL UNIQUE,
  amount_minor integer NOT NULL CHECK (amount_minor >= 0),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'complete', 'expired')),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX billing_checkouts_org_idx ON billing_checkouts (org_id, created_at);

CREATE TABLE billing_invoices (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  number text NOT NULL,
  provider_ref text NOT NULL UNIQUE,
  plan_code text NOT NULL REFERENCES plans(code),
  status text NOT NULL CHECK (status IN ('open', 'paid', 'void', 'uncollectible')),
  amount_due_minor integer NOT NULL CHECK (amount_due_minor >= 0),
  amount_paid_minor integer NOT NULL DEFAULT 0 CHECK (amount_paid_minor >= 0 AND amount_paid_minor <= amount_due_minor),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  paid_at timestamptz,
  UNIQUE (org_id, number)
);
CREATE INDEX billing_invoices_org_idx ON billing_invoices (org_id, created_at DESC, id DESC);

CREATE TABLE billing_spend_caps (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  feature text NOT NULL,
  cap_units integer NOT NULL CHECK (cap_units >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, feature)
);

CREATE TABLE billing_webhook_events (
  provider_event_id text PRIMARY KEY CHECK (length(provider_event_id) BETWEEN 1 AND 255),
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  type text NOT NULL,
  event_created_at timestamptz NOT NULL,
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE billing_webhook_events, billing_spend_caps, billing_invoices, billing_checkouts, billing_subscriptions, billing_plan_prices;
`,
};
