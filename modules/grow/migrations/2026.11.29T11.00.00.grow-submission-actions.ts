import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['grow_campaign_test_sends'];

/**
 * What a submission may also create (a prayer request from one of the form's text answers; a join
 * request for one small group), what it did create, and the test emails of a campaign: one row per
 * test sent, kept so a rate limit can count them (they are never campaign recipients, so reports
 * never count them).
 */
export const growSubmissionActionsMigration: Migration = {
  name: '2026.11.29T11.00.00.grow-submission-actions',
  up: `
ALTER TABLE grow_forms DROP CONSTRAINT grow_forms_creates_check;
ALTER TABLE grow_forms ADD CONSTRAINT grow_forms_creates_check CHECK (creates <@ ARRAY['contact', 'guest_card', 'prayer_request', 'group_join_request']);
ALTER TABLE grow_forms ADD COLUMN prayer_field text CHECK (prayer_field IS NULL OR length(prayer_field) <= 40);
ALTER TABLE grow_forms ADD COLUMN join_group_id uuid;
ALTER TABLE grow_submissions ADD COLUMN prayer_request_id uuid;
ALTER TABLE grow_submissions ADD COLUMN join_request_id uuid;
ALTER TABLE grow_submissions ADD COLUMN join_outcome text CHECK (join_outcome IS NULL OR length(join_outcome) <= 40);

CREATE TABLE grow_campaign_test_sends (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL REFERENCES grow_campaigns(id) ON DELETE CASCADE,
  contact_id uuid,
  message_id uuid NOT NULL,
  variant integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX grow_campaign_test_sends_org_idx ON grow_campaign_test_sends (org_id, created_at);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE grow_campaign_test_sends;
ALTER TABLE grow_submissions DROP COLUMN join_outcome, DROP COLUMN join_request_id, DROP COLUMN prayer_request_id;
ALTER TABLE grow_forms DROP COLUMN join_group_id, DROP COLUMN prayer_field;
ALTER TABLE grow_forms DROP CONSTRAINT grow_forms_creates_check;
ALTER TABLE grow_forms ADD CONSTRAINT grow_forms_creates_check CHECK (creates <@ ARRAY['contact', 'guest_card']);
`,
};
