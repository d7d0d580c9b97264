import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { calendarDate, toolsFor } from '../kit';
import { addDays } from '../metrics';
import { localTimeSchema } from '../schedule/api';
import type { ToolContext } from '../tool';
import { canSeeRoster, viewerOf, type Viewer } from './access';
import { addMember, decideJoinRequest, listJoinRequests, removeMember, requestToJoin, setLeader, updateEnrolment } from './enrolment';
import {
  createGroup, ENROLMENT_STRATEGIES, groupView, LOCATION_KINDS, listGroups, orgToday, requireGroup, rosterOf, updateGroup, WEEKDAYS, type GroupFields,
} from './groups';
import { groupsHealth } from './health';
import { listMeetings, recordAttendance, scheduleMeeting } from './meetings';
import { APPROVAL_RECIPIENTS, MAX_GROUP_MESSAGE_RECIPIENTS, MESSAGE_CHANNELS, MESSAGE_PURPOSES, messageMembers, recipientsOf } from './messaging';
import { attendanceRecordSchema, groupSchema, joinRequestSchema, meetingSchema, NOT_CRM_GROUPS, rosterEntrySchema } from './schemas';

const tools = toolsFor('groups', { read: 'groups:read', write: 'groups:write' });
const viewer = (ctx: ToolContext): Promise<Viewer> => viewerOf(ctx.db, ctx.org.id, ctx.principal);
const groupId = z.uuid().describe('A small group (groups_list, groups_search)');

async function viewOf(ctx: ToolContext, who: Viewer, id: string) {
  return groupView(await requireGroup(ctx.db, ctx.org.id, who, id), who, await orgToday(ctx.db, ctx.org.id));
}

function staffOnly(who: Viewer, what: string): void {
  if (!who.staff) throw new StewardError('forbidden', `Only staff ${what}`, { hint: 'A leader\'s credential manages the groups it leads: members, meetings, attendance and join requests.' });
}

const text = (max: number) => z.string().trim().min(1).max(max);
const editable = {
  type: text(100).nullable().optional().describe('Group type such as "Home group", "Cell", "Class" (created when new); null clears it'),
  description: z.string().trim().max(4000).nullable().optional(),
  scheduleText: text(200).nullable().optional().describe('When it meets, in words ("Tuesdays 7:30pm, fortnightly")'),
  meetingDay: z.enum(WEEKDAYS).nullable().optional().describe('Usual day, for the finder'),
  meetingTime: localTimeSchema().nullable().optional().describe('Usual start, HH:MM'),
  locationKind: z.enum(LOCATION_KINDS).optional(),
  address: text(500).nullable().optional().describe('Where it meets'),
  area: text(100).nullable().optional().describe('Neighbourhood or town, for the finder'),
  onlineUrl: z.url({ protocol: /^https$/ }).max(2000).nullable().optional().describe('Meeting link for an online or hybrid group (https)'),
  listed: z.boolean().optional().describe('Shown in the group finder (a confidential group never is)'),
  confidential: z.boolean().optional().describe('Roster shown only to its leaders and staff holding people:safeguarding (recovery, care groups)'),
  capacity: z.number().int().min(1).max(10_000).nullable().optional().describe('How many the meeting place holds'),
  minAge: z.number().int().min(0).max(120).nullable().optional(),
  maxAge: z.number().int().min(0).max(120).nullable().optional(),
  tags: z.array(text(50)).max(20).optional(),
};

const stripNulls = <T extends Record<string, unknown>>(input: T): GroupFields => input as GroupFields;

export const listGroupsTool = tools.read('list', {
  title: 'List small groups',
  description: `Small groups you can see, by name: type, schedule, place, enrolment (open, full, closed) and members. Staff see every group (hidden ones too); a leader's credential sees only the groups it leads. ${NOT_CRM_GROUPS} To find a group for someone by day, area, age or openness, use groups_search.`,
  keywords: ['small groups', 'home groups', 'cell groups', 'house groups', 'life groups', 'bible study groups', 'connect groups', 'fellowship groups', 'groups running'],
  examples: ['list our small groups', 'which home groups do we run', 'show all the cell groups', 'what house groups are there', 'list the groups I lead', 'show archived home groups too', 'how many life groups have we got and how full are they', 'all the bible study groups', 'what house groups are running at the moment', 'which fellowship groups meet during the week', 'show every home group including hidden ones', 'how many groups do we actually have going'],
  input: z.object({
    type: text(100).optional().describe('Only groups of this type'),
    ledByMe: z.boolean().default(false).describe('Only groups your credential leads'),
    includeArchived: z.boolean().default(false),
    limit: z.number().int().min(1).max(100).default(50),
    offset: z.number().int().min(0).max(10_000).default(0),
  }),
  output: z.object({ groups: z.array(groupSchema), total: z.number().int() }).strict(),
  run: async (ctx, input) => listGroups(ctx.db, ctx.org.id, await viewer(ctx), { type: input.type, includeArchived: input.includeArchived, ledByMe: input.ledByMe }, input),
});

export const searchGroupsTool = tools.read('search', {
  title: 'Find a small group',
  description: `The group finder: listed small groups matching a type, meeting day, area, age, tag or words, optionally only those taking members now (openOnly). Hidden and confidential groups are never found here. ${NOT_CRM_GROUPS}`,
  keywords: ['group finder', 'find a group', 'join a group', 'groups near', 'groups for', 'room in a group', 'space for one more', 'evening group'],
  examples: ['find a home group that meets on Tuesdays', 'is there a small group in Kingsbury with space', 'groups for someone aged 19', 'which groups are open to new people', 'a midweek bible study near the town centre', 'any online groups taking members', "find a women's group on a Thursday morning", 'which groups have room for a new couple', 'any house group on a Wednesday evening with space for one more', 'group near Harlow for a newcomer', "Kemi works shifts and wants a daytime group with space, what's there?", 'is there anything for students on a Monday'],
  input: z.object({
    query: text(100).optional().describe('Words in the name, description or tags'),
    type: text(100).optional(),
    day: z.enum(WEEKDAYS).optional(),
    area: text(100).optional().describe('Neighbourhood or town (or part of the address)'),
    age: z.number().int().min(0).max(120).optional().describe('Only groups whose age range includes this age'),
    tag: text(50).optional(),
    openOnly: z.boolean().default(false).describe('Only groups taking members or requests now'),
    limit: z.number().int().min(1).max(50).default(20),
  }),
  output: z.object({ groups: z.array(groupSchema), total: z.number().int() }).strict(),
  run: async (ctx, input) => listGroups(ctx.db, ctx.org.id, await viewer(ctx), { ...input, includeHidden: false }, { limit: input.limit, offset: 0 }),
});

export const createGroupTool = tools.write('create', {
  title: 'Create a small group',
  description: `Starts a small group (home group, cell, class): schedule, place or online link, listed or hidden, confidential roster, capacity, age range, tags and enrolment (default request_to_join), optionally with its first leader. Staff only. ${NOT_CRM_GROUPS}`,
  keywords: ['new small group', 'start a home group', 'new cell group', 'set up a group'],
  examples: ['start a new home group on Wednesdays at the Smiths', 'create a cell group for young adults', "set up an Alpha small group, Thursdays 7pm online", 'new house group in Kingsbury led by Anna', 'create a confidential recovery group', 'start a parents and toddlers group capped at 12', 'open a new life group for over-60s', 'set up a midweek bible study group', 'new home group', 'Pete and Sal are opening their house on Fridays, so start a group there for 10 people', "I need a hidden men's accountability group set up"],
  input: z.object({
    name: text(200),
    ...editable,
    enrolment: z.enum(ENROLMENT_STRATEGIES).default('request_to_join').describe('open: people join at once; request_to_join: a leader decides; closed'),
    memberLimit: z.number().int().min(1).max(10_000).optional().describe('Enrolment closes itself when this many members have joined'),
    closesOn: calendarDate().optional().describe('Last day to join or ask to'),
    leaderContactId: z.uuid().optional().describe('Its first leader (a contact)'),
    leaderUserId: z.uuid().optional().describe('The team login acting as that leader (default: the team member with the leader\'s email)'),
  }),
  output: z.object({ group: groupSchema, leader: z.object({ contactId: z.uuid(), leaderUserId: z.uuid().nullable() }).strict().nullable() }).strict(),
  run: async (ctx, input) => {
    const who = await viewer(ctx);
    staffOnly(who, 'create groups');
    if (input.leaderUserId && !input.leaderContactId) throw new StewardError('validation_failed', 'leaderUserId needs leaderContactId', { issues: [{ path: 'leaderUserId', message: 'name the leader with leaderContactId' }] });
    const { leaderContactId, leaderUserId, ...fields } = input;
    const id = await createGroup(ctx.db, ctx.org.id, ctx.principal.userId, { ...stripNulls(fields), name: input.name, type: input.type ?? undefined });
    const leader = leaderContactId ? await setLeader(ctx.db, ctx.org.id, who, { groupId: id, contactId: leaderContactId, leader: true, userId: leaderUserId }) : null;
    const after = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
    return { group: await viewOf(ctx, after, id), leader: leader && leaderContactId ? { contactId: leaderContactId, leaderUserId: leader.leaderUserId } : null };
  },
});

/** One group as groups_get answers it (the dashboard's group page reads the same). */
export async function groupDetail(ctx: ToolContext, id: string, includeFormerMembers: boolean) {
  const who = await viewer(ctx);
  const row = await requireGroup(ctx.db, ctx.org.id, who, id);
  const visible = canSeeRoster(who, row);
  const today = await orgToday(ctx.db, ctx.org.id);
  const past = await listMeetings(ctx.db, ctx.org.id, row.id, { to: today, limit: 1000 });
  const upcoming = await listMeetings(ctx.db, ctx.org.id, row.id, { from: today, limit: 20 });
  const now = Date.now();
  return {
    group: groupView(row, who, today), rosterHidden: !visible,
    roster: visible ? await rosterOf(ctx.db, ctx.org.id, row.id, { includeFormer: includeFormerMembers }) : [],
    pendingJoinRequests: visible ? await listJoinRequests(ctx.db, ctx.org.id, row.id, 'pending') : [],
    recentMeetings: past.filter((m) => Date.parse(m.startsAt) <= now).slice(-5).reverse(),
    upcomingMeetings: upcoming.filter((m) => Date.parse(m.startsAt) > now).slice(0, 5),
  };
}

export const getGroupTool = tools.read('get', {
  title: 'A small group',
  description: 'One small group: details, enrolment, roster (leaders first; former members with includeFormerMembers), pending join requests, and recent and coming meetings. A confidential group\'s roster and requests are shown only to its leaders and staff holding people:safeguarding (rosterHidden says so).',
  keywords: ['group details', 'who is in the group', 'group roster', 'group members', 'who belongs to the group', 'group register of members'],
  examples: ["who is in Anna's home group", 'show the Tuesday cell group', 'members of the young adults group', 'when does the Kingsbury group next meet', 'who leads the Alpha group', 'any join requests waiting for the Wednesday group', 'who has left the parents group', 'details of the recovery group', 'who belongs to the Monday house group', "roster of Pete's group", 'Kemi is visiting the Friday group, so when and where does it next meet?', 'which leaders and members are in the students group'],
  input: z.object({ groupId, includeFormerMembers: z.boolean().default(false) }),
  output: z.object({
    group: groupSchema,
    rosterHidden: z.boolean(),
    roster: z.array(rosterEntrySchema),
    pendingJoinRequests: z.array(joinRequestSchema),
    recentMeetings: z.array(meetingSchema).describe('The last 5 that have started'),
    upcomingMeetings: z.array(meetingSchema).describe('The next 5'),
  }).strict(),
  run: async (ctx, input) => groupDetail(ctx, input.groupId, input.includeFormerMembers),
});

export const updateGroupTool = tools.write('update', {
  title: 'Update a small group',
  description: 'Changes a small group\'s details: name, type, schedule, place or online link, listed or hidden, confidential, capacity, age range, tags. Only the fields given change (null clears). Staff, or a leader of the group. Enrolment has groups_update_enrolment; archiving groups_archive.',
  keywords: ['edit group', 'change group details', 'move group', 'group moving venue', 'private group', 'confidential roster', 'members private', 'support group', 'group meets somewhere new', 'fellowship is moving', 'moving to the hall', 'new meeting place'],
  examples: ['the Tuesday group now meets at the Patels', 'move the young adults group online', 'hide the recovery group from the finder', 'rename the Kingsbury group to Kingsbury Life Group', 'the parents group is for ages 25 to 45', 'tag the Alpha group as newcomers', 'change the Wednesday group to 8pm', 'make the care group confidential', 'the Monday fellowship is moving to the vicarage', "keep the recovery group's member list private", 'hide who is in the care group from everyone but its leaders', 'the cell group meets somewhere new from next week'],
  idempotent: true,
  input: z.object({ groupId, name: text(200).optional(), ...editable }),
  output: z.object({ group: groupSchema, changed: z.array(z.string()) }).strict(),
  run: async (ctx, input) => {
    const who = await viewer(ctx);
    const { groupId: id, ...fields } = input;
    const { changed } = await updateGroup(ctx.db, ctx.org.id, who, id, stripNulls(fields));
    return { group: await viewOf(ctx, who, id), changed };
  },
});

export const archiveGroupTool = tools.write('archive', {
  title: 'Archive a small group',
  description: 'Archives a small group that has stopped (or restores it with archived false): its members, meetings and attendance stay as history; it takes no new members, meetings or attendance and leaves the finder. Staff only.',
  keywords: ['close group', 'end group', 'archive group', 'restore group'],
  examples: ['the Thursday group has finished, archive it', 'close down the summer book group', 'archive the Alpha group now the course is over', 'bring back the Kingsbury group', 'end the parents group, keep its history', 'the old cell group stopped meeting', 'the Lent study group has run its course, close it but keep the register', 'restore the archived Friday lunchtime group, it is starting again', 'archive the Friday group', 'Pete and Sal are moving away so their group is ending, keep its records', 'could you close the students group for good'],
  idempotent: true,
  input: z.object({ groupId, archived: z.boolean().default(true) }),
  output: z.object({ group: groupSchema, changed: z.boolean() }).strict(),
  run: async (ctx, input) => {
    const who = await viewer(ctx);
    staffOnly(who, 'archive or restore groups');
    const { changed } = await updateGroup(ctx.db, ctx.org.id, who, input.groupId, { archived: input.archived });
    return { group: await viewOf(ctx, who, input.groupId), changed: changed.length > 0 };
  },
});

export const updateEnrolmentTool = tools.write('update_enrolment', {
  title: 'Small group enrolment',
  description: 'Sets how people join a small group: open (join at once), request_to_join (a leader approves) or closed; a member limit and a closing date, after which enrolment closes itself. Raising the limit or moving the date reopens a group they had closed. Staff, or a leader of the group.',
  keywords: ['enrolment', 'enrollment', 'group full', 'member limit', 'open the group', 'close the group'],
  examples: ['close the Tuesday group to new members', 'open the Alpha group for anyone to join', 'cap the parents group at 12', 'new people must ask to join the young adults group', 'stop sign-ups for the Lent group after 1 March', 'the Kingsbury group can take 4 more', 'remove the limit on the Wednesday group', 'reopen enrolment for the book group', 'Friday group is full', 'Pete says they have room for two more until Easter, then close it', 'make the students group open so anyone can join straight away'],
  idempotent: true,
  input: z.object({
    groupId,
    strategy: z.enum(ENROLMENT_STRATEGIES).optional(),
    memberLimit: z.number().int().min(1).max(10_000).nullable().optional().describe('null removes the limit'),
    closesOn: calendarDate().nullable().optional().describe('Last day to join; null removes it'),
  }),
  output: z.object({ group: groupSchema, changed: z.array(z.string()) }).strict(),
  run: async (ctx, input) => {
    const who = await viewer(ctx);
    const { changed } = await updateEnrolment(ctx.db, ctx.org.id, who, input);
    return { group: await viewOf(ctx, who, input.groupId), changed };
  },
});

const joinOutput = z.object({
  outcome: z.enum(['joined', 'pending', 'already_member', 'already_pending']),
  request: joinRequestSchema.nullable(),
  membershipId: z.uuid().nullable(),
  enrolmentClosedNow: z.boolean().describe('This join filled the group, so its enrolment closed itself'),
}).strict();

export const requestToJoinTool = tools.write('request_to_join', {
  title: 'Ask to join a small group',
  description: 'Someone asks to join a small group: an open group takes them at once while places last; a request-to-join group records a pending request for its leaders (groups_decide_join_request); a closed, full, archived or past-closing-date group refuses (details.reason group_full or enrolment_closed). Asking again answers the pending request or the membership.',
  keywords: ['join a group', 'sign up for a group', 'join request', 'wants to join', 'be part of a group', 'wants a home group'],
  examples: ['Sam would like to join the Tuesday home group', 'sign Priya up for the Alpha group', 'the Okafors want to join a group near them', 'put in a request for Ben to join the young adults cell', 'can Jo join the parents group', 'Margaret asked to come to the Wednesday bible study', 'Grace would like to be part of a weekday house group', 'Kemi wants the Friday group', 'Luke is new and keen on the students group, so send them his request', "could Beth ask to join Pete and Sal's group"],
  input: z.object({ groupId, contactId: z.uuid().describe('The person asking'), message: z.string().trim().min(1).max(1000).optional() }),
  output: joinOutput,
  run: async (ctx, input) => requestToJoin(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const decideJoinRequestTool = tools.write('decide_join_request', {
  title: 'Approve or decline a join request',
  description: 'A leader of the group approves (adding them as a member, while the member limit allows) or declines (with a reason) a pending join request. Only that group\'s own leaders decide: other credentials are refused.',
  keywords: ['approve join request', 'decline join request', 'accept into group'],
  examples: ['approve Sam joining my group', "yes, let Priya into the Tuesday group", 'decline the request from Ben, the group is for women', 'accept the Okafors into our home group', "turn down Jo's request, we're full at Christmas", 'say yes to the new request for my cell group', 'as leader, approve the pending request to join my Thursday group', "say no to the join request, the men's group is full", 'approve Kemi', "Luke asked to join my group but it's for over-60s, so decline him kindly", "I lead the Friday group, can I accept Beth's request"],
  input: z.object({ requestId: z.uuid(), decision: z.enum(['approve', 'decline']), reason: z.string().trim().min(1).max(500).optional().describe('Why it was declined') }),
  output: z.object({ request: joinRequestSchema, membershipId: z.uuid().nullable(), enrolmentClosedNow: z.boolean() }).strict(),
  run: async (ctx, input) => decideJoinRequest(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const addMemberTool = tools.write('add_member', {
  title: 'Add a small group member',
  description: 'Adds someone to a small group directly (whatever its enrolment), answering any pending request of theirs; the member limit still holds, and so does the age range for someone whose date of birth is recorded unless allowOutsideAgeRange. Staff, or a leader of the group. Repeating it answers the membership.',
  keywords: ['add to group', 'put in group', 'new group member'],
  examples: ['add Ruth to the Wednesday home group', 'put the Khans in the Kingsbury group', 'Tom has joined my cell group', 'add Jean to the parents group', 'enrol Ben in the Alpha group', 'enrol Mrs Ahmed in the Monday bible study even though it is closed', 'put the new curate straight into the young adults cell', 'add Grace to the youth home group though she is a year under the age range', 'put Kemi in the Friday group', 'Luke already comes to the students group so add him directly, no request', "can you sign Beth straight into Pete's group"],
  idempotent: true,
  input: z.object({
    groupId, contactId: z.uuid(),
    allowOutsideAgeRange: z.boolean().optional().describe("Add them although their age is outside the group's range (a parent helper, a young leader)"),
  }),
  output: z.object({ membershipId: z.uuid(), created: z.boolean(), enrolmentClosedNow: z.boolean() }).strict(),
  run: async (ctx, input) => addMember(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const removeMemberTool = tools.write('remove_member', {
  title: 'Remove a small group member',
  description: 'Someone leaves a small group: the membership is closed with when and why, and kept as history (groups_get with includeFormerMembers). A group its member limit had closed reopens. Staff, or a leader of the group; the last leader cannot leave a group that has members.',
  keywords: ['leave group', 'remove from group', 'left the group', 'no longer comes', 'take off the group list'],
  examples: ['Ruth has left the Wednesday group', 'take Tom out of my cell group', 'the Khans moved away, remove them from the Kingsbury group', 'Jean is stepping back from the parents group', 'Ben dropped out of Alpha', 'Jim no longer comes to the house group, take him off the list', 'Priya has switched groups, end her place in the Tuesday group', 'remove Sam from the Alpha group, reason: moved to Leeds', 'Kemi left the Friday group', "Luke's gone to university in Durham, take him out of the students group", "Beth doesn't come to Pete's group any more, can you remove her"],
  input: z.object({ groupId, contactId: z.uuid(), reason: z.string().trim().min(1).max(500).optional() }),
  output: z.object({ membershipId: z.uuid(), leftAt: z.string(), enrolmentReopened: z.boolean() }).strict(),
  run: async (ctx, input) => removeMember(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const setLeaderTool = tools.write('set_leader', {
  title: 'Set a small group leader',
  description: 'Makes someone a leader of a small group (adding them if needed; leaders do not count towards the member limit), or a member again (leader false). userId links the team login that acts as this leader: that credential then sees and manages this group (and only the groups it leads, if it is not staff). Without userId, the one team member whose sign-in email is the contact\'s email is linked. Staff only.',
  keywords: ['group leader', 'co-leader', 'lead the group', 'step down as leader', 'run the group', 'take over the group'],
  examples: ['make Anna the leader of the Kingsbury group', 'Tom will co-lead the young adults cell', 'Ruth is stepping down as leader of the Wednesday group', 'Priya leads the new Alpha group; her login is priya@church.org', 'give the parents group a second leader', 'Grace is going to run the house group from now on', 'who will take over leading the cell group: make it Paul', 'Kemi leads now', 'Pete is stepping back, so make Sal the leader of their group', 'could Luke co-lead the students group with Beth'],
  idempotent: true,
  input: z.object({ groupId, contactId: z.uuid(), leader: z.boolean().default(true), userId: z.uuid().optional().describe('The team member (platform_list_team_members) acting as this leader') }),
  output: z.object({ membershipId: z.uuid(), role: z.enum(['leader', 'member']), leaderUserId: z.uuid().nullable(), linkedBy: z.enum(['given', 'email']).nullable() }).strict(),
  run: async (ctx, input) => setLeader(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const scheduleMeetingTool = tools.write('schedule_meeting', {
  title: 'Schedule small group meetings',
  description: `Puts a small group's meetings in the diary: one meeting, or a recurring pattern (RRULE such as FREQ=WEEKLY;BYDAY=TU or FREQ=WEEKLY;INTERVAL=2;COUNT=10) made into one meeting per date, at most 60 within about a year, at a local time in the organisation's zone (or timeZone). A meeting already at that time is kept, not doubled. A past date records a meeting that already took place. Staff, or a leader of the group.`,
  keywords: ['group meeting', 'schedule meeting', 'recurring meeting', 'next meeting', 'gets together', 'meets every other week'],
  examples: ['the Tuesday group meets every week at 7:30pm from 6 January', 'schedule the Alpha group for ten Thursdays from next week', 'add a one-off social for the Kingsbury group on 14 February', 'my cell group meets fortnightly on Sundays at 6', 'book the parents group every Wednesday at 10am this term', 'we met last Tuesday, put that meeting in', 'the cell group gets together every other Monday at 8', 'Friday group weekly at 8', 'the students group meets every Monday at 7 in term, from 22 September for 10 weeks', "can you add a Christmas party date for Pete's group on the 19th"],
  input: z.object({
    groupId,
    startDate: calendarDate().describe('The first (or only) meeting\'s local date'),
    startTime: localTimeSchema().describe('Local start, HH:MM'),
    timeZone: text(60).optional().describe('IANA zone (default the organisation\'s)'),
    durationMinutes: z.number().int().min(5).max(1440).default(90),
    rrule: text(500).optional().describe('Repeat rule (RFC 5545, without DTSTART)'),
    title: text(200).optional(),
    location: text(500).optional().describe('Where, if not the group\'s usual place'),
    notes: z.string().trim().min(1).max(2000).optional(),
  }),
  output: z.object({ meetings: z.array(meetingSchema), skippedExisting: z.number().int(), seriesId: z.uuid().nullable() }).strict(),
  run: async (ctx, input) => scheduleMeeting(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const recordAttendanceTool = tools.write('record_attendance', {
  title: 'Record small group attendance',
  description: 'Takes a small group meeting\'s register: members present (and absent), every other member recorded absent unless markOthersAbsent is false, and visitors inline (a contact, or just a name). One record per person per meeting: recording again corrects it, never counts twice. Someone present who is not a member goes under visitors. Staff, or a leader of the group; only once the meeting has met.',
  keywords: ['group attendance', 'register', 'who came to group', 'take the register'],
  examples: ['at home group tonight: Ruth, Tom and Jean came, Ben was away', 'record who was at the Tuesday cell group', 'everyone came to Alpha except Priya', 'Sam brought a friend called Alex to the Kingsbury group', 'mark attendance for last week\'s parents group', 'only four came to bible study on Wednesday', 'take the register for the Kingsbury group meeting on Tuesday', "record Thursday's bible study: Ann and Bill there, don't mark the others", 'Friday group register', "only Kemi and Luke turned up to Pete's group on Friday, the others were absent", 'who came to students group on Monday: Beth, Ola and a visitor called Jess'],
  idempotent: true,
  input: z.object({
    meetingId: z.uuid().describe('A meeting (groups_get lists them; groups_schedule_meeting makes them)'),
    present: z.array(z.uuid()).max(500).default([]).describe('Members who came'),
    absent: z.array(z.uuid()).max(500).optional().describe('Members who did not'),
    markOthersAbsent: z.boolean().default(true).describe('Record every other current member absent'),
    visitors: z.array(z.object({ contactId: z.uuid().optional(), name: text(200).optional() })).max(100).default([]).describe('Visitors, by contact or by name'),
  }),
  output: z.object({ meeting: meetingSchema, records: z.array(attendanceRecordSchema).describe('The register (empty when the roster is confidential to you)') }).strict(),
  run: async (ctx, input) => recordAttendance(ctx.db, ctx.org.id, await viewer(ctx), input),
});

export const healthReportTool = tools.read('get_health_report', {
  title: 'Small groups health',
  description: 'How small groups are doing over the last weeks (default 12): attendance per meeting and its trend, meetings with no attendance logged, groups with no attendance logged at all, and members who missed 3 or more logged meetings in a row (they also appear on the community follow-up radar). One group, or every group you can see. A confidential group\'s absent members are counted, not named, unless you may see its roster.',
  keywords: ['group health', 'group attendance trend', 'missing members', 'drifting from group', 'register not taken', 'group registers'],
  examples: ['how are our small groups doing', 'who has stopped coming to their home group', 'which groups have not logged attendance', 'is the Tuesday group growing or shrinking', 'members who missed three weeks of cell group', 'small group attendance this term', 'which leaders are not taking a register', 'which groups have not been filling in registers', 'group attendance trends', "I'm worried people are drifting, who's missed their home group several weeks running?", 'are the Friday and students groups holding steady'],
  input: z.object({ groupId: groupId.optional(), weeks: z.number().int().min(1).max(52).default(12) }),
  output: z.object({
    from: z.string(), to: z.string(),
    groups: z.array(z.object({
      groupId: z.uuid(), name: z.string(), confidential: z.boolean(), currentMembers: z.number().int(), meetingsHeld: z.number().int(), meetingsLogged: z.number().int(),
      meetingsWithoutAttendance: z.array(z.string()).describe('Dates of meetings held with no register'),
      averagePresent: z.number().nullable(), trend: z.enum(['rising', 'falling', 'steady', 'not_enough_data']), trendReason: z.string(),
      meetings: z.array(z.object({ meetingId: z.uuid(), localDate: z.string(), recorded: z.boolean(), present: z.number().int(), visitors: z.number().int() }).strict()),
      missingMembers: z.array(z.object({ contactId: z.uuid(), name: z.string(), missedInARow: z.number().int(), lastPresent: z.string().nullable() }).strict()),
      missingMembersHidden: z.number().int().describe('Absent members of a confidential group, not named to you'),
    }).strict()),
    groupsWithNoAttendanceLogged: z.array(z.object({ groupId: z.uuid(), name: z.string(), meetingsHeld: z.number().int() }).strict()),
    missingMembersTotal: z.number().int(),
  }).strict(),
  run: async (ctx, input) => {
    const who = await viewer(ctx);
    const to = await orgToday(ctx.db, ctx.org.id);
    const from = addDays(to, -7 * input.weeks + 1);
    const rows = input.groupId
      ? [await requireGroup(ctx.db, ctx.org.id, who, input.groupId)]
      : (await listGroups(ctx.db, ctx.org.id, who, { includeArchived: false }, { limit: 1000, offset: 0 })).groups;
    const health = await groupsHealth(ctx.db, ctx.org.id, rows.map((g) => ({ id: g.id, name: g.name, confidential: g.confidential })), { from, to }, who);
    return {
      from, to, groups: health,
      groupsWithNoAttendanceLogged: health.filter((g) => g.meetingsLogged === 0).map((g) => ({ groupId: g.groupId, name: g.name, meetingsHeld: g.meetingsHeld })),
      missingMembersTotal: health.reduce((sum, g) => sum + g.missingMembers.length + g.missingMembersHidden, 0),
    };
  },
});

export const messageMembersTool = tools.send('message_members', {
  title: 'Message a small group',
  description: `Sends each current member of a small group (leaders too unless includeLeaders is false) the same email or text through channels, each as their own message: consent for the purpose (default charitable_purpose), unsubscribes, bounces and crisis holds are checked now and again when it goes, quiet hours respected, counted once; anyone it may not reach is listed under skipped with the reason. At most ${MAX_GROUP_MESSAGE_RECIPIENTS} members; more than ${APPROVAL_RECIPIENTS} waits for an owner or admin to approve it. Staff, or a leader of the group; a confidential group's only by those who may see its roster.`,
  keywords: ['message group', 'email the group', 'text the group', 'group announcement', 'text the group', 'tell the whole group'],
  examples: ['text the Tuesday group that tonight is cancelled', 'email my cell group the study notes for next week', 'let the Alpha group know we start at 7:15 this week', 'remind the parents group to bring snacks', 'email everyone in the Kingsbury group about the social', 'message the young adults group that we are meeting at the pub', 'text the whole cell group that the venue has changed', 'email the Friday group', "Pete's ill tonight so tell everyone in his group it's off", 'can you text the students group the new start time'],
  followUp: { kind: 'groups.message_members' },
  approval: {
    kind: 'gated',
    when: {
      reason: `the message would reach more than ${APPROVAL_RECIPIENTS} members`,
      applies: async (args, deps) => z.uuid().safeParse(args.groupId).success
        && (await recipientsOf(deps.db, deps.orgId, String(args.groupId), args.includeLeaders !== false)) > APPROVAL_RECIPIENTS,
    },
  },
  input: z.object({
    groupId,
    channel: z.enum(MESSAGE_CHANNELS).default('email'),
    purpose: z.enum(MESSAGE_PURPOSES).default('charitable_purpose').describe('Consent purpose: charitable_purpose (default) or service (about something they asked for)'),
    subject: text(200).optional().describe('Needed for email'),
    body: z.string().trim().min(1).max(5000),
    includeLeaders: z.boolean().default(true),
    idempotencyKey: text(100).optional().describe('Repeat-safe: the same key sends the same messages once'),
    actionSummary: z.string().trim().min(1).max(500).optional().describe('Plain-English summary shown to the approver of a large send'),
  }),
  output: z.object({
    sent: z.array(z.object({ contactId: z.uuid(), name: z.string(), messageId: z.uuid().describe('channels_get_message shows its delivery'), deferredUntil: z.string().nullable() }).strict()),
    skipped: z.array(z.object({ contactId: z.uuid(), name: z.string(), reason: z.string(), message: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => messageMembers(ctx.db, ctx.org.id, await viewer(ctx), input, ctx.workflowId),
});

export const groupsTools = [
  listGroupsTool, searchGroupsTool, createGroupTool, getGroupTool, updateGroupTool, archiveGroupTool, updateEnrolmentTool, requestToJoinTool, decideJoinRequestTool,
  addMemberTool, removeMemberTool, setLeaderTool, scheduleMeetingTool, recordAttendanceTool, healthReportTool, messageMembersTool,
];
