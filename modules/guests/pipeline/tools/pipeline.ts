import { z } from 'zod';
import { calendarDate, toolsFor } from '../../../kit';
import type { ToolContext } from '../../../tool';
import { advanceCard, assignCard, completeCard, openGuestCard, reopenCard, requireCard, snoozeCard, utcToday, CARD_STATUSES } from '../cards';
import { followupSuggestions, listFollowupsDue, listFollowupTasks, listJourneys, pipelineSummary } from '../followups';
import { cardSchema, journeyStepSchema, limitSchema, stageSchema } from '../schemas';
import { listStages, REMOVED_STAGE_CARDS, syncStages } from '../stages';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const actor = (ctx: ToolContext) => ctx.principal.userId;
const cardId = z.uuid().describe('The guest card (from guests_list_followup_tasks or guests_list_guest_journeys)');
const stageRef = {
  stageId: z.uuid().optional().describe('The stage to move to, by id'),
  stageName: z.string().trim().min(1).max(100).optional().describe('The stage to move to, by name (case does not matter)'),
};

export const pipelineSummaryTool = tools.read('pipeline_summary', {
  title: 'Guest pipeline summary',
  description: 'How many guests are in each stage of the guest pipeline today (ready, overdue, snoozed), how many cards opened in the last 7 days and completed in the last 30, and the median days from first card to completed.',
  keywords: ['guest pipeline', 'newcomers', 'follow-up pipeline', 'visitor funnel', 'pipeline overview', 'how many at each stage', 'stage counts'],
  examples: ['how is our guest follow-up going', 'how many newcomers are overdue a call', 'how many visitors are we following up at the moment', 'is anyone stuck in the newcomer process', 'overview of our newcomer follow-up', 'how many guests are waiting at each step', 'on average how long does it take to get a visitor connected', 'how many new guests have we finished following up this month', 'newcomer funnel numbers please', 'how many visitor follow-ups are snoozed', 'newcomer pipeline numbers', 'for the welcome team meeting, how many visitors are at each stage and how many are overdue?'],
  input: z.object({}),
  output: z.object({
    asOf: z.string(),
    stages: z.array(z.object({ stageId: z.uuid(), name: z.string(), position: z.number().int(), expectedDays: z.number().int(), open: z.number().int(), ready: z.number().int(), overdue: z.number().int(), snoozed: z.number().int() }).strict()),
    open: z.number().int(), overdue: z.number().int(), snoozed: z.number().int(), openedLast7Days: z.number().int(), completedLast30Days: z.number().int(),
    medianDaysToComplete: z.number().nullable(),
  }).strict(),
  run: async (ctx) => pipelineSummary(ctx.db, ctx.org.id),
});

export const listPipelineStagesTool = tools.read('list_pipeline_stages', {
  title: 'Guest pipeline stages',
  description: 'The ordered stages of the guest pipeline, each with the days a guest is expected to spend there and the team member new cards go to. Empty until stages are set or the first card opens (which sets up four default stages).',
  keywords: ['pipeline stages', 'follow-up steps', 'welcome process', 'newcomer stages'],
  examples: ['what are our guest follow-up stages', 'show me the steps we take with newcomers', 'who looks after each stage of welcoming visitors', 'what steps does a new visitor go through', 'how many days do we allow at each newcomer step', 'who gets new guests first', 'list our welcoming process stages', "what's the order of our guest follow-up steps", 'which team member covers the phone call step', 'what stages are in our newcomer pipeline', 'how long should a guest spend at the coffee stage', 'who gets newcomer cards at the first step'],
  input: z.object({}),
  output: z.object({ stages: z.array(stageSchema) }).strict(),
  run: async (ctx) => ({ stages: await listStages(ctx.db, ctx.org.id) }),
});

export const syncPipelineStagesTool = tools.write('sync_pipeline_stages', {
  title: 'Set the guest pipeline stages',
  description: 'Replaces the guest pipeline\'s stages with the list given, in that order: a stage matching an existing one by id (or by name) is kept and updated, others are added, stages left out are removed. Open cards in removed stages are refused by default; removedStageCards moves them to the previous or first kept stage, or completes them. The same list twice changes nothing.',
  keywords: ['pipeline stages', 'set up follow-up', 'reorder stages', 'assign stage'],
  examples: ['our guest stages are Welcome (2 days, Anna), Coffee (7 days), Connected (30 days)', 'add a home-visit step after the phone call', 'drop the coffee stage and move those visitors back a step', 'rename the coffee step to Meet the Vicar', 'give Tom the phone call stage from now on', 'reorder the newcomer steps: call first, then card', 'set our follow-up steps to Card, Call, Coffee, Connected', 'remove the home visit step and complete those guests', 'allow 14 days at the coffee stage instead of 7', 'change our follow-up stages', "we're adding a Newcomers Lunch step between the call and Connected, with 21 days", 'can we rename the Card stage to Welcome Pack?'],
  idempotent: true,
  input: z.object({
    stages: z.array(z.object({
      id: z.uuid().optional().describe('An existing stage to keep (rename or reorder); omit to match by name or add a new one'),
      name: z.string().trim().min(1).max(100),
      description: z.string().trim().max(500).nullable().optional(),
      expectedDays: z.number().int().min(0).max(365).describe('Days a guest should spend in this stage before their follow-up is due'),
      defaultAssigneeUserId: z.uuid().nullable().optional().describe('Team member (user id, see platform_list_team_members) new cards in this stage go to'),
    })).min(1).max(20),
    removedStageCards: z.enum(REMOVED_STAGE_CARDS).default('refuse').describe('What happens to open cards in stages this sync removes: refuse (default), move_to_previous, move_to_first, complete'),
  }),
  output: z.object({
    stages: z.array(stageSchema), created: z.array(z.uuid()), updated: z.array(z.uuid()), removed: z.array(z.uuid()),
    cardsMoved: z.number().int(), cardsCompleted: z.number().int(), changed: z.boolean(),
  }).strict(),
  run: async (ctx, input) => syncStages(ctx.db, ctx.org.id, actor(ctx), input.stages, input.removedStageCards),
});

const journeySchema = cardSchema.extend({ steps: z.array(journeyStepSchema) }).strict();

export const listGuestJourneysTool = tools.read('list_guest_journeys', {
  title: 'Guest journeys',
  description: 'Guests\' pipeline cards with every step they went through (opened, advanced, snoozed, completed…), newest cards first; status: ready, snoozed, overdue or completed. Give contactId for one guest\'s journey.',
  keywords: ['guest journey', 'newcomer history', 'follow-up history', 'newcomer journeys', 'guest progress'],
  examples: ['where is Sam in our guest follow-up', 'show completed guest journeys', 'what has happened with the Patel family since they visited', "what's happened with Jo since she first came", 'follow-up history for the new couple', 'show all newcomer journeys still open', 'which visitors have we finished following up', "has anyone snoozed Priya's follow-up before", 'the full welcome trail for the Okafor family', 'which guests are overdue for follow-up', "show me Leo's follow-up journey step by step", 'list all the snoozed guest cards'],
  input: z.object({ contactId: z.uuid().optional().describe('One guest'), status: z.enum(CARD_STATUSES).optional(), limit: limitSchema }),
  output: z.object({ journeys: z.array(journeySchema) }).strict(),
  run: async (ctx, input) => ({ journeys: await listJourneys(ctx.db, ctx.org.id, input) }),
});

export const listFollowupTasksTool = tools.read('list_followup_tasks', {
  title: 'Guest follow-up tasks',
  description: 'Newcomers to follow up: open guest cards as follow-up tasks, soonest due first: who, which stage, due when, assigned to whom, and whether ready, overdue or snoozed. mine: true gives the caller\'s own.',
  keywords: ['guest follow-ups', 'my tasks', 'newcomer calls'],
  examples: ['which guests do I need to follow up', 'overdue newcomer follow-ups', 'what visitor calls are on Anna\'s list', 'my newcomer follow-ups', 'list every open guest follow-up and who has it', "what's on Tom's guest follow-up list", 'which of the new guests am I supposed to be ringing', 'open guest cards by due date', 'show snoozed and overdue newcomer follow-ups', 'newcomer follow-up tasks', "Anna's on holiday, so list all open visitor follow-ups and who they're assigned to", 'which newcomers is Tom meant to be contacting?'],
  input: z.object({
    mine: z.boolean().default(false).describe('Only cards assigned to the caller'),
    assigneeUserId: z.uuid().optional().describe('Only cards assigned to this team member'),
    status: z.enum(['ready', 'snoozed', 'overdue']).optional(),
    stageId: z.uuid().optional(),
    limit: limitSchema,
  }),
  output: z.object({ tasks: z.array(cardSchema) }).strict(),
  run: async (ctx, input) => ({
    tasks: await listFollowupTasks(ctx.db, ctx.org.id, { ...input, assigneeUserId: input.mine ? actor(ctx) : input.assigneeUserId }),
  }),
});

export const listFollowupsDueTool = tools.read('list_followups_due', {
  title: 'Guest follow-ups due',
  description: 'Guest cards due on or before a date (default today) and not snoozed past it: the follow-ups to do now, overdue first.',
  keywords: ['due today', 'follow-ups due', 'guest calls today'],
  examples: ['which guests are due a follow-up today', 'follow-ups due by Friday', 'who should the welcome team ring this week', 'guest follow-ups due today', 'who needs a newcomer call by Sunday', 'what guest follow-ups are overdue right now', 'which new guests are due contacting by the 15th', "today's newcomer calls", 'guest follow-ups due before the end of the month', 'follow-ups due', "I've got an hour free on Thursday, which guests are due a call by then?", "who's due a newcomer follow-up today?"],
  input: z.object({ by: calendarDate().optional().describe('Due on or before this date (default today, UTC)'), assigneeUserId: z.uuid().optional(), limit: limitSchema }),
  output: z.object({ by: z.string(), followups: z.array(cardSchema) }).strict(),
  run: async (ctx, input) => ({ by: input.by ?? utcToday(), followups: await listFollowupsDue(ctx.db, ctx.org.id, input) }),
});

export const getFollowupSuggestionsTool = tools.read('get_followup_suggestions', {
  title: 'Suggested next steps for guests',
  description: 'The next step for each open guest card, from its stage and history, each with the reason in plain words and the tool to do it with: send a welcome card, move on after they came back, follow up now when overdue, complete the last stage, or wait until due. Rules, not scores.',
  keywords: ['next step', 'what to do with newcomers', 'guest suggestions'],
  examples: ['what should we do next with our new guests', 'suggest follow-ups for Sam', 'who among the visitors needs a nudge and why', "what's the next step for each newcomer", 'recommend what to do next with the Greens', 'which visitors should get a welcome card now', 'any guests ready to move on because they came back', "advise on the new family's follow-up", 'what needs doing with our guests and why', 'next steps for guests', 'the Harpers have been twice now, what should we do next with them and why?', "what do you suggest for the visitors we're following up?"],
  input: z.object({ contactId: z.uuid().optional(), assigneeUserId: z.uuid().optional(), limit: limitSchema }),
  output: z.object({
    suggestions: z.array(z.object({
      cardId: z.uuid(), contactId: z.uuid(), guestName: z.string(), stageName: z.string(), status: z.enum(CARD_STATUSES),
      action: z.enum(['send_welcome_card', 'follow_up_now', 'advance', 'complete', 'wait']),
      suggestion: z.string(), reason: z.string().describe('Why, with the dates and figures used'),
      tool: z.string(), args: z.record(z.string(), z.unknown()),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ suggestions: await followupSuggestions(ctx.db, ctx.org.id, input) }),
});

export const openGuestCardTool = tools.write('open_guest_card', {
  title: 'Open a guest card',
  description: 'Puts a guest (a contact) into the first stage of the guest pipeline. A guest has one card ever: if they already have one it is returned with created: false.',
  keywords: ['add to pipeline', 'new guest follow-up', 'start follow-up', 'add new guest'],
  examples: ['add Sam to the guest follow-up', 'start following up the couple who came on Sunday', 'put Jo on the newcomers list', 'start following up the family who came to the carol service', 'begin the newcomer process for Priya', 'add Jo and Mark to the welcome pipeline', 'the new lady, Mrs Adeyemi, put her into guest follow-up', 'track first-time visitor Ben in our guest process', 'open a newcomer card for the Khans', 'the Hassans visited for the first time today, start their follow-up', 'Isla came on Sunday, open a guest card for her', 'put Mark into our newcomer follow-up'],
  idempotent: true,
  input: z.object({
    contactId: z.uuid().describe('The guest'),
    assigneeUserId: z.uuid().optional().describe('Team member to follow up (default: the first stage\'s default assignee)'),
    note: z.string().trim().min(1).max(1000).optional(),
  }),
  output: z.object({ card: cardSchema, created: z.boolean() }).strict(),
  run: async (ctx, input) => {
    const opened = await openGuestCard(ctx.db, ctx.org.id, { ...input, source: 'manual', actorUserId: actor(ctx) });
    return { card: await requireCard(ctx.db, ctx.org.id, opened.cardId, utcToday()), created: opened.created };
  },
});

export const advanceGuestCardTool = tools.write('advance_guest_card', {
  title: 'Move a guest card on',
  description: 'Moves a guest card to the next stage (or the stage named, forwards or back); its follow-up is due after that stage\'s expected days and it goes to that stage\'s default assignee unless keepAssignee. A card in the last stage is completed instead (guests_complete_guest_card).',
  keywords: ['advance', 'next stage', 'move guest', 'next step', 'move on stage'],
  examples: ['Sam came for coffee, move them on', 'move Sam back to Welcome', 'the Greens have had their first chat, next step', "Jo's had her welcome call, move her to the next step", 'move the Okafors straight to Connected', 'the Khans came back a second time, advance them', 'push Priya on to the coffee stage', "Ben's been to the newcomers lunch, move him along", 'send Jo back a stage, we never reached her', 'Isla has been to the welcome lunch, next stage please', 'move the Hassans forward in the guest pipeline', "advance Leo's card, he's had the welcome phone call"],
  input: z.object({ cardId, ...stageRef, note: z.string().trim().min(1).max(1000).optional(), keepAssignee: z.boolean().default(false) }),
  output: z.object({ card: cardSchema }).strict(),
  run: async (ctx, input) => ({ card: await advanceCard(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const snoozeGuestCardTool = tools.write('snooze_guest_card', {
  title: 'Snooze a guest card',
  description: 'Puts a guest\'s follow-up off until a date (e.g. they are away); it is due again that day.',
  keywords: ['snooze', 'postpone follow-up', 'later', 'put off follow-up', 'snooze guest'],
  examples: ['Sam is away for three weeks, snooze their follow-up', 'remind me about the Lees after half term', 'pause the follow-up for the new couple until March', "put off Priya's follow-up until after Easter", 'the Khans are on holiday, come back to them on 1 September', 'hold off on following up Ben for two weeks', 'snooze the Okafors until the new year', "don't chase Jo until next month", 'park the follow-up for the new couple for a month', "Isla's in hospital, snooze her follow-up until 20 May", 'the Hassans are away over summer, pick them up again in September', "hold Leo's guest card until after Christmas"],
  input: z.object({ cardId, until: calendarDate().describe('The day the follow-up is due again (after today)'), reason: z.string().trim().min(1).max(500).optional() }),
  output: z.object({ card: cardSchema }).strict(),
  run: async (ctx, input) => ({ card: await snoozeCard(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const completeGuestCardTool = tools.write('complete_guest_card', {
  title: 'Complete a guest journey',
  description: 'Completes a guest card with its outcome (joined a group, moved away, not interested…). It stays in the guest\'s journey.',
  keywords: ['complete', 'close follow-up', 'connected'],
  examples: ['Sam joined a home group, close their guest card', 'the Greens have moved away, stop following them up', 'mark Jo as settled in', 'Priya joined the choir, finish her follow-up', "Ben isn't interested, close his newcomer card", 'the Khans are regulars now, mark them connected', "wrap up the Okafors' follow-up, they joined a house group", "end Jo's guest journey, she's moved to Leeds", "the new couple are settled, we're done following them up", "close the Harpers' card", "Oliver's parents joined the Tuesday house group, so finish their newcomer follow-up", 'can you mark the new couple as connected?'],
  input: z.object({ cardId, outcome: z.string().trim().min(1).max(1000).describe('What came of it') }),
  output: z.object({ card: cardSchema }).strict(),
  run: async (ctx, input) => ({ card: await completeCard(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const reopenGuestCardTool = tools.write('reopen_guest_card', {
  title: 'Reopen a guest journey',
  description: 'Puts a completed guest card back into a stage (the one it was in, or the stage named), e.g. when a guest comes back after a long gap.',
  keywords: ['reopen', 'came back', 'restart follow-up', 'returning guest'],
  examples: ['Sam is back after a year, reopen their guest card', 'start following up the Lees again', 'the Khans have turned up again, restart their follow-up', 'Ben is back, reopen him at the phone call stage', "open Priya's closed guest card again", 'we closed Jo too early, put her back in follow-up', 'the Okafors have moved back, restart welcoming them', "reopen the new couple's guest journey at Coffee", 'Isla has come back after two years, reopen her card', 'the Hassans returned on Sunday, restart their guest journey', "Leo's finished card should be open again", "reopen Mark's guest journey at the welcome stage"],
  input: z.object({ cardId, ...stageRef, note: z.string().trim().min(1).max(1000).optional() }),
  output: z.object({ card: cardSchema }).strict(),
  run: async (ctx, input) => ({ card: await reopenCard(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const assignGuestCardTool = tools.write('assign_guest_card', {
  title: 'Reassign a guest card',
  description: 'Gives an open guest card to another team member.',
  keywords: ['assign', 'hand over follow-up'],
  examples: ['give Sam\'s follow-up to Anna', 'hand the newcomer calls for the Greens to Tom', "pass Priya's follow-up over to Tom", "give the Khans' follow-up to Mark, Anna is off sick", "reassign the Okafors' welcome call to the curate", 'let Sarah take over following up Ben', "move Jo's newcomer card to the vicar", 'hand the Greens over to the welcome team leader', 'reassign the Harpers to Tom', "Anna has too many newcomers at the moment, move the Nolans' card over to Sue", "can the curate take over Priya's follow-up?"],
  input: z.object({ cardId, assigneeUserId: z.uuid().describe('Team member (see platform_list_team_members)') }),
  output: z.object({ card: cardSchema }).strict(),
  run: async (ctx, input) => ({ card: await assignCard(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const pipelineTools = [
  pipelineSummaryTool, listPipelineStagesTool, syncPipelineStagesTool, listGuestJourneysTool, listFollowupTasksTool, listFollowupsDueTool,
  getFollowupSuggestionsTool, openGuestCardTool, advanceGuestCardTool, snoozeGuestCardTool, completeGuestCardTool, reopenGuestCardTool, assignGuestCardTool,
];
