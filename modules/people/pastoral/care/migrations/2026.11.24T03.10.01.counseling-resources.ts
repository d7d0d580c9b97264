import type { Migration } from '../../../../../db/migrate';
import { tenantPolicies } from '../../../../../db/row-level-security';

/** Local support an organisation adds to the national helplines (a counselling service, a food bank, the diocese's safeguarding line). */
export const counselingResources: Migration = {
  name: '2026.11.24T03.10.01.counseling-resources',
  up: `
CREATE TABLE counseling_resources (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  contact text NOT NULL CHECK (length(contact) BETWEEN 1 AND 200),
  how text NOT NULL CHECK (how IN ('call', 'text', 'visit', 'web')),
  available text CHECK (length(available) <= 200),
  for_what text CHECK (length(for_what) <= 300),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX counseling_resources_name_key ON counseling_resources (org_id, lower(name));
${tenantPolicies(['counseling_resources']).up}
`,
  down: `
${tenantPolicies(['counseling_resources']).down}
DROP TABLE counseling_resources;
`,
};
