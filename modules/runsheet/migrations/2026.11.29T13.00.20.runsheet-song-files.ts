import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Song files: chord charts, lead sheets, lyrics and audio for a song (or one of its arrangements),
 * each a Media Library file linked by id (the bytes stay in the library, uploaded with its two-step
 * upload). A file is linked to a song (and arrangement) once.
 */
export const runsheetSongFiles: Migration = {
  name: '2026.11.29T13.00.20.runsheet-song-files',
  up: `
CREATE TABLE runsheet_song_files (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  song_id uuid NOT NULL REFERENCES runsheet_songs(id) ON DELETE CASCADE,
  arrangement_id uuid REFERENCES runsheet_arrangements(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('chord_chart', 'lead_sheet', 'lyrics', 'audio', 'other')),
  media_file_id uuid NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_song_files_once ON runsheet_song_files (org_id, song_id, (COALESCE(arrangement_id, '00000000-0000-0000-0000-000000000000'::uuid)), media_file_id);
${tenantPolicies(['runsheet_song_files']).up}
`,
  down: `
${tenantPolicies(['runsheet_song_files']).down}
DROP TABLE runsheet_song_files;
`,
};
