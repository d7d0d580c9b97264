import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Gift Aid declarations and claims, Gift Aid Small Donations Scheme collections, and giving
 * statements. Money is bigint pence, bounded like the core tables so every value is a safe integer.
 */
const MAX_MINOR = '100000000000';

const TABLES = [
  'giving_gift_aid_declarations', 'giving_gift_aid_claims', 'giving_gasds_collections', 'giving_gasds_entries',
  'giving_gift_aid_claim_lines', 'giving_statement_runs', 'giving_statements',
];

export const giftAid: Migration = {
  name: '2026.11.24T00.10.00.giving-gift-aid',
  up: `
-- A donor's declaration that they want Gift Aid claimed: what it covers, how it was made, and whether it still stands.
CREATE TABLE giving_gift_aid_declarations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  -- NULL after the donor's permanent erasure: claims already made on it stay explained.
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  scope text NOT NULL CHECK (scope IN ('single_gift', 'past_and_future', 'future_only')),
  method text NOT NULL CHECK (method IN ('written', 'oral', 'online')),
  made_on date NOT NULL,
  start_on date NOT NULL,
  end_on date,
  -- Oral declarations count only once a written record has been sent to the donor.
  confirmation_sent_on date,
  donation_id uuid REFERENCES giving_donations(id),
  note text,
  cancelled_at timestamptz,
  -- Gifts on or after this day are no longer covered; lines already claimed are untouched.
  cancelled_on date,
  cancel_reason text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'single_gift') = (donation_id IS NOT NULL)),
  CHECK (method = 'oral' OR confirmation_sent_on IS NULL),
  CHECK ((cancelled_at IS NULL) = (cancelled_on IS NULL)),
  CHECK (end_on IS NULL OR end_on >= start_on)
);
CREATE INDEX giving_gift_aid_declarations_contact_idx ON giving_gift_aid_declarations (org_id, contact_id);

-- One claim to HMRC: draft → validated → submitted → accepted | rejected; accepted → paid. A validated claim may be cancelled.
CREATE TABLE giving_gift_aid_claims (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'draft'
    CHECK (status IN ('draft', 'validated', 'submitted', 'accepted', 'rejected', 'paid', 'cancelled')),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- The day the claim was made: declarations and claim windows are judged on it.
  claimed_on date NOT NULL,
  gross_total bigint NOT NULL CHECK (abs(gross_total) <= ${MAX_MINOR}),
  gift_aid_total bigint NOT NULL CHECK (abs(gift_aid_total) <= ${MAX_MINOR}),
  gasds_total bigint NOT NULL DEFAULT 0 CHECK (gasds_total >= 0 AND gasds_total <= ${MAX_MINOR}),
  gasds_top_up bigint NOT NULL DEFAULT 0 CHECK (gasds_top_up >= 0 AND gasds_top_up <= ${MAX_MINOR}),
  line_count integer NOT NULL CHECK (line_count >= 0),
  -- Set by the outcome: what HMRC accepted and what it paid.
  accepted_gift_aid bigint CHECK (abs(accepted_gift_aid) <= ${MAX_MINOR}),
  paid_amount bigint CHECK (paid_amount >= 0 AND paid_amount <= ${MAX_MINOR}),
  paid_on date,
  charity_reference text,
  provider_reference text,
  validated_at timestamptz,
  submitted_at timestamptz,
  approved_by_user_id uuid,
  decided_at timestamptz,
  decision_reason text,
  cancelled_at timestamptz,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status IN ('draft', 'validated', 'cancelled') OR (submitted_at IS NOT NULL AND provider_reference IS NOT NULL)),
  CHECK (status <> 'paid' OR (paid_on IS NOT NULL AND paid_amount IS NOT NULL))
);
CREATE INDEX giving_gift_aid_claims_org_idx ON giving_gift_aid_claims (org_id, created_at DESC, id DESC);

-- Small donations (cash or contactless, at most £30 each, no declaration) collected on one day.
CREATE TABLE giving_gasds_collections (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  collected_on date NOT NULL,
  method text NOT NULL CHECK (method IN ('cash', 'contactless')),
  amount bigint NOT NULL CHECK (amount > 0 AND amount <= ${MAX_MINOR}),
  gift_count integer NOT NULL CHECK (gift_count > 0),
  -- The donation that booked this money, if it was recorded as one (it is then never a Gift Aid line).
  donation_id uuid REFERENCES giving_donations(id),
  description text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX giving_gasds_collections_org_idx ON giving_gasds_collections (org_id, collected_on, id);
CREATE UNIQUE INDEX giving_gasds_collections_donation_key ON giving_gasds_collections (donation_id) WHERE donation_id IS NOT NULL;

-- The small gifts in a collection: an amount and how many gifts of it.
CREATE TABLE giving_gasds_entries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  collection_id uuid NOT NULL REFERENCES giving_gasds_collections(id) ON DELETE CASCADE,
  amount bigint NOT NULL CHECK (amount > 0 AND amount <= 3000),
  quantity integer NOT NULL CHECK (quantity > 0)
);
CREATE INDEX giving_gasds_entries_collection_idx ON giving_gasds_entries (collection_id);

-- A claim's lines: a donation, a negative adjustment reversing Gift Aid already claimed on a since-refunded gift,
-- or small donations taken from a GASDS collection.
CREATE TABLE giving_gift_aid_claim_lines (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  claim_id uuid NOT NULL REFERENCES giving_gift_aid_claims(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('donation', 'adjustment', 'gasds')),
  donation_id uuid REFERENCES giving_donations(id),
  declaration_id uuid REFERENCES giving_gift_aid_declarations(id),
  collection_id uuid REFERENCES giving_gasds_collections(id),
  -- The gift's date (or the collection's): its tax year decides the rate and the GASDS caps.
  gift_on date NOT NULL,
  amount bigint NOT NULL CHECK (amount <> 0 AND abs(amount) <= ${MAX_MINOR}),
  gift_aid_amount bigint NOT NULL CHECK (abs(gift_aid_amount) <= ${MAX_MINOR}),
  status text NOT NULL DEFAULT 'included' CHECK (status IN ('included', 'accepted', 'rejected', 'withdrawn')),
  rejection_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'donation' OR (amount > 0 AND donation_id IS NOT NULL AND declaration_id IS NOT NULL)),
  CHECK (kind <> 'adjustment' OR (amount < 0 AND donation_id IS NOT NULL)),
  CHECK (kind <> 'gasds' OR (amount > 0 AND collection_id IS NOT NULL AND donation_id IS NULL))
);
CREATE INDEX giving_gift_aid_claim_lines_claim_idx ON giving_gift_aid_claim_lines (claim_id, kind);
CREATE INDEX giving_gift_aid_claim_lines_donation_idx ON giving_gift_aid_claim_lines (donation_id) WHERE donation_id IS NOT NULL;
CREATE INDEX giving_gift_aid_claim_lines_collection_idx ON giving_gift_aid_claim_lines (collection_id) WHERE collection_id IS NOT NULL;
-- A donation is on at most one live claim, whatever runs at once.
CREATE UNIQUE INDEX giving_gift_aid_claim_lines_live_donation_key ON giving_gift_aid_claim_lines (donation_id)
  WHERE kind = 'donation' AND status IN ('included', 'accepted');

-- One generation of giving statements: a period, the givers it was for, how they are delivered.
CREATE TABLE giving_statement_runs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  tax_year text,
  period_start date NOT NULL,
  period_end date NOT NULL,
  delivery text NOT NULL CHECK (delivery IN ('download', 'email')),
  status text NOT NULL DEFAULT 'generated' CHECK (status IN ('generated')),
  statement_count integer NOT NULL DEFAULT 0 CHECK (statement_count >= 0),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (period_end >= period_start)
);
CREATE INDEX giving_statement_runs_org_idx ON giving_statement_runs (org_id, created_at DESC, id DESC);

-- One giver's statement in a run: the gifts counted and their total, as generated.
CREATE TABLE giving_statements (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  run_id uuid NOT NULL REFERENCES giving_statement_runs(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  donation_count integer NOT NULL CHECK (donation_count >= 0),
  total_amount bigint NOT NULL CHECK (abs(total_amount) <= ${MAX_MINOR}),
  gift_aid_claimed bigint NOT NULL DEFAULT 0 CHECK (abs(gift_aid_claimed) <= ${MAX_MINOR}),
  content jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX giving_statements_run_idx ON giving_statements (run_id);
CREATE INDEX giving_statements_contact_idx ON giving_statements (org_id, contact_id);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE giving_statements;
DROP TABLE giving_statement_runs;
DROP TABLE giving_gift_aid_claim_lines;
DROP TABLE giving_gasds_entries;
DROP TABLE giving_gasds_collections;
DROP TABLE giving_gift_aid_claims;
DROP TABLE giving_gift_aid_declarations;
`,
};
