import { z } from 'zod';
import { calendarDate } from '../../kit';
import { SONG_FILE_KINDS, attachSongFile, listSongFiles, removeSongFile } from '../song-files';
import { addArrangement, createSong, listSongs, setSong, songUsageReport } from '../songs';
import { tools } from './plans';

const ccliNumber = z.string().trim().max(10).regex(/^[0-9]{1,10}$/, 'digits only').describe('The song\'s CCLI number');

export const listSongsTool = tools.read('list_songs', {
  title: 'List songs',
  description: 'The song library by title (search by title, author or CCLI number), each with its arrangements (key, BPM, meter, sequence), how often it was used and when last.',
  keywords: ['songs', 'song library', 'worship songs', 'arrangements', 'song list', 'hymns'],
  examples: ['what songs do we know', 'find Amazing Grace in the library', 'which key do we do Cornerstone in', 'when did we last sing 10000 Reasons', 'have we got Be Thou My Vision in the song list', 'which songs haven\'t we sung for ages', 'search songs by Matt Redman', 'what\'s the CCLI number for In Christ Alone', 'which songs have we used the most', 'is How Great Thou Art in our songs', 'list our songs by Stuart Townend', 'what hymns do we have in the library'],
  input: z.object({ search: z.string().trim().min(1).max(200).optional(), limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({
    songs: z.array(z.object({
      id: z.uuid(), title: z.string(), author: z.string().nullable(), ccliNumber: z.string().nullable(), publicDomain: z.boolean(), lastUsedAt: z.string().nullable(), timesUsed: z.number().int(),
      arrangements: z.array(z.object({
        id: z.uuid(), name: z.string(), key: z.string().nullable(), bpm: z.number().int().nullable(), meter: z.string().nullable(), sequence: z.array(z.string()),
        lengthSeconds: z.number().int().nullable(), hasLyrics: z.boolean(),
      }).strict()),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ songs: await listSongs(ctx.db, ctx.org.id, input) }),
});

export const createSongTool = tools.write('create_song', {
  title: 'Add a song',
  description: 'Adds a song to the library with its author and CCLI number (or marked public domain), for song items and the CCLI usage report.',
  keywords: ['new song', 'add to song library', 'new hymn', 'add hymn'],
  examples: ['add Amazing Grace (public domain)', 'add Cornerstone, CCLI 6158927', 'put a new song in the library', 'the band learned Goodness of God, put it in the song list', 'add the hymn Abide With Me, it\'s public domain', 'new song: King of Kings by Hillsong, CCLI 7127647', 'add a song so we can use it on Sunday', 'add How Great Thou Art to our songs', 'new hymn for the library: Great Is Thy Faithfulness', 'add Build My Life with its CCLI number 7070345', 'put In Christ Alone by Getty and Townend in the song library'],
  input: z.object({ title: z.string().trim().min(1).max(200), author: z.string().trim().min(1).max(200).optional(), ccliNumber: ccliNumber.optional(), publicDomain: z.boolean().optional() }),
  output: z.object({ songId: z.uuid() }).strict(),
  run: async (ctx, input) => ({ songId: await createSong(ctx.db, ctx.org.id, input) }),
});

export const addArrangementTool = tools.write('add_arrangement', {
  title: 'Add an arrangement to a song',
  description: 'An arrangement of a song: key, BPM, meter, sequence (verse, chorus…), lyrics and length.',
  keywords: ['arrangement', 'key', 'bpm', 'chord chart', 'song version', 'song key'],
  examples: ['add a G arrangement of Cornerstone at 72 bpm', 'our acoustic version of Amazing Grace is in D, 3/4', 'save the sequence V1 C V2 C B C', 'save the choir version of Be Thou My Vision in E flat', 'add a slower key of A arrangement for In Christ Alone', 'store the lyrics and chords for our version of Cornerstone', 'new arrangement of King of Kings at 68 bpm in 4/4', 'add a Bb version of How Great Thou Art', "save a kids' arrangement of Build My Life at 80 bpm", 'Great Is Thy Faithfulness: add our 3/4 arrangement in D', 'store a new order V1 V2 C V3 C for Amazing Grace'],
  input: z.object({
    songId: z.uuid(), name: z.string().trim().min(1).max(200), key: z.string().trim().min(1).max(10).optional(), bpm: z.number().int().min(20).max(400).optional(),
    meter: z.string().max(5).regex(/^[0-9]{1,2}\/[0-9]{1,2}$/, 'like 4/4').optional(), sequence: z.array(z.string().trim().min(1).max(50)).max(50).optional(),
    lyrics: z.string().max(20_000).optional(), lengthSeconds: z.number().int().min(0).max(86_400).optional(),
  }),
  output: z.object({ arrangementId: z.uuid() }).strict(),
  run: async (ctx, input) => ({ arrangementId: await addArrangement(ctx.db, ctx.org.id, input) }),
});

export const setSongTool = tools.write('set_song', {
  title: 'Set the song on a song item',
  description: 'Puts a song (and arrangement, key) on a plan\'s song item. Warns, without refusing, when the song was used in the weeks before the plan (withinWeeks, default 4).',
  keywords: ['choose song', 'change song', 'song repetition', 'pick song', 'song for slot'],
  examples: ['make the opener Cornerstone in G', 'swap the second song for Amazing Grace', 'use the acoustic arrangement for the last song', 'we\'ll sing Goodness of God for the closing song', 'put In Christ Alone on the third song slot', 'pick the key of A version of Be Thou My Vision for Sunday', 'change the response song to King of Kings', 'set the first song on Sunday to How Great Thou Art', 'put Build My Life in the communion song slot in Bb', 'choose a song for the offering item: Great Is Thy Faithfulness', 'the gospel song should be Be Thou My Vision, key of D'],
  input: z.object({ planId: z.uuid(), itemId: z.uuid(), songId: z.uuid(), arrangementId: z.uuid().optional(), key: z.string().trim().min(1).max(10).optional(), withinWeeks: z.number().int().min(1).max(52).default(4) }),
  output: z.object({
    itemId: z.uuid(), songId: z.uuid(), arrangementId: z.uuid().nullable(),
    recentUses: z.array(z.object({ planId: z.uuid(), date: z.string(), title: z.string().nullable() }).strict()), warnings: z.array(z.string()),
  }).strict(),
  run: async (ctx, input) => setSong(ctx.db, ctx.org.id, input),
});

export const songUsageReportTool = tools.read('get_song_usage_report', {
  title: 'Song usage report (CCLI)',
  description: 'Songs used in services in a date range, counted as CCLI asks: each distinct use per service time (two services, two uses), with CCLI numbers; songs missing a CCLI number are listed.',
  keywords: ['CCLI', 'song report', 'copyright report', 'licence reporting'],
  examples: ['CCLI report for last quarter', 'which songs did we sing in October', 'how many times did we use Cornerstone this year', 'song usage for the licence return', 'I need the song figures for our CCLI return', 'which songs have we sung since January', 'report song uses for the copyright licence this year', 'list songs used last year missing a CCLI number', 'CCLI figures', 'the licence renewal is due in June, so what have we sung since last July?', 'which of the songs we used this year have no CCLI number'],
  input: z.object({ from: calendarDate(), to: calendarDate() }),
  output: z.object({
    from: z.string(), to: z.string(),
    songs: z.array(z.object({
      songId: z.uuid(), title: z.string(), author: z.string().nullable(), ccliNumber: z.string().nullable(), publicDomain: z.boolean(), uses: z.number().int(), firstUsed: z.string(), lastUsed: z.string(),
    }).strict()),
    totalUses: z.number().int(), missingCcliNumber: z.array(z.string()),
  }).strict(),
  run: async (ctx, input) => songUsageReport(ctx.db, ctx.org.id, input),
});

const songFileSchema = z.object({
  id: z.uuid(), songId: z.uuid(), arrangementId: z.uuid().nullable(), kind: z.enum(SONG_FILE_KINDS), name: z.string(), mediaId: z.uuid(),
  inLibrary: z.boolean().describe('False when the file has since left the Media Library (trashed or deleted)'),
  mimeType: z.string().nullable(), sizeBytes: z.number().int().nullable(),
  url: z.string().nullable().describe('Its address when public; otherwise platform_get_media_library_serve_url gives a signed one'), addedAt: z.string(),
}).strict();

export const attachSongFileTool = tools.write('attach_song_file', {
  title: 'Attach a file to a song',
  description: 'Links a Media Library file (uploaded with platform_begin_media_library_upload) to a song or one of its arrangements, as its chord chart, lead sheet, lyrics, audio or other file. The file stays in the library.',
  keywords: ['chord chart', 'chords pdf', 'lead sheet', 'song attachment', 'recording for the band', 'upload to a song', 'recording', 'practice track', 'mp3'],
  examples: ['attach the chord chart PDF to Cornerstone', 'add the rehearsal mp3 to the acoustic arrangement', 'link the lyric sheet to Amazing Grace', 'add the rehearsal mp3 to the song', 'upload a practice track for the new hymn', 'add sheet music to a song', 'Ellie wrote a new piano part for Be Thou My Vision, link her PDF to it', "I need the band's practice recording on the acoustic version of Goodness of God"],
  input: z.object({
    songId: z.uuid(), arrangementId: z.uuid().optional().describe('One of the song\'s arrangements (default: the song as a whole)'),
    mediaId: z.uuid().describe('A ready file in the Media Library (platform_list_media_library_files)'), kind: z.enum(SONG_FILE_KINDS),
    name: z.string().trim().min(1).max(200).optional().describe('Default: the file\'s name in the library'),
  }),
  output: z.object({ file: songFileSchema }).strict(),
  run: async (ctx, input) => ({ file: await attachSongFile(ctx.db, ctx.org.id, input) }),
});

export const listSongFilesTool = tools.read('list_song_files', {
  title: 'A song\'s files',
  description: 'The chord charts, lead sheets, lyrics and audio linked to a song and its arrangements, each with its Media Library file and address.',
  keywords: ['chord charts', 'song files', 'sheet music', 'song audio'],
  examples: ['where is the chord chart for Cornerstone', 'what files do we have for Amazing Grace', 'get the band the mp3 for the new song', 'sheet music for Cornerstone', "Rob's learning bass this week, which charts and recordings are on 10,000 Reasons?", 'have we got a lead sheet for In Christ Alone'],
  input: z.object({ songId: z.uuid() }),
  output: z.object({ songId: z.uuid(), title: z.string(), files: z.array(songFileSchema) }).strict(),
  run: async (ctx, input) => listSongFiles(ctx.db, ctx.org.id, input.songId),
});

export const removeSongFileTool = tools.write('remove_song_file', {
  title: 'Unlink a file from a song',
  description: 'Removes a file from a song (by the id runsheet_list_song_files gives); the file itself stays in the Media Library.',
  keywords: ['remove chord chart', 'unlink song file', 'detach recording', 'take file off song'],
  examples: ['take the old chord chart off Cornerstone', 'remove that mp3 from the song', 'unlink the old lead sheet', 'the chords on Be Thou My Vision were wrong, so detach that PDF from the song', 'can you take the demo recording off Goodness of God'],
  input: z.object({ fileId: z.uuid() }),
  output: z.object({ fileId: z.uuid(), removed: z.literal(true) }).strict(),
  run: async (ctx, input) => removeSongFile(ctx.db, ctx.org.id, input.fileId),
});

export const songTools = [listSongsTool, createSongTool, addArrangementTool, setSongTool, songUsageReportTool, attachSongFileTool, listSongFilesTool, removeSongFileTool];
