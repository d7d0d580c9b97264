import { z } from 'zod';
import { toolsFor } from '../kit';
import { getLiveSettings, updateLiveSettings } from './ahead';
import { listPrayerRequests, recordOnlineAttendance, requirePastoralScope, viewerStats } from './stats';
import type { Pool } from '../../db/pool';
import {
  endStream, listStreams, prepareEnd, prepareSchedule, prepareStart, prepareStatus, prepareUpdate, scheduleStream, startNeedsApproval, startStream, streamStatus, updateStream,
  type MadeBroadcast, type PreparedStart,
} from './streams';
import { closePoll, createPoll, listChat, moderateChat, pollResults, streamPolls } from './viewers';

const tools = toolsFor('live', { read: 'live:read', write: 'live:write' });

const streamId = z.uuid().describe('The stream (live_list_streams)');
const instant = (what: string) => z.iso.datetime({ offset: true }).max(40).describe(what);
const minutes = (what: string, max = 240) => z.number().int().min(0).max(max).describe(what);
const actionSummary = z.string().trim().max(500).optional().describe('Plain-English summary shown to the approver');

export const streamSchema = z.object({
  id: z.uuid(), title: z.string(), description: z.string().nullable(), instanceId: z.string().nullable(), startsAt: z.string(), endsAt: z.string(),
  graceMinutes: z.number().int(), earlyStartMinutes: z.number().int(), chatBeforeMinutes: z.number().int(), chatAfterMinutes: z.number().int(), unscheduled: z.boolean(),
  status: z.enum(['created', 'ready', 'testing', 'live', 'complete', 'cancelled']), provider: z.string(), providerBroadcastId: z.string().nullable(), episodeId: z.uuid().nullable().describe('The media hub episode this stream becomes'),
  startedAt: z.string().nullable(), endedAt: z.string().nullable(), endedReason: z.string().nullable(), completesBy: z.string(), streamHours: z.number().int(),
  watchPath: z.string(), memberWatchPath: z.string().describe('The link for members signed in to the portal: they watch as themselves, counted once a day by name'), autoCreated: z.boolean().describe('Made ahead of its service by the stream job (live_update_settings)'), createdAt: z.string(),
}).strict();

const statusSchema = z.object({
  stream: streamSchema,
  provider: z.object({ lifeCycleStatus: z.string(), streamStatus: z.string().nullable(), health: z.string().nullable() }).strict().nullable(),
  ingestActive: z.boolean(), chatOpen: z.boolean(), canGoLive: z.boolean(), reasons: z.array(z.string()),
}).strict();

const pollSchema = z.object({
  id: z.uuid(), streamId: z.uuid(), question: z.string(), options: z.array(z.object({ id: z.string(), label: z.string() }).strict()), anonymous: z.boolean(),
  status: z.enum(['open', 'closed', 'scheduled']), opensAt: z.string(), closesAt: z.string().nullable(), closedAt: z.string().nullable(), createdAt: z.string(),
}).strict();

const resultsSchema = z.object({
  poll: pollSchema, totalVotes: z.number().int(),
  results: z.array(z.object({ optionId: z.string(), label: z.string(), votes: z.number().int(), percent: z.number() }).strict()),
}).strict();

const chatSchema = z.object({ id: z.uuid(), displayName: z.string(), body: z.string(), hidden: z.boolean(), viewer: z.string(), blocked: z.boolean(), createdAt: z.string() }).strict();

const streamFields = {
  description: z.string().trim().max(2000).nullable().optional(),
  graceMinutes: minutes('After the end, how long before the stream is completed automatically (default 30)').optional(),
  earlyStartMinutes: minutes('How long before the start it may go live without approval (default 15)').optional(),
  chatBeforeMinutes: minutes('Chat opens this long before the start (default 15)').optional(),
  chatAfterMinutes: minutes('Chat stays open this long after the end (default 15)').optional(),
  episodeId: z.uuid().nullable().optional().describe('The media hub episode this stream becomes (its id: mediahub_search finds it); null unlinks. A service\'s stream links its episode by itself when there is one'),
};

const listStreamsTool = tools.read('list_streams', {
  title: 'List live streams',
  description: 'The organisation\'s live streams, latest start first: title, the service instance it streams, times, status (created, ready, testing, live, complete, cancelled), when it completes automatically, hours streamed and the viewer page\'s path.',
  keywords: ['live streams', 'livestream', 'online service', 'broadcasts', 'youtube live', 'streaming schedule', 'stream', 'upcoming streams', 'planned streams'],
  examples: ['what live streams do we have coming up', 'is anything streaming right now', 'show last month\'s livestreams', 'list our online services', 'which livestreams did we cancel', 'when is the next service going out online', 'how many hours did we stream last month', 'our livestreams', 'Josh is planning the tech rota, which streams are scheduled for the next month?', 'did we stream the Easter services'],
  input: z.object({
    status: z.enum(['created', 'ready', 'testing', 'live', 'complete', 'cancelled']).optional(), from: instant('Starting at or after').optional(), to: instant('Starting at or before').optional(),
    limit: z.number().int().min(1).max(100).default(25),
  }),
  output: z.object({ streams: z.array(streamSchema) }).strict(),
  run: async (ctx, input) => ({ streams: await listStreams(ctx.db, ctx.org.id, input) }),
});

const scheduleStreamTool = tools.write('schedule_stream', {
  title: 'Schedule a live stream',
  description: 'Schedules a live stream for a service instance (instanceId from schedule_list_upcoming_instances: its title and times) or for a date (title, startsAt and endsAt or durationMinutes), with the grace period after which it is completed automatically, the early-start allowance and the chat windows. The streaming provider\'s broadcast and ingest are created (ready). Going live is live_start_stream.',
  keywords: ['schedule stream', 'set up livestream', 'livestream a service', 'stream a service', 'youtube live', 'broadcast sunday', 'online service', 'plan a livestream', 'stream the morning service', 'livestream'],
  examples: ['set up a livestream for Sunday\'s 10:30 service', 'get the morning service streamed online this week', 'we need a livestream for next Sunday', 'schedule the Christmas Eve stream', 'stream the carol service on 24 December at 6pm for an hour', 'we want to broadcast Good Friday online', 'put the Remembrance Sunday service on YouTube', 'stream Sunday', "the bishop's confirmation service on 12 May should go out online, set it up", 'can the midweek prayer meeting be livestreamed on Wednesday at 7'],
  input: z.object({
    instanceId: z.uuid().optional().describe('A service instance (schedule_list_upcoming_instances)'),
    title: z.string().trim().min(1).max(200).optional().describe('Required without instanceId (default: the service\'s title)'),
    startsAt: instant('Start, without instanceId').optional(), endsAt: instant('End (default: the service\'s end, or start + durationMinutes)').optional(),
    durationMinutes: z.number().int().min(5).max(720).optional(),
    ...streamFields,
  }),
  output: z.object({ stream: streamSchema }).strict(),
  followUp: { kind: 'live.stream_timer' },
  // The provider's broadcast is made here, before the transaction, so no row is locked while it is.
  prepare: async (input, deps) => prepareSchedule(deps.db, deps.org.id, input, deps.workflowId),
  run: async (ctx, input) => ({ stream: await scheduleStream(ctx.db, ctx.org.id, input, { made: ctx.prepared as MadeBroadcast | null }) }),
});

const updateStreamTool = tools.write('update_stream', {
  title: 'Update a live stream',
  description: 'Changes a stream\'s title, times, grace period, early-start allowance, chat windows or the episode it becomes, or cancels it before it starts (cancel: true). The provider\'s broadcast follows; the automatic completion moves with the end.',
  keywords: ['change stream', 'move stream', 'extend stream', 'cancel stream', 'rename stream', 'link episode'],
  examples: ['move the stream to start at 11', 'extend tonight\'s stream by half an hour', 'cancel next week\'s livestream', 'open chat 30 minutes before the stream', 'the carol service stream now starts at 6.30', 'don\'t stream the 8am next week after all', 'keep the chat open for an hour after Sunday\'s stream', 'change the stream title to Easter Day Communion', 'change the stream time', 'the confirmation starts late, so move its stream to 3pm', 'can we drop the livestream for the midweek meeting'],
  input: z.object({
    streamId, title: z.string().trim().min(1).max(200).optional(), startsAt: instant('New start').optional(), endsAt: instant('New end').optional(),
    cancel: z.boolean().optional().describe('Cancel a stream that has not gone live'), ...streamFields,
  }),
  output: z.object({ stream: streamSchema }).strict(),
  followUp: { kind: 'live.stream_changed' },
  prepare: async (input, deps) => prepareUpdate(deps.db, deps.org.id, input.streamId, input),
  run: async (ctx, input) => ({ stream: await updateStream(ctx.db, ctx.org.id, input.streamId, input) }),
});

const getStatusTool = tools.read('get_stream_status', {
  title: 'Live stream status',
  description: 'A stream\'s state here and at the provider: lifecycle (created, ready, testing, live, complete), whether the encoder\'s ingest is active, whether chat is open, and whether it can go live now (with the reasons it cannot).',
  keywords: ['stream status', 'are we live', 'encoder connected', 'ingest', 'stream health', 'obs connected'],
  examples: ['are we live yet', 'is the encoder sending to YouTube', 'can we go live now', 'what state is the stream in', 'is OBS connected to the stream yet', 'why won\'t it let us go live', 'is the chat open on Sunday\'s stream', 'stream status', 'Josh has OBS running, is YouTube getting the signal?', 'is chat live on the confirmation stream'],
  input: z.object({ streamId }),
  output: statusSchema,
  prepare: async (input, deps) => prepareStatus(deps.db, deps.org.id, input.streamId),
  run: async (ctx, input) => streamStatus(ctx.db, ctx.org.id, input.streamId, (ctx.prepared as Awaited<ReturnType<typeof prepareStatus>>).provider),
});

const startStreamTool = tools.write('start_stream', {
  title: 'Go live',
  description: 'Takes a stream live at the provider, only when the provider reports its ingest active (the encoder is sending). Early (before the start less the early-start allowance) or unscheduled (no streamId: a title and durationMinutes start one now) needs a person\'s approval first. It completes automatically at its end plus the grace period.',
  keywords: ['go live', 'start stream', 'start broadcast', 'begin livestream', 'go live early', 'on air', 'start streaming'],
  examples: ['go live', 'start the livestream now', 'we need to go live early', 'start an unscheduled stream for the prayer vigil', 'put us on air', 'the encoder\'s running, start broadcasting the 10:30', 'begin the carol service stream now', 'start streaming', 'the bishop has arrived and the camera is ready, take the confirmation live now', 'can we go on air ten minutes early'],
  approval: { kind: 'gated', when: { reason: 'going live early or without a scheduled stream shows the public something unplanned', applies: async (args, deps) => startNeedsApproval(deps.db, deps.orgId, args) } },
  task: {},
  input: z.object({
    streamId: streamId.optional(), title: z.string().trim().min(1).max(200).optional().describe('An unscheduled stream\'s title'),
    durationMinutes: z.number().int().min(5).max(720).optional().describe('An unscheduled stream\'s length (default 90)'), actionSummary,
  }),
  output: statusSchema,
  followUp: { kind: 'live.stream_timer' },
  // The provider goes live here, before the transaction; the run marks it live under the row's lock. deps.db is the pool (PrepareDeps).
  prepare: async (input, deps) => prepareStart(deps.db as Pool, deps.org.id, input, deps.workflowId),
  run: async (ctx, input) => startStream(ctx.db, ctx.org.id, input, (ctx.prepared ?? null) as PreparedStart | null),
});

const endStreamTool = tools.write('end_stream', {
  title: 'End a live stream',
  description: 'Ends a live stream at the provider (complete) and here; the hours it was live are counted against the plan\'s stream allowance. A stream nobody ends completes by itself at its end plus the grace period.',
  keywords: ['end stream', 'stop stream', 'finish broadcast', 'go off air', 'stop livestream', 'switch off stream', 'turn off livestream', 'stream over', 'service finished'],
  examples: ['end the stream', 'we\'re done, stop the livestream', 'take us off air', 'the service has finished, turn the stream off', 'switch the livestream off now', 'the blessing\'s done, end the broadcast', 'finish the YouTube broadcast of the carol service', 'stop streaming', "the confirmation's over and people are leaving, so end the broadcast", 'can you switch the livestream off'],
  input: z.object({ streamId }),
  output: z.object({ stream: streamSchema }).strict(),
  followUp: { kind: 'live.stream_changed' },
  prepare: async (input, deps) => prepareEnd(deps.db, deps.org.id, input.streamId),
  run: async (ctx, input) => ({ stream: await endStream(ctx.db, ctx.org.id, input.streamId) }),
});

const createPollTool = tools.write('create_poll', {
  title: 'Create a live poll',
  description: 'Puts a poll on a stream\'s viewer page: a question, 2 to 10 options, anonymous (default) or not, opening now or at opensAt, closing at closesAt, after durationMinutes, or when closed (live_close_poll). One vote per viewer.',
  keywords: ['poll', 'live poll', 'ask viewers', 'vote', 'survey during stream'],
  examples: ['ask the viewers which carol they want next', 'put a poll on the stream', 'run a quick vote during the livestream', 'poll online viewers where they are watching from', 'ask people online to vote yes or no on the new service time', 'a 5 minute poll: which Alpha night suits you best', 'let the online congregation pick the closing hymn', 'ask viewers if they can hear the sound clearly', 'start a poll', 'Josh wants online viewers to choose the final song out of three', "can we ask people watching if they'd come to a midweek service"],
  input: z.object({
    streamId, question: z.string().trim().min(1).max(300), options: z.array(z.string().trim().min(1).max(100)).min(2).max(10),
    anonymous: z.boolean().optional(), opensAt: instant('When it opens (default now)').optional(), closesAt: instant('When it closes').optional(),
    durationMinutes: z.number().int().min(1).max(720).optional(),
  }),
  output: z.object({ poll: pollSchema }).strict(),
  run: async (ctx, input) => ({ poll: await createPoll(ctx.db, ctx.org.id, input) }),
});

const closePollTool = tools.write('close_poll', {
  title: 'Close a live poll',
  description: 'Closes a poll now: no vote counts after it (a vote in flight either counted before or is refused). Returns the final results.',
  keywords: ['close poll', 'end vote', 'stop poll', 'stop voting', 'voting closed', 'no more votes', 'end the voting'],
  examples: ['close the poll', 'stop the voting', 'end the carol vote', 'no more votes on the livestream poll', 'shut the voting now', 'close the hymn vote and show the result', 'the closing hymn poll is over, close it', 'end the poll', 'the song choice has been running long enough, stop the voting', "can the viewers' vote be closed now"],
  input: z.object({ pollId: z.uuid().describe('The poll (live_get_poll_results lists a stream\'s polls)') }),
  output: resultsSchema,
  run: async (ctx, input) => closePoll(ctx.db, ctx.org.id, input.pollId),
});

const pollResultsTool = tools.read('get_poll_results', {
  title: 'Live poll results',
  description: 'A poll\'s results (votes and percent per option, total), or with streamId only, the stream\'s polls with their results, newest first.',
  keywords: ['poll results', 'votes', 'who won the vote', 'poll count'],
  examples: ['what did people vote for', 'show the poll results', 'how many voted in the poll', 'which hymn won the online vote', 'results of all polls from Sunday\'s stream', 'what percentage voted for Wednesday', 'how did the viewers vote on the new service time', 'poll results', 'the final song vote is done, which option got the most votes?', 'how did the midweek service poll come out'],
  input: z.object({ pollId: z.uuid().optional(), streamId: streamId.optional() }),
  output: z.object({ polls: z.array(resultsSchema) }).strict(),
  run: async (ctx, input) => {
    if (input.pollId) return { polls: [await pollResults(ctx.db, ctx.org.id, input.pollId)] };
    if (!input.streamId) return { polls: [] };
    const polls = await streamPolls(ctx.db, ctx.org.id, input.streamId);
    return { polls: await Promise.all(polls.map((poll) => pollResults(ctx.db, ctx.org.id, poll.id))) };
  },
});

const listChatTool = tools.read('list_chat', {
  title: 'Live chat',
  description: 'A stream\'s viewer chat, oldest first (the latest `limit`): display name, message, hidden or not, and an opaque viewer reference (never a contact). Hidden messages and blocked viewers\' messages only with includeHidden. Moderate with live_moderate_chat.',
  keywords: ['chat', 'comments', 'viewer messages', 'live chat', 'moderation'],
  examples: ['what are people saying in the chat', 'show the livestream comments', 'any messages from viewers', 'read me the last 20 comments from the stream', 'show hidden chat messages too', 'who\'s saying hello in the livestream chat', 'what did viewers write during the carol service', 'livestream chat', "the vicar wants to greet online folk, who's been commenting so far?", "what's been posted in the confirmation chat"],
  input: z.object({ streamId, includeHidden: z.boolean().default(false), limit: z.number().int().min(1).max(500).default(100) }),
  output: z.object({ messages: z.array(chatSchema) }).strict(),
  run: async (ctx, input) => ({ messages: await listChat(ctx.db, ctx.org.id, input.streamId, input) }),
});

const moderateChatTool = tools.write('moderate_chat', {
  title: 'Moderate live chat',
  description: 'Hides (or unhides) a chat message from the viewer page, or blocks (or unblocks) the viewer who wrote it: a blocked viewer can no longer post, and their messages drop from the page.',
  keywords: ['hide message', 'block viewer', 'remove comment', 'moderate chat', 'spam', 'troll'],
  examples: ['hide that message', 'block the viewer posting spam', 'remove the rude comment from the chat', 'unblock that viewer', 'someone\'s posting adverts in the chat, block them', 'hide that comment with the phone number in it', 'put the hidden chat message back', 'stop that person posting in the stream chat', 'hide that comment', 'someone keeps posting links in the chat, block them from the stream', 'can you unhide the message we removed by mistake'],
  input: z.object({
    streamId, messageId: z.uuid().describe('A message (live_list_chat)'), action: z.enum(['hide', 'unhide', 'block_viewer', 'unblock_viewer']),
    reason: z.string().trim().max(500).optional(),
  }),
  output: z.object({ message: chatSchema }).strict(),
  run: async (ctx, input) => moderateChat(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

const listPrayerTool = tools.read('list_prayer_requests', {
  title: 'Live prayer requests',
  description: 'The hosts\' queue of private prayer requests viewers sent from the watch page, newest first: name and contact detail if given, the request, status (new, prayed, followed_up). Pastoral data: needs community:read besides live:read (the broadcast intent cannot read them), and a request marked private is listed only with people:safeguarding (withheld counts the rest).',
  keywords: ['prayer requests', 'prayer queue', 'viewers asking for prayer', 'online prayer'],
  examples: ['who asked for prayer during the stream', 'show the prayer requests from online viewers', 'any prayer requests from the livestream', 'any new prayer requests from people watching online', 'list online prayer requests we haven\'t prayed for yet', 'which stream prayer requests need following up', 'show the prayer requests sent during the carol service stream', 'online prayer requests', 'the prayer team meets after the service, what did viewers ask us to pray for?', 'which prayer requests from the stream still need a follow-up'],
  input: z.object({ streamId: streamId.optional(), status: z.enum(['new', 'prayed', 'followed_up']).optional(), limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({
    requests: z.array(z.object({
      id: z.uuid(), streamId: z.uuid(), name: z.string().nullable(), contact: z.string().nullable(), body: z.string(), privacy: z.string(), confidentialityLevel: z.string(),
      status: z.string(), createdAt: z.string(),
    }).strict()),
    withheld: z.number().int(),
  }).strict(),
  run: async (ctx, input) => {
    requirePastoralScope(ctx.principal, 'community:read', 'live_list_prayer_requests');
    return listPrayerRequests(ctx.db, ctx.org.id, ctx.principal, input);
  },
});

const viewerStatsTool = tools.read('get_viewer_stats', {
  title: 'Live viewer statistics',
  description: 'A stream\'s viewer figures as raw counts, each with how it was counted: sessions, unique viewers (logged-in once a day; anonymous by a daily salted hash, no IP stored), peak concurrent, average watch time, viewers past one minute, watching now. Nothing is blended or multiplied here.',
  keywords: ['viewers', 'how many watched', 'online attendance', 'viewer count', 'peak viewers', 'watch time', 'stream analytics'],
  examples: ['how many people watched online', 'what was the peak number of viewers', 'how long did people watch the stream', 'how many watched for more than a minute', 'how many devices watched Sunday\'s stream', 'how many were watching at the busiest point', 'average watch time for the carol service stream', 'how many unique viewers for the Easter livestream', 'viewer numbers', 'the PCC asked how many people watch online, what were the figures for the confirmation?', 'how long did viewers stay on average'],
  input: z.object({ streamId }),
  output: z.object({
    raw: z.object({
      sessions: z.number().int(), uniqueViewers: z.number().int(), loggedInViewers: z.number().int(), anonymousViewers: z.number().int(), peakConcurrent: z.number().int(),
      averageWatchSeconds: z.number().int(), viewersPastOneMinute: z.number().int(), watchingNow: z.number().int(),
    }).strict(),
    method: z.record(z.string(), z.string()),
  }).strict(),
  run: async (ctx, input) => viewerStats(ctx.db, ctx.org.id, input.streamId),
});

const recordAttendanceTool = tools.write('record_online_attendance', {
  title: 'Record online attendance',
  description: 'Writes a stream\'s online attendance to the attendance module as the service\'s "Online" head count: the figure counted by the method chosen (unique_viewers, sessions, viewers_past_one_minute, peak_concurrent) times an optional household multiplier (1 to 5), with a note saying exactly that. Recording again replaces it.',
  keywords: ['online attendance', 'count online', 'record viewers', 'household multiplier', 'attendance from stream'],
  examples: ['record online attendance for Sunday', 'count the livestream viewers in attendance', 'add online viewers to the attendance with a 1.5 household multiplier', 'put the stream\'s unique viewers into Sunday\'s attendance', 'log online numbers for the carol service as 2 per household', 'use peak viewers as the online head count for the 10:30', 'add the livestream to the service attendance figures', 'add online to attendance', 'for the confirmation count the unique viewers times two as our online attendance', "can the stream viewers go into Sunday's head count"],
  input: z.object({
    streamId, method: z.enum(['unique_viewers', 'sessions', 'viewers_past_one_minute', 'peak_concurrent']).default('unique_viewers'),
    householdMultiplier: z.number().min(1).max(5).optional().describe('People per screen (e.g. 1.5); default 1'),
    instanceId: z.uuid().optional().describe('The service to count against, when the stream is not linked to one'),
  }),
  output: z.object({
    attendance: z.object({
      id: z.uuid(), streamId: z.uuid(), instanceId: z.string(), method: z.string(), baseCount: z.number().int(), householdMultiplier: z.number(), count: z.number().int(),
      headcountId: z.uuid().nullable(), area: z.string(), note: z.string(), recordedAt: z.string(),
    }).strict(),
  }).strict(),
  run: async (ctx, input) => ({ attendance: await recordOnlineAttendance(ctx.db, ctx.org.id, ctx.principal.userId, input) }),
});

const settingsSchema = z.object({
  autoCreateStreams: z.boolean().describe('Whether each service in the schedule gets its stream ahead of time'),
  createAheadDays: z.number().int().describe('How many days ahead streams are made'),
  updatedAt: z.string().nullable().describe('null while the defaults apply'),
}).strict();

const getSettingsTool = tools.read('get_settings', {
  title: 'Live stream settings',
  description: 'Whether streams are made automatically for the services in the schedule, and how many days ahead (off and 7 by default). The job runs hourly; each made stream counts against the stream hours allowance before it is made.',
  keywords: ['live settings', 'automatic streams', 'auto create streams', 'stream every service'],
  examples: ['are our services set to stream automatically', 'how far ahead are livestreams set up', 'does each service get its livestream created on its own', 'is automatic stream setup switched on', 'auto stream settings', 'Josh keeps making streams by hand, are we set up to create them automatically?', 'how many days ahead do streams get made'],
  input: z.object({}),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx) => ({ settings: await getLiveSettings(ctx.db, ctx.org.id) }),
});

const updateSettingsTool = tools.write('update_settings', {
  title: 'Change live stream settings',
  description: 'Turns on or off making a stream ahead of time for every scheduled service (its title and times), and sets how many days ahead (1 to 28). Made streams are like ones from live_schedule_stream: one per service, never made again once cancelled, each only while the stream hours allowance has room for it and for the streams already waiting.',
  keywords: ['auto create streams', 'automatic livestream', 'stream every service', 'live settings'],
  examples: ['stream every Sunday service automatically', 'stop setting up livestreams on their own', 'switch off automatic broadcast setup for services', 'create streams for services three days ahead', 'auto-create streams', 'Josh is leaving, so have every scheduled service get its own livestream a week ahead', 'can automatic stream setup be turned off'],
  idempotent: true,
  input: z.object({
    autoCreateStreams: z.boolean().optional(),
    createAheadDays: z.number().int().min(1).max(28).optional(),
  }),
  output: z.object({ settings: settingsSchema }).strict(),
  run: async (ctx, input) => ({ settings: await updateLiveSettings(ctx.db, ctx.org.id, input) }),
});

export const liveTools = [
  listStreamsTool, scheduleStreamTool, updateStreamTool, getStatusTool, startStreamTool, endStreamTool,
  createPollTool, closePollTool, pollResultsTool, listChatTool, moderateChatTool, listPrayerTool, viewerStatsTool, recordAttendanceTool,
  getSettingsTool, updateSettingsTool,
];
