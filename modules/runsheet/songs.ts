import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound } from '../kit';
import { requireEditablePlan } from './common';

export interface SongInput { title: string; author?: string; ccliNumber?: string; publicDomain?: boolean }
export interface ArrangementInput { songId: string; name: string; key?: string; bpm?: number; meter?: string; sequence?: string[]; lyrics?: string; lengthSeconds?: number }

export async function createSong(db: Queryable, orgId: string, input: SongInput): Promise<string> {
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_songs (id, org_id, title, author, ccli_number, public_domain) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (org_id, lower(title)) DO NOTHING RETURNING id`, [randomUUID(), orgId, input.title, input.author ?? null, input.ccliNumber ?? null, input.publicDomain ?? false]);
  if (!row) throw new StewardError('conflict', `A song titled "${input.title}" exists already`, { hint: 'runsheet_list_songs finds it; add an arrangement to it instead.' });
  return row.id;
}

export async function requireSong(db: Queryable, orgId: string, songId: string) {
  const row = await queryOne<{ id: string; title: string; author: string | null; ccli_number: string | null; public_domain: boolean }>(db,
    'SELECT id, title, author, ccli_number, public_domain FROM runsheet_songs WHERE org_id = $1 AND id = $2', [orgId, songId]);
  if (!row) throw notFound('Song', songId, 'runsheet_list_songs lists the songs there are.');
  return row;
}

export async function addArrangement(db: Queryable, orgId: string, input: ArrangementInput): Promise<string> {
  await requireSong(db, orgId, input.songId);
  const row = await queryOne<{ id: string }>(db, `INSERT INTO runsheet_arrangements (id, org_id, song_id, name, music_key, bpm, meter, sequence, lyrics, length_seconds)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (org_id, song_id, lower(name)) DO NOTHING RETURNING id`,
  [randomUUID(), orgId, input.songId, input.name, input.key ?? null, input.bpm ?? null, input.meter ?? null, input.sequence ?? [], input.lyrics ?? null, input.lengthSeconds ?? null]);
  if (!row) throw new StewardError('conflict', `The song has an arrangement named "${input.name}" already`, { hint: 'Choose another name.' });
  return row.id;
}

/** Songs by title (optionally matching a search), each with its arrangements and when it was last used. */
export async function listSongs(db: Queryable, orgId: string, input: { search?: string; limit: number }) {
  const songs = await queryRows<{ id: string; title: string; author: string | null; ccli_number: string | null; public_domain: boolean; last_used: Date | null; uses: number }>(db, `
    SELECT s.id, s.title, s.author, s.ccli_number, s.public_domain,
      (SELECT max(p.starts_at) FROM runsheet_items i JOIN runsheet_plans p ON p.id = i.plan_id AND p.org_id = i.org_id WHERE i.org_id = s.org_id AND i.song_id = s.id AND p.starts_at <= now()) AS last_used,
      (SELECT count(DISTINCT i.plan_id)::int FROM runsheet_items i JOIN runsheet_plans p ON p.id = i.plan_id AND p.org_id = i.org_id WHERE i.org_id = s.org_id AND i.song_id = s.id AND p.starts_at <= now()) AS uses
    FROM runsheet_songs s WHERE s.org_id = $1 AND ($2::text IS NULL OR s.title ILIKE '%' || $2 || '%' OR s.author ILIKE '%' || $2 || '%' OR s.ccli_number = $2)
    ORDER BY lower(s.title) LIMIT $3`, [orgId, input.search ?? null, input.limit]);
  const arrangements = await queryRows<{ id: string; song_id: string; name: string; music_key: string | null; bpm: number | null; meter: string | null; sequence: string[]; length_seconds: number | null; lyrics: string | null }>(db,
    'SELECT id, song_id, name, music_key, bpm, meter, sequence, length_seconds, lyrics FROM runsheet_arrangements WHERE org_id = $1 AND song_id = ANY($2::uuid[]) ORDER BY lower(name)',
    [orgId, songs.map((song) => song.id)]);
  return songs.map((song) => ({
    id: song.id, title: song.title, author: song.author, ccliNumber: song.ccli_number, publicDomain: song.public_domain,
    lastUsedAt: song.last_used?.toISOString() ?? null, timesUsed: song.uses,
    arrangements: arrangements.filter((arrangement) => arrangement.song_id === song.id).map((arrangement) => ({
      id: arrangement.id, name: arrangement.name, key: arrangement.music_key, bpm: arrangement.bpm, meter: arrangement.meter, sequence: arrangement.sequence,
      lengthSeconds: arrangement.length_seconds, hasLyrics: Boolean(arrangement.lyrics),
    })),
  }));
}

/**
 * Puts a song (and arrangement) on a song item. Warns, without refusing, when the song was on another
 * plan within the last `withinWeeks` weeks before this one, so a worship leader can choose again.
 */
export async function setSong(db: Queryable, orgId: string, input: { planId: string; itemId: string; songId: string; arrangementId?: string; key?: string; withinWeeks: number }) {
  const plan = await requireEditablePlan(db, orgId, input.planId);
  const item = await queryOne<{ id: string; plan_id: string; kind: string }>(db, 'SELECT id, plan_id, kind FROM runsheet_items WHERE org_id = $1 AND id = $2', [orgId, input.itemId]);
  if (!item || item.plan_id !== plan.id) throw notFound('Item', input.itemId, 'runsheet_get_plan lists the plan\'s items.');
  if (item.kind !== 'song') throw new StewardError('validation_failed', `Item ${input.itemId} is a ${item.kind}, not a song`, { issues: [{ path: 'itemId', message: 'choose a song item' }] });
  const song = await requireSong(db, orgId, input.songId);
  let arrangement: { music_key: string | null; length_seconds: number | null } | undefined;
  if (input.arrangementId) {
    arrangement = await queryOne(db, 'SELECT music_key, length_seconds FROM runsheet_arrangements WHERE org_id = $1 AND id = $2 AND song_id = $3', [orgId, input.arrangementId, song.id]);
    if (!arrangement) throw notFound('Arrangement', input.arrangementId, 'runsheet_list_songs shows each song\'s arrangements.');
  }
  await db.query(`UPDATE runsheet_items SET song_id = $3, arrangement_id = $4, title = $5, music_key = COALESCE($6, $7, music_key),
      length_seconds = COALESCE($8, length_seconds) WHERE org_id = $1 AND id = $2`,
  [orgId, item.id, song.id, input.arrangementId ?? null, song.title, input.key ?? null, arrangement?.music_key ?? null, arrangement?.length_seconds ?? null]);
  const recent = await queryRows<{ plan_id: string; plan_date: string; title: string | null }>(db, `SELECT DISTINCT p.id AS plan_id, p.plan_date, p.title FROM runsheet_items i
    JOIN runsheet_plans p ON p.id = i.plan_id AND p.org_id = i.org_id
    WHERE i.org_id = $1 AND i.song_id = $2 AND p.id <> $3 AND p.plan_date BETWEEN $4::date - ($5::int * 7) AND $4::date
    ORDER BY p.plan_date DESC`, [orgId, song.id, plan.id, plan.plan_date, input.withinWeeks]);
  const warnings = recent.length > 0
    ? [`"${song.title}" was used ${recent.length} time(s) in the ${input.withinWeeks} week(s) before this plan, last on ${recent[0].plan_date}`]
    : [];
  return { itemId: item.id, songId: song.id, arrangementId: input.arrangementId ?? null, recentUses: recent.map((row) => ({ planId: row.plan_id, date: row.plan_date, title: row.title })), warnings };
}

/**
 * Song usage for a CCLI report: each distinct use of a song per service time, for plans whose
 * services took place in the range (a song sung at two services counts twice; twice in one
 * service, once). Songs without a CCLI number are listed so they can be checked.
 */
export async function songUsageReport(db: Queryable, orgId: string, input: { from: string; to: string }) {
  if (input.to < input.from) throw new StewardError('validation_failed', '`from` is after `to`', { issues: [{ path: 'from', message: 'must be on or before to' }] });
  const rows = await queryRows<{ song_id: string; title: string; author: string | null; ccli_number: string | null; public_domain: boolean; uses: number; first_used: string; last_used: string }>(db, `
    SELECT s.id AS song_id, s.title, s.author, s.ccli_number, s.public_domain, count(DISTINCT (t.id, s.id))::int AS uses,
      min(p.plan_date)::text AS first_used, max(p.plan_date)::text AS last_used
    FROM runsheet_items i
    JOIN runsheet_songs s ON s.id = i.song_id AND s.org_id = i.org_id
    JOIN runsheet_plans p ON p.id = i.plan_id AND p.org_id = i.org_id
    JOIN runsheet_plan_times t ON t.plan_id = p.id AND t.org_id = p.org_id AND t.kind = 'service'
    WHERE i.org_id = $1 AND p.plan_date BETWEEN $2::date AND $3::date AND t.starts_at <= now()
    GROUP BY s.id ORDER BY uses DESC, lower(s.title)`, [orgId, input.from, input.to]);
  return {
    from: input.from, to: input.to,
    songs: rows.map((row) => ({ songId: row.song_id, title: row.title, author: row.author, ccliNumber: row.ccli_number, publicDomain: row.public_domain, uses: row.uses, firstUsed: row.first_used, lastUsed: row.last_used })),
    totalUses: rows.reduce((sum, row) => sum + row.uses, 0),
    missingCcliNumber: rows.filter((row) => !row.ccli_number && !row.public_domain).map((row) => row.title),
  };
}
