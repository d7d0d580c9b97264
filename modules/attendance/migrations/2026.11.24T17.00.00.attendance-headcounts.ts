import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Headcounts: how many people were in a place (a check-in location or a named area such as "Main
 * hall") at one service instance, and who counted them. One count per instance and area (`area_key`,
 * the location id or the lower-cased area name): counting again replaces the figure, so a recount
 * never adds to the total. The instance's local date is kept for range queries.
 */
export const attendanceHeadcounts: Migration = {
  name: '2026.11.24T17.00.00.attendance-headcounts',
  up: `
CREATE TABLE attendance_headcounts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  instance_id text NOT NULL CHECK (length(instance_id) BETWEEN 1 AND 200),
  local_date date NOT NULL,
  location_id uuid,
  area text NOT NULL CHECK (length(area) BETWEEN 1 AND 200),
  area_key text NOT NULL CHECK (length(area_key) BETWEEN 1 AND 200),
  count integer NOT NULL CHECK (count BETWEEN 0 AND 100000),
  counted_by_user_id uuid,
  recorded_by_user_id uuid,
  note text CHECK (note IS NULL OR length(note) <= 1000),
  counted_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX attendance_headcounts_one_per_area ON attendance_headcounts (org_id, instance_id, area_key);
CREATE INDEX attendance_headcounts_day ON attendance_headcounts (org_id, local_date);
${tenantPolicies(['attendance_headcounts']).up}
`,
  down: `
${tenantPolicies(['attendance_headcounts']).down}
DROP TABLE attendance_headcounts;
`,
};
