import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { linkedMediaFile } from '../platform/api';
import { requireSong } from './songs';

export const SONG_FILE_KINDS = ['chord_chart', 'lead_sheet', 'lyrics', 'audio', 'other'] as const;
export type SongFileKind = (typeof SONG_FILE_KINDS)[number];
const MAX_FILES_PER_SONG = 50;

interface SongFileRow { id: string; song_id: string; arrangement_id: string | null; kind: SongFileKind; media_file_id: string; name: string; created_at: Date }

/** A song file as shown: the link, and what the Media Library says of the file now (gone from it: inLibrary false, no address). */
async function view(db: Queryable, orgId: string, row: SongFileRow) {
  const media = await linkedMediaFile(db, orgId, row.media_file_id);
  return {
    id: row.id, songId: row.song_id, arrangementId: row.arrangement_id, kind: row.kind, name: row.name, mediaId: row.media_file_id,
    inLibrary: media !== null, mimeType: media?.mimeType ?? null, sizeBytes: media?.sizeBytes ?? null, url: media?.url ?? null, addedAt: row.created_at.toISOString(),
  };
}

/**
 * Links a Media Library file (a chord chart, lead sheet, lyrics or audio) to a song, or to one of its
 * arrangements. The file must be this organisation's, uploaded and not in the trash; linking the same
 * file to the same song (and arrangement) twice is refused.
 */
export async function attachSongFile(db: Queryable, orgId: string, input: { songId: string; arrangementId?: string; mediaId: string; kind: SongFileKind; name?: string }) {
  const song = await requireSong(db, orgId, input.songId);
  if (input.arrangementId) {
    const arrangement = await queryOne(db, 'SELECT 1 FROM runsheet_arrangements WHERE org_id = $1 AND id = $2 AND song_id = $3', [orgId, input.arrangementId, song.id]);
    if (!arrangement) throw notFound('Arrangement of this song', input.arrangementId, 'runsheet_list_songs lists each song\'s arrangements.');
  }
  const media = await linkedMediaFile(db, orgId, input.mediaId);
  if (!media) throw notFound('Media file', input.mediaId, 'Upload it with platform_begin_media_library_upload and platform_complete_media_library_upload; platform_list_media_library_files lists the library.');
  // The song's row is locked so the per-song limit holds under concurrent attaches.
  await db.query('SELECT 1 FROM runsheet_songs WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, song.id]);
  const count = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM runsheet_song_files WHERE org_id = $1 AND song_id = $2', [orgId, song.id]);
  if ((count?.n ?? 0) >= MAX_FILES_PER_SONG) throw new StewardError('conflict', `A song holds at most ${MAX_FILES_PER_SONG} files`, { hint: 'Remove one with runsheet_remove_song_file first.' });
  const row = await queryOne<SongFileRow>(db, `INSERT INTO runsheet_song_files (id, org_id, song_id, arrangement_id, kind, media_file_id, name) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT DO NOTHING RETURNING id, song_id, arrangement_id, kind, media_file_id, name, created_at`,
  [randomUUID(), orgId, song.id, input.arrangementId ?? null, input.kind, media.id, (input.name ?? media.name).slice(0, 200)]);
  if (!row) throw new StewardError('conflict', `That file is linked to ${song.title} already`, { hint: 'runsheet_list_song_files lists the song\'s files.' });
  return view(db, orgId, row);
}

/** A song's files, arrangement files after the song's own, oldest first. */
export async function listSongFiles(db: Queryable, orgId: string, songId: string) {
  const song = await requireSong(db, orgId, songId);
  const rows = await queryRows<SongFileRow>(db, `SELECT id, song_id, arrangement_id, kind, media_file_id, name, created_at FROM runsheet_song_files
    WHERE org_id = $1 AND song_id = $2 ORDER BY arrangement_id NULLS FIRST, created_at, id`, [orgId, song.id]);
  const files = [];
  for (const row of rows) files.push(await view(db, orgId, row));
  return { songId: song.id, title: song.title, files };
}

/** Unlinks a file from its song; the file stays in the Media Library. */
export async function removeSongFile(db: Queryable, orgId: string, fileId: string) {
  const row = await queryOne<{ id: string }>(db, 'DELETE FROM runsheet_song_files WHERE org_id = $1 AND id = $2 RETURNING id', [orgId, fileId]);
  if (!row) throw notFound('Song file', fileId, 'runsheet_list_song_files lists a song\'s files.');
  return { fileId: row.id, removed: true as const };
}
