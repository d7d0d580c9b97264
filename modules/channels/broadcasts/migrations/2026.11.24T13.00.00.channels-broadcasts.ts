import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

/**
 * Broadcasts: one message to an audience (a segment, tag or CRM group), previewed before it is
 * scheduled. status draft → previewed → pending_approval → approved → scheduled → sending →
 * completed | partially_failed | cancelled. `preview_hash` pins what the preview showed (audience
 * ids, content, settings) so scheduling refuses a broadcast whose audience or content changed since.
 *
 * Recipients are snapshotted when the broadcast is scheduled, in a fixed order (`position`), so the
 * sending workflow's batches are deterministic across restarts. Consent and suppression are not
 * decided here: each message is checked when it is dispatched. A recipient is pending → queued (its
 * message exists) → sent | skipped (refused at dispatch: no consent, suppressed…) | failed, or
 * deferred until `not_before` (quiet hours, another attempt holding the message's lease), or
 * cancelled with the broadcast.
 */
export const channelsBroadcasts: Migration = {
  name: '2026.11.24T13.00.00.channels-broadcasts',
  up: `
CREATE TABLE channel_broadcasts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  purpose text NOT NULL CHECK (purpose IN ('marketing', 'charitable_purpose', 'service')),
  audience jsonb NOT NULL,
  template_id uuid,
  subject text CHECK (subject IS NULL OR length(subject) <= 500),
  body text CHECK (body IS NULL OR length(body) <= 20000),
  html text CHECK (html IS NULL OR length(html) <= 200000),
  variables jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'previewed', 'pending_approval', 'approved', 'scheduled', 'sending', 'completed', 'partially_failed', 'cancelled')),
  preview_hash text,
  preview jsonb,
  previewed_at timestamptz,
  send_at timestamptz,
  rate_per_minute integer NOT NULL DEFAULT 600 CHECK (rate_per_minute BETWEEN 1 AND 100000),
  total_recipients integer NOT NULL DEFAULT 0 CHECK (total_recipients >= 0),
  created_by_user_id uuid,
  approved_at timestamptz,
  scheduled_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  cancelled_at timestamptz,
  cancel_reason text CHECK (cancel_reason IS NULL OR length(cancel_reason) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (template_id IS NOT NULL OR body IS NOT NULL)
);
CREATE INDEX channel_broadcasts_list ON channel_broadcasts (org_id, created_at DESC, id DESC);
CREATE INDEX channel_broadcasts_template ON channel_broadcasts (org_id, template_id) WHERE template_id IS NOT NULL;

CREATE TABLE channel_broadcast_recipients (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  broadcast_id uuid NOT NULL REFERENCES channel_broadcasts(id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'queued', 'sent', 'deferred', 'skipped', 'failed', 'cancelled')),
  message_id uuid,
  reason text CHECK (reason IS NULL OR length(reason) <= 200),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  not_before timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (broadcast_id, position)
);
CREATE INDEX channel_broadcast_recipients_status ON channel_broadcast_recipients (broadcast_id, status, position);
CREATE INDEX channel_broadcast_recipients_contact ON channel_broadcast_recipients (org_id, contact_id);
${tenantPolicies(['channel_broadcasts', 'channel_broadcast_recipients']).up}
`,
  down: `
${tenantPolicies(['channel_broadcasts', 'channel_broadcast_recipients']).down}
DROP TABLE channel_broadcast_recipients;
DROP TABLE channel_broadcasts;
`,
};
