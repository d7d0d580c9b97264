import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Money columns are bigint minor units, bounded so every value is a safe JavaScript integer
 * (node-pg and Sequelize read bigint as a string; services convert with `minorUnits`).
 * A donation's currency is the organisation's, fixed when it is recorded.
 */
const MAX_MINOR = '100000000000'; // 1,000,000,000.00 in a two-decimal currency

const TABLES = [
  'giving_funds', 'giving_givers', 'giving_batches', 'giving_pledge_campaigns', 'giving_pledges',
  'giving_recurring_gifts', 'giving_donations', 'giving_designations', 'giving_refunds',
];

export const giving: Migration = {
  name: '2026.11.24T00.00.00.giving',
  up: `
CREATE TABLE giving_funds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  code text,
  description text,
  gift_aid_eligible boolean NOT NULL DEFAULT true,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT (is_default AND status = 'archived'))
);
CREATE UNIQUE INDEX giving_funds_name_key ON giving_funds (org_id, lower(name));
CREATE UNIQUE INDEX giving_funds_code_key ON giving_funds (org_id, lower(code)) WHERE code IS NOT NULL;
CREATE UNIQUE INDEX giving_funds_default_key ON giving_funds (org_id) WHERE is_default;

-- A contact's giving details: what a Gift Aid claim line needs, and a joint giver where given.
CREATE TABLE giving_givers (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  giver_reference text NOT NULL,
  title text,
  house_name_or_number text,
  address_line text,
  town text,
  postcode text,
  joint_contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  -- Bank details are never stored beyond the last four digits.
  bank_account_last4 text CHECK (bank_account_last4 ~ '^[0-9]{4}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, contact_id),
  CHECK (joint_contact_id IS NULL OR joint_contact_id <> contact_id)
);
CREATE UNIQUE INDEX giving_givers_reference_key ON giving_givers (org_id, lower(giver_reference));

-- Donations are recorded into a batch; until it is committed they are a staging area.
CREATE TABLE giving_batches (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'committed')),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  created_by_user_id uuid,
  committed_at timestamptz,
  committed_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'committed') = (committed_at IS NOT NULL))
);
CREATE INDEX giving_batches_org_idx ON giving_batches (org_id, status, created_at);

CREATE TABLE giving_pledge_campaigns (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  fund_id uuid NOT NULL REFERENCES giving_funds(id),
  goal_amount bigint CHECK (goal_amount > 0 AND goal_amount <= ${MAX_MINOR}),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  starts_on date NOT NULL,
  ends_on date,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_on IS NULL OR ends_on >= starts_on)
);
CREATE UNIQUE INDEX giving_pledge_campaigns_name_key ON giving_pledge_campaigns (org_id, lower(name));

CREATE TABLE giving_pledges (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL REFERENCES giving_pledge_campaigns(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX_MINOR}),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  period text NOT NULL DEFAULT 'one_off' CHECK (period IN ('one_off', 'weekly', 'monthly', 'quarterly', 'yearly')),
  starts_on date NOT NULL,
  ends_on date,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'fulfilled', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX giving_pledges_campaign_idx ON giving_pledges (org_id, campaign_id);

CREATE TABLE giving_recurring_gifts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  fund_id uuid NOT NULL REFERENCES giving_funds(id),
  amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX_MINOR}),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  method text NOT NULL CHECK (method IN ('card', 'bank_transfer', 'standing_order', 'online')),
  frequency text NOT NULL CHECK (frequency IN ('weekly', 'fortnightly', 'monthly', 'quarterly', 'yearly')),
  starts_on date NOT NULL,
  next_on date,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'cancelled')),
  paused_at timestamptz,
  resume_on date,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX giving_recurring_gifts_due_idx ON giving_recurring_gifts (org_id, status, next_on);

CREATE TABLE giving_donations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  batch_id uuid NOT NULL REFERENCES giving_batches(id),
  -- NULL for an anonymous gift, and after the giver's permanent erasure (the money record stays).
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  -- Positive for a gift; an adjusting entry (a correction to a committed batch) may be negative.
  amount bigint NOT NULL CHECK (amount <> 0 AND abs(amount) <= ${MAX_MINOR}),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  fee bigint NOT NULL DEFAULT 0 CHECK (fee >= 0 AND fee <= ${MAX_MINOR}),
  method text NOT NULL CHECK (method IN ('cash', 'cheque', 'card', 'bank_transfer', 'standing_order', 'online')),
  received_on date NOT NULL,
  -- Where the record came from ('manual', 'import:<name>', 'recurring', …) and its id there; one donation per pair.
  source text NOT NULL DEFAULT 'manual',
  external_id text,
  pledge_id uuid REFERENCES giving_pledges(id) ON DELETE SET NULL,
  recurring_gift_id uuid REFERENCES giving_recurring_gifts(id),
  occurrence_on date,
  adjusts_donation_id uuid REFERENCES giving_donations(id),
  gift_aid_status text NOT NULL DEFAULT 'not_claimable'
    CHECK (gift_aid_status IN ('not_claimable', 'unclaimed', 'in_claim', 'claimed', 'rejected')),
  -- A Gift Aid Small Donations Scheme entry: never on a Gift Aid claim line.
  is_gasds boolean NOT NULL DEFAULT false,
  note text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (amount > 0 OR adjusts_donation_id IS NOT NULL),
  CHECK ((recurring_gift_id IS NULL) = (occurrence_on IS NULL))
);
CREATE UNIQUE INDEX giving_donations_external_key ON giving_donations (org_id, source, external_id) WHERE external_id IS NOT NULL;
-- Exactly one donation per recurring gift occurrence, whatever retries and crashes happen.
CREATE UNIQUE INDEX giving_donations_occurrence_key ON giving_donations (recurring_gift_id, occurrence_on) WHERE recurring_gift_id IS NOT NULL;
CREATE INDEX giving_donations_org_idx ON giving_donations (org_id, received_on, id);
CREATE INDEX giving_donations_batch_idx ON giving_donations (batch_id);
CREATE INDEX giving_donations_contact_idx ON giving_donations (org_id, contact_id) WHERE contact_id IS NOT NULL;

-- How a donation is split across funds; the parts add up to the donation's amount exactly (checked by the service in the same transaction).
CREATE TABLE giving_designations (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  donation_id uuid NOT NULL REFERENCES giving_donations(id) ON DELETE CASCADE,
  fund_id uuid NOT NULL REFERENCES giving_funds(id),
  amount bigint NOT NULL CHECK (amount <> 0 AND abs(amount) <= ${MAX_MINOR}),
  PRIMARY KEY (donation_id, fund_id)
);
CREATE INDEX giving_designations_fund_idx ON giving_designations (org_id, fund_id);

-- Money returned, per designation; the refunded total of a designation never passes its amount.
CREATE TABLE giving_refunds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  donation_id uuid NOT NULL REFERENCES giving_donations(id),
  fund_id uuid NOT NULL REFERENCES giving_funds(id),
  amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX_MINOR}),
  reason text NOT NULL,
  refunded_on date NOT NULL,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX giving_refunds_donation_idx ON giving_refunds (donation_id);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE giving_refunds;
DROP TABLE giving_designations;
DROP TABLE giving_donations;
DROP TABLE giving_recurring_gifts;
DROP TABLE giving_pledges;
DROP TABLE giving_pledge_campaigns;
DROP TABLE giving_batches;
DROP TABLE giving_givers;
DROP TABLE giving_funds;
`,
};
