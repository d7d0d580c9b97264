import type { Migration } from '../../../db/migrate';

export const init: Migration = {
  name: '2026.11.22T00.20.00.init',
  up: `
CREATE TABLE plans (
  code text PRIMARY KEY,
  name text NOT NULL
);

-- Monthly allowance per metered feature; a feature without a row is unmetered.
CREATE TABLE plan_allowances (
  plan_code text NOT NULL REFERENCES plans(code),
  feature text NOT NULL,
  monthly_limit integer NOT NULL CHECK (monthly_limit >= 0),
  PRIMARY KEY (plan_code, feature)
);

CREATE TABLE organisations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  country text NOT NULL DEFAULT 'GB',
  date_format text NOT NULL DEFAULT 'DMY' CHECK (date_format IN ('DMY', 'MDY', 'YMD')),
  plan_code text NOT NULL REFERENCES plans(code),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE org_allowance_overrides (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  feature text NOT NULL,
  monthly_limit integer NOT NULL CHECK (monthly_limit >= 0),
  PRIMARY KEY (org_id, feature)
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  display_name text,
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'staff', 'volunteer')),
  safeguarding boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);

-- Only the sha-256 of a key's secret is kept; the key itself is shown once.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id),
  name text NOT NULL,
  display_prefix text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id);

CREATE TABLE contacts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  prefix text,
  first_name text,
  last_name text,
  preferred_name text,
  email text,
  phone text,
  date_of_birth date,
  gender text,
  address_line1 text,
  address_line2 text,
  address_city text,
  address_county text,
  address_postcode text,
  address_country text,
  status text NOT NULL DEFAULT 'non_subscribed',
  membership_status text,
  family_id uuid,
  whatsapp_consent boolean NOT NULL DEFAULT false,
  baptism_date date,
  membership_date date,
  anniversary_date date,
  custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX contacts_org_idx ON contacts (org_id, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX contacts_org_email_idx ON contacts (org_id, lower(email));
CREATE INDEX contacts_org_name_idx ON contacts (org_id, lower(last_name), lower(first_name));

CREATE TABLE tag_categories (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tag_categories_name_key ON tag_categories (org_id, lower(name));

CREATE TABLE tags (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  category_id uuid REFERENCES tag_categories(id) ON DELETE SET NULL,
  colour text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_name_key ON tags (org_id, lower(name));

CREATE TABLE contact_tags (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, tag_id)
);

CREATE TABLE notes (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  author_user_id uuid REFERENCES users(id),
  content text NOT NULL,
  privacy text NOT NULL DEFAULT 'team' CHECK (privacy IN ('public', 'team', 'private')),
  confidentiality_level text NOT NULL DEFAULT 'green' CHECK (confidentiality_level IN ('green', 'amber', 'red')),
  follow_up_date date,
  follow_up_completed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notes_contact_idx ON notes (org_id, contact_id, created_at DESC);

-- One row per thing that happened to a person; (source_kind, source_id, kind) makes sync idempotent.
CREATE TABLE timeline_entries (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  kind text NOT NULL,
  source_kind text NOT NULL,
  source_id uuid NOT NULL,
  summary text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, source_kind, source_id, kind)
);
CREATE INDEX timeline_contact_idx ON timeline_entries (org_id, contact_id, occurred_at DESC);

-- Metered usage. The idempotency key is the workflow id, so a retried recording counts once.
CREATE TABLE usage_events (
  id bigserial PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  feature text NOT NULL,
  units integer NOT NULL CHECK (units > 0),
  idempotency_key text NOT NULL,
  tool text,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (idempotency_key, feature)
);
CREATE INDEX usage_events_org_idx ON usage_events (org_id, feature, occurred_at);

-- Results of writes, keyed by workflow id: a retried activity returns the stored result instead of writing twice.
CREATE TABLE tool_call_results (
  workflow_id text PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  tool text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  actor_user_id uuid,
  credential_id uuid,
  credential_kind text,
  tool text NOT NULL,
  workflow_id text NOT NULL,
  action_summary text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_org_idx ON audit_events (org_id, created_at DESC);

INSERT INTO plans (code, name) VALUES ('starter', 'Starter'), ('growth', 'Growth'), ('enterprise', 'Enterprise');
INSERT INTO plan_allowances (plan_code, feature, monthly_limit) VALUES
  ('starter', 'contacts', 500), ('starter', 'email_sends', 2000), ('starter', 'messaging_credits', 200),
  ('starter', 'runsheet_access_seats', 5), ('starter', 'donations', 1000), ('starter', 'tickets', 500),
  ('starter', 'check_ins', 2000), ('starter', 'rooms', 10), ('starter', 'streams', 4), ('starter', 'media_items', 500),
  ('growth', 'contacts', 5000), ('growth', 'email_sends', 25000), ('growth', 'messaging_credits', 2000),
  ('growth', 'runsheet_access_seats', 25), ('growth', 'donations', 10000), ('growth', 'tickets', 5000),
  ('growth', 'check_ins', 20000), ('growth', 'rooms', 50), ('growth', 'streams', 20), ('growth', 'media_items', 5000),
  ('enterprise', 'contacts', 100000), ('enterprise', 'email_sends', 500000), ('enterprise', 'messaging_credits', 50000),
  ('enterprise', 'runsheet_access_seats', 500), ('enterprise', 'donations', 1000000), ('enterprise', 'tickets', 100000),
  ('enterprise', 'check_ins', 1000000), ('enterprise', 'rooms', 1000), ('enterprise', 'streams', 500), ('enterprise', 'media_items', 100000);
`,
  down: `
DROP TABLE audit_events, tool_call_results, usage_events, timeline_entries, notes, contact_tags, tags, tag_categories,
  contacts, api_keys, memberships, users, org_allowance_overrides, organisations, plan_allowances, plans;
`,
};
