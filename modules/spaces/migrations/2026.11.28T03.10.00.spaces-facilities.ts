import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['spaces_incidents', 'spaces_utility_meters', 'spaces_utility_bills', 'spaces_booking_charges', 'spaces_charge_payments'];

/**
 * Facilities: incidents (work orders) with priority, location and assignee; utility meters and
 * their bill periods (usage in whole units, cost in minor units; one meter's periods never overlap,
 * by an exclusion constraint over date ranges); and charges on bookings (hire, deposit) with the
 * payments against them, which never exceed what is due.
 */
export const spacesFacilities: Migration = {
  name: '2026.11.28T03.10.00.spaces-facilities',
  up: `
CREATE TABLE spaces_incidents (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text CHECK (length(description) <= 4000),
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'triaged', 'in_progress', 'done')),
  priority text NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  room_id uuid REFERENCES spaces_rooms(id) ON DELETE SET NULL,
  building_id uuid REFERENCES spaces_buildings(id) ON DELETE SET NULL,
  location_note text CHECK (length(location_note) <= 200),
  assignee_user_id uuid,
  reported_by_user_id uuid,
  resolution_note text CHECK (length(resolution_note) <= 2000),
  done_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX spaces_incidents_open ON spaces_incidents (org_id, status, created_at DESC);

CREATE TABLE spaces_utility_meters (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  building_id uuid NOT NULL REFERENCES spaces_buildings(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('electric', 'gas', 'water')),
  unit text NOT NULL CHECK (length(unit) BETWEEN 1 AND 20),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (building_id, kind)
);

CREATE TABLE spaces_utility_bills (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  meter_id uuid NOT NULL REFERENCES spaces_utility_meters(id) ON DELETE CASCADE,
  period_start date NOT NULL,
  period_end date NOT NULL CHECK (period_end >= period_start),
  usage integer NOT NULL CHECK (usage BETWEEN 0 AND 2000000000),
  cost_minor integer NOT NULL CHECK (cost_minor BETWEEN 0 AND 2000000000),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  supplier text CHECK (length(supplier) <= 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT spaces_utility_bills_no_overlap EXCLUDE USING gist (meter_id WITH =, daterange(period_start, period_end, '[]') WITH &&)
);

CREATE TABLE spaces_booking_charges (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  booking_id uuid NOT NULL REFERENCES spaces_bookings(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('hire', 'deposit', 'other')),
  description text NOT NULL CHECK (length(description) BETWEEN 1 AND 200),
  amount_minor integer NOT NULL CHECK (amount_minor BETWEEN 1 AND 2000000000),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  due_date date NOT NULL,
  paid_minor integer NOT NULL DEFAULT 0 CHECK (paid_minor >= 0 AND paid_minor <= amount_minor),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX spaces_booking_charges_booking ON spaces_booking_charges (booking_id);

CREATE TABLE spaces_charge_payments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  charge_id uuid NOT NULL REFERENCES spaces_booking_charges(id) ON DELETE CASCADE,
  amount_minor integer NOT NULL CHECK (amount_minor > 0),
  paid_on date NOT NULL,
  method text NOT NULL CHECK (method IN ('cash', 'card', 'bank_transfer', 'cheque', 'other')),
  reference text CHECK (length(reference) <= 200),
  recorded_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX spaces_charge_payments_charge ON spaces_charge_payments (charge_id);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE spaces_charge_payments;
DROP TABLE spaces_booking_charges;
DROP TABLE spaces_utility_bills;
DROP TABLE spaces_utility_meters;
DROP TABLE spaces_incidents;
`,
};
