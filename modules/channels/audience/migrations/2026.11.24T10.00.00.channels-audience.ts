import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['channel_consents', 'channel_suppressions', 'channel_senders', 'channel_inbound_windows', 'channel_settings'];

/**
 * Who may be messaged, on which channel, for which purpose.
 *
 * - channel_consents: evidence, never a boolean. A row is one consent as captured (basis, source, the
 *   wording the person saw, when); withdrawing stamps withdrawn_at, recording again supersedes the old
 *   row: nothing is deleted, so the history answers "what did they agree to, and when". The active
 *   consent is the row neither withdrawn nor superseded.
 * - channel_suppressions: addresses that must not be messaged on a channel (bounce, complaint, STOP,
 *   unsubscribe, manual), one live row per organisation + channel + normalised address; lifting one
 *   stamps lifted_at with the evidence, so the record stays.
 * - channel_senders: the organisation's email domains, SMS numbers or alphanumeric ids and WhatsApp
 *   numbers. A phone number belongs to one organisation at a time (inbound messages are routed by it);
 *   an email domain to one organisation once verified. channel_sender_org() answers which one, across
 *   organisations (SECURITY DEFINER: webhooks do not know the organisation before asking).
 * - channel_inbound_windows: when each address last wrote in (the WhatsApp 24 hour session window).
 * - channel_settings: quiet hours and the organisation's time zone for them.
 */
export const channelsAudience: Migration = {
  name: '2026.11.24T10.00.00.channels-audience',
  up: `
CREATE TABLE channel_consents (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  purpose text NOT NULL CHECK (purpose IN ('marketing', 'charitable_purpose', 'service')),
  basis text NOT NULL CHECK (basis IN ('consent', 'charitable_soft_opt_in')),
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  wording text NOT NULL CHECK (length(wording) BETWEEN 1 AND 2000),
  captured_at timestamptz NOT NULL,
  recorded_by text,
  withdrawn_at timestamptz,
  withdrawal_source text CHECK (withdrawal_source IS NULL OR length(withdrawal_source) <= 200),
  superseded_by uuid REFERENCES channel_consents(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The charity soft opt-in covers a charity's own charitable-purpose messages by email or SMS, nothing else.
  CHECK (basis <> 'charitable_soft_opt_in' OR (purpose = 'charitable_purpose' AND channel IN ('email', 'sms'))),
  CHECK ((withdrawn_at IS NULL) = (withdrawal_source IS NULL))
);
CREATE INDEX channel_consents_active ON channel_consents (org_id, contact_id, channel, purpose)
  WHERE withdrawn_at IS NULL AND superseded_by IS NULL;
CREATE INDEX channel_consents_page ON channel_consents (org_id, created_at DESC, id DESC);

CREATE TABLE channel_suppressions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  address text NOT NULL CHECK (length(address) BETWEEN 3 AND 320),
  reason text NOT NULL CHECK (reason IN ('hard_bounce', 'complaint', 'stop_keyword', 'unsubscribe', 'manual')),
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  note text CHECK (note IS NULL OR length(note) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  lifted_at timestamptz,
  lifted_by text,
  lift_evidence text CHECK (lift_evidence IS NULL OR length(lift_evidence) <= 2000),
  CHECK ((lifted_at IS NULL) = (lift_evidence IS NULL))
);
CREATE UNIQUE INDEX channel_suppressions_live ON channel_suppressions (org_id, channel, address) WHERE lifted_at IS NULL;
CREATE INDEX channel_suppressions_page ON channel_suppressions (org_id, created_at DESC, id DESC);

CREATE TABLE channel_senders (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  kind text NOT NULL CHECK (kind IN ('domain', 'number', 'alphanumeric')),
  address text NOT NULL CHECK (length(address) BETWEEN 2 AND 253),
  label text CHECK (label IS NULL OR length(label) <= 200),
  one_way boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('unverified', 'pending', 'verified', 'failed', 'active')),
  dkim_selector text CHECK (dkim_selector IS NULL OR dkim_selector ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
  last_check jsonb,
  checked_at timestamptz,
  verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((channel = 'email') = (kind = 'domain')),
  CHECK (kind <> 'alphanumeric' OR (channel = 'sms' AND one_way)),
  CHECK ((channel = 'email') = (status IN ('unverified', 'pending', 'verified', 'failed')))
);
CREATE UNIQUE INDEX channel_senders_org_address ON channel_senders (org_id, channel, address);
CREATE UNIQUE INDEX channel_senders_number_owner ON channel_senders (channel, address) WHERE kind = 'number';
CREATE UNIQUE INDEX channel_senders_domain_owner ON channel_senders (address) WHERE channel = 'email' AND status = 'verified';
CREATE INDEX channel_senders_page ON channel_senders (org_id, created_at DESC, id DESC);

CREATE FUNCTION channel_sender_org(p_channel text, p_address text) RETURNS uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $fn$
  SELECT org_id FROM channel_senders
  WHERE channel = p_channel AND address = p_address AND (kind = 'number' OR status = 'verified')
  ORDER BY created_at LIMIT 1
$fn$;
REVOKE ALL ON FUNCTION channel_sender_org(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_sender_org(text, text) TO steward_app;

CREATE TABLE channel_inbound_windows (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('sms', 'whatsapp')),
  address text NOT NULL,
  last_inbound_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, channel, address)
);

CREATE TABLE channel_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  quiet_hours_enabled boolean NOT NULL DEFAULT false,
  quiet_start text NOT NULL DEFAULT '21:00' CHECK (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  quiet_end text NOT NULL DEFAULT '08:00' CHECK (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone text NOT NULL DEFAULT 'Europe/London' CHECK (length(time_zone) BETWEEN 1 AND 64),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (quiet_start <> quiet_end)
);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP FUNCTION channel_sender_org(text, text);
DROP TABLE channel_settings, channel_inbound_windows, channel_senders, channel_suppressions, channel_consents;
`,
};
