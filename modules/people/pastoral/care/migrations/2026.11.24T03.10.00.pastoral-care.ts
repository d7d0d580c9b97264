import type { Migration } from '../../../../../db/migrate';
import { tenantPolicies } from '../../../../../db/row-level-security';

const TABLES = [
  'pastoral_settings', 'care_team_roles', 'care_team_assignments', 'contact_care_priorities',
  'safeguarding_checks', 'safeguarding_policies', 'crisis_holds',
];

export const pastoralCare: Migration = {
  name: '2026.11.24T03.10.00.pastoral-care',
  up: `
-- One row per organisation once initialised; until then every reader gets the defaults (getPastoralSettings).
CREATE TABLE pastoral_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  welfare_interval_days integer NOT NULL DEFAULT 180 CHECK (welfare_interval_days BETWEEN 1 AND 3650),
  default_privacy text NOT NULL DEFAULT 'team' CHECK (default_privacy IN ('public', 'team', 'private')),
  default_confidentiality_level text NOT NULL DEFAULT 'green' CHECK (default_confidentiality_level IN ('green', 'amber', 'red')),
  -- [{ "label": "One week", "offsetDays": 7 }, ...], in offset order.
  grief_plan jsonb NOT NULL,
  quiet_hours_start text CHECK (quiet_hours_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  quiet_hours_end text CHECK (quiet_hours_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((quiet_hours_start IS NULL) = (quiet_hours_end IS NULL))
);

CREATE TABLE care_team_roles (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  can_approve_outreach boolean NOT NULL DEFAULT false,
  can_view_confidential boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX care_team_roles_name_key ON care_team_roles (org_id, lower(name));

-- A team member in a care role, for the whole congregation (contact_id NULL) or for one person.
CREATE TABLE care_team_assignments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  role_id uuid NOT NULL REFERENCES care_team_roles(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX care_team_assignments_user_idx ON care_team_assignments (org_id, user_id);
CREATE INDEX care_team_assignments_contact_idx ON care_team_assignments (org_id, contact_id) WHERE contact_id IS NOT NULL;

-- No uniqueness per contact: a merge moves both rows, and the newest one is the contact's priority.
CREATE TABLE contact_care_priorities (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  reason text,
  set_by_user_id uuid,
  set_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX contact_care_priorities_contact_idx ON contact_care_priorities (org_id, contact_id, set_at DESC);

-- The certificate number is kept only as a keyed hash (to recognise it again) and its last four characters.
CREATE TABLE safeguarding_checks (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  check_type text NOT NULL,
  certificate_hash text,
  certificate_last4 text,
  issued_on date,
  expires_on date,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'expiring', 'overdue')),
  status_computed_on date NOT NULL DEFAULT CURRENT_DATE,
  notes text,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((certificate_hash IS NULL) = (certificate_last4 IS NULL)),
  CHECK (expires_on IS NULL OR issued_on IS NULL OR expires_on >= issued_on)
);
CREATE INDEX safeguarding_checks_contact_idx ON safeguarding_checks (org_id, contact_id);
CREATE INDEX safeguarding_checks_status_idx ON safeguarding_checks (org_id, status, expires_on);

CREATE TABLE safeguarding_policies (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL,
  version text NOT NULL,
  review_on date,
  owner_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  notes text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX safeguarding_policies_title_key ON safeguarding_policies (org_id, lower(title));

-- A hold on every message to a contact after a crisis referral, until a staff member clears it.
CREATE TABLE crisis_holds (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  signals jsonb NOT NULL,
  placed_by_user_id uuid,
  placed_at timestamptz NOT NULL DEFAULT now(),
  cleared_at timestamptz,
  cleared_by_user_id uuid,
  clear_note text,
  CHECK ((cleared_at IS NULL) = (cleared_by_user_id IS NULL))
);
CREATE INDEX crisis_holds_active_idx ON crisis_holds (org_id, contact_id) WHERE cleared_at IS NULL;

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE crisis_holds;
DROP TABLE safeguarding_policies;
DROP TABLE safeguarding_checks;
DROP TABLE contact_care_priorities;
DROP TABLE care_team_assignments;
DROP TABLE care_team_roles;
DROP TABLE pastoral_settings;
`,
};
