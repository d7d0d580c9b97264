import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Service series and their materialised instances.
 *
 * A series keeps its recurrence as RFC 5545 RRULE text evaluated in floating local time from
 * `start_date` + `start_time` in `time_zone`, so a 10:30 service stays 10:30 local across a
 * clock change. Instances are materialised rows keyed on (series, original start): the key of an
 * occurrence never changes, so re-running the materialisation updates rows in place rather than
 * adding duplicates. An instance edited on its own (cancelled, moved, retitled) is `detached`: the
 * series' later edits leave it alone. A one-off extra instance has no original start.
 */
export const scheduleSeriesInstances: Migration = {
  name: '2026.11.24T14.00.00.schedule-series-instances',
  up: `
CREATE TABLE schedule_series (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  rrule text NOT NULL CHECK (length(rrule) BETWEEN 1 AND 500),
  time_zone text NOT NULL,
  start_date date NOT NULL,
  start_time text NOT NULL CHECK (start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
  location_label text CHECK (length(location_label) <= 200),
  campus text CHECK (length(campus) <= 200),
  split_from_series_id uuid REFERENCES schedule_series(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX schedule_series_org_idx ON schedule_series (org_id, created_at DESC, id DESC);

CREATE TABLE schedule_instances (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  series_id uuid NOT NULL REFERENCES schedule_series(id) ON DELETE CASCADE,
  original_starts_at timestamptz,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
  local_date date NOT NULL,
  local_start_time text NOT NULL CHECK (local_start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone text NOT NULL,
  location_label text CHECK (length(location_label) <= 200),
  campus text CHECK (length(campus) <= 200),
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled')),
  cancel_reason text CHECK (length(cancel_reason) <= 500),
  detached boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- a one-off has no occurrence of the rule behind it; every other instance is one occurrence
  CONSTRAINT schedule_instances_one_off_detached CHECK (original_starts_at IS NOT NULL OR detached)
);
CREATE UNIQUE INDEX schedule_instances_occurrence_key ON schedule_instances (series_id, original_starts_at);
CREATE INDEX schedule_instances_org_start_idx ON schedule_instances (org_id, starts_at, id);
CREATE INDEX schedule_instances_org_local_date_idx ON schedule_instances (org_id, local_date);
${tenantPolicies(['schedule_series', 'schedule_instances']).up}`,
  down: `${tenantPolicies(['schedule_series', 'schedule_instances']).down}
DROP TABLE schedule_instances;
DROP TABLE schedule_series;`,
};
