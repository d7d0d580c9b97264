import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = [
  'guests_locations', 'guests_stations', 'guests_service_checkin_settings', 'guests_checkin_settings',
  'guests_child_profiles', 'guests_checkin_groups', 'guests_checkins', 'guests_sweep_reports',
] as const;

/**
 * Check-in with child safety. Service instances live in the schedule module, so instance and series
 * ids are kept as text without a foreign key (the schedule's own id format).
 *
 * The safety rules the database itself holds:
 * - a security code is unique among the organisation's open groups of the same local day
 *   (`guests_checkin_groups_open_code`), so two concurrent household check-ins cannot share one;
 * - a person has at most one open check-in per service instance (`guests_checkins_one_open`);
 * - nobody is checked out without a time, who did it and where (`checked_out_*` together).
 */
export const guestsCheckin: Migration = {
  name: '2026.11.24T15.00.00.guests-checkin',
  up: `
CREATE TABLE guests_locations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  min_age integer CHECK (min_age BETWEEN 0 AND 120),
  max_age integer CHECK (max_age BETWEEN 0 AND 120),
  min_grade integer CHECK (min_grade BETWEEN -2 AND 13),
  max_grade integer CHECK (max_grade BETWEEN -2 AND 13),
  capacity integer CHECK (capacity > 0),
  capacity_mode text NOT NULL DEFAULT 'block' CHECK (capacity_mode IN ('block', 'warn')),
  children_per_adult integer CHECK (children_per_adult > 0),
  ratio_mode text NOT NULL DEFAULT 'block' CHECK (ratio_mode IN ('block', 'warn')),
  background_check_required boolean NOT NULL DEFAULT false,
  background_check_type text CHECK (background_check_type IS NULL OR length(background_check_type) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age),
  CHECK (min_grade IS NULL OR max_grade IS NULL OR min_grade <= max_grade)
);
CREATE UNIQUE INDEX guests_locations_live_name ON guests_locations (org_id, lower(name)) WHERE deleted_at IS NULL;

CREATE TABLE guests_stations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  kind text NOT NULL CHECK (kind IN ('self', 'manned', 'roster')),
  location_id uuid REFERENCES guests_locations(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CHECK (kind <> 'roster' OR location_id IS NOT NULL)
);
CREATE INDEX guests_stations_org ON guests_stations (org_id, created_at DESC, id DESC);

CREATE TABLE guests_service_checkin_settings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  series_id text CHECK (series_id IS NULL OR length(series_id) <= 200),
  instance_id text CHECK (instance_id IS NULL OR length(instance_id) <= 200),
  open_location_ids uuid[] NOT NULL DEFAULT '{}',
  label_options jsonb NOT NULL DEFAULT '{}',
  updated_by_user_id uuid,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((series_id IS NULL) <> (instance_id IS NULL))
);
CREATE UNIQUE INDEX guests_service_settings_series ON guests_service_checkin_settings (org_id, series_id) WHERE series_id IS NOT NULL;
CREATE UNIQUE INDEX guests_service_settings_instance ON guests_service_checkin_settings (org_id, instance_id) WHERE instance_id IS NOT NULL;

CREATE TABLE guests_checkin_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  security_code_length integer NOT NULL DEFAULT 4 CHECK (security_code_length BETWEEN 3 AND 8),
  sweep_grace_minutes integer NOT NULL DEFAULT 30 CHECK (sweep_grace_minutes BETWEEN 0 AND 720),
  medical_visible_roles text[] NOT NULL DEFAULT '{owner,admin,staff}',
  hub jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE guests_child_profiles (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  grade integer CHECK (grade BETWEEN -2 AND 13),
  allergies text CHECK (allergies IS NULL OR length(allergies) <= 1000),
  medical_notes text CHECK (medical_notes IS NULL OR length(medical_notes) <= 2000),
  authorised_pickup_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guests_child_profiles_contact ON guests_child_profiles (org_id, contact_id, updated_at DESC);

CREATE TABLE guests_checkin_groups (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  local_date date NOT NULL,
  security_code text CHECK (security_code ~ '^[A-Z0-9]{3,8}$'),
  station_id uuid NOT NULL REFERENCES guests_stations(id),
  checked_in_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  released_at timestamptz
);
CREATE UNIQUE INDEX guests_checkin_groups_open_code ON guests_checkin_groups (org_id, local_date, security_code)
  WHERE security_code IS NOT NULL AND released_at IS NULL;

CREATE TABLE guests_checkins (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES guests_checkin_groups(id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  local_date date NOT NULL,
  instance_ends_at timestamptz NOT NULL,
  location_id uuid NOT NULL REFERENCES guests_locations(id),
  station_id uuid NOT NULL REFERENCES guests_stations(id),
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  person_kind text NOT NULL CHECK (person_kind IN ('child', 'adult', 'volunteer')),
  first_time boolean NOT NULL,
  checked_in_at timestamptz NOT NULL DEFAULT now(),
  checked_in_by_user_id uuid,
  warnings jsonb NOT NULL DEFAULT '[]',
  overrides jsonb NOT NULL DEFAULT '[]',
  label_reprints integer NOT NULL DEFAULT 0 CHECK (label_reprints >= 0),
  checked_out_at timestamptz,
  checked_out_by_user_id uuid,
  checkout_station_id uuid REFERENCES guests_stations(id),
  pickup_contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  pickup_name text CHECK (pickup_name IS NULL OR length(pickup_name) <= 200),
  pickup_authorised boolean,
  checkout_override_reason text CHECK (checkout_override_reason IS NULL OR length(checkout_override_reason) <= 1000),
  checkout_override_by_user_id uuid,
  CHECK ((checked_out_at IS NULL) = (checkout_station_id IS NULL)),
  CHECK (checkout_override_reason IS NULL OR checkout_override_by_user_id IS NOT NULL)
);
CREATE UNIQUE INDEX guests_checkins_one_open ON guests_checkins (org_id, instance_id, contact_id) WHERE checked_out_at IS NULL;
CREATE INDEX guests_checkins_room ON guests_checkins (org_id, location_id, instance_id) WHERE checked_out_at IS NULL;
CREATE INDEX guests_checkins_day ON guests_checkins (org_id, local_date, checked_in_at);
CREATE INDEX guests_checkins_contact ON guests_checkins (org_id, contact_id, checked_in_at);
CREATE INDEX guests_checkins_group ON guests_checkins (group_id);
CREATE INDEX guests_checkins_open_ends ON guests_checkins (instance_ends_at) WHERE checked_out_at IS NULL AND person_kind = 'child';

CREATE TABLE guests_sweep_reports (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  local_date date NOT NULL,
  instance_ended_at timestamptz NOT NULL,
  children_count integer NOT NULL CHECK (children_count >= 0),
  checkin_ids uuid[] NOT NULL,
  staff_on_duty_count integer NOT NULL DEFAULT 0,
  reported_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, instance_id)
);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE guests_sweep_reports;
DROP TABLE guests_checkins;
DROP TABLE guests_checkin_groups;
DROP TABLE guests_child_profiles;
DROP TABLE guests_checkin_settings;
DROP TABLE guests_service_checkin_settings;
DROP TABLE guests_stations;
DROP TABLE guests_locations;
`,
};
