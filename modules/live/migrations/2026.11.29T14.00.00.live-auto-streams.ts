import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Streams made ahead of a schedule's services: an organisation's setting (off until turned on, how
 * many days ahead) and a mark on the streams the job made, so it can find them again.
 */
export const liveAutoStreamsMigration: Migration = {
  name: '2026.11.29T14.00.00.live-auto-streams',
  up: `
CREATE TABLE live_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  auto_create_streams boolean NOT NULL DEFAULT false,
  create_ahead_days integer NOT NULL DEFAULT 7 CHECK (create_ahead_days BETWEEN 1 AND 28),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE live_streams ADD COLUMN auto_created boolean NOT NULL DEFAULT false;
${tenantPolicies(['live_settings']).up}
`,
  down: `
${tenantPolicies(['live_settings']).down}
ALTER TABLE live_streams DROP COLUMN auto_created;
DROP TABLE live_settings;
`,
};
