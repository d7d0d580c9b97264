import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { listPage, notFound } from '../kit';
import { planForEpisode } from '../runsheet/api';
import { artworkResolver, artworkUrl, episodeArtworkChain, requireLibraryImage, type ArtworkColumns, type EpisodeArtworkColumns } from './artwork';
import { transcriptionConfigured } from './transcription';

/**
 * Channels (a podcast feed each), series and sermon episodes. An episode is a draft until
 * published (a person approves); published with a future `publishAt` it is scheduled, and it
 * joins the library and the feed when that time comes (read at serving time, so no timer can be
 * missed); unpublished, it leaves both. Songs sung in it carry their licence: publishing is
 * refused while any lacks one, naming the songs.
 */
export const DEFAULT_CHANNEL = 'Sermons';
export const EPISODE_STATES = ['draft', 'scheduled', 'published', 'unpublished'] as const;
export const SONG_LICENCES = ['public_domain', 'streaming', 'recording', 'owned'] as const;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

// The artwork fields every channel, series and episode answers with.
const artworkFields = {
  artworkMediaId: z.uuid().nullable().describe('Its artwork: a Media Library image (platform_list_media_library_files)'),
  artworkItemId: z.uuid().nullable().describe('Its artwork the older way: a Media Hub image item (null when artworkMediaId is set)'),
};
const artworkUrlField = z.string().nullable().describe('The public address of the artwork shown for it (podcast feed, public library); null when it has none to show');

export const channelSchema = z.object({
  id: z.uuid(), name: z.string(), description: z.string().nullable(), author: z.string().nullable(), language: z.string(), category: z.string(),
  ...artworkFields, artworkUrl: artworkUrlField, createdAt: z.string(),
}).strict();
interface ChannelRow extends ArtworkColumns { id: string; name: string; description: string | null; author: string | null; language: string; category: string; created_at: Date }
export async function channelView(db: Queryable, orgId: string, row: ChannelRow): Promise<z.infer<typeof channelSchema>> {
  return {
    id: row.id, name: row.name, description: row.description, author: row.author, language: row.language, category: row.category,
    artworkMediaId: row.artwork_media_id, artworkItemId: row.artwork_item_id, artworkUrl: await artworkUrl(db, orgId, row), createdAt: iso(row.created_at)!,
  };
}

export const seriesSchema = z.object({
  id: z.uuid(), title: z.string(), description: z.string().nullable(), channelId: z.uuid(), channelName: z.string(), ...artworkFields, artworkUrl: artworkUrlField,
  episodes: z.number().int(), createdAt: z.string(),
}).strict();
interface SeriesRow extends ArtworkColumns { id: string; title: string; description: string | null; channel_id: string; channel_name: string; episodes: number; created_at: Date }
async function seriesViews(db: Queryable, orgId: string, rows: readonly SeriesRow[]): Promise<Array<z.infer<typeof seriesSchema>>> {
  const artwork = await artworkResolver(db, orgId, rows);
  return rows.map((row) => ({
    id: row.id, title: row.title, description: row.description, channelId: row.channel_id, channelName: row.channel_name,
    artworkMediaId: row.artwork_media_id, artworkItemId: row.artwork_item_id, artworkUrl: artwork.urlOf(row), episodes: row.episodes, createdAt: iso(row.created_at)!,
  }));
}

export const songSchema = z.object({
  id: z.uuid(), songId: z.uuid().nullable().describe('The runsheet song, when it came from a plan'), title: z.string(), ccliNumber: z.string().nullable(),
  publicDomain: z.boolean(), licence: z.enum(SONG_LICENCES).nullable().describe('null: no licence recorded yet (publishing is refused)'), licenceNumber: z.string().nullable(),
}).strict();

export const episodeSchema = z.object({
  id: z.uuid(), seriesId: z.uuid(), seriesTitle: z.string(), title: z.string(), speaker: z.string().nullable(), scripture: z.string().nullable(),
  date: z.string(), notes: z.string().nullable(), links: z.array(z.object({ title: z.string(), url: z.string() }).strict()),
  ...artworkFields, artworkUrl: artworkUrlField.describe('The public address of the artwork the podcast feed and public library show for it: its own, else its series\''),
  videoItemId: z.uuid().nullable(), audioItemId: z.uuid().nullable(), planId: z.uuid().nullable(),
  state: z.enum(EPISODE_STATES), publishAt: z.string().nullable(), publishedAt: z.string().nullable(), songs: z.array(songSchema),
  transcriptStatus: z.enum(['none', 'requested', 'ready', 'failed']), transcriptRequestedAt: z.string().nullable(), hasTranscript: z.boolean(),
  createdAt: z.string(),
}).strict();
export type EpisodeView = z.infer<typeof episodeSchema>;

export interface EpisodeRow extends EpisodeArtworkColumns {
  id: string; org_id: string; series_id: string; series_title: string; channel_id: string; title: string; speaker: string | null; scripture: string | null;
  episode_date: string; notes: string | null; links: Array<{ title: string; url: string }>; video_item_id: string | null;
  audio_item_id: string | null; plan_id: string | null; instance_id: string | null; status: 'draft' | 'published' | 'unpublished'; publish_at: Date | null;
  published_at: Date | null; has_transcript: boolean; transcript_status: 'none' | 'requested' | 'ready' | 'failed'; transcript_requested_at: Date | null; created_at: Date;
}

export function stateOf(row: Pick<EpisodeRow, 'status' | 'publish_at'>, now = Date.now()): (typeof EPISODE_STATES)[number] {
  if (row.status === 'published' && row.publish_at && row.publish_at.getTime() > now) return 'scheduled';
  return row.status;
}

export const EPISODE_SELECT = `SELECT e.id, e.org_id, e.series_id, s.title AS series_title, s.channel_id, e.title, e.speaker, e.scripture,
  to_char(e.episode_date, 'YYYY-MM-DD') AS episode_date, e.notes, e.links, e.artwork_item_id, e.artwork_media_id,
  s.artwork_item_id AS series_artwork_item_id, s.artwork_media_id AS series_artwork_media_id, e.video_item_id, e.audio_item_id, e.plan_id, e.instance_id,
  e.status, e.publish_at, e.published_at, (e.transcript IS NOT NULL) AS has_transcript, e.transcript_status, e.transcript_requested_at, e.created_at
  FROM mediahub_episodes e JOIN mediahub_series s ON s.org_id = e.org_id AND s.id = e.series_id`;

interface SongRow { id: string; song_id: string | null; title: string; ccli_number: string | null; public_domain: boolean; licence: (typeof SONG_LICENCES)[number] | null; licence_number: string | null }

async function songsOf(db: Queryable, orgId: string, episodeId: string): Promise<SongRow[]> {
  return queryRows<SongRow>(db, `SELECT id, song_id, title, ccli_number, public_domain, licence, licence_number FROM mediahub_episode_songs
    WHERE org_id = $1 AND episode_id = $2 ORDER BY sort_order`, [orgId, episodeId]);
}

export async function episodeView(db: Queryable, row: EpisodeRow): Promise<EpisodeView> {
  const songs = await songsOf(db, row.org_id, row.id);
  return {
    id: row.id, seriesId: row.series_id, seriesTitle: row.series_title, title: row.title, speaker: row.speaker, scripture: row.scripture,
    date: row.episode_date, notes: row.notes, links: row.links, artworkMediaId: row.artwork_media_id, artworkItemId: row.artwork_item_id,
    artworkUrl: await artworkUrl(db, row.org_id, ...episodeArtworkChain(row)), videoItemId: row.video_item_id,
    audioItemId: row.audio_item_id, planId: row.plan_id, state: stateOf(row), publishAt: iso(row.publish_at), publishedAt: iso(row.published_at),
    songs: songs.map((song) => ({ id: song.id, songId: song.song_id, title: song.title, ccliNumber: song.ccli_number, publicDomain: song.public_domain, licence: song.licence, licenceNumber: song.licence_number })),
    transcriptStatus: row.transcript_status, transcriptRequestedAt: iso(row.transcript_requested_at), hasTranscript: row.has_transcript, createdAt: iso(row.created_at)!,
  };
}

export async function loadEpisode(db: Queryable, orgId: string, episodeId: string, forUpdate = false): Promise<EpisodeRow> {
  const row = await queryOne<EpisodeRow>(db, `${EPISODE_SELECT} WHERE e.org_id = $1 AND e.id = $2${forUpdate ? ' FOR UPDATE OF e' : ''}`, [orgId, episodeId]);
  if (!row) throw notFound('Episode', episodeId, 'mediahub_search finds episodes by title, speaker or scripture.');
  return row;
}

export async function getEpisode(db: Queryable, orgId: string, episodeId: string): Promise<EpisodeView> {
  return episodeView(db, await loadEpisode(db, orgId, episodeId));
}

export async function episodeExists(db: Queryable, orgId: string, episodeId: string): Promise<boolean> {
  if (!z.uuid().safeParse(episodeId).success) return false;
  return Boolean(await queryOne(db, 'SELECT 1 FROM mediahub_episodes WHERE org_id = $1 AND id = $2', [orgId, episodeId]));
}

// ---------------------------------------------------------------- channels and series

export async function channelNamed(db: Queryable, orgId: string, name: string, create: boolean): Promise<ChannelRow> {
  const found = await queryOne<ChannelRow>(db, 'SELECT * FROM mediahub_channels WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]);
  if (found) return found;
  if (!create) throw notFound('Channel', name, 'A channel is made with its first series (mediahub_create_series).');
  await db.query('INSERT INTO mediahub_channels (id, org_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [randomUUID(), orgId, name]);
  return (await queryOne<ChannelRow>(db, 'SELECT * FROM mediahub_channels WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]))!;
}

export async function defaultChannel(db: Queryable, orgId: string): Promise<ChannelRow | undefined> {
  return queryOne<ChannelRow>(db, 'SELECT * FROM mediahub_channels WHERE org_id = $1 ORDER BY created_at, id LIMIT 1', [orgId]);
}

export async function loadChannel(db: Queryable, orgId: string, channelId: string): Promise<ChannelRow> {
  const row = z.uuid().safeParse(channelId).success ? await queryOne<ChannelRow>(db, 'SELECT * FROM mediahub_channels WHERE org_id = $1 AND id = $2', [orgId, channelId]) : null;
  if (!row) throw notFound('Channel', channelId);
  return row;
}

export async function updateChannel(db: Queryable, orgId: string, channelId: string, input: { description?: string | null; author?: string | null; language?: string; category?: string } & ArtworkInput) {
  await loadChannel(db, orgId, channelId);
  const artwork = await artworkChange(db, orgId, input);
  const set = (value: unknown) => value !== undefined;
  await db.query(`UPDATE mediahub_channels SET description = CASE WHEN $3 THEN $4 ELSE description END, author = CASE WHEN $5 THEN $6 ELSE author END,
    language = COALESCE($7, language), category = COALESCE($8, category), artwork_item_id = CASE WHEN $9 THEN $10::uuid ELSE artwork_item_id END,
    artwork_media_id = CASE WHEN $9 THEN $11::uuid ELSE artwork_media_id END
    WHERE org_id = $1 AND id = $2`, [orgId, channelId, set(input.description), input.description ?? null, set(input.author), input.author ?? null,
    input.language ?? null, input.category ?? null, set(artwork), artwork?.artwork_item_id ?? null, artwork?.artwork_media_id ?? null]);
  return channelView(db, orgId, await loadChannel(db, orgId, channelId));
}

const SERIES_SELECT = `SELECT s.id, s.title, s.description, s.channel_id, c.name AS channel_name, s.artwork_item_id, s.artwork_media_id, s.created_at,
  (SELECT count(*)::int FROM mediahub_episodes e WHERE e.org_id = s.org_id AND e.series_id = s.id) AS episodes
  FROM mediahub_series s JOIN mediahub_channels c ON c.org_id = s.org_id AND c.id = s.channel_id`;

async function requireItem(db: Queryable, orgId: string, itemId: string, kinds: readonly string[], field: string): Promise<void> {
  const item = await queryOne<{ kind: string; status: string }>(db, 'SELECT kind, status FROM mediahub_items WHERE org_id = $1 AND id = $2', [orgId, itemId]);
  if (!item) throw notFound('Media item', itemId, 'mediahub_list_items lists the media items.');
  if (!kinds.includes(item.kind)) {
    throw new StewardError('validation_failed', `${field} must be a ${kinds.join(' or ')} item; this one is ${item.kind}`, { issues: [{ path: field, message: `not ${kinds.join(' or ')}` }] });
  }
  if (item.status === 'archived' || item.status === 'failed') {
    throw new StewardError('conflict', `The ${item.kind} item is ${item.status}`, { hint: 'Upload the file again with mediahub_begin_upload.', details: { reason: `item_${item.status}` } });
  }
}

/** Artwork as a tool or route gives it: a Media Library image (artworkMediaId) or, the older way, a Media Hub image item (artworkItemId). */
export interface ArtworkInput { artworkMediaId?: string | null; artworkItemId?: string | null }

/**
 * The artwork columns to write, checked; undefined when the input leaves the artwork as it is. One
 * way at a time: a new artwork of either kind replaces the other, and either given as null removes it.
 */
async function artworkChange(db: Queryable, orgId: string, input: ArtworkInput): Promise<ArtworkColumns | undefined> {
  const { artworkMediaId, artworkItemId } = input;
  if (artworkMediaId !== undefined && artworkItemId !== undefined) {
    throw new StewardError('validation_failed', 'Give artworkMediaId or artworkItemId, not both', {
      issues: [{ path: 'artworkItemId', message: 'not together with artworkMediaId' }], hint: 'Artwork comes from the Media Library: give artworkMediaId alone.',
    });
  }
  if (artworkMediaId) {
    await requireLibraryImage(db, orgId, artworkMediaId, 'artworkMediaId');
    return { artwork_media_id: artworkMediaId, artwork_item_id: null };
  }
  if (artworkItemId) {
    await requireItem(db, orgId, artworkItemId, ['image'], 'artworkItemId');
    return { artwork_media_id: null, artwork_item_id: artworkItemId };
  }
  return artworkMediaId === null || artworkItemId === null ? { artwork_media_id: null, artwork_item_id: null } : undefined;
}

export async function createSeries(db: Queryable, orgId: string, input: { title: string; description?: string; channel?: string; artworkMediaId?: string; artworkItemId?: string }) {
  // Checked before the channel is made, so a refused call makes no channel either.
  const artwork = await artworkChange(db, orgId, input);
  const channel = await channelNamed(db, orgId, input.channel ?? DEFAULT_CHANNEL, true);
  const id = randomUUID();
  const inserted = await db.query(`INSERT INTO mediahub_series (id, org_id, channel_id, title, description, artwork_item_id, artwork_media_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT DO NOTHING`, [id, orgId, channel.id, input.title, input.description ?? null, artwork?.artwork_item_id ?? null, artwork?.artwork_media_id ?? null]);
  if ((inserted.rowCount ?? 0) === 0) {
    throw new StewardError('conflict', `A series called "${input.title}" already exists`, { hint: 'mediahub_list_series lists the series; add episodes to that one.', details: { reason: 'series_exists' } });
  }
  // A channel's first series with artwork gives the channel its artwork when it has none.
  if (artwork) {
    await db.query(`UPDATE mediahub_channels SET artwork_item_id = $3, artwork_media_id = $4 WHERE org_id = $1 AND id = $2 AND artwork_item_id IS NULL AND artwork_media_id IS NULL`,
      [orgId, channel.id, artwork.artwork_item_id, artwork.artwork_media_id]);
  }
  const [series] = await seriesViews(db, orgId, [(await queryOne<SeriesRow>(db, `${SERIES_SELECT} WHERE s.org_id = $1 AND s.id = $2`, [orgId, id]))!]);
  return { series: series!, channel: await channelView(db, orgId, await loadChannel(db, orgId, channel.id)) };
}

export async function listSeries(db: Queryable, orgId: string, input: { limit: number; cursor?: string }) {
  const page = await listPage<{ id: string; created_at: Date }>(db, { table: 'mediahub_series', orgId, limit: input.limit, cursor: input.cursor, includeDeleted: true });
  const rows = page.rows.length === 0 ? [] : await queryRows<SeriesRow>(db, `${SERIES_SELECT} WHERE s.org_id = $1 AND s.id = ANY($2::uuid[]) ORDER BY s.created_at DESC, s.id DESC`, [orgId, page.rows.map((r) => r.id)]);
  return { series: await seriesViews(db, orgId, rows), nextCursor: page.nextCursor };
}

async function loadSeries(db: Queryable, orgId: string, seriesId: string): Promise<SeriesRow> {
  const row = await queryOne<SeriesRow>(db, `${SERIES_SELECT} WHERE s.org_id = $1 AND s.id = $2`, [orgId, seriesId]);
  if (!row) throw notFound('Series', seriesId, 'mediahub_list_series lists the series.');
  return row;
}

// ---------------------------------------------------------------- episodes

export interface SongInput { title: string; ccliNumber?: string | null; publicDomain?: boolean; licence?: (typeof SONG_LICENCES)[number]; licenceNumber?: string }
export interface EpisodeInput {
  seriesId: string; planId?: string; title?: string; speaker?: string; scripture?: string; date?: string; notes?: string;
  links?: Array<{ title: string; url: string }>; artworkMediaId?: string; artworkItemId?: string; videoItemId?: string; audioItemId?: string; songs?: SongInput[];
}

async function checkMedia(db: Queryable, orgId: string, input: { videoItemId?: string | null; audioItemId?: string | null }): Promise<void> {
  if (input.videoItemId) await requireItem(db, orgId, input.videoItemId, ['video'], 'videoItemId');
  if (input.audioItemId) await requireItem(db, orgId, input.audioItemId, ['audio'], 'audioItemId');
}

async function insertSongs(db: Queryable, orgId: string, episodeId: string, songs: Array<SongInput & { songId?: string | null }>, from = 0): Promise<void> {
  let order = from;
  for (const song of songs) {
    const licence = song.licence ?? (song.publicDomain ? 'public_domain' : null);
    await db.query(`INSERT INTO mediahub_episode_songs (id, org_id, episode_id, song_id, title, ccli_number, public_domain, licence, licence_number, sort_order)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [randomUUID(), orgId, episodeId, song.songId ?? null, song.title, song.ccliNumber ?? null,
      Boolean(song.publicDomain), licence, song.licenceNumber ?? null, order]);
    order += 1;
  }
}

/** A draft episode; with a plan, its title, date, speaker, scripture and songs come from the plan unless given. */
export async function createEpisode(db: Queryable, orgId: string, input: EpisodeInput, options: { instanceId?: string | null } = {}): Promise<EpisodeView> {
  await loadSeries(db, orgId, input.seriesId);
  const plan = input.planId ? await planForEpisode(db, orgId, input.planId) : null;
  if (input.planId && !plan) throw notFound('Plan', input.planId, 'runsheet_list_plans lists the service plans.');
  const title = input.title ?? plan?.sermonTitle ?? plan?.title;
  if (!title) {
    throw new StewardError('validation_failed', 'Give the episode a title (the plan has none)', { issues: [{ path: 'title', message: 'required when the plan has no title' }] });
  }
  const date = input.date ?? plan?.date;
  if (!date) throw new StewardError('validation_failed', 'Give the episode a date, or a plan to take it from', { issues: [{ path: 'date', message: 'required without planId' }] });
  await checkMedia(db, orgId, input);
  const artwork = await artworkChange(db, orgId, input);
  const id = randomUUID();
  const instanceId = options.instanceId ?? plan?.instanceId ?? null;
  const inserted = await db.query(`INSERT INTO mediahub_episodes (id, org_id, series_id, title, speaker, scripture, episode_date, notes, links, artwork_item_id, artwork_media_id,
    video_item_id, audio_item_id, plan_id, instance_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
  [id, orgId, input.seriesId, title.slice(0, 200), input.speaker ?? plan?.speaker ?? null, input.scripture ?? plan?.scripture ?? null, date, input.notes ?? null,
    JSON.stringify(input.links ?? []), artwork?.artwork_item_id ?? null, artwork?.artwork_media_id ?? null, input.videoItemId ?? null, input.audioItemId ?? null, plan?.id ?? null, instanceId]);
  if ((inserted.rowCount ?? 0) === 0) {
    throw new StewardError('conflict', 'That service plan already has an episode', { hint: 'mediahub_search finds it; update it instead.', details: { reason: 'episode_exists' } });
  }
  await insertSongs(db, orgId, id, input.songs ?? plan?.songs ?? []);
  return getEpisode(db, orgId, id);
}

export interface EpisodeUpdate {
  title?: string; speaker?: string | null; scripture?: string | null; date?: string; notes?: string | null; links?: Array<{ title: string; url: string }>;
  seriesId?: string; artworkMediaId?: string | null; artworkItemId?: string | null; videoItemId?: string | null; audioItemId?: string | null;
  songLicences?: Array<{ songId: string; licence: (typeof SONG_LICENCES)[number] | null; licenceNumber?: string | null }>; addSongs?: SongInput[];
}

export async function updateEpisode(db: Queryable, orgId: string, episodeId: string, input: EpisodeUpdate): Promise<EpisodeView> {
  const row = await loadEpisode(db, orgId, episodeId, true);
  if (input.seriesId) await loadSeries(db, orgId, input.seriesId);
  await checkMedia(db, orgId, input);
  const artwork = await artworkChange(db, orgId, input);
  const set = (value: unknown) => value !== undefined;
  await db.query(`UPDATE mediahub_episodes SET title = COALESCE($3, title), speaker = CASE WHEN $4 THEN $5 ELSE speaker END,
    scripture = CASE WHEN $6 THEN $7 ELSE scripture END, episode_date = COALESCE($8::date, episode_date), notes = CASE WHEN $9 THEN $10 ELSE notes END,
    links = COALESCE($11::jsonb, links), series_id = COALESCE($12::uuid, series_id), artwork_item_id = CASE WHEN $13 THEN $14::uuid ELSE artwork_item_id END,
    artwork_media_id = CASE WHEN $13 THEN $19::uuid ELSE artwork_media_id END,
    video_item_id = CASE WHEN $15 THEN $16::uuid ELSE video_item_id END, audio_item_id = CASE WHEN $17 THEN $18::uuid ELSE audio_item_id END, updated_at = now()
    WHERE org_id = $1 AND id = $2`,
  [orgId, episodeId, input.title ?? null, set(input.speaker), input.speaker ?? null, set(input.scripture), input.scripture ?? null, input.date ?? null,
    set(input.notes), input.notes ?? null, input.links ? JSON.stringify(input.links) : null, input.seriesId ?? null, set(artwork), artwork?.artwork_item_id ?? null,
    set(input.videoItemId), input.videoItemId ?? null, set(input.audioItemId), input.audioItemId ?? null, artwork?.artwork_media_id ?? null]);
  for (const change of input.songLicences ?? []) {
    const updated = await db.query(`UPDATE mediahub_episode_songs SET licence = $4, licence_number = CASE WHEN $5 THEN $6 ELSE licence_number END
      WHERE org_id = $1 AND episode_id = $2 AND id = $3`, [orgId, episodeId, change.songId, change.licence, change.licenceNumber !== undefined, change.licenceNumber ?? null]);
    if ((updated.rowCount ?? 0) === 0) throw notFound('Song in this episode', change.songId, 'The episode\'s songs are listed with their ids in its answer.');
  }
  if (input.addSongs?.length) {
    const last = await queryOne<{ n: number }>(db, 'SELECT COALESCE(max(sort_order) + 1, 0)::int AS n FROM mediahub_episode_songs WHERE org_id = $1 AND episode_id = $2', [orgId, row.id]);
    await insertSongs(db, orgId, row.id, input.addSongs, last?.n ?? 0);
  }
  return getEpisode(db, orgId, episodeId);
}

/** Why an episode cannot be published now, or null when it can. */
export async function publishRefusal(db: Queryable, orgId: string, row: EpisodeRow): Promise<StewardError | null> {
  const media = await queryRows<{ id: string; status: string }>(db, `SELECT id, status FROM mediahub_items WHERE org_id = $1 AND id = ANY($2::uuid[])`,
    [orgId, [row.audio_item_id, row.video_item_id].filter(Boolean)]);
  if (!media.some((item) => item.status === 'ready')) {
    return new StewardError('conflict', 'The episode has no processed audio or video to publish', {
      hint: 'Upload the recording (mediahub_begin_upload), wait until it is ready, and set it on the episode (mediahub_update_episode).', details: { reason: 'no_ready_media' },
    });
  }
  const unlicensed = (await songsOf(db, orgId, row.id)).filter((song) => !song.licence);
  if (unlicensed.length > 0) {
    const names = unlicensed.map((song) => `"${song.title}"${song.ccli_number ? ` (CCLI ${song.ccli_number})` : ''}`);
    return new StewardError('conflict', `Not published: ${names.join(', ')} ${unlicensed.length === 1 ? 'has' : 'have'} no streaming or recording licence recorded`, {
      hint: 'Record the licence with mediahub_update_episode (songLicences), or remove the song from the recording first.',
      details: { reason: 'song_unlicensed', songs: unlicensed.map((song) => ({ id: song.id, title: song.title, ccliNumber: song.ccli_number })) },
    });
  }
  return null;
}

/**
 * Whether a publish call goes to a person for approval: only when the episode exists and could be
 * published now. A missing id, or an episode a song's licence or missing media blocks, runs at once
 * and is refused with its reason, rather than asking a person to approve what cannot happen.
 */
export async function publishable(db: Queryable, orgId: string, episodeId: string): Promise<boolean> {
  if (!(await episodeExists(db, orgId, episodeId))) return false;
  const row = await loadEpisode(db, orgId, episodeId);
  return row.status !== 'published' && (await publishRefusal(db, orgId, row)) === null;
}

export async function publishEpisode(db: Queryable, orgId: string, episodeId: string, publishAt?: string): Promise<EpisodeView> {
  const row = await loadEpisode(db, orgId, episodeId, true);
  // Already published (or scheduled): nothing changes without unpublishing first.
  if (row.status === 'published') return episodeView(db, row);
  const refusal = await publishRefusal(db, orgId, row);
  if (refusal) throw refusal;
  await db.query(`UPDATE mediahub_episodes SET status = 'published', publish_at = COALESCE($3::timestamptz, now()),
    published_at = COALESCE(published_at, now()), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, episodeId, publishAt ?? null]);
  return getEpisode(db, orgId, episodeId);
}

export async function unpublishEpisode(db: Queryable, orgId: string, episodeId: string): Promise<EpisodeView> {
  const row = await loadEpisode(db, orgId, episodeId, true);
  if (row.status !== 'published') {
    throw new StewardError('conflict', `The episode is ${stateOf(row)}, not published`, { details: { reason: `episode_${row.status}` } });
  }
  await db.query(`UPDATE mediahub_episodes SET status = 'unpublished', updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, episodeId]);
  return getEpisode(db, orgId, episodeId);
}

export async function requestTranscript(db: Queryable, orgId: string, episodeId: string): Promise<EpisodeView> {
  const row = await loadEpisode(db, orgId, episodeId, true);
  if (!transcriptionConfigured()) {
    throw new StewardError('not_configured', 'No transcription provider is configured', { hint: 'Set TRANSCRIPTION_API_URL and TRANSCRIPTION_API_KEY (the local sandbox provides both).' });
  }
  const ready = await queryOne(db, `SELECT 1 FROM mediahub_items WHERE org_id = $1 AND id = ANY($2::uuid[]) AND status = 'ready'`, [orgId, [row.audio_item_id, row.video_item_id].filter(Boolean)]);
  if (!ready) throw new StewardError('conflict', 'The episode has no processed audio or video to transcribe', { details: { reason: 'no_ready_media' } });
  if (row.transcript_status === 'requested') return getEpisode(db, orgId, episodeId);
  await db.query(`UPDATE mediahub_episodes SET transcript_status = 'requested', transcript_requested_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, episodeId]);
  return getEpisode(db, orgId, episodeId);
}

// ---------------------------------------------------------------- search and stats

export const searchHitSchema = z.object({
  kind: z.enum(['episode', 'item']), id: z.uuid(), title: z.string(), speaker: z.string().nullable(), scripture: z.string().nullable(),
  date: z.string().nullable(), state: z.string(), snippet: z.string().nullable().describe('Where the words were found (transcript or notes), matches in [brackets]'),
}).strict();

/** Full text (English stemming) over episodes' titles, speakers, scripture, notes and transcripts, and items' titles. */
export async function search(db: Queryable, orgId: string, query: string, limit: number) {
  const episodes = await queryRows<{ id: string; title: string; speaker: string | null; scripture: string | null; episode_date: string; status: EpisodeRow['status']; publish_at: Date | null; snippet: string | null; rank: number }>(db, `
    WITH q AS (SELECT plainto_tsquery('english', $2) AS q)
    SELECT e.id, e.title, e.speaker, e.scripture, to_char(e.episode_date, 'YYYY-MM-DD') AS episode_date, e.status, e.publish_at,
      CASE WHEN e.transcript IS NOT NULL AND to_tsvector('english', e.transcript) @@ q.q
        THEN ts_headline('english', e.transcript, q.q, 'StartSel=[, StopSel=], MaxWords=20, MinWords=8') END AS snippet,
      ts_rank(to_tsvector('english', coalesce(e.title, '') || ' ' || coalesce(e.speaker, '') || ' ' || coalesce(e.scripture, '') || ' ' || coalesce(e.notes, '') || ' ' || coalesce(e.transcript, '')), q.q) AS rank
    FROM mediahub_episodes e, q
    WHERE e.org_id = $1 AND to_tsvector('english', coalesce(e.title, '') || ' ' || coalesce(e.speaker, '') || ' ' || coalesce(e.scripture, '') || ' ' || coalesce(e.notes, '') || ' ' || coalesce(e.transcript, '')) @@ q.q
    ORDER BY rank DESC, e.episode_date DESC LIMIT $3`, [orgId, query, limit]);
  const items = await queryRows<{ id: string; title: string; status: string; created_at: Date }>(db, `
    SELECT id, title, status, created_at FROM mediahub_items
    WHERE org_id = $1 AND status <> 'archived' AND to_tsvector('english', title) @@ plainto_tsquery('english', $2) ORDER BY created_at DESC LIMIT $3`, [orgId, query, limit]);
  return {
    results: [
      ...episodes.map((e) => ({ kind: 'episode' as const, id: e.id, title: e.title, speaker: e.speaker, scripture: e.scripture, date: e.episode_date, state: stateOf(e), snippet: e.snippet })),
      ...items.map((i) => ({ kind: 'item' as const, id: i.id, title: i.title, speaker: null, scripture: null, date: iso(i.created_at)!.slice(0, 10), state: i.status, snippet: null })),
    ].slice(0, limit),
  };
}

export async function episodeStats(db: Queryable, orgId: string, episodeId: string, from: string, to: string) {
  const row = await loadEpisode(db, orgId, episodeId);
  const days = await queryRows<{ day: string; plays: number; downloads: number }>(db, `
    SELECT to_char(played_on, 'YYYY-MM-DD') AS day, count(*) FILTER (WHERE kind = 'play')::int AS plays, count(*) FILTER (WHERE kind = 'download')::int AS downloads
    FROM mediahub_plays WHERE org_id = $1 AND episode_id = $2 AND played_on BETWEEN $3::date AND $4::date GROUP BY played_on ORDER BY played_on`, [orgId, episodeId, from, to]);
  return {
    episodeId: row.id, title: row.title, from, to,
    totals: { plays: days.reduce((n, d) => n + d.plays, 0), downloads: days.reduce((n, d) => n + d.downloads, 0) },
    byDay: days.map((d) => ({ date: d.day, plays: d.plays, downloads: d.downloads })),
    method: 'Counted when a podcast app fetches the episode\'s file from the feed (downloads) or a person opens its play link (plays), through Steward\'s redirect; no listener data is kept.',
  };
}

/**
 * The module job's work for one organisation: each plan in the coming week without an episode gets
 * a draft one, in the series named like the plan's sermon series or else the newest series (none
 * made when the organisation has no series yet). Idempotent: one episode per plan, by a unique index.
 */
export async function draftEpisodeForPlan(db: Queryable, orgId: string, planId: string): Promise<'created' | 'exists' | 'no_series'> {
  if (await queryOne(db, 'SELECT 1 FROM mediahub_episodes WHERE org_id = $1 AND plan_id = $2', [orgId, planId])) return 'exists';
  const plan = await planForEpisode(db, orgId, planId);
  if (!plan) return 'exists';
  const series = await queryOne<{ id: string }>(db, `SELECT id FROM mediahub_series WHERE org_id = $1
    ORDER BY (lower(title) = lower(coalesce($2, ''))) DESC, created_at DESC, id LIMIT 1`, [orgId, plan.seriesTitle]);
  if (!series) return 'no_series';
  await createEpisode(db, orgId, { seriesId: series.id, planId, title: plan.sermonTitle ?? plan.title ?? `Service on ${plan.date}` });
  return 'created';
}
