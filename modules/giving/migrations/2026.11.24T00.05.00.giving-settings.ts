import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * One row of giving settings per organisation, created on first write; until then the defaults in
 * modules/giving/settings.ts apply. The currency is NULL unless set: donations then use the
 * currency of the organisation's country (modules/giving/money.ts currencyForCountry).
 */
export const givingSettings: Migration = {
  name: '2026.11.24T00.05.00.giving-settings',
  up: `
CREATE TABLE giving_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  currency text CHECK (currency ~ '^[A-Z]{3}$'),
  -- A batch whose total passes this many minor units is committed only after an owner/admin approves.
  commit_approval_threshold bigint NOT NULL DEFAULT 500000 CHECK (commit_approval_threshold >= 0 AND commit_approval_threshold <= 100000000000),
  updated_at timestamptz NOT NULL DEFAULT now()
);
${tenantPolicies(['giving_settings']).up}
`,
  down: `
${tenantPolicies(['giving_settings']).down}
DROP TABLE giving_settings;
`,
};
