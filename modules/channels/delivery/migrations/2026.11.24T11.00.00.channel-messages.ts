import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

/**
 * One row per message a person or a broadcast asked to send on one channel to one contact.
 * The rendered content (subject, text, HTML, WhatsApp payload) is a snapshot taken when the message
 * is queued and never changes afterwards (a trigger refuses it), so what was approved, metered and
 * sent is what the row shows. The recipient address is filled at dispatch, from the contact's
 * current address once consent and suppression have been checked.
 *
 * status: queued → sending → sent → delivered | undelivered, or failed (refused at dispatch or by
 * the provider). `idempotency_key` is unique per organisation: a repeated request finds its message.
 *
 * `channel_webhook_events` remembers every signed provider event accepted, so a replayed event
 * changes nothing; it has no organisation (an event is checked before it is routed to one).
 */
export const channelMessages: Migration = {
  name: '2026.11.24T11.00.00.channel-messages',
  up: `
CREATE TABLE channel_messages (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('marketing', 'charitable_purpose', 'service')),
  recipient_address text CHECK (recipient_address IS NULL OR length(recipient_address) <= 320),
  sender text CHECK (sender IS NULL OR length(sender) <= 320),
  template_id uuid,
  template_version_id uuid,
  subject text CHECK (subject IS NULL OR length(subject) <= 998),
  body text NOT NULL CHECK (length(body) <= 100000),
  html text CHECK (html IS NULL OR length(html) <= 500000),
  whatsapp_payload jsonb,
  whatsapp_category text CHECK (whatsapp_category IS NULL OR whatsapp_category IN ('service', 'utility', 'marketing', 'authentication')),
  sms_encoding text CHECK (sms_encoding IS NULL OR sms_encoding IN ('GSM-7', 'UCS-2')),
  segments integer CHECK (segments IS NULL OR segments >= 1),
  metered_units integer NOT NULL CHECK (metered_units >= 0),
  estimated_cost_minor integer NOT NULL CHECK (estimated_cost_minor >= 0),
  actual_cost_minor integer CHECK (actual_cost_minor IS NULL OR actual_cost_minor >= 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed')),
  provider_message_id text,
  error_code text,
  error_message text CHECK (error_message IS NULL OR length(error_message) <= 2000),
  deferred_until timestamptz,
  metered_at timestamptz,
  broadcast_id uuid,
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 300),
  usage_tool text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  delivered_at timestamptz,
  UNIQUE (org_id, idempotency_key),
  CHECK (channel <> 'sms' OR (sms_encoding IS NOT NULL AND segments IS NOT NULL)),
  CHECK (channel <> 'whatsapp' OR whatsapp_category IS NOT NULL)
);
CREATE INDEX channel_messages_newest ON channel_messages (org_id, created_at DESC, id DESC);
CREATE INDEX channel_messages_contact ON channel_messages (org_id, contact_id, created_at DESC);
CREATE INDEX channel_messages_broadcast ON channel_messages (org_id, broadcast_id, status) WHERE broadcast_id IS NOT NULL;
CREATE INDEX channel_messages_provider_id ON channel_messages (provider_message_id) WHERE provider_message_id IS NOT NULL;
CREATE INDEX channel_messages_recipient ON channel_messages (channel, recipient_address, sender, created_at DESC) WHERE recipient_address IS NOT NULL;

CREATE FUNCTION channel_messages_snapshot_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.subject IS DISTINCT FROM OLD.subject OR NEW.body IS DISTINCT FROM OLD.body OR NEW.html IS DISTINCT FROM OLD.html
    OR NEW.whatsapp_payload IS DISTINCT FROM OLD.whatsapp_payload OR NEW.channel IS DISTINCT FROM OLD.channel
    OR NEW.template_version_id IS DISTINCT FROM OLD.template_version_id OR NEW.metered_units IS DISTINCT FROM OLD.metered_units THEN
    RAISE EXCEPTION 'a message''s rendered content is a snapshot and cannot change' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER channel_messages_snapshot BEFORE UPDATE ON channel_messages
  FOR EACH ROW EXECUTE FUNCTION channel_messages_snapshot_immutable();

CREATE TABLE channel_webhook_events (
  provider text NOT NULL CHECK (provider IN ('sms', 'whatsapp', 'email', 'unsubscribe')),
  event_id text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 500),
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);
${tenantPolicies(['channel_messages']).up}
`,
  down: `
${tenantPolicies(['channel_messages']).down}
DROP TABLE channel_webhook_events;
DROP TRIGGER channel_messages_snapshot ON channel_messages;
DROP FUNCTION channel_messages_snapshot_immutable();
DROP TABLE channel_messages;
`,
};
