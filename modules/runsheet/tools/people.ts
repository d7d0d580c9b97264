import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { calendarDate } from '../../kit';
import { requireServiceType } from '../common';
import { LARGE_SEND, MESSAGE_CHANNELS, pendingRequests, sendRequests } from '../messages';
import { autofill, recordBlockout, removePerson, respond, schedulePerson, setPreferences, undoAutofill } from '../scheduling';
import { blockoutLink } from '../blockouts';
import { BLOCKOUT_LINK_DAYS } from '../links';
import { conflictSchema } from '../schemas';
import { addPosition, addTeamMember, createTeam, listTeams, setNeededPositions, updateTeam } from '../teams';
import { tools } from './plans';

const planId = z.uuid().describe('The plan (runsheet_list_plans)');

export const listTeamsTool = tools.read('list_teams', {
  title: 'List teams and positions',
  description: 'Teams (band, sound, welcome…) with their positions, who is on each, whether a position needs safeguarding clearance, and whether declines fix themselves for the team.',
  keywords: ['teams', 'positions', 'rota', 'volunteers', 'band members', 'serving teams', 'team positions'],
  examples: ['who is on the sound team', 'list our worship team positions', 'which positions need a DBS check', 'show the welcome team members', 'what teams do we have for Sunday services', 'who\'s on the band at the moment', 'which roles on the kids team need safeguarding clearance', 'show each team with its positions and people', 'what serving teams have we got', 'who plays in the band and on which instrument', 'list positions on the tech team', 'which teams find their own cover when someone declines'],
  input: z.object({ serviceTypeId: z.uuid().optional() }),
  output: z.object({
    teams: z.array(z.object({
      id: z.uuid(), name: z.string(), serviceTypeId: z.uuid().nullable(), autoReplace: z.boolean(), offerExpiresSeconds: z.number().int(),
      positions: z.array(z.object({
        id: z.uuid(), name: z.string(), requiresClearance: z.boolean(), clearanceCheckType: z.string().nullable(),
        members: z.array(z.object({ contactId: z.uuid(), name: z.string() }).strict()),
      }).strict()),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ teams: await listTeams(ctx.db, ctx.org.id, input) }),
});

const offerExpiresSeconds = z.number().int().min(5).max(604_800).describe('How long each substitute\'s offer stays open, in seconds (default a day)');

export const createTeamTool = tools.write('create_team', {
  title: 'Create a team',
  description: 'Adds a serving team (band, sound, welcome, kids). autoReplace switches on declines that fix themselves: a decline or blockout on this team is offered to substitutes one at a time.',
  keywords: ['new team', 'rota team', 'create team', 'serving team'],
  examples: ['create a worship band team', 'set up a sound team that finds its own replacements', 'add a kids team', 'we\'re starting a tech team for the livestream', 'set up a refreshments team for after the service', 'new team: prayer ministry', 'create a choir team with automatic cover', 'start a new team for stewards', 'create a communion assistants team', 'we want a projection team that arranges cover itself', 'make a new serving team called Flowers'],
  input: z.object({ name: z.string().trim().min(1).max(200), serviceTypeId: z.uuid().optional(), autoReplace: z.boolean().optional(), offerExpiresSeconds: offerExpiresSeconds.optional() }),
  output: z.object({ teamId: z.uuid() }).strict(),
  run: async (ctx, input) => ({ teamId: await createTeam(ctx.db, ctx.org.id, input) }),
});

export const updateTeamTool = tools.write('update_team', {
  title: 'Update a team',
  description: 'Renames a team, switches declines that fix themselves on or off for it (autoReplace), or sets how long substitute offers stay open.',
  keywords: ['auto replace', 'find substitutes automatically', 'find cover', 'drops out', 'offer expiry'],
  examples: ['let the sound team sort out their own cover', 'when a volunteer drops out, find a replacement automatically', 'turn on automatic replacements for the sound team', 'give substitutes 12 hours to answer', 'stop auto-replacing on the band', 'rename the music team to Worship Band', 'cover offers for the choir should expire after a day', 'switch off automatic cover for the kids team', 'rename the welcome team', 'Chris is tired of chasing cover, so have the tech team find replacements by themselves', 'I need cover offers to the band to close after six hours'],
  input: z.object({ teamId: z.uuid(), name: z.string().trim().min(1).max(200).optional(), autoReplace: z.boolean().optional(), offerExpiresSeconds: offerExpiresSeconds.optional() }),
  output: z.object({ teamId: z.uuid() }).strict(),
  run: async (ctx, input) => {
    await updateTeam(ctx.db, ctx.org.id, input.teamId, input);
    return { teamId: input.teamId };
  },
});

export const addPositionTool = tools.write('add_position', {
  title: 'Add a position to a team',
  description: 'Adds a position (drums, vocals, sound desk). requiresClearance: only people with a current safeguarding check (optionally of a named type) may be scheduled.',
  keywords: ['position', 'role on team', 'add role to team', 'new position'],
  examples: ['add a drums position to the band', 'add a kids leader position that needs a DBS', 'create a sound desk position', 'the band needs a bass guitar slot', 'add a camera operator role to the tech team', 'create a chalice assistant position on the communion team', 'add a kids helper role needing an enhanced DBS', 'the welcome team needs a door steward position', 'add lead vocals to the worship band', 'create a livestream operator position on tech', 'add a creche leader slot that needs a safeguarding check'],
  input: z.object({ teamId: z.uuid(), name: z.string().trim().min(1).max(200), requiresClearance: z.boolean().optional(), clearanceCheckType: z.string().trim().min(1).max(100).optional() }),
  output: z.object({ positionId: z.uuid() }).strict(),
  run: async (ctx, input) => ({ positionId: await addPosition(ctx.db, ctx.org.id, input) }),
});

export const addTeamMemberTool = tools.write('add_team_member', {
  title: 'Add someone to a team position',
  description: 'Puts a contact on a team for a position, so autofill and substitute searches consider them. Each person on any team holds one runsheet access seat: a person\'s first team takes one, refused with allowance_exceeded past the plan\'s seats (platform_usage).',
  keywords: ['join team', 'add volunteer', 'team member', 'add to team', 'serve on team'],
  examples: ['add Sam to the band on drums', 'put Priya on the sound desk team', 'Jo can play keys now', 'Hannah has joined the choir as an alto', 'add Tom to the welcome team as a steward', 'Grace can help on the projection desk now', 'sign Mike up for the tech team on camera', 'Lucy has joined the band on violin', 'add Ahmed to the tech team as livestream operator', 'put Rachel on the welcome team as door steward', 'Ed can lead vocals now, add him to the worship team'],
  input: z.object({ positionId: z.uuid(), contactId: z.uuid() }),
  output: z.object({ memberId: z.uuid(), added: z.boolean(), newSeat: z.boolean().describe('Whether this took a new runsheet access seat') }).strict(),
  run: async (ctx, input) => addTeamMember(ctx.db, ctx.org.id, input),
});

export const setNeededPositionsTool = tools.write('set_needed_positions', {
  title: 'Set a plan\'s needed positions',
  description: 'How many people each position needs on a plan (0 removes it), for the whole plan or per plan time (planTimeId: the 9:00 and the 11:00 may need different numbers). People already scheduled stay.',
  keywords: ['needed positions', 'how many volunteers', 'rota slots', 'slots needed', 'positions needed'],
  examples: ['Sunday needs 2 vocalists, a drummer and a sound desk', 'we need three on welcome this week', 'no keys needed this Sunday', 'Easter needs two extra on welcome and four on the choir', 'we only need one sound person on the 21st', 'set the band to need a bassist and two singers on Sunday', 'no drums needed at the carol service', 'we need two sound people on Easter Sunday', 'the 11:00 needs three stewards but the 9:00 only one', 'set Sunday to need one violinist and one camera operator', "we don't need a drummer on the 14th"],
  input: z.object({
    planId,
    positions: z.array(z.object({
      positionId: z.uuid(), planTimeId: z.uuid().optional().describe('One of the plan\'s times (runsheet_get_plan times[].id); without it, every time of the plan'),
      quantity: z.number().int().min(0).max(100),
    })).min(1).max(200),
  }),
  output: z.object({ planId: z.uuid() }).strict(),
  run: async (ctx, input) => {
    await setNeededPositions(ctx.db, ctx.org.id, input.planId, input.positions);
    return { planId: input.planId };
  },
});

export const schedulePersonTool = tools.write('schedule_person', {
  title: 'Schedule someone on a plan',
  description: 'Puts a person in a position on a plan, unconfirmed until they answer. Refused, with each conflict listed, when they are blocked out, already serving at that time, over their monthly maximum, against their household rule, or the position needs safeguarding clearance they lack; allowConflicts overrides all but clearance. Two schedulers filling the same places take turns: the needed count holds.',
  keywords: ['rota', 'schedule volunteer', 'put on rota', 'book musician'],
  examples: ['put Sam on drums this Sunday', 'schedule Priya for the sound desk on the 14th', 'add Jo to vocals for Christmas Eve', 'book Ben for kids church even though he is blocked out', 'can you put Hannah on welcome for the 21st', 'rota Tom on the projection desk for Easter', 'have Grace lead worship on Sunday', 'assign Mike to camera for the carol service', 'Leah on keys Sunday', "Omar's back from uni at Christmas, so put him on bass for the carol service", 'could you rota Freya onto the coffee team for the 28th'],
  input: z.object({
    planId, positionId: z.uuid(), contactId: z.uuid(),
    planTimeId: z.uuid().optional().describe('The plan time they serve at, for a position needed per time (runsheet_get_plan times[].id)'),
    allowConflicts: z.boolean().default(false),
  }),
  output: z.object({ planPersonId: z.uuid(), planTimeId: z.uuid().nullable(), status: z.literal('unconfirmed'), conflictsOverridden: z.array(conflictSchema) }).strict(),
  run: async (ctx, input) => schedulePerson(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

export const unschedulePersonTool = tools.write('unschedule_person', {
  title: 'Take someone off a plan',
  description: 'Removes a scheduled person from a plan (by the id runsheet_get_plan gives each one).',
  keywords: ['remove from rota', 'unschedule', 'take off plan', 'remove from plan'],
  examples: ['take Sam off Sunday\'s rota', 'remove the second vocalist from the plan', 'Hannah is no longer doing welcome on the 21st', 'remove Tom from the projection slot at Easter', 'take Grace off leading worship this Sunday', 'Mike isn\'t on camera for the carol service any more', 'clear Ben\'s place on Sunday\'s plan', "Lucy isn't playing violin on Sunday any more", 'take Ahmed off the livestream slot on the 14th', "remove Rachel from Easter Sunday's plan", "unschedule Ed from Sunday's worship leading"],
  input: z.object({ planPersonId: z.uuid() }),
  output: z.object({ planPersonId: z.uuid(), removed: z.literal(true) }).strict(),
  run: async (ctx, input) => {
    await removePerson(ctx.db, ctx.org.id, input.planPersonId);
    return { planPersonId: input.planPersonId, removed: true as const };
  },
});

export const respondToRequestTool = tools.write('respond_to_request', {
  title: 'Answer a rota request or substitute offer',
  description: 'Records a volunteer\'s answer (a staff member on their behalf): accept, or decline with a reason, to a place on a plan (planPersonId) or to a substitute offer (offerId). A decline on a team with autoReplace starts the substitute search; an answer to an offer settles it at once.',
  keywords: ['accept', 'decline', 'cannot make it', 'rota answer', 'swap'],
  examples: ['Sam can\'t make Sunday, he\'s away', 'Priya accepted the sound desk for the 14th', 'Jo declined because of work', 'Ben said yes to covering drums', 'mark the offer to Ana as declined', 'Hannah has confirmed she\'s doing welcome', 'Tom can\'t do Easter, mark him as declined', 'Grace said yes to the rota request', 'Mike turned down the drums cover offer', 'Leah said yes', "Omar rang the office: he can't do bass on the 28th because of a wedding", 'can you note that Freya accepted the coffee rota'],
  followUp: { kind: 'runsheet.respond' },
  input: z.object({
    planPersonId: z.uuid().optional(), offerId: z.uuid().optional(), response: z.enum(['accept', 'decline']), reason: z.string().trim().min(1).max(500).optional(),
  }).refine((value) => (value.planPersonId === undefined) !== (value.offerId === undefined), { message: 'give exactly one of planPersonId or offerId', path: ['planPersonId'] }),
  output: z.object({
    planPersonId: z.uuid().nullable(), status: z.enum(['accepted', 'declined']),
    substitutionId: z.uuid().nullable().describe('The substitute search this decline started'),
    offerAnswered: z.object({ offerId: z.uuid(), workflowId: z.string() }).strict().nullable(),
  }).strict(),
  run: async (ctx, input) => respond(ctx.db, ctx.org.id, input),
});

export const recordBlockoutTool = tools.write('record_blockout', {
  title: 'Record a blockout',
  description: 'Dates a person cannot serve. Places they hold on upcoming plans in those dates are given up (declined, "Blocked out"), and on teams with autoReplace a substitute search starts for each.',
  keywords: ['blockout', 'away', 'holiday', 'unavailable'],
  examples: ['Sam is away 10 to 24 August', 'Priya can\'t serve on the 14th', 'block out Jo for half term', 'Ben is on holiday next week', 'Hannah can\'t serve any Sundays in July', 'Tom is away for the whole of Easter week', 'Grace will be unavailable 3rd to 10th March', 'mark Mike as unavailable on the 21st', 'Leah off 1-15 May', "Omar is on a school trip the first week of June, so he can't be rota'd then", "Freya won't be around over the Whitsun bank holiday, note it"],
  followUp: { kind: 'runsheet.blockout' },
  input: z.object({ contactId: z.uuid(), startsOn: calendarDate(), endsOn: calendarDate().optional(), reason: z.string().trim().min(1).max(500).optional() }),
  output: z.object({
    blockoutId: z.uuid(), startsOn: z.string(), endsOn: z.string(),
    released: z.array(z.object({ planPersonId: z.uuid(), planId: z.uuid(), substitutionId: z.uuid().nullable() }).strict()),
  }).strict(),
  run: async (ctx, input) => recordBlockout(ctx.db, ctx.org.id, input),
});

export const getBlockoutLinkTool = tools.write('get_blockout_link', {
  title: 'A volunteer\'s own blockout link',
  description: `A signed link a volunteer opens, without an account, to add and remove the dates they cannot serve (good for ${BLOCKOUT_LINK_DAYS} days; rota requests carry one too), with their upcoming blockouts. Dates added there give up their places as runsheet_record_blockout does.`,
  keywords: ['blockout link', 'availability link', 'self-service blockouts', 'volunteer away dates'],
  examples: ['send Sam a link to put in their own away dates', 'how can volunteers mark when they are unavailable themselves', 'get Priya\'s blockout page link', "Leah's availability link", 'Omar keeps emailing his holiday dates, can he enter them himself somehow?', 'I need the page where Freya can add her own unavailable days'],
  input: z.object({ contactId: z.uuid() }),
  output: z.object({
    contactId: z.uuid(), name: z.string(), url: z.string(), expiresAt: z.string(),
    upcoming: z.array(z.object({ id: z.uuid(), startsOn: z.string(), endsOn: z.string(), reason: z.string().nullable() }).strict()),
  }).strict(),
  run: async (ctx, input) => blockoutLink(ctx.db, ctx.org.id, input.contactId),
});

export const setPreferencesTool = tools.write('set_preferences', {
  title: 'Set scheduling preferences',
  description: 'A volunteer\'s scheduling preferences: the most times a month they serve, and whether they serve together with their household or apart (null clears either).',
  keywords: ['max per month', 'serve with family', 'preferences', 'serving limit', 'household together'],
  examples: ['Sam only wants to serve twice a month', 'schedule the Lees together', 'keep Jo and her husband on different Sundays', 'Hannah can only do one Sunday a month', 'put the Smiths on the same Sundays', 'don\'t schedule Tom more than three times a month', 'the Okafors want to serve on separate weeks', 'clear Grace\'s monthly limit', 'Lucy can serve at most twice a month', 'Ahmed and his wife want to serve on the same Sunday', "keep Rachel and Ed apart on the rota, they're married", 'remove the limit on how often Ed serves'],
  input: z.object({ contactId: z.uuid(), maxPerMonth: z.number().int().min(0).max(31).nullable().optional(), householdRule: z.enum(['together', 'apart']).nullable().optional() }),
  output: z.object({ contactId: z.uuid(), maxPerMonth: z.number().int().nullable(), householdRule: z.enum(['together', 'apart']).nullable() }).strict(),
  run: async (ctx, input) => setPreferences(ctx.db, ctx.org.id, input),
});

export const autofillTool = tools.write('autofill_positions', {
  title: 'Autofill a plan\'s open positions',
  description: 'Fills the plan\'s open places, time by time, from each position\'s team members: only people who are cleared where needed, not blocked out, not serving at that time, under their monthly maximum (a plan counts once however many of its times they serve) and within their household rule; people with no place on the plan yet first, then least recently served. One person may take the 9:00 and the 11:00, never two places at once. Answers with a run id: runsheet_undo_autofill takes back what it added that is still unconfirmed.',
  keywords: ['auto schedule', 'fill rota', 'autofill', 'auto assign', 'fill empty slots', 'music team gaps'],
  examples: ['automatically fill the empty places on the worship team', 'auto-fill the music team for Sunday', 'fill the rota for Sunday', 'autofill the open band positions', 'schedule whoever is free for the 14th', 'fill the gaps on the welcome team', 'fill the kids church rota for the 21st automatically', 'let the system pick people for the empty places at Easter', "fill Sunday's gaps automatically", "we're short for Harvest and I've no time, so let Steward choose people for the empty spots", 'can you auto-assign volunteers to the vacant positions on the 4th'],
  input: z.object({ planId, positionIds: z.array(z.uuid()).min(1).max(200).optional().describe('Only these positions (default all needed)') }),
  output: z.object({
    runId: z.uuid(),
    filled: z.array(z.object({ planPersonId: z.uuid(), positionId: z.uuid(), planTimeId: z.uuid().nullable(), contactId: z.uuid() }).strict()),
    unfilled: z.array(z.object({ positionId: z.uuid(), planTimeId: z.uuid().nullable(), open: z.number().int(), reason: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => autofill(ctx.db, ctx.org.id, ctx.principal.userId, input.planId, input.positionIds),
});

export const undoAutofillTool = tools.write('undo_autofill', {
  title: 'Undo an autofill run',
  description: 'Removes the people an autofill run added who are still unconfirmed; anyone who has answered stays.',
  keywords: ['undo autofill', 'revert rota', 'reverse autofill', 'undo auto schedule'],
  examples: ['undo that autofill', 'take back the automatic rota', 'the auto rota made a mess, reverse it', 'remove the people autofill just added to Sunday', 'cancel the automatic scheduling we just ran', 'roll back the last autofill on the Easter plan', 'undo filling the welcome team automatically', 'undo the auto rota for the carol service', 'the autofill put the wrong people on Sunday, roll it back', "reverse the last automatic fill but keep anyone who's said yes", 'take off everyone the auto scheduler just added'],
  input: z.object({ runId: z.uuid() }),
  output: z.object({ runId: z.uuid(), planId: z.uuid(), removed: z.number().int(), kept: z.number().int(), undoneBefore: z.string().nullable() }).strict(),
  run: async (ctx, input) => undoAutofill(ctx.db, ctx.org.id, input.runId),
});

export const sendRequestsTool = tools.send('send_requests', {
  title: 'Send rota requests',
  description: `Asks everyone on the plan who has not been asked yet, one message each through channels' delivery checks (address, suppression, crisis hold, quiet hours; as a service message). Anyone who cannot be reached is reported and not asked. More than ${LARGE_SEND} requests at once wait for a person's approval.`,
  keywords: ['ask volunteers', 'send rota', 'notify team', 'scheduling emails', 'confirm serving', 'rota email'],
  examples: ['email the team so they can confirm they are on', 'ask everyone on the rota to confirm', 'send out the requests for Sunday', 'ask the band if they can do the 14th', 'email everyone on the rota', 'text the welcome team their requests', 'message Sunday\'s volunteers asking them to confirm', 'send the Easter rota out to everyone on it', 'send the rota out', 'the plan for the 28th is done, so ask the people on it whether they can serve', "I need to notify the tech team they're on for Palm Sunday"],
  followUp: { kind: 'runsheet.send_requests' },
  input: z.object({ planId, channel: z.enum(MESSAGE_CHANNELS).default('email'), note: z.string().trim().min(1).max(1000).optional().describe('A line added to each request') }),
  output: z.object({
    planId: z.uuid(),
    queued: z.array(z.object({ messageId: z.uuid(), contactId: z.uuid(), name: z.string() }).strict()),
    skipped: z.array(z.object({ contactId: z.uuid(), name: z.string(), reason: z.string(), message: z.string() }).strict()),
  }).strict(),
  approval: {
    kind: 'gated',
    when: {
      reason: `more than ${LARGE_SEND} rota requests at once`,
      applies: async (args, { db, orgId }) => (await pendingRequests(db, orgId, String(args.planId))).length > LARGE_SEND,
    },
  },
  run: async (ctx, input) => {
    if (input.channel !== 'email' && input.channel !== 'sms') throw new StewardError('validation_failed', 'Unknown channel');
    return sendRequests(ctx.db, ctx.org.id, input, async (plan) => (await requireServiceType(ctx.db, ctx.org.id, plan.service_type_id)).name);
  },
});

export const peopleTools = [
  listTeamsTool, createTeamTool, updateTeamTool, addPositionTool, addTeamMemberTool, setNeededPositionsTool, schedulePersonTool, unschedulePersonTool,
  respondToRequestTool, recordBlockoutTool, getBlockoutLinkTool, setPreferencesTool, autofillTool, undoAutofillTool, sendRequestsTool,
];
