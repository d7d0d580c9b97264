import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/** The sample module's one table: visits, each naming a contact (so merge and erasure must reach it). */
export const kitdemoVisitsMigration: Migration = {
  name: '2026.11.23T09.00.00.kitdemo-visits',
  up: `
CREATE TABLE kitdemo_visits (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  place text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX kitdemo_visits_org_idx ON kitdemo_visits (org_id, created_at DESC, id DESC);
${tenantPolicies(['kitdemo_visits']).up}`,
  down: `${tenantPolicies(['kitdemo_visits']).down}
DROP TABLE kitdemo_visits;`,
};
