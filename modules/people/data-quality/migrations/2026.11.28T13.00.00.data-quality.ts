import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['dq_jobs', 'dq_scans', 'dq_scan_hits', 'dq_duplicates', 'dq_dismissals', 'dq_previews', 'dq_changes', 'dq_queue'];

/**
 * Data quality: jobs (scans, fixes, undos) with progress, the scan history with each check's
 * affected contacts, duplicate groups and fuzzy pairs found by a scan, dismissals that outlive
 * scans, fix previews, the change log every fix writes (so it can be undone), and the review queue.
 * pg_trgm gives name similarity, fuzzystrmatch the sound-alike blocks fuzzy pairs are looked for in.
 */
export const dataQuality: Migration = {
  name: '2026.11.28T13.00.00.data-quality',
  up: `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

CREATE TABLE dq_jobs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('scan', 'apply_fix', 'undo_fix')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  done integer NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  params jsonb NOT NULL DEFAULT '{}'::jsonb,
  result jsonb,
  error text,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX dq_jobs_org_idx ON dq_jobs (org_id, created_at DESC);

CREATE TABLE dq_scans (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  job_id uuid NOT NULL REFERENCES dq_jobs(id) ON DELETE CASCADE,
  contact_count integer NOT NULL DEFAULT 0,
  score integer NOT NULL DEFAULT 0 CHECK (score BETWEEN 0 AND 100),
  categories jsonb NOT NULL DEFAULT '{}'::jsonb,
  checks jsonb NOT NULL DEFAULT '{}'::jsonb,
  duration_ms integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Null while the scan is running: readers use the newest completed scan.
  completed_at timestamptz
);
CREATE INDEX dq_scans_org_idx ON dq_scans (org_id, created_at DESC);

-- Which contacts each check found in a scan (deleted with the scan; a merged or erased contact's rows go with it).
CREATE TABLE dq_scan_hits (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  scan_id uuid NOT NULL REFERENCES dq_scans(id) ON DELETE CASCADE,
  check_key text NOT NULL,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  detail text,
  PRIMARY KEY (scan_id, check_key, contact_id)
);
CREATE INDEX dq_scan_hits_contact_idx ON dq_scan_hits (contact_id);

-- Exact groups (kind 'email' | 'phone', several contacts) and fuzzy pairs (kind 'fuzzy', two contacts) of one scan.
CREATE TABLE dq_duplicates (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  scan_id uuid NOT NULL REFERENCES dq_scans(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('email', 'phone', 'fuzzy')),
  match_key text NOT NULL,
  contact_ids uuid[] NOT NULL,
  confidence integer NOT NULL CHECK (confidence BETWEEN 0 AND 100),
  reasons jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dq_duplicates_scan_idx ON dq_duplicates (scan_id, kind, confidence DESC);

-- A dismissal names what was found (a group's key, a pair's two ids), not one scan's row, so later scans keep it dismissed.
CREATE TABLE dq_dismissals (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('group', 'pair')),
  match_key text NOT NULL,
  reason text,
  dismissed_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  restored_at timestamptz
);
CREATE UNIQUE INDEX dq_dismissals_live_key ON dq_dismissals (org_id, kind, match_key) WHERE restored_at IS NULL;

CREATE TABLE dq_previews (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  fix text NOT NULL,
  special boolean NOT NULL DEFAULT false,
  rows jsonb NOT NULL,
  row_count integer NOT NULL,
  hash text NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  applied_job_id uuid REFERENCES dq_jobs(id) ON DELETE SET NULL,
  undone_at timestamptz
);
CREATE INDEX dq_previews_org_idx ON dq_previews (org_id, created_at DESC);
-- One live application of a preview: a second apply of the same preview (two at once included) finds the first.
CREATE UNIQUE INDEX dq_previews_live_hash ON dq_previews (org_id, hash) WHERE undone_at IS NULL;

-- Every field a fix changed, with its value before, so the fix can be undone for 30 days.
CREATE TABLE dq_changes (
  id bigserial PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  job_id uuid NOT NULL REFERENCES dq_jobs(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  field text NOT NULL,
  before text,
  after text,
  applied_at timestamptz NOT NULL DEFAULT now(),
  undone_at timestamptz
);
CREATE INDEX dq_changes_job_idx ON dq_changes (job_id, id);

CREATE TABLE dq_queue (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('fuzzy_pair', 'stale_fix', 'unparseable_phone')),
  match_key text NOT NULL,
  contact_ids uuid[] NOT NULL,
  summary text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
  decision text,
  note text,
  decided_by uuid,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dq_queue_open_key ON dq_queue (org_id, kind, match_key) WHERE status = 'open';
CREATE INDEX dq_queue_org_idx ON dq_queue (org_id, status, created_at DESC);

-- Fuzzy pairs are looked for among contacts whose surnames sound alike.
CREATE INDEX contacts_surname_soundex_idx ON contacts (org_id, soundex(lower(last_name))) WHERE deleted_at IS NULL AND last_name IS NOT NULL;
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP INDEX IF EXISTS contacts_surname_soundex_idx;
DROP TABLE dq_queue, dq_changes, dq_previews, dq_dismissals, dq_duplicates, dq_scan_hits, dq_scans, dq_jobs;
`,
};
