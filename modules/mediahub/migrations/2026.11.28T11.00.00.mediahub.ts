import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['mediahub_items', 'mediahub_channels', 'mediahub_series', 'mediahub_episodes', 'mediahub_episode_songs', 'mediahub_plays'];

/**
 * Media Hub: media items (bytes in the same S3-compatible storage as the Media Library, uploaded
 * through presigned URLs; uploading → processing → ready | failed → archived), podcast channels,
 * series and sermon episodes (draft → scheduled → published → unpublished) with the songs sung in
 * them and each song's licence, and the plays and downloads counted through Steward's redirect.
 * Search is Postgres full text over an expression index (no stored tsvector column).
 */
export const mediahubMigration: Migration = {
  name: '2026.11.28T11.00.00.mediahub',
  up: `
CREATE TABLE mediahub_items (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('video', 'audio', 'image', 'document', 'slides')),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  file_name text NOT NULL CHECK (length(file_name) BETWEEN 1 AND 200),
  extension text NOT NULL CHECK (extension ~ '^[a-z0-9]{2,5}$'),
  mime_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  status text NOT NULL DEFAULT 'uploading' CHECK (status IN ('uploading', 'processing', 'ready', 'failed', 'archived')),
  upload_key text NOT NULL,
  upload_expires_at timestamptz NOT NULL,
  storage_key text,
  thumbnail_key text,
  duration_ms integer CHECK (duration_ms IS NULL OR duration_ms >= 0),
  width integer,
  height integer,
  codec text,
  waveform jsonb,
  failure text,
  processing_attempts integer NOT NULL DEFAULT 0,
  licence text CHECK (licence IS NULL OR length(licence) <= 200),
  ccli_number text CHECK (ccli_number IS NULL OR ccli_number ~ '^[0-9]{1,10}$'),
  streaming_licence text CHECK (streaming_licence IS NULL OR length(streaming_licence) <= 100),
  captions text CHECK (captions IS NULL OR length(captions) <= 500000),
  processed_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mediahub_items_page ON mediahub_items (org_id, created_at DESC, id DESC);

CREATE TABLE mediahub_channels (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 4000),
  author text CHECK (author IS NULL OR length(author) <= 200),
  language text NOT NULL DEFAULT 'en' CHECK (language ~ '^[a-z]{2}(-[A-Za-z]{2})?$'),
  category text NOT NULL DEFAULT 'Religion & Spirituality' CHECK (length(category) BETWEEN 1 AND 100),
  artwork_item_id uuid REFERENCES mediahub_items(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX mediahub_channels_name ON mediahub_channels (org_id, lower(name));

CREATE TABLE mediahub_series (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  channel_id uuid NOT NULL REFERENCES mediahub_channels(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text CHECK (description IS NULL OR length(description) <= 4000),
  artwork_item_id uuid REFERENCES mediahub_items(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX mediahub_series_title ON mediahub_series (org_id, lower(title));

CREATE TABLE mediahub_episodes (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  series_id uuid NOT NULL REFERENCES mediahub_series(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  speaker text CHECK (speaker IS NULL OR length(speaker) <= 200),
  scripture text CHECK (scripture IS NULL OR length(scripture) <= 200),
  episode_date date NOT NULL,
  notes text CHECK (notes IS NULL OR length(notes) <= 10000),
  links jsonb NOT NULL DEFAULT '[]',
  artwork_item_id uuid REFERENCES mediahub_items(id) ON DELETE SET NULL,
  video_item_id uuid REFERENCES mediahub_items(id) ON DELETE SET NULL,
  audio_item_id uuid REFERENCES mediahub_items(id) ON DELETE SET NULL,
  plan_id uuid,
  instance_id uuid,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'unpublished')),
  publish_at timestamptz,
  published_at timestamptz,
  transcript text CHECK (transcript IS NULL OR length(transcript) <= 500000),
  transcript_status text NOT NULL DEFAULT 'none' CHECK (transcript_status IN ('none', 'requested', 'ready', 'failed')),
  transcript_requested_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mediahub_episodes_page ON mediahub_episodes (org_id, created_at DESC, id DESC);
CREATE INDEX mediahub_episodes_series ON mediahub_episodes (org_id, series_id, episode_date DESC);
CREATE UNIQUE INDEX mediahub_episodes_instance ON mediahub_episodes (org_id, instance_id) WHERE instance_id IS NOT NULL;
CREATE UNIQUE INDEX mediahub_episodes_plan ON mediahub_episodes (org_id, plan_id) WHERE plan_id IS NOT NULL;
CREATE INDEX mediahub_episodes_search ON mediahub_episodes USING gin (to_tsvector('english',
  coalesce(title, '') || ' ' || coalesce(speaker, '') || ' ' || coalesce(scripture, '') || ' ' || coalesce(notes, '') || ' ' || coalesce(transcript, '')));

CREATE TABLE mediahub_episode_songs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  episode_id uuid NOT NULL REFERENCES mediahub_episodes(id) ON DELETE CASCADE,
  song_id uuid,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  ccli_number text CHECK (ccli_number IS NULL OR ccli_number ~ '^[0-9]{1,10}$'),
  public_domain boolean NOT NULL DEFAULT false,
  licence text CHECK (licence IS NULL OR licence IN ('public_domain', 'streaming', 'recording', 'owned')),
  licence_number text CHECK (licence_number IS NULL OR length(licence_number) <= 100),
  sort_order integer NOT NULL
);
CREATE INDEX mediahub_episode_songs_episode ON mediahub_episode_songs (org_id, episode_id, sort_order);

CREATE TABLE mediahub_plays (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  episode_id uuid NOT NULL REFERENCES mediahub_episodes(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('download', 'play')),
  media text NOT NULL CHECK (media IN ('audio', 'video')),
  played_on date NOT NULL DEFAULT current_date,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mediahub_plays_episode ON mediahub_plays (org_id, episode_id, played_on);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE mediahub_plays;
DROP TABLE mediahub_episode_songs;
DROP TABLE mediahub_episodes;
DROP TABLE mediahub_series;
DROP TABLE mediahub_channels;
DROP TABLE mediahub_items;
`,
};
