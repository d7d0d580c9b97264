import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['capability_gaps'];

/** What an agent needed and Steward could not do, as it reported it; owners read them to decide what to ask for. */
export const capabilityGaps: Migration = {
  name: '2026.11.24T01.10.00.capability-gaps',
  up: `
CREATE TABLE capability_gaps (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  tool text,
  missing text NOT NULL,
  example text,
  reported_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  credential_kind text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX capability_gaps_org_created_idx ON capability_gaps (org_id, created_at DESC, id DESC);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE capability_gaps;
`,
};
