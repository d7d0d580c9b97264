import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = [
  'spaces_campuses', 'spaces_buildings', 'spaces_rooms', 'spaces_resources', 'spaces_bookings', 'spaces_booking_resources',
  'spaces_blockouts', 'spaces_occurrences', 'spaces_conflicts',
];

/**
 * Campuses, buildings, rooms and countable resources; bookings (once or an RRULE in a zone) and
 * their occurrences, materialised on a rolling window; blockouts; conflicts.
 *
 * Double booking is refused by Postgres itself: every live occurrence of a room holds its busy
 * window [start - setup, end + teardown] in `busy_from`/`busy_to`, and an exclusion constraint
 * (btree_gist for the room id's equality) refuses two pending or approved, unshared occurrences of
 * one room whose windows overlap. A rejected, cancelled or held (clashing, awaiting a person)
 * occurrence is outside the constraint, so it blocks nothing. Shared occurrences (a conflict a person
 * resolved as "shared") are left out of it too: both keep the room on purpose.
 *
 * Resources are countable (120 chairs): their quantity is a sum, which no constraint expresses, so
 * bookings of a resource take the resource's row lock and check the peak use of every window.
 */
export const spacesTables: Migration = {
  name: '2026.11.28T03.00.00.spaces',
  up: `
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE spaces_campuses (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  address text CHECK (length(address) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX spaces_campuses_name ON spaces_campuses (org_id, lower(name));

CREATE TABLE spaces_buildings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  campus_id uuid NOT NULL REFERENCES spaces_campuses(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  address text CHECK (length(address) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX spaces_buildings_name ON spaces_buildings (org_id, campus_id, lower(name));

CREATE TABLE spaces_rooms (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  building_id uuid NOT NULL REFERENCES spaces_buildings(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  capacity integer NOT NULL CHECK (capacity BETWEEN 0 AND 100000),
  features text[] NOT NULL DEFAULT '{}',
  layouts jsonb NOT NULL DEFAULT '[]',
  approver_user_ids uuid[] NOT NULL DEFAULT '{}',
  default_setup_minutes integer NOT NULL DEFAULT 0 CHECK (default_setup_minutes BETWEEN 0 AND 1440),
  default_teardown_minutes integer NOT NULL DEFAULT 0 CHECK (default_teardown_minutes BETWEEN 0 AND 1440),
  notes text CHECK (length(notes) <= 2000),
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX spaces_rooms_name ON spaces_rooms (org_id, building_id, lower(name)) WHERE archived_at IS NULL;
CREATE INDEX spaces_rooms_org ON spaces_rooms (org_id, created_at DESC, id DESC);

CREATE TABLE spaces_resources (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  building_id uuid REFERENCES spaces_buildings(id) ON DELETE SET NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 100000),
  notes text CHECK (length(notes) <= 2000),
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX spaces_resources_name ON spaces_resources (org_id, lower(name)) WHERE archived_at IS NULL;

CREATE TABLE spaces_bookings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  room_id uuid REFERENCES spaces_rooms(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
  time_zone text NOT NULL,
  start_date date NOT NULL,
  start_time text NOT NULL CHECK (start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 5 AND 1440),
  rrule text CHECK (length(rrule) <= 500),
  -- the part of the rule this booking covers (after a "this and following" split): local dates, from inclusive, until exclusive
  from_date date,
  until_date date,
  setup_minutes integer NOT NULL DEFAULT 0 CHECK (setup_minutes BETWEEN 0 AND 1440),
  teardown_minutes integer NOT NULL DEFAULT 0 CHECK (teardown_minutes BETWEEN 0 AND 1440),
  layout text CHECK (length(layout) <= 200),
  expected_attendance integer CHECK (expected_attendance BETWEEN 0 AND 100000),
  schedule_instance_id uuid,
  hirer_contact_id uuid,
  hirer_organisation text CHECK (length(hirer_organisation) <= 200),
  notes text CHECK (length(notes) <= 2000),
  requested_by_user_id uuid,
  decided_by_user_id uuid,
  decided_at timestamptz,
  decision_note text CHECK (length(decision_note) <= 1000),
  split_from_booking_id uuid REFERENCES spaces_bookings(id) ON DELETE SET NULL,
  materialised_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX spaces_bookings_org ON spaces_bookings (org_id, created_at DESC, id DESC);
CREATE INDEX spaces_bookings_instance ON spaces_bookings (org_id, schedule_instance_id) WHERE schedule_instance_id IS NOT NULL;
CREATE INDEX spaces_bookings_hirer ON spaces_bookings (hirer_contact_id) WHERE hirer_contact_id IS NOT NULL;

CREATE TABLE spaces_booking_resources (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  booking_id uuid NOT NULL REFERENCES spaces_bookings(id) ON DELETE CASCADE,
  resource_id uuid NOT NULL REFERENCES spaces_resources(id) ON DELETE CASCADE,
  quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 100000),
  UNIQUE (booking_id, resource_id)
);
CREATE INDEX spaces_booking_resources_resource ON spaces_booking_resources (resource_id);

-- a blockout closes a room, a resource, a building or a whole campus (site) for a window
CREATE TABLE spaces_blockouts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  room_id uuid REFERENCES spaces_rooms(id) ON DELETE CASCADE,
  resource_id uuid REFERENCES spaces_resources(id) ON DELETE CASCADE,
  building_id uuid REFERENCES spaces_buildings(id) ON DELETE CASCADE,
  campus_id uuid REFERENCES spaces_campuses(id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT spaces_blockouts_one_target CHECK (num_nonnulls(room_id, resource_id, building_id, campus_id) = 1)
);
CREATE INDEX spaces_blockouts_window ON spaces_blockouts USING gist (org_id, tstzrange(starts_at, ends_at));

CREATE TABLE spaces_occurrences (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  booking_id uuid NOT NULL REFERENCES spaces_bookings(id) ON DELETE CASCADE,
  room_id uuid REFERENCES spaces_rooms(id) ON DELETE CASCADE,
  -- the local date the rule put it on: the occurrence's key, kept when it is moved
  original_local_date date NOT NULL,
  local_date date NOT NULL,
  local_start_time text NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
  busy_from timestamptz NOT NULL,
  busy_to timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled', 'held')),
  shared boolean NOT NULL DEFAULT false,
  detached boolean NOT NULL DEFAULT false,
  layout text CHECK (length(layout) <= 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT spaces_occurrences_busy_covers CHECK (busy_from <= starts_at AND busy_to >= ends_at),
  -- a day's length plus a day of set-up and one of clear-up at most: searches bound their index scans by it
  CONSTRAINT spaces_occurrences_busy_span CHECK (busy_to - busy_from <= interval '3 days'),
  CONSTRAINT spaces_occurrences_no_double_booking EXCLUDE USING gist (room_id WITH =, tstzrange(busy_from, busy_to) WITH &&)
    WHERE (room_id IS NOT NULL AND NOT shared AND status IN ('pending', 'approved'))
);
CREATE UNIQUE INDEX spaces_occurrences_key ON spaces_occurrences (booking_id, original_local_date);
CREATE INDEX spaces_occurrences_room_busy ON spaces_occurrences USING gist (room_id, tstzrange(busy_from, busy_to));
-- clash searches: live busy windows by room, and across the organisation's rooms, by start. Searches
-- compare timestamps (leakproof, so usable in an index scan under the tenant policy, where a range
-- overlap is not) between a window's start less the longest busy span and its end.
CREATE INDEX spaces_occurrences_room_live ON spaces_occurrences (room_id, busy_from) WHERE status IN ('pending', 'approved');
CREATE INDEX spaces_occurrences_org_live ON spaces_occurrences (org_id, busy_from) WHERE status IN ('pending', 'approved');
CREATE INDEX spaces_occurrences_org_start ON spaces_occurrences (org_id, starts_at);

CREATE TABLE spaces_conflicts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  -- the occurrence held back by the clash, and what it clashes with (another occurrence or a blockout)
  occurrence_id uuid NOT NULL REFERENCES spaces_occurrences(id) ON DELETE CASCADE,
  other_occurrence_id uuid REFERENCES spaces_occurrences(id) ON DELETE CASCADE,
  blockout_id uuid REFERENCES spaces_blockouts(id) ON DELETE CASCADE,
  room_id uuid REFERENCES spaces_rooms(id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  resolution text CHECK (resolution IN ('booking_kept', 'other_kept', 'shared', 'withdrawn')),
  resolved_by_user_id uuid,
  resolved_at timestamptz,
  note text CHECK (length(note) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT spaces_conflicts_against CHECK (num_nonnulls(other_occurrence_id, blockout_id) = 1),
  CONSTRAINT spaces_conflicts_resolved CHECK ((status = 'open') = (resolution IS NULL))
);
CREATE INDEX spaces_conflicts_open ON spaces_conflicts (org_id, created_at DESC, id DESC) WHERE status = 'open';
CREATE INDEX spaces_conflicts_occurrence ON spaces_conflicts (occurrence_id);
CREATE INDEX spaces_conflicts_other ON spaces_conflicts (other_occurrence_id);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE spaces_conflicts;
DROP TABLE spaces_occurrences;
DROP TABLE spaces_blockouts;
DROP TABLE spaces_booking_resources;
DROP TABLE spaces_bookings;
DROP TABLE spaces_resources;
DROP TABLE spaces_rooms;
DROP TABLE spaces_buildings;
DROP TABLE spaces_campuses;
`,
};
