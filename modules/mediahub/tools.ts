import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { hasScope } from '../../core/principal';
import { calendarDate, cursorInput, cursorOutput, toolsFor } from '../kit';
import {
  channelNamed, channelView, createEpisode, createSeries, defaultChannel, publishable, episodeSchema, episodeStats, getEpisode, listSeries,
  publishEpisode, requestTranscript, search, searchHitSchema, seriesSchema, channelSchema, SONG_LICENCES, unpublishEpisode, updateEpisode, DEFAULT_CHANNEL,
} from './episodes';
import { feedUrlOf } from './feed';
import { archiveItem, beginUpload, completeUpload, getItem, ITEM_STATUSES, itemSchema, listItems, updateItem } from './items';
import { MEDIA_KINDS } from './probe';

const tools = toolsFor('mediahub', { read: 'mediahub:read', write: 'mediahub:write' });

const itemId = z.uuid().describe('A media item id (mediahub_list_items)');
const episodeId = z.uuid().describe('An episode id');
// Artwork comes from the platform's Media Library; a Media Hub image item is still taken, the older way.
const artworkMediaId = z.uuid().describe('Artwork: a public image in the Media Library (platform_list_media_library_files; upload with platform_begin_media_library_upload)');
const artworkItemId = z.uuid().describe('Instead of artworkMediaId, the older way: a Media Hub image item');
const title = z.string().trim().min(1).max(200);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');
const ccliNumber = z.string().trim().regex(/^[0-9]{1,10}$/, 'digits only').max(10);
const link = z.object({ title: z.string().trim().min(1).max(200), url: z.url().max(2000) });
const songInput = z.object({
  title, ccliNumber: ccliNumber.optional(), publicDomain: z.boolean().optional(),
  licence: z.enum(SONG_LICENCES).optional().describe('public_domain, streaming (e.g. a CCLI Streaming Licence), recording, or owned (written by the church)'),
  licenceNumber: z.string().trim().min(1).max(100).optional(),
});

// ---------------------------------------------------------------- media items

const beginUploadTool = tools.write('begin_upload', {
  title: 'Begin a media upload',
  description: 'Starts uploading a sermon or service recording (video or audio), or an episode\'s notes or slides, to Media Hub: answers a presigned URL to PUT the file to (never send file bytes as arguments), then call mediahub_complete_upload. Counts toward the plan\'s Media Hub items and storage. Episode and series artwork, photos and graphics belong in the Media Library (platform_begin_media_library_upload; then artworkMediaId).',
  keywords: ['upload sermon', 'upload video', 'upload audio', 'upload recording', 'presigned url', 'podcast audio upload', 'mp4', 'mp3', 'wav', 'mov', 'video file', 'audio file', 'service recording', 'livestream recording', 'get the recording in'],
  examples: ['upload this week\'s sermon recording', 'I have the Sunday service video to upload', 'add the sermon mp3 to the media hub', 'upload slides for the talk', 'I\'ve got the mp4 of the service, how do I get it in', 'put the video of this morning on the system', 'I need to send the Remembrance service recording up', 'upload a recording', 'Josh filmed the baptism service and wants it on the sermon podcast, how do we start?', 'I need to get episode artwork into the media hub'],
  meter: { feature: 'mediahub_items', units: 1 },
  input: z.object({
    fileName: z.string().trim().min(3).max(200).describe('The file\'s name with its extension (.mp4, .mov, .mp3, .m4a, .wav, .png, .jpg, .pdf, .pptx…)'),
    fileSize: z.number().int().min(1).max(100 * 1024 * 1024 * 1024).describe('Exact size in bytes'),
    title: title.optional().describe('Default: the file name'),
  }),
  output: z.object({
    itemId: z.uuid(), uploadUrl: z.string(), uploadMethod: z.literal('PUT'), uploadHeaders: z.record(z.string(), z.string()), expiresAt: z.string(), kind: z.enum(MEDIA_KINDS),
  }).strict(),
  run: async (ctx, input) => beginUpload(ctx.db, ctx.org.id, input),
});

const completeUploadTool = tools.write('complete_upload', {
  title: 'Complete a media upload',
  description: 'After the file was PUT to the upload URL: checks it arrived whole and starts processing (duration, dimensions, codec, a still or waveform). The item is processing, then ready or failed; mediahub_get_item shows which.',
  keywords: ['finish upload', 'upload done', 'process media', 'finished uploading', 'file is up'],
  examples: ['the sermon video has finished uploading', 'I have put the file, process it now', 'the Easter video has gone up, start processing it', 'upload\'s finished, check the file arrived', 'done putting the mp3, tell the hub to process it', 'the artwork file is uploaded now', 'I\'ve finished sending the slides file', 'upload finished', 'Josh says the Pentecost mp4 has gone up, so get it processed', "the file's sent, can you check it came through whole"],
  followUp: { kind: 'mediahub.process_item' },
  input: z.object({ itemId }),
  output: z.object({ item: itemSchema }).strict(),
  run: async (ctx, input) => ({ item: await completeUpload(ctx.db, ctx.org.id, input.itemId) }),
});

const listItemsTool = tools.read('list_items', {
  title: 'List media items',
  description: 'Media Hub\'s files, newest first: kind (video, audio, image, document, slides), status (uploading, processing, ready, failed, archived), size, duration. Archived items only when asked by status.',
  keywords: ['media hub files', 'sermon recordings', 'videos', 'audio files', 'media library of sermons', 'uploaded recordings', 'processing failed'],
  examples: ['what recordings have we uploaded', 'list the sermon videos', 'which uploads failed to process', 'show archived media', 'show the last ten audio files in the media library', 'what\'s still processing in the media hub', 'list all the slide decks we\'ve uploaded', 'our media files', 'Josh is tidying up storage, which videos and audio have we got in the hub?', 'are any uploads stuck or failed'],
  input: z.object({ ...cursorInput, kind: z.enum(MEDIA_KINDS).optional(), status: z.enum(ITEM_STATUSES).optional() }),
  output: z.object({ items: z.array(itemSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listItems(ctx.db, ctx.org.id, input),
});

const getItemTool = tools.read('get_item', {
  title: 'Get a media item',
  description: 'One media item (a recording, video, audio file or image): its status (is it ready yet), what processing found (duration or length, dimensions, codec, waveform, a still\'s URL), why it failed, and its rights (licence, CCLI number, streaming licence).',
  keywords: ['media item', 'is it processed', 'video duration', 'recording status', 'processing status', 'length', 'resolution', 'ready yet'],
  examples: ['has the sermon video finished processing', 'how long is the recording', 'why did the upload fail', 'is the Easter service video ready yet', 'what resolution is the carol service recording', 'does that recording have a CCLI number recorded', 'show the details of the harvest sermon audio', 'is the video ready', 'Josh uploaded the Pentecost recording an hour ago, has it finished and how long is it?', 'what went wrong with that failed audio file'],
  input: z.object({ itemId }),
  output: z.object({ item: itemSchema }).strict(),
  run: async (ctx, input) => ({ item: await getItem(ctx.db, ctx.org.id, input.itemId) }),
});

const updateItemTool = tools.write('update_item', {
  title: 'Update a media item',
  description: 'Renames a media item or records its rights: licence text, CCLI number, streaming licence number, and captions (WebVTT text).',
  keywords: ['rename media', 'media rights', 'captions', 'streaming licence number'],
  examples: ['rename the video to Easter Sunday 2026', 'add captions to the sermon video', 'record the CCLI number on this recording', 'change the title of the carol service video', 'put our streaming licence number on the Easter recording', 'attach the subtitles file to the harvest sermon video', 'note the licence for the music on this video', 'rename the recording', 'the worship set on the Pentecost video is licensed, add our streaming licence number', 'can you put subtitles on the baptism video'],
  input: z.object({
    itemId, title: title.optional(), licence: z.string().trim().max(200).nullable().optional(), ccliNumber: ccliNumber.nullable().optional(),
    streamingLicence: z.string().trim().max(100).nullable().optional(), captions: z.string().max(500_000).nullable().optional().describe('WebVTT captions'),
  }),
  output: z.object({ item: itemSchema }).strict(),
  run: async (ctx, input) => ({ item: await updateItem(ctx.db, ctx.org.id, input.itemId, input) }),
});

const archiveItemTool = tools.write('archive_item', {
  title: 'Archive a media item',
  description: 'Archives a ready or failed media item: out of lists, the plan\'s item count and storage. Refused while a published episode uses it.',
  keywords: ['archive media', 'remove recording', 'free storage', 'delete upload', 'old recording', 'bin recording'],
  examples: ['archive the old test upload', 'get rid of the failed upload', 'archive last year\'s sermon video', 'we don\'t need the duplicate Easter recording, archive it', 'clear out the rehearsal video we uploaded by mistake', 'tidy the media library of the old 2019 videos', 'free up storage by archiving the test clip', 'bin that recording', 'Josh uploaded the Pentecost video twice, get rid of the spare copy', "we're near our storage limit, archive the old test videos"],
  destructive: true,
  input: z.object({ itemId }),
  output: z.object({ item: itemSchema }).strict(),
  run: async (ctx, input) => ({ item: await archiveItem(ctx.db, ctx.org.id, input.itemId) }),
});

// ---------------------------------------------------------------- series and episodes

const listSeriesTool = tools.read('list_series', {
  title: 'List sermon series',
  description: 'Sermon series, newest first, with their podcast channel and how many episodes each has.',
  keywords: ['sermon series', 'teaching series', 'podcast series', 'preaching series', 'series of talks'],
  examples: ['what sermon series do we have', 'list our preaching series', 'how many episodes in the Romans series', 'which preaching series is the Easter talk in', 'show all our teaching series with episode counts', 'list the series in the Sermons podcast', 'what was the last series we ran', 'our series', "Mark's planning next term, which teaching series have we done and how long were they?", 'is there already a series on Philippians'],
  input: z.object({ ...cursorInput }),
  output: z.object({ series: z.array(seriesSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listSeries(ctx.db, ctx.org.id, input),
});

const createSeriesTool = tools.write('create_series', {
  title: 'Create a sermon series',
  description: `Creates a sermon series in a podcast channel (default "${DEFAULT_CHANNEL}", made with its first series), optionally with artwork: a public Media Library image (artworkMediaId), which the channel takes too if it has none.`,
  keywords: ['new sermon series', 'start series', 'preaching series'],
  examples: ['start a new sermon series on Romans', 'create a series called Advent Hope', 'set up a series for the summer talks', 'new teaching series: The Lord\'s Prayer, six weeks', 'make a Lent series with the purple artwork', 'add a Youth Talks series on its own podcast channel', 'we\'re starting a series on Acts in September', 'new series: Philippians', "Mark's starting six weeks on the Psalms in January, set the series up", 'I need a series for the youth talks with its own artwork'],
  input: z.object({
    title, description: z.string().trim().max(4000).optional(), channel: z.string().trim().min(1).max(200).optional().describe(`The podcast channel (default "${DEFAULT_CHANNEL}")`),
    artworkMediaId: artworkMediaId.optional(), artworkItemId: artworkItemId.optional(),
  }),
  output: z.object({ series: seriesSchema, channel: channelSchema }).strict(),
  run: async (ctx, input) => createSeries(ctx.db, ctx.org.id, input),
});

const createEpisodeTool = tools.write('create_episode', {
  title: 'Create a sermon episode',
  description: 'Creates a draft sermon episode in a series. Given a runsheet plan (planId; needs runsheet:read too) it is prefilled from it: title, date, speaker and scripture (from item notes), and the songs sung with their CCLI numbers. Attach video/audio items now or later; publish with mediahub_publish_episode.',
  keywords: ['new episode', 'sermon episode', 'from the plan', 'prefill from runsheet', 'draft episode', 'podcast episode', 'talk', 'message'],
  examples: ['make an episode for Sunday\'s sermon from the service plan', 'create an episode for last week\'s talk', 'add this sermon to the Romans series', 'draft a podcast episode for the bishop\'s talk on Sunday', 'new episode in Advent Hope from the 10:30 plan', 'create a sermon episode with speaker Rev Jo Lee on Luke 15', 'write up this week\'s message as an episode', 'new sermon episode', "Mark preached on Psalm 23 on Sunday, make an episode from that service's plan", 'could we get a draft episode for the baptism talk'],
  input: z.object({
    seriesId: z.uuid(), planId: z.uuid().optional().describe('A runsheet plan to prefill from'), title: title.optional(),
    speaker: z.string().trim().min(1).max(200).optional(), scripture: z.string().trim().min(1).max(200).optional(), date: calendarDate().optional(),
    notes: z.string().trim().max(10_000).optional(), links: z.array(link).max(20).optional(), artworkMediaId: artworkMediaId.optional(), artworkItemId: artworkItemId.optional(),
    videoItemId: z.uuid().optional(), audioItemId: z.uuid().optional(), songs: z.array(songInput).max(50).optional().describe('Songs sung (default: the plan\'s)'),
  }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => {
    // A plan's details are runsheet's: prefilling from one needs the caller's runsheet:read too.
    if (input.planId && !hasScope(ctx.principal, 'runsheet:read')) {
      throw new StewardError('insufficient_scope', 'Prefilling an episode from a service plan needs the runsheet:read scope', {
        hint: 'Give the title, speaker, date and songs yourself, or use a key or intent (such as broadcast) that can read service plans.', details: { required: 'runsheet:read' },
      });
    }
    return { episode: await createEpisode(ctx.db, ctx.org.id, input) };
  },
});

const getEpisodeTool = tools.read('get_episode', {
  title: 'Get a sermon episode',
  description: 'One episode: its state (draft, scheduled, published, unpublished), speaker, scripture, media, songs with their licences, and transcript status.',
  keywords: ['episode details', 'sermon episode status', 'sermon details', 'podcast episode'],
  examples: ['is Sunday\'s sermon published', 'show the episode for Easter', 'which songs are in this episode', 'has the transcript for the Easter sermon come back', 'what state is the Advent Hope week 2 episode in', 'which speaker and passage are on last week\'s episode', 'is the video attached to the harvest talk', "show last Sunday's sermon episode", 'has the Pentecost sermon been scheduled or published', 'what Bible passage was the Lent week 3 talk on', 'which songs and licences are listed on the Christmas Day episode'],
  input: z.object({ episodeId }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => ({ episode: await getEpisode(ctx.db, ctx.org.id, input.episodeId) }),
});

const updateEpisodeTool = tools.write('update_episode', {
  title: 'Update a sermon episode',
  description: 'Changes an episode: title, speaker, scripture, date, notes and links, series, artwork (a public Media Library image: artworkMediaId), video and audio items; records a song\'s licence (songLicences, by the song\'s id in the episode) or adds songs.',
  keywords: ['edit episode', 'attach recording', 'song licence', 'streaming licence', 'CCLI'],
  examples: ['attach the processed audio to Sunday\'s episode', 'the speaker was Rev Ann Smith', 'mark Amazing Grace as public domain', 'we have a streaming licence for that song', 'the passage on Sunday\'s episode should be Luke 15:11-32', 'move that episode into the Lent series', 'add the show notes and a link to the food bank', 'change the speaker', 'the Psalm 23 episode has the wrong date, it was the 14th not the 7th', "can you attach the video to Mark's episode"],
  input: z.object({
    episodeId, title: title.optional(), speaker: z.string().trim().min(1).max(200).nullable().optional(), scripture: z.string().trim().min(1).max(200).nullable().optional(),
    date: calendarDate().optional(), notes: z.string().trim().max(10_000).nullable().optional(), links: z.array(link).max(20).optional(), seriesId: z.uuid().optional(),
    artworkMediaId: artworkMediaId.nullable().optional().describe('Artwork: a public image in the Media Library (platform_list_media_library_files); null removes the episode\'s own artwork, so its series\' shows'),
    artworkItemId: artworkItemId.nullable().optional(), videoItemId: z.uuid().nullable().optional(), audioItemId: z.uuid().nullable().optional(),
    songLicences: z.array(z.object({ songId: z.uuid().describe('The song\'s id in this episode'), licence: z.enum(SONG_LICENCES).nullable(), licenceNumber: z.string().trim().min(1).max(100).nullable().optional() })).max(50).optional(),
    addSongs: z.array(songInput).max(50).optional(),
  }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => {
    const { episodeId: id, ...changes } = input;
    return { episode: await updateEpisode(ctx.db, ctx.org.id, id, changes) };
  },
});

const publishEpisodeTool = tools.write('publish_episode', {
  title: 'Publish a sermon episode',
  description: 'Publishes an episode to the public library and its channel\'s podcast feed, now or at publishAt (scheduled). Needs a person\'s approval. Refused while it has no processed audio or video, or while a song in it has no streaming or recording licence (the songs are named).',
  keywords: ['publish sermon', 'podcast', 'release episode', 'go public', 'schedule episode'],
  examples: ['publish Sunday\'s sermon', 'put the sermon on the podcast', 'release the episode on Monday at 6am', 'make the sermon public', 'schedule the Easter talk for Sunday at 6pm', 'get the bishop\'s sermon onto Spotify and the website', 'make last Sunday\'s message live on the podcast', 'publish the episode', 'Mark wants his Psalm 23 talk out on the podcast first thing Monday', 'can the baptism talk go live on the website'],
  approval: { kind: 'gated', when: { reason: 'publishing makes the recording public on the podcast feed and library', applies: async (args, deps) => publishable(deps.db, deps.orgId, String(args.episodeId)) } },
  task: {},
  input: z.object({ episodeId, publishAt: z.iso.datetime({ offset: true }).max(40).optional().describe('When it goes public (default now)'), actionSummary }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => ({ episode: await publishEpisode(ctx.db, ctx.org.id, input.episodeId, input.publishAt) }),
});

const unpublishEpisodeTool = tools.write('unpublish_episode', {
  title: 'Unpublish a sermon episode',
  description: 'Takes a published or scheduled episode out of the library and the podcast feed at once; its play links stop working.',
  keywords: ['unpublish', 'take down sermon', 'remove from podcast', 'pull episode', 'take off podcast', 'withdraw talk'],
  examples: ['take Sunday\'s sermon off the podcast', 'unpublish that episode', 'pull the episode, there is a mistake in it', 'pull last week\'s talk off the podcast', 'remove the harvest sermon from the library for now', 'hide the episode with the wrong audio', 'stop the Easter talk being available online', 'unpublish it', "Mark mentioned someone's name by accident, take that episode down now", 'could the Psalm 23 talk come off the sermon feed'],
  input: z.object({ episodeId }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => ({ episode: await unpublishEpisode(ctx.db, ctx.org.id, input.episodeId) }),
});

const transcribeEpisodeTool = tools.write('transcribe_episode', {
  title: 'Transcribe a sermon episode',
  description: 'Sends the episode\'s processed audio (or video) to the transcription provider; the transcript arrives in the background (transcriptStatus requested → ready) and becomes searchable with mediahub_search.',
  keywords: ['transcript', 'transcribe sermon', 'speech to text', 'written transcript', 'text of the sermon'],
  examples: ['transcribe Sunday\'s sermon', 'get a transcript of the talk', 'make the sermon searchable by what was said', 'turn the Easter sermon audio into text', 'we need a written version of the bishop\'s talk', 'request a transcript for last week\'s message', 'transcribe the harvest talk so people can search it', 'transcript please', "Mark's talk on grief has been requested in print, so get it transcribed", 'can we have the Psalm 23 sermon as text'],
  followUp: { kind: 'mediahub.transcribe' },
  input: z.object({ episodeId }),
  output: z.object({ episode: episodeSchema }).strict(),
  run: async (ctx, input) => ({ episode: await requestTranscript(ctx.db, ctx.org.id, input.episodeId) }),
});

const searchTool = tools.read('search', {
  title: 'Search sermons and media',
  description: 'Full-text search of sermon episodes (titles, speakers, scripture, notes, transcripts) and media item titles; transcript matches come with a snippet.',
  keywords: ['find sermon', 'search sermons', 'which sermon mentioned', 'sermon on', 'preached on', 'transcript search', 'did we preach', 'sermon about', 'bible passage', 'talk about', 'speaker'],
  examples: ['find the sermon on the prodigal son', 'which talks did Ann preach', 'sermons on John 3', 'when did we preach about forgiveness', 'did we ever preach on the lost sheep', 'talks by the bishop on hope', 'find where the vicar mentioned the food bank', 'sermons on grace', 'someone asked for the talk where Mark spoke about grief, can you find it?', 'have we had any preaching on Ruth'],
  input: z.object({ query: z.string().trim().min(1).max(200), limit: z.number().int().min(1).max(50).default(20) }),
  output: z.object({ results: z.array(searchHitSchema) }).strict(),
  run: async (ctx, input) => search(ctx.db, ctx.org.id, input.query, input.limit),
});

const getFeedUrlTool = tools.read('get_feed_url', {
  title: 'Get the podcast feed URL',
  description: `The public podcast feed (RSS with iTunes tags) of a channel (default: the first, usually "${DEFAULT_CHANNEL}"), to submit to Apple Podcasts, Spotify and other apps.`,
  keywords: ['podcast feed', 'rss', 'apple podcasts', 'spotify', 'feed url'],
  examples: ['what is our podcast feed address', 'give me the RSS link for Spotify', 'how do we get the sermons on Apple Podcasts', 'what link do I give to Spotify for our sermons', 'where\'s the RSS feed for the Youth Talks channel', 'send me the podcast feed so I can add it to Google Podcasts', 'what\'s the feed URL for our sermon podcast', 'podcast RSS', 'Josh is listing us on Apple Podcasts, which feed link does he need?', "where's the feed for the youth talks"],
  input: z.object({ channel: z.string().trim().min(1).max(200).optional() }),
  output: z.object({ feedUrl: z.string().nullable(), channel: channelSchema.nullable() }).strict(),
  run: async (ctx, input) => {
    const channel = input.channel ? await channelNamed(ctx.db, ctx.org.id, input.channel, false) : await defaultChannel(ctx.db, ctx.org.id);
    return channel ? { feedUrl: feedUrlOf(ctx.org.id, channel.id), channel: await channelView(ctx.db, ctx.org.id, channel) } : { feedUrl: null, channel: null };
  },
});

const getEpisodeStatsTool = tools.read('get_episode_stats', {
  title: 'Episode plays and downloads',
  description: 'An episode\'s plays and podcast downloads by day (default: the last 30 days), counted through Steward\'s play redirect.',
  keywords: ['downloads', 'listens', 'plays', 'podcast stats', 'how many listened', 'listeners', 'episode downloads', 'sermon downloads'],
  examples: ['how many people listened to Sunday\'s sermon', 'podcast downloads this month', 'plays of the Easter episode by day', 'how many downloads did the harvest sermon get', 'how did the Easter talk do on the podcast', 'daily listens for the bishop\'s sermon last month', 'how many plays has the Lent series opener had', 'sermon plays', 'Mark wants to know if anyone listened to his Psalm 23 talk last week', 'how many downloads has the baptism episode had'],
  input: z.object({ episodeId, from: calendarDate().optional(), to: calendarDate().optional() }),
  output: z.object({
    episodeId: z.uuid(), title: z.string(), from: z.string(), to: z.string(), totals: z.object({ plays: z.number().int(), downloads: z.number().int() }).strict(),
    byDay: z.array(z.object({ date: z.string(), plays: z.number().int(), downloads: z.number().int() }).strict()), method: z.string(),
  }).strict(),
  run: async (ctx, input) => {
    const to = input.to ?? new Date().toISOString().slice(0, 10);
    const from = input.from ?? new Date(Date.parse(to) - 29 * 86_400_000).toISOString().slice(0, 10);
    return episodeStats(ctx.db, ctx.org.id, input.episodeId, from, to);
  },
});

export const mediahubTools = [
  listItemsTool, getItemTool, beginUploadTool, completeUploadTool, updateItemTool, archiveItemTool, searchTool, listSeriesTool, createSeriesTool,
  createEpisodeTool, getEpisodeTool, updateEpisodeTool, publishEpisodeTool, unpublishEpisodeTool, transcribeEpisodeTool, getFeedUrlTool, getEpisodeStatsTool,
];
