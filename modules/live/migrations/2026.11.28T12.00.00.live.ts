import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = [
  'live_streams', 'live_polls', 'live_poll_votes', 'live_chat', 'live_blocked_viewers', 'live_prayer_requests',
  'live_viewer_sessions', 'live_daily_salts', 'live_attendance_records',
];

/**
 * Live: streams (a schedule instance or a date, the provider's broadcast behind each, its
 * lifecycle), polls and their votes (one per viewer per poll), viewer chat with its moderation,
 * private prayer requests to hosts (pastoral data: privacy and confidentiality as every pastoral
 * record has them), viewer sessions keyed by a daily salted hash (never an IP) or a contact, and
 * the online attendance written to the attendance module with the method it counted by.
 */
export const liveMigration: Migration = {
  name: '2026.11.28T12.00.00.live',
  up: `
CREATE TABLE live_streams (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 2000),
  instance_id text CHECK (instance_id IS NULL OR length(instance_id) BETWEEN 1 AND 200),
  scheduled_start timestamptz NOT NULL,
  scheduled_end timestamptz NOT NULL,
  grace_minutes integer NOT NULL DEFAULT 30 CHECK (grace_minutes BETWEEN 0 AND 240),
  early_start_minutes integer NOT NULL DEFAULT 15 CHECK (early_start_minutes BETWEEN 0 AND 240),
  chat_before_minutes integer NOT NULL DEFAULT 15 CHECK (chat_before_minutes BETWEEN 0 AND 240),
  chat_after_minutes integer NOT NULL DEFAULT 15 CHECK (chat_after_minutes BETWEEN 0 AND 240),
  unscheduled boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'ready', 'testing', 'live', 'complete', 'cancelled')),
  provider text NOT NULL DEFAULT 'youtube' CHECK (length(provider) BETWEEN 1 AND 40),
  provider_broadcast_id text,
  provider_stream_id text,
  episode_ref text CHECK (episode_ref IS NULL OR length(episode_ref) BETWEEN 1 AND 200),
  started_at timestamptz,
  ended_at timestamptz,
  ended_reason text CHECK (ended_reason IS NULL OR ended_reason IN ('host', 'auto_complete', 'cancelled')),
  hours_recorded integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (scheduled_end > scheduled_start)
);
CREATE INDEX live_streams_start ON live_streams (org_id, scheduled_start);
CREATE UNIQUE INDEX live_streams_instance ON live_streams (org_id, instance_id) WHERE instance_id IS NOT NULL AND status <> 'cancelled';

CREATE TABLE live_polls (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  stream_id uuid NOT NULL REFERENCES live_streams(id) ON DELETE CASCADE,
  question text NOT NULL CHECK (length(question) BETWEEN 1 AND 300),
  options jsonb NOT NULL,
  anonymous boolean NOT NULL DEFAULT true,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  opens_at timestamptz NOT NULL DEFAULT now(),
  closes_at timestamptz,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_polls_stream ON live_polls (org_id, stream_id);

CREATE TABLE live_poll_votes (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  poll_id uuid NOT NULL REFERENCES live_polls(id) ON DELETE CASCADE,
  option_id text NOT NULL CHECK (length(option_id) BETWEEN 1 AND 20),
  viewer_key text NOT NULL CHECK (length(viewer_key) BETWEEN 1 AND 100),
  contact_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX live_poll_votes_once ON live_poll_votes (poll_id, viewer_key);

CREATE TABLE live_chat (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  stream_id uuid NOT NULL REFERENCES live_streams(id) ON DELETE CASCADE,
  viewer_key text NOT NULL CHECK (length(viewer_key) BETWEEN 1 AND 100),
  contact_id uuid,
  display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 60),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 500),
  hidden boolean NOT NULL DEFAULT false,
  hidden_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_chat_stream ON live_chat (org_id, stream_id, created_at);
CREATE INDEX live_chat_viewer ON live_chat (org_id, viewer_key, created_at);

CREATE TABLE live_blocked_viewers (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  viewer_key text NOT NULL CHECK (length(viewer_key) BETWEEN 1 AND 100),
  reason text CHECK (reason IS NULL OR length(reason) <= 500),
  blocked_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX live_blocked_viewers_once ON live_blocked_viewers (org_id, viewer_key);

CREATE TABLE live_prayer_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  stream_id uuid NOT NULL REFERENCES live_streams(id) ON DELETE CASCADE,
  viewer_key text NOT NULL CHECK (length(viewer_key) BETWEEN 1 AND 100),
  contact_id uuid,
  name text CHECK (name IS NULL OR length(name) <= 100),
  contact_detail text CHECK (contact_detail IS NULL OR length(contact_detail) <= 200),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
  privacy text NOT NULL DEFAULT 'team' CHECK (privacy IN ('public', 'team', 'private')),
  confidentiality_level text NOT NULL DEFAULT 'green' CHECK (confidentiality_level IN ('green', 'amber', 'red')),
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'prayed', 'followed_up')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_prayer_requests_stream ON live_prayer_requests (org_id, stream_id, created_at);

CREATE TABLE live_viewer_sessions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  stream_id uuid NOT NULL REFERENCES live_streams(id) ON DELETE CASCADE,
  viewer_key text NOT NULL CHECK (length(viewer_key) BETWEEN 1 AND 100),
  contact_id uuid,
  day date NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  heartbeats integer NOT NULL DEFAULT 0 CHECK (heartbeats >= 0)
);
CREATE INDEX live_viewer_sessions_stream ON live_viewer_sessions (org_id, stream_id, started_at);

CREATE TABLE live_daily_salts (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  day date NOT NULL,
  salt text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, day)
);

CREATE TABLE live_attendance_records (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  stream_id uuid NOT NULL REFERENCES live_streams(id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  method text NOT NULL CHECK (method IN ('unique_viewers', 'sessions', 'viewers_past_one_minute', 'peak_concurrent')),
  base_count integer NOT NULL CHECK (base_count >= 0),
  household_multiplier_pct integer NOT NULL DEFAULT 100 CHECK (household_multiplier_pct BETWEEN 100 AND 500),
  count integer NOT NULL CHECK (count >= 0),
  headcount_id uuid,
  recorded_by_user_id uuid,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX live_attendance_records_stream ON live_attendance_records (org_id, stream_id);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE live_attendance_records, live_daily_salts, live_viewer_sessions, live_prayer_requests, live_blocked_viewers, live_chat, live_poll_votes, live_polls, live_streams;
`,
};
