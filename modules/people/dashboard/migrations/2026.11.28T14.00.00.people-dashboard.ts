import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = [
  'people_dashboard_layouts', 'people_saved_searches', 'people_partner_shares', 'people_partner_share_events',
  'people_member_qr_tokens', 'people_bulk_operations', 'people_dashboard_insights',
];

/**
 * The people dashboard's own records: each user's widget layouts (main and CRM), saved CRM
 * searches, partner shares (a contact list shared read-only with another organisation, with their
 * audit trail), member QR tokens (only a hash kept; revocable), bulk operations on contacts (the
 * previewed plan, then the job's progress) and AI insights generated for the dashboard.
 */
export const peopleDashboard: Migration = {
  name: '2026.11.28T14.00.00.people-dashboard',
  up: `
CREATE TABLE people_dashboard_layouts (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  board text NOT NULL CHECK (board IN ('main', 'crm')),
  widgets jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id, board)
);

CREATE TABLE people_saved_searches (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  query text CHECK (query IS NULL OR length(query) <= 200),
  filters jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX people_saved_searches_name_key ON people_saved_searches (org_id, lower(name));

CREATE TABLE people_partner_shares (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  partner_name text NOT NULL CHECK (length(partner_name) BETWEEN 1 AND 200),
  partner_email text,
  source_kind text NOT NULL CHECK (source_kind IN ('segment', 'crm_group', 'tag')),
  source_id uuid NOT NULL,
  fields text[] NOT NULL,
  purpose text NOT NULL CHECK (length(purpose) BETWEEN 1 AND 500),
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_by_user_id uuid,
  revoke_reason text
);
CREATE INDEX people_partner_shares_org_idx ON people_partner_shares (org_id, created_at DESC);

-- Every create, read and revoke of a share, by whom: the share's audit trail.
CREATE TABLE people_partner_share_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  share_id uuid NOT NULL REFERENCES people_partner_shares(id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('created', 'viewed', 'revoked')),
  actor_user_id uuid,
  detail text,
  occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX people_partner_share_events_idx ON people_partner_share_events (org_id, share_id, occurred_at);

CREATE TABLE people_member_qr_tokens (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX people_member_qr_tokens_contact_idx ON people_member_qr_tokens (org_id, contact_id);

CREATE TABLE people_bulk_operations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  operation text NOT NULL,
  params jsonb NOT NULL,
  contact_ids uuid[] NOT NULL,
  total integer NOT NULL CHECK (total >= 0),
  done integer NOT NULL DEFAULT 0 CHECK (done >= 0),
  applied integer NOT NULL DEFAULT 0 CHECK (applied >= 0),
  skipped integer NOT NULL DEFAULT 0 CHECK (skipped >= 0),
  status text NOT NULL CHECK (status IN ('previewed', 'running', 'completed', 'failed')),
  error text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX people_bulk_operations_org_idx ON people_bulk_operations (org_id, created_at DESC);

CREATE TABLE people_dashboard_insights (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  generated_by_user_id uuid,
  model text NOT NULL,
  insights jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX people_dashboard_insights_org_idx ON people_dashboard_insights (org_id, created_at DESC);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE people_dashboard_insights, people_bulk_operations, people_member_qr_tokens, people_partner_share_events,
  people_partner_shares, people_saved_searches, people_dashboard_layouts;
`,
};
