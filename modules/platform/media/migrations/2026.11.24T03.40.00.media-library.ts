import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['media_folders', 'media_tags', 'media_files', 'media_file_tags'];

/**
 * The Media Library: files whose bytes live on object storage (S3 or the embedded store), their
 * folders and tags. A file row exists from the moment an upload begins (status 'pending', holding its
 * share of the quota until the upload session expires) and becomes 'ready' once its bytes are checked.
 */
export const mediaLibrary: Migration = {
  name: '2026.11.24T03.40.00.media-library',
  up: `
CREATE TABLE media_folders (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  parent_id uuid REFERENCES media_folders(id) ON DELETE RESTRICT,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Sibling folders have distinct names, ignoring case.
CREATE UNIQUE INDEX media_folders_sibling_name_idx ON media_folders (org_id, COALESCE(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));

CREATE TABLE media_tags (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX media_tags_name_idx ON media_tags (org_id, lower(name));

CREATE TABLE media_files (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('pending', 'ready')),
  source text NOT NULL CHECK (source IN ('upload', 'url', 'inline', 'ai')),
  upload_session_hash text,
  upload_key text,
  upload_expires_at timestamptz,
  name text NOT NULL,
  display_name text,
  alt_text text,
  mime_type text,
  size_bytes integer NOT NULL CHECK (size_bytes >= 0),
  width integer,
  height integer,
  folder_id uuid REFERENCES media_folders(id) ON DELETE SET NULL,
  is_public boolean NOT NULL DEFAULT true,
  storage_key text,
  thumbnails jsonb NOT NULL DEFAULT '[]'::jsonb,
  ai_description text,
  ai_labels text[] NOT NULL DEFAULT '{}',
  created_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  processed_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_files_org_created_idx ON media_files (org_id, created_at DESC, id DESC);
CREATE INDEX media_files_org_folder_idx ON media_files (org_id, folder_id);

CREATE TABLE media_file_tags (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  file_id uuid NOT NULL REFERENCES media_files(id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES media_tags(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (file_id, tag_id)
);
CREATE INDEX media_file_tags_tag_idx ON media_file_tags (tag_id);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE media_file_tags;
DROP TABLE media_files;
DROP TABLE media_tags;
DROP TABLE media_folders;
`,
};
