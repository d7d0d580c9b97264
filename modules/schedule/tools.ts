import { z } from 'zod';
import { calendarDate, cursorInput, cursorOutput, toolsFor } from '../kit';
import { cancelInstance, editInstance, getInstance, listInstances, MATERIALISE_WEEKS, MAX_LIST_DAYS, MAX_LIST_INSTANCES, organisationTimeZone } from './instances';
import { localToUtc } from './recurrence';
import { exportIcal } from './ical';
import {
  campus, durationMinutes, instanceSchema, localTime, locationLabel, materialisedSchema, rrule, seriesSchema, startDate, startTime, timeZone, title,
} from './schemas';
import { addExtraInstance, createSeries, deleteSeries, getSeries, listSeries, previewRule, restoreInstance, updateSeries, upcomingOfSeries } from './series';

const tools = toolsFor('schedule', { read: 'schedule:read', write: 'schedule:write' });

const seriesId = z.uuid().describe('The series (from schedule_list_series)');
const instanceId = z.uuid().describe('The instance (from schedule_list_upcoming_instances)');
const UPCOMING_SHOWN = 5;
const DAY_MS = 86_400_000;

export const listSeriesTool = tools.read('list_series', {
  title: 'List service series',
  description: 'The organisation\'s recurring service series (e.g. Sunday 10:30 morning worship), newest first, each with its RRULE in words, zone, start time, length and location. Page with nextCursor. For the dated services themselves use schedule_list_upcoming_instances.',
  keywords: ['services', 'recurring services', 'service times', 'worship schedule'],
  examples: ['what services do we run each week', 'list our service times', 'what regular services do we have', 'show all our weekly and monthly services', 'list the recurring worship times and where they are held', 'which services repeat every week', "what's our pattern of services across the month", 'give me all the standing service slots', 'our regular services', 'a newcomer asked what services we hold, list all our regular ones with times', 'which services do we run every month?'],
  input: z.object({ ...cursorInput }),
  output: z.object({ series: z.array(seriesSchema), ...cursorOutput }).strict(),
  run: async (ctx, input) => listSeries(ctx.db, ctx.org.id, input),
});

export const getSeriesTool = tools.read('get_series', {
  title: 'Get a service series',
  description: 'One service series with its rule, zone and next few scheduled instances.',
  keywords: ['service series', 'regular service', 'recurring service', 'series details', 'service pattern'],
  examples: ['when does the evening service happen each week', 'details of our regular Sunday morning service and its next dates', 'tell me about the 8am communion series', 'what pattern does the Wednesday prayer meeting follow', 'which room is the evening service in and how long does it run', 'next few dates for the monthly family service', 'show the setup of the midweek communion', 'how often does the Taize service run', 'what time does the Sunday 10:30 run and when is it next', 'show me the Thursday communion series', 'when are the next evensongs', 'what is the repeat pattern for the monthly healing service'],
  input: z.object({ seriesId }),
  output: z.object({ series: seriesSchema, upcoming: z.array(instanceSchema) }).strict(),
  run: async (ctx, input) => ({
    series: await getSeries(ctx.db, ctx.org.id, input.seriesId),
    upcoming: await upcomingOfSeries(ctx.db, ctx.org.id, input.seriesId, new Date(), UPCOMING_SHOWN),
  }),
});

export const createSeriesTool = tools.write('create_series', {
  title: 'Create a service series',
  description: `Creates a recurring service from an RFC 5545 RRULE evaluated in a time zone (default: the zone the organisation's series use, else Europe/London), a local start date and time, and a length. A 10:30 service stays 10:30 local across clock changes. Instances for the next ${MATERIALISE_WEEKS} weeks are created at once and kept rolling by a periodic job.`,
  keywords: ['new service', 'add service time', 'weekly service', 'recurring event', 'rrule'],
  examples: ['we meet every Sunday at 10:30 in the main hall', 'add a midweek prayer meeting on Wednesdays at 7:30pm', 'first Sunday of each month communion at 6pm', 'set up a new 6pm service every Sunday in church', 'start a fortnightly Thursday morning service from 9 January', 'add monthly cafe church, second Saturday at 4pm for 90 minutes', "we're launching a weekly Tuesday lunchtime prayer at 12:30", 'create a new regular service: Compline every Friday at 9pm', 'new pattern: Messy Church on the third Sunday monthly at 3:30', 'new weekly service', "we're starting a Taizé service on the second Friday of each month at 7:30pm", 'can you add a new Sunday 4pm service every week?'],
  input: z.object({
    title, rrule, startDate, startTime, durationMinutes,
    timeZone: timeZone.optional(),
    locationLabel: locationLabel.optional(),
    campus: campus.optional(),
  }),
  output: z.object({ series: seriesSchema, materialised: materialisedSchema, upcoming: z.array(instanceSchema) }).strict(),
  run: async (ctx, input) => {
    const now = new Date();
    const { series, materialised } = await createSeries(ctx.db, ctx.org.id, input, now);
    return { series, materialised, upcoming: await upcomingOfSeries(ctx.db, ctx.org.id, series.id, now, UPCOMING_SHOWN) };
  },
});

export const updateSeriesTool = tools.write('update_series', {
  title: 'Change a service series',
  description: 'Changes a service series with a scope, as calendars do: "this" changes one instance (its title, local date or start time, length, location), "this_and_following" ends the series before the instance and continues it as a new series carrying the changes, "all" changes the whole series (rule, zone, start date or time, length, title, location). Instances that have already started are never rewritten; instances changed on their own keep their changes. Room bookings linked to an instance follow its new time (held as an open conflict where the room is taken) or are released when it goes.',
  keywords: ['reschedule service', 'change service time', 'move service', 'edit recurring series', 'from now on'],
  examples: ['from next month the morning service starts at 11', 'this Sunday only, the service is in the church hall', 'rename the evening service for all weeks', 'from Easter, the 8am moves to 8:30 every week', 'the evening service is now in the hall permanently', 'change the midweek service to Thursdays from now on', 'make the family service last 75 minutes every week from now', 'from September all Sunday morning services start at 10', 'rename the 6pm service to Evensong going forward', 'change the service time', 'the new curate wants Evensong at 5 instead of 6 from October onwards, for every week', 'can we move the midweek communion to the chapel permanently?'],
  input: z.object({
    seriesId,
    scope: z.enum(['this', 'this_and_following', 'all']).describe('this: one instance; this_and_following: the instance and every later one (splits the series); all: the whole series'),
    instanceId: instanceId.optional().describe('The instance the change starts from; required for this and this_and_following'),
    changes: z.object({
      title: title.optional(),
      rrule: rrule.optional(),
      startDate: startDate.optional().describe('The series\' first date (scope all only)'),
      startTime: startTime.optional(),
      localDate: calendarDate().optional().describe('Move the one instance to this local date (scope this only)'),
      durationMinutes: durationMinutes.optional(),
      timeZone: timeZone.optional(),
      locationLabel: locationLabel.optional(),
      campus: campus.optional(),
    }).refine((changes) => Object.values(changes).some((value) => value !== undefined), 'name at least one change'),
  }),
  output: z.object({
    scope: z.enum(['this', 'this_and_following', 'all']),
    series: seriesSchema,
    newSeries: seriesSchema.nullable().describe('For this_and_following: the new series that continues from the instance'),
    instance: instanceSchema.nullable().describe('For this: the instance as changed'),
    materialised: materialisedSchema,
    upcoming: z.array(instanceSchema).describe('The next instances of the series (of the new series after a split)'),
  }).strict(),
  run: async (ctx, input) => {
    const now = new Date();
    const result = await updateSeries(ctx.db, ctx.org.id, input.seriesId, input.scope, input.instanceId, input.changes, now);
    const upcoming = await upcomingOfSeries(ctx.db, ctx.org.id, (result.newSeries ?? result.series).id, now, UPCOMING_SHOWN);
    return { ...result, upcoming };
  },
});

export const deleteSeriesTool = tools.write('delete_series', {
  title: 'End a service series',
  description: 'Ends a service series: it leaves the lists and its instances that have not started are removed. Past instances stay as the record of what happened; room bookings linked to the removed ones are released at once. To drop one date only, use schedule_cancel_instance.',
  keywords: ['stop service', 'remove series', 'discontinue', 'end series', 'stop recurring service'],
  examples: ['we are stopping the Thursday lunchtime service', "we're ending the monthly cafe church", 'scrap the Tuesday lunchtime service for good', 'the 8am communion is finishing altogether', 'get rid of the Friday Compline series', 'no more Wednesday evening prayer meetings ever, remove them', 'discontinue the summer evening services', 'end the Sunday evening service series', 'the monthly healing service has stopped for good, remove it', 'close down the midweek said communion from now on', "we've finished the Lent course series, end it"],
  input: z.object({ seriesId }),
  output: z.object({ series: seriesSchema, removedInstances: z.number().int() }).strict(),
  run: async (ctx, input) => deleteSeries(ctx.db, ctx.org.id, input.seriesId, new Date()),
});

export const cancelInstanceTool = tools.write('cancel_instance', {
  title: 'Cancel one service',
  description: 'Cancels one instance of a series (an exception: the rest of the series is unchanged), with an optional reason. It stays listed as cancelled; schedule_restore_instance undoes it (rooms it freed are not re-booked). Room bookings linked to it are released at once. An instance that has started cannot be cancelled.',
  keywords: ['cancel service', 'no service this week', 'exception', 'skip date'],
  examples: ['no evening service on Christmas Eve', 'cancel next Sunday\'s service because of snow', 'no 8am communion on 26 December', "call off this week's prayer meeting, the vicar is ill", 'cancel the evening service on Sunday 12 May for the joint service', 'skip the family service on the bank holiday weekend', "scrap Wednesday's midweek communion this week only", "there'll be no Compline this Friday", "cancel this Sunday's 6pm", "the church is closed for the roof works on 14 July, so there's no morning service that day", "can we call off next Wednesday's communion?"],
  input: z.object({ instanceId, reason: z.string().trim().min(1).max(500).optional().describe('Why, e.g. "joint service with St Mark\'s"') }),
  output: z.object({ instance: instanceSchema }).strict(),
  run: async (ctx, input) => ({ instance: await cancelInstance(ctx.db, ctx.org.id, input.instanceId, input.reason ?? null, new Date()) }),
});

export const moveInstanceTool = tools.write('move_instance', {
  title: 'Move one service',
  description: 'Moves one instance to another local date and/or start time in its zone (an exception: the series is unchanged; the rule\'s time is kept as its original start). Room bookings linked to it move with it; one whose room is taken at the new time is held as an open conflict (spaces_list_conflicts). Same as schedule_update_series with scope "this".',
  keywords: ['reschedule one service', 'different time this week', 'exception'],
  examples: ['this Sunday the service starts at 11 instead of 10:30', 'move Easter Sunday\'s service to 6am', "push this Sunday's evening service back to 7pm", 'on Remembrance Sunday the 10:30 starts at 10:45', "move next Wednesday's prayer meeting to Thursday", "bring this year's carol service forward to 5pm", "shift this week's communion to Saturday at 9", 'the Good Friday service is at 1pm this year only', "move Sunday's service to 11", "the Remembrance parade runs late so this year's 10:30 moves to 11:15, just that week", "can we shift next Friday's Compline to Saturday?"],
  input: z.object({
    instanceId,
    localDate: calendarDate().optional().describe('New local date; unchanged when omitted'),
    localStartTime: localTime().optional().describe('New local start time (HH:MM); unchanged when omitted'),
  }).refine((input) => input.localDate !== undefined || input.localStartTime !== undefined, { message: 'give localDate or localStartTime', path: ['localDate'] }),
  output: z.object({ instance: instanceSchema }).strict(),
  run: async (ctx, input) => ({
    instance: await editInstance(ctx.db, ctx.org.id, input.instanceId, { localDate: input.localDate, localStartTime: input.localStartTime }, new Date()),
  }),
});

export const restoreInstanceTool = tools.write('restore_instance', {
  title: 'Restore one service',
  description: 'Puts one instance back as its series\' rule has it: un-cancels it and undoes a move or other one-off change. Not for one-off extra instances.',
  keywords: ['uncancel', 'undo cancel', 'reinstate service'],
  examples: ['the Christmas Eve service is back on after all', 'we are having the 8am on Boxing Day after all', "uncancel next Sunday's evening service", "put Wednesday's prayer meeting back to its normal time", "undo the change to this week's family service", 'reinstate the service we cancelled for snow on the 14th', 'midweek communion is on again as normal this week', "uncancel Sunday's service", 'the roof works finished early, so the 14 July morning service goes ahead as normal', 'can we put the 6pm back to its usual time this week?'],
  input: z.object({ instanceId }),
  output: z.object({ instance: instanceSchema }).strict(),
  run: async (ctx, input) => ({ instance: await restoreInstance(ctx.db, ctx.org.id, input.instanceId, new Date()) }),
});

export const listUpcomingInstancesTool = tools.read('list_upcoming_instances', {
  title: 'Upcoming services',
  description: `Dated service instances from now (or from a date) for the next days (default 14, at most ${MAX_LIST_DAYS}), earliest first, with real UTC start and local date and time in their zone; cancelled ones only when asked. Instances exist up to ${MATERIALISE_WEEKS} weeks ahead.`,
  keywords: ['next services', 'this sunday', 'service dates', 'calendar'],
  examples: ['when are our services in the next fortnight', 'what is on this Sunday', 'show cancelled services too', 'what services have we got coming up', 'list the services over the next month', 'dates of every service from now until Easter', "what's in the service calendar for the next 6 weeks", 'which services are on next week', "coming services, including the ones we've called off", 'upcoming services', "I'm planning the pew sheets, list every service date between now and the end of June", 'what services are coming up this month?'],
  input: z.object({
    from: calendarDate().optional().describe('First local date to include, in the zone the organisation\'s series use; from now when omitted'),
    days: z.number().int().min(1).max(MAX_LIST_DAYS).default(14).describe('How many days ahead'),
    seriesId: seriesId.optional().describe('Only this series'),
    includeCancelled: z.boolean().default(false),
  }),
  output: z.object({
    instances: z.array(instanceSchema),
    from: z.string(), to: z.string(),
    truncated: z.boolean().describe(`True when the range held more than ${MAX_LIST_INSTANCES} instances: ask for fewer days or one series`),
  }).strict(),
  run: async (ctx, input) => {
    const from = input.from ? localToUtc(input.from, '00:00', await organisationTimeZone(ctx.db, ctx.org.id)) : new Date();
    const to = new Date(from.getTime() + input.days * DAY_MS);
    const range = { from: from.toISOString(), to: to.toISOString() };
    if (input.seriesId) await getSeries(ctx.db, ctx.org.id, input.seriesId);
    const instances = await listInstances(ctx.db, ctx.org.id, { ...range, includeCancelled: input.includeCancelled, seriesId: input.seriesId });
    return { instances, ...range, truncated: instances.length === MAX_LIST_INSTANCES };
  },
});

export const getInstanceTool = tools.read('get_instance', {
  title: 'Get one service',
  description: 'One service instance by id: its series, real UTC start and end, local date and time in its zone, status (scheduled or cancelled, with the reason), whether it was moved, and its location.',
  keywords: ['one service', 'service date', 'service time', 'details of the service', 'this sunday\'s service'],
  examples: ['what time does this Sunday\'s service start and where is it', 'is next week\'s carol service still on or was it cancelled', 'details of the Christmas Day service', "is Sunday's family service cancelled", 'where is the Ash Wednesday service being held', 'what time does the Easter vigil start and finish', "was this week's evening service moved", "why was last Sunday's 8am cancelled", "what time is the carol service next Sunday and who's it for", 'details of the 6pm service on Easter Day', "this Sunday's 10:30 details", 'Doris asked what time Midnight Mass finishes and where, show me that one service'],
  input: z.object({ instanceId }),
  output: z.object({ instance: instanceSchema }).strict(),
  run: async (ctx, input) => ({ instance: await getInstance(ctx.db, ctx.org.id, input.instanceId) }),
});

export const exportIcalTool = tools.read('export_ical', {
  title: 'Export services as iCalendar',
  description: 'The organisation\'s service series as an iCalendar (RFC 5545) text: each series one recurring event with its RRULE and zone, cancelled dates as EXDATE and moved or changed dates as their own events, for a website or a calendar app.',
  keywords: ['ics', 'calendar feed', 'ical', 'subscribe calendar'],
  examples: ['give me an ics file of our services for the website', 'calendar file of our services for Google Calendar', 'export the service times so people can subscribe', 'can I get our services into Outlook', 'give me the iCal feed for the church website', 'download the service calendar as an .ics', 'export our regular services as a calendar with the cancelled dates', 'export the services calendar', 'the website designer wants our service times as a calendar file people can subscribe to', 'can I have our services as an ics feed?'],
  input: z.object({ seriesId: seriesId.optional().describe('Only this series') }),
  output: z.object({ ical: z.string().describe('text/calendar content'), events: z.number().int() }).strict(),
  run: async (ctx, input) => exportIcal(ctx.db, ctx.org.id, input.seriesId),
});

export const previewRuleTool = tools.read('preview_rule', {
  title: 'Preview a recurrence rule',
  description: 'Checks an RFC 5545 RRULE and shows, without saving anything, what it would give: the rule normalised and in words, and its first occurrences (local date and time, real UTC start) from a start date and time in a zone. Use it to confirm a rule with the person before schedule_create_series or a rule change.',
  keywords: ['rrule', 'check recurrence', 'which dates', 'test rule', 'recurrence preview'],
  examples: ['which dates would the first Sunday of every month give', 'check FREQ=MONTHLY;BYDAY=-1SU before I save it', 'what dates would every other Wednesday from 8 January give', 'show me the next few second and fourth Sundays before I save', 'check the last Friday of the month pattern before saving', 'does a weekly Tuesday 7pm rule stay at 7pm through the clock change', 'which dates would a fortnightly Thursday house group land on', 'test a third-Sunday-monthly rule without creating anything', 'test this RRULE', 'before we set up the new Taizé evenings, show me the dates a second-Friday rule gives', 'which dates would every other Sunday give us?'],
  input: z.object({
    rrule, startDate, startTime,
    timeZone: timeZone.optional(),
    count: z.number().int().min(1).max(52).default(10).describe('How many occurrences to show'),
  }),
  output: z.object({
    rrule: z.string(), ruleText: z.string(), timeZone: z.string(),
    occurrences: z.array(z.object({ startsAt: z.string(), localDate: z.string(), localStartTime: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => previewRule(ctx.db, ctx.org.id, input, input.count),
});

export const addExtraInstanceTool = tools.write('add_extra_instance', {
  title: 'Add an extra service to a series',
  description: 'Adds a one-off extra date to a series (like an RDATE), e.g. a Christmas Eve service, at a local date and time in the series\' zone, with the series\' title, length and location unless given. The rule is unchanged; the extra is cancelled with schedule_cancel_instance. To copy a particular service instead, use guests_duplicate_service.',
  keywords: ['extra date', 'one-off service', 'rdate', 'special service'],
  examples: ['add a Christmas Eve service at 11:30pm to the evening series', 'one extra Good Friday service at 2pm', 'add a one-off midnight mass to the evening service series', 'extra date in the Sunday series on Remembrance Sunday at 2:45pm', 'add an additional Ash Wednesday communion at 7pm to the midweek series', 'put an extra Maundy Thursday date in the Wednesday series', 'one more morning service on Boxing Day in the Lady Chapel', 'add a special harvest Saturday 5 October to the Sunday series', 'add an extra service date', 'the bishop is coming on Sunday 9 June at 3pm, so add a one-off confirmation service to the Sunday series', 'can we add an Easter Eve vigil to the evening series?'],
  input: z.object({
    seriesId,
    localDate: calendarDate().describe('Local date of the extra service'),
    localStartTime: localTime().describe('Local start time (HH:MM)'),
    title: title.optional().describe('A title of its own; the series\' when omitted'),
    durationMinutes: durationMinutes.optional(),
    locationLabel: locationLabel.optional(),
  }),
  output: z.object({ instance: instanceSchema }).strict(),
  run: async (ctx, input) => ({ instance: await addExtraInstance(ctx.db, ctx.org.id, input.seriesId, input, new Date()) }),
});

export const scheduleTools = [
  previewRuleTool, addExtraInstanceTool,
  listSeriesTool, getSeriesTool, createSeriesTool, updateSeriesTool, deleteSeriesTool, cancelInstanceTool, moveInstanceTool,
  restoreInstanceTool, listUpcomingInstancesTool, getInstanceTool, exportIcalTool,
];
