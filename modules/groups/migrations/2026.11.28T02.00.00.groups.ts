import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['groups_types', 'groups_groups', 'groups_memberships', 'groups_join_requests', 'groups_meetings', 'groups_meeting_rsvps', 'groups_attendance'];

/**
 * Small groups (cell, home, class): not the people module's CRM groups (ministry teams).
 *
 * - `groups_types`: cell, home group, class… one name per organisation.
 * - `groups_groups`: a group, its schedule, place (address or online link), visibility (listed,
 *   confidential roster), capacity, age range, tags, and its enrolment (open, request to join,
 *   closed; a member limit and a closing date, closed automatically when reached).
 * - `groups_memberships`: leader or member, joined and left; a leaving member's row stays with
 *   `left_at`, so the history is kept. One current membership per person and group. A leader's row
 *   may name the team member (`leader_user_id`) whose credential acts as that leader.
 * - `groups_join_requests`: pending → approved | declined (one pending request per person and group).
 * - `groups_meetings`: one row per meeting; a recurring schedule (RRULE) makes a row per
 *   occurrence sharing `series_id`. `groups_meeting_rsvps`: one answer per person and meeting.
 * - `groups_attendance`: one record per person per meeting; visitors recorded inline by contact or by name.
 *
 * Merging two contacts repoints the contact columns (contactRefs 'move'); where that would give one
 * person two rows the unique indexes refuse, the triggers below fold the merged row into the kept one.
 */
export const groupsMigration: Migration = {
  name: '2026.11.28T02.00.00.groups',
  up: `
CREATE TABLE groups_types (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  description text CHECK (description IS NULL OR length(description) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_types_name ON groups_types (org_id, lower(name));

CREATE TABLE groups_groups (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  type_id uuid REFERENCES groups_types(id) ON DELETE SET NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 4000),
  schedule_text text CHECK (schedule_text IS NULL OR length(schedule_text) <= 200),
  meeting_day text CHECK (meeting_day IS NULL OR meeting_day IN ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')),
  meeting_time text CHECK (meeting_time IS NULL OR meeting_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  location_kind text NOT NULL DEFAULT 'in_person' CHECK (location_kind IN ('in_person', 'online', 'hybrid')),
  address text CHECK (address IS NULL OR length(address) <= 500),
  area text CHECK (area IS NULL OR length(area) <= 100),
  online_url text CHECK (online_url IS NULL OR length(online_url) <= 2000),
  listed boolean NOT NULL DEFAULT true,
  confidential boolean NOT NULL DEFAULT false,
  capacity integer CHECK (capacity IS NULL OR capacity BETWEEN 1 AND 10000),
  min_age integer CHECK (min_age IS NULL OR min_age BETWEEN 0 AND 120),
  max_age integer CHECK (max_age IS NULL OR max_age BETWEEN 0 AND 120),
  tags text[] NOT NULL DEFAULT '{}',
  enrolment text NOT NULL DEFAULT 'request_to_join' CHECK (enrolment IN ('open', 'request_to_join', 'closed')),
  member_limit integer CHECK (member_limit IS NULL OR member_limit BETWEEN 1 AND 10000),
  closes_on date,
  auto_closed_at timestamptz,
  auto_closed_reason text CHECK (auto_closed_reason IS NULL OR auto_closed_reason IN ('member_limit', 'closing_date')),
  archived_at timestamptz,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age)
);
CREATE INDEX groups_groups_org ON groups_groups (org_id, created_at, id);

CREATE TABLE groups_memberships (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES groups_groups(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  role text NOT NULL CHECK (role IN ('leader', 'member')),
  leader_user_id uuid,
  joined_at timestamptz NOT NULL DEFAULT now(),
  left_at timestamptz,
  left_reason text CHECK (left_reason IS NULL OR length(left_reason) <= 500),
  added_by_user_id uuid,
  join_request_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_memberships_current ON groups_memberships (group_id, contact_id) WHERE left_at IS NULL;
CREATE INDEX groups_memberships_contact ON groups_memberships (org_id, contact_id);
CREATE INDEX groups_memberships_leader_user ON groups_memberships (org_id, leader_user_id) WHERE leader_user_id IS NOT NULL AND left_at IS NULL;

CREATE TABLE groups_join_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES groups_groups(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'declined')),
  message text CHECK (message IS NULL OR length(message) <= 1000),
  decline_reason text CHECK (decline_reason IS NULL OR length(decline_reason) <= 500),
  requested_by_user_id uuid,
  decided_by_user_id uuid,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_join_requests_pending ON groups_join_requests (group_id, contact_id) WHERE status = 'pending';
CREATE INDEX groups_join_requests_group ON groups_join_requests (org_id, group_id, status);

CREATE TABLE groups_meetings (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES groups_groups(id) ON DELETE CASCADE,
  series_id uuid,
  rrule text CHECK (rrule IS NULL OR length(rrule) <= 500),
  title text CHECK (title IS NULL OR length(title) <= 200),
  starts_at timestamptz NOT NULL,
  local_date date NOT NULL,
  local_time text NOT NULL,
  time_zone text NOT NULL,
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 5 AND 1440),
  location text CHECK (location IS NULL OR length(location) <= 500),
  notes text CHECK (notes IS NULL OR length(notes) <= 2000),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_meetings_once ON groups_meetings (group_id, starts_at);
CREATE INDEX groups_meetings_day ON groups_meetings (org_id, local_date);

CREATE TABLE groups_meeting_rsvps (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  meeting_id uuid NOT NULL REFERENCES groups_meetings(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  response text NOT NULL CHECK (response IN ('yes', 'no', 'maybe')),
  note text CHECK (note IS NULL OR length(note) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX groups_meeting_rsvps_once ON groups_meeting_rsvps (meeting_id, contact_id);

CREATE TABLE groups_attendance (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  meeting_id uuid NOT NULL REFERENCES groups_meetings(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES groups_groups(id) ON DELETE CASCADE,
  contact_id uuid,
  visitor_name text CHECK (visitor_name IS NULL OR length(visitor_name) BETWEEN 1 AND 200),
  visitor boolean NOT NULL DEFAULT false,
  present boolean NOT NULL,
  recorded_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (contact_id IS NOT NULL OR visitor_name IS NOT NULL)
);
CREATE UNIQUE INDEX groups_attendance_person ON groups_attendance (meeting_id, contact_id) WHERE contact_id IS NOT NULL;
CREATE UNIQUE INDEX groups_attendance_named_visitor ON groups_attendance (meeting_id, lower(visitor_name)) WHERE contact_id IS NULL;
CREATE INDEX groups_attendance_group ON groups_attendance (org_id, group_id);

-- Merges: a second current membership of the same group is closed (history kept), a leader's role carried over.
CREATE FUNCTION groups_memberships_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  kept groups_memberships%ROWTYPE;
BEGIN
  IF NEW.contact_id = OLD.contact_id OR NEW.left_at IS NOT NULL THEN
    RETURN NEW;
  END IF;
  SELECT * INTO kept FROM groups_memberships
    WHERE group_id = NEW.group_id AND contact_id = NEW.contact_id AND left_at IS NULL AND id <> NEW.id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  IF OLD.role = 'leader' THEN
    UPDATE groups_memberships SET role = 'leader', leader_user_id = COALESCE(leader_user_id, OLD.leader_user_id), updated_at = now() WHERE id = kept.id;
  END IF;
  NEW.left_at := now();
  NEW.left_reason := 'Merged into the same person''s membership';
  RETURN NEW;
END
$fn$;
CREATE TRIGGER groups_memberships_merge BEFORE UPDATE OF contact_id ON groups_memberships FOR EACH ROW EXECUTE FUNCTION groups_memberships_merge();

-- A second pending request of the same person for the same group is declined as a duplicate.
CREATE FUNCTION groups_join_requests_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id = OLD.contact_id OR NEW.status <> 'pending' THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM groups_join_requests WHERE group_id = NEW.group_id AND contact_id = NEW.contact_id AND status = 'pending' AND id <> NEW.id) THEN
    NEW.status := 'declined';
    NEW.decline_reason := 'Merged into the same person''s request';
    NEW.decided_at := now();
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER groups_join_requests_merge BEFORE UPDATE OF contact_id ON groups_join_requests FOR EACH ROW EXECUTE FUNCTION groups_join_requests_merge();

-- One answer and one attendance record per person and meeting: the kept contact's stands (present if either was).
CREATE FUNCTION groups_rsvps_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id = OLD.contact_id THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM groups_meeting_rsvps WHERE meeting_id = NEW.meeting_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
    DELETE FROM groups_meeting_rsvps WHERE id = OLD.id;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER groups_rsvps_merge BEFORE UPDATE OF contact_id ON groups_meeting_rsvps FOR EACH ROW EXECUTE FUNCTION groups_rsvps_merge();

CREATE FUNCTION groups_attendance_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id IS NULL OR NEW.contact_id IS NOT DISTINCT FROM OLD.contact_id THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM groups_attendance WHERE meeting_id = NEW.meeting_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
    UPDATE groups_attendance SET present = present OR OLD.present, updated_at = now()
      WHERE meeting_id = NEW.meeting_id AND contact_id = NEW.contact_id AND id <> NEW.id;
    DELETE FROM groups_attendance WHERE id = OLD.id;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER groups_attendance_merge BEFORE UPDATE OF contact_id ON groups_attendance FOR EACH ROW EXECUTE FUNCTION groups_attendance_merge();

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE groups_attendance;
DROP TABLE groups_meeting_rsvps;
DROP TABLE groups_meetings;
DROP TABLE groups_join_requests;
DROP TABLE groups_memberships;
DROP TABLE groups_groups;
DROP TABLE groups_types;
DROP FUNCTION groups_attendance_merge();
DROP FUNCTION groups_rsvps_merge();
DROP FUNCTION groups_join_requests_merge();
DROP FUNCTION groups_memberships_merge();
`,
};
