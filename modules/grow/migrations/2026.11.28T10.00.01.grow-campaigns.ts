import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['grow_campaigns', 'grow_campaign_variants', 'grow_campaign_recipients', 'grow_campaign_events'];

/**
 * Email campaigns: the campaign (audience, content, the preview's hash its approval binds to, an
 * optional A/B test), its variants, one row per recipient (the variant and phase they were given,
 * the channel message queued for them, or why they were skipped) and the tracking events (opens,
 * machine opens flagged, clicks per link). Reports are computed from these rows, never stored.
 */
export const growCampaignsMigration: Migration = {
  name: '2026.11.28T10.00.01.grow-campaigns',
  up: `
CREATE TABLE grow_campaigns (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'previewed', 'scheduled', 'sending', 'testing', 'sent', 'paused', 'cancelled')),
  audience jsonb NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('marketing', 'charitable_purpose')),
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 300),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  from_name text CHECK (from_name IS NULL OR length(from_name) <= 100),
  reply_to text CHECK (reply_to IS NULL OR length(reply_to) <= 254),
  links text[] NOT NULL DEFAULT '{}',
  preview_hash text,
  preview jsonb,
  total_recipients integer NOT NULL DEFAULT 0,
  send_at timestamptz,
  ab_variable text CHECK (ab_variable IS NULL OR ab_variable IN ('subject', 'from_name', 'content')),
  ab_test_percent integer CHECK (ab_test_percent IS NULL OR ab_test_percent BETWEEN 10 AND 50),
  ab_wait_seconds integer CHECK (ab_wait_seconds IS NULL OR ab_wait_seconds BETWEEN 1 AND 604800),
  winner_variant integer,
  winner_by text CHECK (winner_by IS NULL OR winner_by IN ('clicks', 'tie_first', 'person')),
  test_sent_at timestamptz,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX grow_campaigns_created_idx ON grow_campaigns (org_id, created_at, id);

CREATE TABLE grow_campaign_variants (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL REFERENCES grow_campaigns(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position BETWEEN 0 AND 4),
  subject text NOT NULL,
  from_name text,
  body text NOT NULL,
  links text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (campaign_id, position)
);

CREATE TABLE grow_campaign_recipients (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL REFERENCES grow_campaigns(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  phase text NOT NULL DEFAULT 'all' CHECK (phase IN ('all', 'test', 'rest')),
  variant integer,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'handed', 'skipped', 'failed', 'cancelled')),
  skip_reason text,
  message_id uuid,
  handed_at timestamptz
);
-- Not unique: merging two contacts who were both sent one campaign keeps both rows under the kept contact.
CREATE INDEX grow_campaign_recipients_contact_idx ON grow_campaign_recipients (campaign_id, contact_id);
CREATE INDEX grow_campaign_recipients_pending_idx ON grow_campaign_recipients (campaign_id, phase, status);

CREATE TABLE grow_campaign_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL REFERENCES grow_campaigns(id) ON DELETE CASCADE,
  contact_id uuid,
  variant integer,
  kind text NOT NULL CHECK (kind IN ('open', 'click')),
  link_index integer,
  machine boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX grow_campaign_events_campaign_idx ON grow_campaign_events (campaign_id, kind);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE grow_campaign_events, grow_campaign_recipients, grow_campaign_variants, grow_campaigns;
`,
};
