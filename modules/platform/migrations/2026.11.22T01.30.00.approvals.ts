import type { Migration } from '../../../db/migrate';

/**
 * Human approval: agent proposals, pastoral outreach and its outbox, autonomous
 * agents, pastoral automations and contact merges (the staff dashboard signs in
 * with the OAuth server's browser session).
 * The rows are the record; each proposal and outreach item also has a
 * workflow (proposal-<id>, outreach-<id>) that serialises its decisions.
 */
export const approvals: Migration = {
  name: '2026.11.22T01.30.00.approvals',
  up: `
CREATE TABLE agents (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  agent_key text NOT NULL,
  autonomy text NOT NULL DEFAULT 'off' CHECK (autonomy IN ('off', 'propose', 'auto')),
  interval_minutes integer NOT NULL DEFAULT 1440 CHECK (interval_minutes >= 5),
  last_run_at timestamptz,
  last_run_status text,
  last_run_summary text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, agent_key)
);

CREATE TABLE proposals (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  agent_key text,
  proposed_by_user_id uuid,
  proposed_by_credential_id uuid,
  tool text NOT NULL,
  args jsonb NOT NULL,
  args_hash text NOT NULL,
  summary text NOT NULL,
  dedupe_key text,
  source_run text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  expires_at timestamptz NOT NULL,
  decided_by_user_id uuid,
  decided_at timestamptz,
  decision_reason text,
  execution jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX proposals_org_status_idx ON proposals (org_id, status, created_at DESC);
-- One open proposal per subject (e.g. one merge proposal per pair of contacts).
CREATE UNIQUE INDEX proposals_open_dedupe_key ON proposals (org_id, dedupe_key) WHERE status = 'pending' AND dedupe_key IS NOT NULL;

CREATE TABLE pastoral_automations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  automation_type text NOT NULL CHECK (automation_type IN ('welfare_check', 'encouragement', 'grief_support')),
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  subject_template text,
  body_template text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  interval_hours integer NOT NULL DEFAULT 24 CHECK (interval_hours >= 1),
  days_without_contact integer NOT NULL DEFAULT 180 CHECK (days_without_contact >= 1),
  target_tag text,
  max_items_per_run integer NOT NULL DEFAULT 25 CHECK (max_items_per_run BETWEEN 1 AND 500),
  last_run_at timestamptz,
  last_run_status text,
  last_run_generated integer,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX pastoral_automations_org_idx ON pastoral_automations (org_id) WHERE deleted_at IS NULL;

CREATE TABLE outreach_items (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  subject text,
  body text NOT NULL,
  content_version integer NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'pending_review' CHECK (status IN ('pending_review', 'approved', 'sent', 'declined', 'cancelled')),
  source text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'automation', 'agent')),
  automation_id uuid REFERENCES pastoral_automations(id) ON DELETE SET NULL,
  source_run text,
  dedupe_key text,
  reason text,
  created_by_user_id uuid,
  approved_by_user_id uuid,
  approved_version integer,
  approved_at timestamptz,
  decided_by_user_id uuid,
  decided_at timestamptz,
  decision_reason text,
  send_error jsonb,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outreach_items_org_status_idx ON outreach_items (org_id, status, created_at DESC);
CREATE INDEX outreach_items_contact_idx ON outreach_items (org_id, contact_id);
-- An automation never queues a second open message for the same reason to the same person.
CREATE UNIQUE INDEX outreach_items_open_dedupe_key ON outreach_items (org_id, dedupe_key)
  WHERE dedupe_key IS NOT NULL AND status IN ('pending_review', 'approved');

-- The outbox: one row per outreach item (so it is created, and its usage counted, once); its key
-- travels with every provider call. That makes retries recognisable, not exactly-once delivery:
-- see 2026.11.22T02.00.00.outbox-lease for the claim and what is guaranteed per provider.
CREATE TABLE outbox_messages (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  outreach_id uuid NOT NULL UNIQUE REFERENCES outreach_items(id) ON DELETE CASCADE,
  idempotency_key text NOT NULL UNIQUE,
  channel text NOT NULL,
  recipient text NOT NULL,
  subject text,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
  attempts integer NOT NULL DEFAULT 0,
  provider_message_id text,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

CREATE TABLE contact_merges (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kept_contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  merged_contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  merged_by_user_id uuid,
  moved jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, merged_contact_id)
);
`,
  down: `
DROP TABLE contact_merges, outbox_messages, outreach_items, pastoral_automations, proposals, agents;
`,
};
