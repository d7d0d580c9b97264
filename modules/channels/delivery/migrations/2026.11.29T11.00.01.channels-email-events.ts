import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

/**
 * The mail provider's bounce and complaint events per message (hard and soft bounces, complaints),
 * kept so a report can say what became of each email: a hard bounce also marks the message
 * undelivered and a hard bounce or complaint suppresses the address, but a soft bounce changes
 * nothing else and a complaint leaves the message's status as it was. One row per provider event.
 */
export const channelEmailEvents: Migration = {
  name: '2026.11.29T11.00.01.channels-email-events',
  up: `
CREATE TABLE channel_email_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  message_id uuid NOT NULL REFERENCES channel_messages(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('hard_bounce', 'soft_bounce', 'complaint')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_email_events_message ON channel_email_events (org_id, message_id);
${tenantPolicies(['channel_email_events']).up}
`,
  down: `
${tenantPolicies(['channel_email_events']).down}
DROP TABLE channel_email_events;
`,
};
