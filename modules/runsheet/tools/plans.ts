import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { calendarDate, cursorInput, cursorOutput, notFound, toolsFor } from '../../kit';
import { exactlyOne } from '../../tool';
import { localTimeSchema } from '../../schedule/api';
import {
  addItem, copyPlan, createPlan, createServiceType, findPreviousPlan, getPlan, getRota, ITEM_KINDS, listPlans, listServiceTypes, liveView, lockPlan, removeItem, reorderItems,
  TIME_KINDS, updateItem,
} from '../plans';
import { itemSchema, planSchema, planStateSchema, planSummarySchema } from '../schemas';
import { applyTemplate, createTemplate, listTemplates, peopleDisplacedBy } from '../templates';

export const tools = toolsFor('runsheet', { read: 'runsheet:read', write: 'runsheet:write' });

const planId = z.uuid().describe('The plan (runsheet_list_plans)');
const timeInput = z.object({
  kind: z.enum(TIME_KINDS).describe('service, rehearsal or other'),
  name: z.string().trim().min(1).max(200).optional(),
  startTime: localTimeSchema().describe('Local start time, HH:MM'),
  durationMinutes: z.number().int().min(1).max(24 * 60),
  dayOffset: z.number().int().min(-7).max(7).optional().describe('Days from the plan date (a rehearsal the day before is -1)'),
});
const planOutput = z.object({ plan: planSchema }).strict();

export const createServiceTypeTool = tools.write('create_service_type', {
  title: 'Create a service type',
  description: 'Adds a kind of service plans are made for (Sunday morning, youth night), optionally linked to a schedule series whose instances plans can be made for.',
  keywords: ['service type', 'kind of service', 'new service type', 'add service kind'],
  examples: ['add a service type for Sunday morning', 'set up a youth night service type linked to the Friday series', 'create a service type called Evening worship', 'we\'re starting a monthly café church, add it as a kind of service', 'new service type for the 8am said communion', 'set up Messy Church as a service we plan for', 'add a type for the Wednesday midweek communion', 'add Evensong as a service type we can plan', 'create a service type for the school assembly', 'we need a new kind of service for funerals in planning', 'set up a Sunday 10:30 service type tied to the Sunday morning series'],
  input: z.object({ name: z.string().trim().min(1).max(200), scheduleSeriesId: z.uuid().optional().describe('A schedule series (schedule_list_series)') }),
  output: z.object({ serviceType: z.object({ id: z.uuid(), name: z.string(), scheduleSeriesId: z.uuid().nullable() }).strict() }).strict(),
  run: async (ctx, input) => ({ serviceType: await createServiceType(ctx.db, ctx.org.id, input) }),
});

export const listServiceTypesTool = tools.read('list_service_types', {
  title: 'List service types',
  description: 'The kinds of service plans are made for, by name.',
  keywords: ['service types', 'kinds of service', 'planning service types'],
  examples: ['what service types do we have', 'list our kinds of services for planning', 'which services can I make a plan for', 'show all the service types set up in planning', 'do we have a service type for evensong yet', 'what kinds of service are in the runsheet module', 'is there a service type for the youth night', 'which service types are set up for running orders', 'list the service types', 'what types of service can we build plans for?', 'show me every kind of service in planning', 'what service types do we plan for'],
  input: z.object({}),
  output: z.object({ serviceTypes: z.array(z.object({ id: z.uuid(), name: z.string(), scheduleSeriesId: z.uuid().nullable() }).strict()) }).strict(),
  run: async (ctx) => ({ serviceTypes: await listServiceTypes(ctx.db, ctx.org.id) }),
});

export const listPlansTool = tools.read('list_plans', {
  title: 'List service plans',
  description: 'Service plans (runsheets), upcoming soonest first or past latest first, optionally for one service type; each with its date and state (draft, scheduled, locked, live, past).',
  keywords: ['service plans', 'runsheets', 'order of service', 'upcoming services'],
  examples: ['what services are we planning', 'show the plans for the next few Sundays', 'list last month\'s service plans', 'which runsheets are coming up', 'show past plans for the evening service', 'which Sundays have we got plans for so far', 'list the upcoming plans for the 10:30', 'all our service plans', "Dave's away in March so which services have we already got plans for then?", "I need an overview of every Sunday we've planned up to Christmas"],
  input: z.object({ serviceTypeId: z.uuid().optional(), when: z.enum(['upcoming', 'past']).default('upcoming'), ...cursorInput }),
  output: z.object({ plans: z.array(planSummarySchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listPlans(ctx.db, ctx.org.id, input),
});

export const findPreviousPlanTool = tools.read('find_previous_plan', {
  title: 'Find the previous plan',
  description: 'The latest plan of a service type before a plan, a date, or now: what to copy when planning the next one (runsheet_copy_plan). Null when there is none.',
  keywords: ['last week', 'previous service', 'last Sunday\'s plan'],
  examples: ['find last Sunday\'s plan', 'what did we do last week', 'get the previous morning service plan', 'show the plan before this one', 'what did we have in the service the Sunday before Easter', 'pull up the last evening service we planned', 'what was the last plan for the 8am before the 21st', 'the last one we did', "we're copying the pattern, so what was the most recent 6pm service we ran?", 'what did the service look like the week before Harvest'],
  input: z.object({ serviceTypeId: z.uuid().optional(), planId: z.uuid().optional().describe('Find the plan before this one'), before: calendarDate().optional() }),
  output: z.object({ plan: planSummarySchema.nullable() }).strict(),
  run: async (ctx, input) => ({ plan: await findPreviousPlan(ctx.db, ctx.org.id, input) }),
});

export const getPlanTool = tools.read('get_plan', {
  title: 'Get a service plan',
  description: 'One plan in full: times, running order (headers with their items, lengths, songs, keys, notes), needed positions with how many are filled, the people scheduled with their answers, and every substitute search with its offers.',
  keywords: ['runsheet', 'running order', 'rota', 'who is serving', 'worship band', 'who is playing', 'musicians'],
  examples: ['who is playing in the band this Sunday', 'which musicians are on for the 14th', 'show Sunday\'s running order', 'who is on the rota this week', 'open the plan for the 7th', 'is the band confirmed for Sunday', 'what happened with the sound desk replacement', 'show me everything on the plan for Easter Sunday', "who's on the band and what are we singing this Sunday", 'show me the plan for the 9am on the 14th', "Sunday's order of service in full please", 'the vicar wants the whole plan for Palm Sunday before she writes her notes'],
  input: z.object({ planId }),
  output: planOutput,
  run: async (ctx, input) => getPlan(ctx.db, ctx.org.id, input.planId),
});

export const createPlanTool = tools.write('create_plan', {
  title: 'Create a service plan',
  description: 'A new plan for a service type: for a schedule instance (its date and service time), or for a date with its times (service, rehearsal, other) in the organisation\'s time zone. To start from an earlier plan use runsheet_copy_plan instead.',
  keywords: ['new plan', 'new runsheet', 'plan a service', 'create plan', 'new order of service'],
  examples: ['create a plan for Christmas Eve at 6pm', 'start a blank runsheet for next Sunday', 'make a plan for the carol service instance', 'new plan for the youth night on Friday', 'set up a plan for Remembrance Sunday at 10:50 with rehearsal at 9', 'plan a fresh service for the 21st from scratch', 'create the runsheet for the Alpha celebration evening', 'make a new plan for Easter Sunday morning', 'plan the 10:30 on 6 July with a 9:15 rehearsal', 'create an empty running order for the school carol service', 'start a new service plan for Pentecost evening worship'],
  input: z.object({
    serviceTypeId: z.uuid(), instanceId: z.uuid().optional().describe('A schedule instance (schedule_list_upcoming_instances)'), date: calendarDate().optional(),
    times: z.array(timeInput).max(10).optional().describe('Required with date: at least the service time'),
    title: z.string().trim().min(1).max(200).optional(), seriesTitle: z.string().trim().min(1).max(200).optional().describe('Sermon series'), notes: z.string().trim().max(5000).optional(),
  }),
  output: planOutput,
  run: async (ctx, input) => getPlan(ctx.db, ctx.org.id, await createPlan(ctx.db, ctx.org.id, ctx.principal.userId, input)),
});

export const copyPlanTool = tools.write('copy_plan', {
  title: 'Copy a plan to a new date',
  description: 'Plans a service from an earlier plan (or a template): a new plan on the date or schedule instance given, its times moved to that date at the same clock times, with the items, needed positions and people chosen (people copied are reset to unconfirmed and not yet asked). From a template, give the service type and times as for runsheet_create_plan.',
  keywords: ['copy last week', 'duplicate plan', 'plan next Sunday', 'from template'],
  examples: ['plan next Sunday by copying last week', 'copy the 1st\'s plan to the 8th with the same band', 'duplicate last Sunday\'s order of service without the people', 'start next week from the communion template', 'copy the carol service plan to this year', 'reuse the Easter plan for Pentecost, people and all', 'base next week\'s service on this week\'s', "clone last week's service", "Mia's leading again next month so copy her 3rd of May service to 7 June", "I need the Advent 1 service set up the same as last year's"],
  input: z.object({
    sourcePlanId: z.uuid().optional(), templateId: z.uuid().optional(), instanceId: z.uuid().optional(), date: calendarDate().optional(),
    serviceTypeId: z.uuid().optional().describe('From a template: the service type (default the template\'s)'),
    times: z.array(timeInput).max(10).optional().describe('From a template with a date: the times'),
    include: z.object({ items: z.boolean().default(true), positions: z.boolean().default(true), people: z.boolean().default(false) }).default({ items: true, positions: true, people: false }),
    title: z.string().trim().min(1).max(200).optional(),
  }).refine(...exactlyOne('sourcePlanId', 'templateId')),
  output: z.object({ plan: planSchema, copied: z.object({ items: z.number().int(), positions: z.number().int(), people: z.number().int() }).strict() }).strict(),
  run: async (ctx, input) => {
    if (input.sourcePlanId) {
      const copy = await copyPlan(ctx.db, ctx.org.id, ctx.principal.userId, { sourcePlanId: input.sourcePlanId, instanceId: input.instanceId, date: input.date, include: input.include, title: input.title });
      return { ...(await getPlan(ctx.db, ctx.org.id, copy.planId)), copied: copy.copied };
    }
    const template = (await listTemplates(ctx.db, ctx.org.id, {})).find((candidate) => candidate.id === input.templateId);
    const serviceTypeId = input.serviceTypeId ?? template?.serviceTypeId ?? undefined;
    if (!template) throw notFound('Template', input.templateId!, 'runsheet_list_templates lists the templates there are.');
    if (!serviceTypeId) {
      throw new StewardError('validation_failed', 'The template has no service type: name one', { issues: [{ path: 'serviceTypeId', message: 'required for this template' }] });
    }
    const newPlanId = await createPlan(ctx.db, ctx.org.id, ctx.principal.userId, { serviceTypeId, instanceId: input.instanceId, date: input.date, times: input.times, title: input.title });
    const applied = await applyTemplate(ctx.db, ctx.org.id, { planId: newPlanId, templateId: template.id, mode: 'merge' });
    return { ...(await getPlan(ctx.db, ctx.org.id, newPlanId)), copied: { items: input.include.items ? applied.itemsAdded : 0, positions: applied.positionsSet, people: 0 } };
  },
});

/** Note categories an item holds at most (band, sound, lighting, …). */
const MAX_NOTE_CATEGORIES = 20;

const itemFields = {
  title: z.string().trim().min(1).max(200).optional(),
  lengthSeconds: z.number().int().min(0).max(86_400).optional(),
  songId: z.uuid().optional(), arrangementId: z.uuid().optional(), key: z.string().trim().min(1).max(10).optional(),
  notes: z.record(z.string().trim().min(1).max(50), z.string().max(2000))
    .refine((values) => Object.keys(values).length <= MAX_NOTE_CATEGORIES, `at most ${MAX_NOTE_CATEGORIES} note categories`).meta({ maxProperties: MAX_NOTE_CATEGORIES })
    .optional().describe('Notes per category, e.g. { "band": "…", "sound": "…" }'),
};

export const addItemTool = tools.write('add_item', {
  title: 'Add an item to a plan',
  description: 'Adds a song, header, media or item to the running order: at the end, after another item, or inside a header. A song item named by songId takes the song\'s title and the arrangement\'s key and length.',
  keywords: ['add to running order', 'add song', 'add header', 'add reading'],
  examples: ['add a welcome item of 3 minutes at the top', 'put a header called Response after the sermon', 'add Amazing Grace to Sunday', 'add the notices video', 'add a prayer item under the Response header', 'slot in a Bible reading before the sermon', 'we need a 5 minute notices slot at the end', 'add an offering slot', "Sue's doing a testimony on the 12th, put it in just after the notices", 'can you stick In Christ Alone in as the last song'],
  input: z.object({ planId, kind: z.enum(ITEM_KINDS), ...itemFields, parentId: z.uuid().optional().describe('The header to put it in'), afterItemId: z.uuid().optional() }),
  output: z.object({ itemId: z.uuid(), items: z.array(itemSchema) }).strict(),
  run: async (ctx, input) => {
    const { planId: id, ...item } = input;
    const itemId = await addItem(ctx.db, ctx.org.id, id, item);
    return { itemId, items: (await getPlan(ctx.db, ctx.org.id, id)).plan.items };
  },
});

export const updateItemTool = tools.write('update_item', {
  title: 'Update a plan item',
  description: 'Changes an item\'s title, length, key, header or notes (notes merge by category).',
  keywords: ['edit item', 'change length', 'item notes', 'edit plan item', 'item length'],
  examples: ['make the sermon 25 minutes', 'add a note for sound on the video item', 'move the prayer under the Response header', 'change the key of the second song to D', 'the talk is now called Living Hope', 'tell the band the last song is in E now', 'give the welcome 2 minutes instead of 5', 'add a lighting note to the sermon item', 'shorten the notices to 3 minutes', 'rename the reading item to Luke 15', 'put a note on the offering for the projection team', 'the closing song should be in key of C'],
  input: z.object({ planId, itemId: z.uuid(), ...itemFields, parentId: z.uuid().nullable().optional().describe('A header, or null for the top level') }),
  output: z.object({ items: z.array(itemSchema) }).strict(),
  run: async (ctx, input) => {
    const { planId: id, itemId, ...changes } = input;
    await updateItem(ctx.db, ctx.org.id, id, itemId, changes);
    return { items: (await getPlan(ctx.db, ctx.org.id, id)).plan.items };
  },
});

export const removeItemTool = tools.write('remove_item', {
  title: 'Remove a plan item',
  description: 'Takes an item off the running order; a header goes with the items it holds.',
  keywords: ['delete item', 'take out of running order', 'remove item', 'cut from service'],
  examples: ['drop the notices from Sunday', 'remove the second song', 'take the Response header out', 'cut the offertory song from the 10:30', 'we\'re not doing the video this week, take it out', 'get rid of the second reading', 'delete the testimony slot from Sunday\'s order', "take the children's talk out of the 10:30 order", 'delete the intercessions item', "remove the video clip from Easter's running order", 'drop the Communion header and everything under it'],
  input: z.object({ planId, itemId: z.uuid() }),
  output: z.object({ removed: z.number().int(), items: z.array(itemSchema) }).strict(),
  run: async (ctx, input) => {
    const removed = await removeItem(ctx.db, ctx.org.id, input.planId, input.itemId);
    return { removed, items: (await getPlan(ctx.db, ctx.org.id, input.planId)).plan.items };
  },
});

export const reorderItemsTool = tools.write('reorder_items', {
  title: 'Reorder a plan\'s items',
  description: 'Sets the running order of the top-level items, or of one header\'s items: name every item at that level once, in the new order.',
  keywords: ['reorder', 'move item', 'swap songs'],
  examples: ['put the sermon before communion', 'swap the first two songs', 'move the notices to the end', 'do the children\'s talk first then the reading', 'change the order so prayers come after the sermon', 'move the offering to just before the last song', 'rearrange the songs under the Worship header', 'notices last', 'the kids leave early on the 5th, so bring the all-age talk up to the start', 'can the two hymns after the sermon swap places'],
  input: z.object({ planId, parentId: z.uuid().optional(), itemIds: z.array(z.uuid()).min(1).max(200) }),
  output: z.object({ items: z.array(itemSchema) }).strict(),
  run: async (ctx, input) => {
    await reorderItems(ctx.db, ctx.org.id, input.planId, input);
    return { items: (await getPlan(ctx.db, ctx.org.id, input.planId)).plan.items };
  },
});

export const lockPlanTool = tools.write('lock_plan', {
  title: 'Lock or unlock a plan',
  description: 'Locks a plan so its running order and rota no longer change (answers from volunteers still arrive), or unlocks it.',
  keywords: ['lock runsheet', 'freeze plan', 'unlock plan', 'lock plan', 'finalise plan'],
  examples: ['lock Sunday\'s plan', 'freeze the running order for the carol service', 'unlock the plan so I can add a song', 'no more changes to Sunday\'s rota please', 'lock the Easter plan now it\'s final', 'reopen the plan for the 14th for edits', 'finalise the order of service so nobody edits it', 'lock the Pentecost plan so nobody changes it', "unlock Sunday's running order, we need a change", 'freeze the 10:30 plan and rota now', 'can you open the locked carol service plan again'],
  input: z.object({ planId, locked: z.boolean().default(true) }),
  output: z.object({ planId: z.uuid(), state: planStateSchema }).strict(),
  run: async (ctx, input) => {
    await lockPlan(ctx.db, ctx.org.id, input.planId, input.locked);
    return { planId: input.planId, state: (await getPlan(ctx.db, ctx.org.id, input.planId)).plan.state };
  },
});

const slotSchema = z.object({ itemId: z.uuid(), title: z.string(), kind: z.string(), startsAt: z.string(), endsAt: z.string() }).strict();
export const getLiveViewTool = tools.read('get_live_view', {
  title: 'Live view of a service',
  description: 'What is on now in a service, what is next and the time left, from the running order laid end to end from the service start (or from when it actually started); also how far the running order overruns the service time.',
  keywords: ['live', 'what is on now', 'time left', 'next item', 'happening now', 'on stage', 'right now', 'how long is left', 'running late'],
  examples: ['what\'s on now in the service', 'how long left on this song', 'what comes next', 'are we running over', 'where are we in the service right now', 'how much over time are we this morning', 'tell the stage manager what\'s up next', 'how many minutes until the sermon starts', 'where are we up to', "the preacher's going long, how far over will we finish?", 'what item is on the screen at the moment'],
  input: z.object({ planId, startedAt: z.iso.datetime().max(40).optional().describe('When the service actually began, if not on time') }),
  output: z.object({
    planId: z.uuid(), state: planStateSchema, now: z.string(), serviceStartedAt: z.string(),
    current: slotSchema.extend({ secondsLeft: z.number().int() }).strict().nullable(), next: slotSchema.extend({ startsInSeconds: z.number().int() }).strict().nullable(),
    runningOrderEndsAt: z.string(), secondsLeftInService: z.number().int(), overrunSeconds: z.number().int(),
  }).strict(),
  run: async (ctx, input) => liveView(ctx.db, ctx.org.id, input.planId, { startedAt: input.startedAt }),
});

export const rotaOutput = z.object({
  plans: z.array(planSummarySchema.extend({
    positions: z.array(z.object({
      positionId: z.uuid(), positionName: z.string(), teamName: z.string(), planTimeId: z.uuid().nullable(), timeStartsAt: z.string().nullable(), quantity: z.number().int(), open: z.number().int(),
      people: z.array(z.object({ contactId: z.uuid(), name: z.string(), status: z.enum(['unconfirmed', 'accepted']) }).strict()),
    }).strict()),
  }).strict()),
}).strict();

export const getRotaTool = tools.read('get_rota', {
  title: 'The rota for the coming weeks',
  description: 'Who serves in each needed position on every upcoming plan over the next weeks (default 4, optionally one service type), with open places; declined people are left out.',
  keywords: ['rota', 'serving schedule', 'who is on when', 'upcoming rota', 'who is serving'],
  examples: ['show the rota for the next month', 'who is serving over the next few Sundays', 'print the band rota for December', 'where are the gaps in the rota this month', 'who\'s serving each Sunday in the next 6 weeks', 'rota for the 10:30 over the next month', 'which weeks still have empty spots on the rota', 'send me the serving rota for the coming weeks', 'who is on the rota the next four Sundays', 'show the worship team rota for the next 8 weeks', 'which positions are still unfilled in the coming weeks', "who's doing what on Sundays this month"],
  input: z.object({ serviceTypeId: z.uuid().optional(), weeks: z.number().int().min(1).max(26).default(4) }),
  output: rotaOutput,
  run: async (ctx, input) => getRota(ctx.db, ctx.org.id, input),
});

// ---------------------------------------------------------------- templates

export const createTemplateTool = tools.write('create_template', {
  title: 'Save a plan as a template',
  description: 'Saves a plan\'s running order and needed positions (no times, no people) as a named template.',
  keywords: ['template', 'save as template', 'save template', 'reusable order of service'],
  examples: ['save Sunday\'s plan as our communion template', 'make a template from the carol service', 'keep this order of service as our all-age template', 'save the Remembrance service layout for next year', 'turn the baptism service into a reusable template', 'store this plan\'s running order as the Messy Church template', 'make a template from Sunday called Family Service', 'save this Sunday as a template called Said Communion', 'turn the Easter plan into a template for next year', 'keep the running order of the wedding plan as a template', 'make the Pentecost service a reusable layout'],
  input: z.object({ name: z.string().trim().min(1).max(200), fromPlanId: z.uuid(), serviceTypeId: z.uuid().optional() }),
  output: z.object({ templateId: z.uuid() }).strict(),
  run: async (ctx, input) => ({ templateId: await createTemplate(ctx.db, ctx.org.id, input) }),
});

export const listTemplatesTool = tools.read('list_templates', {
  title: 'List plan templates',
  description: 'Templates (running order and needed positions, no times), optionally for one service type.',
  keywords: ['templates', 'plan templates', 'saved layouts'],
  examples: ['which plan templates do we have', 'show the communion template', 'what templates are there for the 10:30', 'do we have a saved layout for a baptism service', 'list the service templates we can start from', 'is there an all-age service template', 'show me all our saved order-of-service templates', 'what saved service templates are there', 'list templates for the evening service', 'have we got a Christingle template?', 'which order-of-service templates could I use for a funeral'],
  input: z.object({ serviceTypeId: z.uuid().optional() }),
  output: z.object({
    templates: z.array(z.object({
      id: z.uuid(), name: z.string(), serviceTypeId: z.uuid().nullable(),
      items: z.array(z.object({ kind: z.string(), title: z.string(), lengthSeconds: z.number().int(), inHeader: z.boolean() }).strict()),
      positions: z.array(z.object({ positionId: z.uuid(), quantity: z.number().int() }).strict()),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => ({ templates: await listTemplates(ctx.db, ctx.org.id, input) }),
});

export const applyTemplateTool = tools.write('apply_template', {
  title: 'Apply a template to a plan',
  description: 'merge (default): adds the template\'s items after the plan\'s and adds or raises its needed positions. replace: the plan\'s items and needed positions become the template\'s; people in positions it does not need come off, and a call that would take anyone off waits for a person\'s approval.',
  keywords: ['apply template', 'use template', 'load template', 'start from template'],
  examples: ['apply the communion template to Sunday', 'replace this plan with the baptism template', 'add the communion liturgy items onto the 14th', 'use our all-age template for this Sunday\'s plan', 'merge the baptism template into Easter Sunday', 'wipe this plan and use the Remembrance template instead', 'pull the standard positions from the template into Sunday', 'put the Said Communion template on the 8am plan', "add the Christingle template's items to this plan", "replace Sunday's running order with the all-age template", "use the funeral template for Thursday's plan"],
  input: z.object({ planId, templateId: z.uuid(), mode: z.enum(['merge', 'replace']).default('merge') }),
  output: z.object({ planId: z.uuid(), templateId: z.uuid(), mode: z.enum(['merge', 'replace']), itemsAdded: z.number().int(), positionsSet: z.number().int(), peopleRemoved: z.number().int() }).strict(),
  approval: {
    kind: 'gated',
    when: {
      reason: 'replacing a plan\'s positions would take people already scheduled off it',
      applies: async (args, { db, orgId }) => args.mode === 'replace' && (await peopleDisplacedBy(db, orgId, String(args.planId), String(args.templateId))) > 0,
    },
  },
  run: async (ctx, input) => applyTemplate(ctx.db, ctx.org.id, input),
});

export const planTools = [
  createServiceTypeTool, listServiceTypesTool, listPlansTool, findPreviousPlanTool, getPlanTool, createPlanTool, copyPlanTool, addItemTool, updateItemTool, removeItemTool,
  reorderItemsTool, lockPlanTool, getLiveViewTool, getRotaTool, createTemplateTool, listTemplatesTool, applyTemplateTool,
];
