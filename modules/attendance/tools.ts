import { z } from 'zod';
import { queryRows } from '../../db/pool';
import { assertDateRange, calendarDate, toolsFor } from '../kit';
import { addDays, todayUtc } from '../metrics';
import { listCheckins } from '../guests/api';
import { displayNameOf, requireContact } from '../people/api';
import type { ToolContext } from '../tool';
import { recordHeadcount } from './headcounts';
import { assertRangeLength } from './metrics';
import { attendanceSummary, personHistory } from './summary';

const tools = toolsFor('attendance', { read: 'attendance:read', write: 'attendance:write' });
const instanceId = z.uuid();
const PERSON_KINDS = ['child', 'adult', 'volunteer'] as const;
const MAX_CHECKINS = 500;

function rangeOf(input: { from?: string; to?: string }, defaultDays: number): { from: string; to: string } {
  const to = input.to ?? todayUtc();
  const range = { from: input.from ?? addDays(to, -(defaultDays - 1)), to };
  assertDateRange(range);
  assertRangeLength(range);
  return range;
}

const headcountSchema = z.object({
  id: z.uuid(), instanceId: z.string(), localDate: z.string(), locationId: z.uuid().nullable(), area: z.string(), count: z.number().int(),
  countedByUserId: z.uuid().nullable(), note: z.string().nullable(), countedAt: z.string(),
}).strict();

export const recordHeadcountTool = tools.write('record_headcount', {
  title: 'Record a headcount',
  description: 'Records a head count: how many people were in a place at one service: a check-in location (locationId), a named area ("Balcony"), or the whole service when neither is given, and who counted. Counting the same place again replaces the figure (the earlier count is returned), so a recount never adds twice.',
  keywords: ['headcount', 'count people', 'attendance number', 'how many came', 'numbers'],
  examples: ['we counted 143 in the main hall at the 10:30', 'balcony headcount 22', 'the stewards counted 87 at the evening service', 'put down 56 for the 8am', 'note that 34 were in the upstairs hall at the carol service', 'the sidesmen counted 210 at Christmas midnight mass', "log tonight's numbers: 41 at evensong", 'correct the 10:30 count to 150, we miscounted', 'crèche had 12 this morning, record that number', 'headcount 96', 'the sidesman counted 118 at the 10:30 this morning including the balcony, log it', "can you record 64 for tonight's carol service?"],
  idempotent: true,
  input: z.object({
    instanceId: instanceId.describe('The service instance (schedule_list_upcoming_instances, guests_list_services_today)'),
    count: z.number().int().min(0).max(100_000),
    locationId: z.uuid().optional().describe('A check-in location (guests_list_locations)'),
    area: z.string().trim().min(1).max(200).optional().describe('A named area (one named like a check-in location counts as that location); the whole service when neither is given'),
    countedByUserId: z.uuid().optional().describe('The team member who counted (default: the caller)'),
    note: z.string().trim().min(1).max(1000).optional(),
  }),
  output: z.object({ headcount: headcountSchema, replacedCount: z.number().int().nullable().describe('The earlier count of the same place at this service, now replaced') }).strict(),
  run: async (ctx, input) => recordHeadcount(ctx.db, ctx.org.id, ctx.principal.userId, input),
});

async function namesOf(ctx: ToolContext, contactIds: readonly string[]): Promise<Map<string, string>> {
  const rows = contactIds.length === 0 ? [] : await queryRows<{ id: string; first_name: string | null; last_name: string | null; preferred_name: string | null; email: string | null }>(ctx.db,
    'SELECT id, first_name, last_name, preferred_name, email FROM people_directory WHERE org_id = $1 AND id = ANY($2::uuid[])', [ctx.org.id, [...new Set(contactIds)]]);
  return new Map(rows.map((row) => [row.id, displayNameOf(row)]));
}

export const listCheckinsTool = tools.read('list_checkins', {
  title: 'Check-ins',
  description: 'Who signed in (checked in) to services dated in a range (default the last 7 days), oldest first: person, kind (adult, child, volunteer), first time or not, location, in and out times. Narrow by service instance, location, person or kind; at most 500 (truncated says when there were more).',
  keywords: ['who came', 'check-in list', 'attendance list', 'register'],
  examples: ['who checked in on Sunday', 'which children were in the creche last week', 'list everyone signed in at the carol service', 'who signed the kids in this Sunday', 'list the volunteers who signed in at youth club on Friday', 'which first-timers checked in last week', 'show the register for Sunday school on the 12th', 'who was in the toddler room and when were they collected', 'names of everyone at the Messy Church session', 'who signed in Sunday', 'the safeguarding lead needs the names of every child in the youth room last Friday', 'which volunteers checked in at the holiday club?'],
  input: z.object({
    from: calendarDate().optional(), to: calendarDate().optional(), instanceId: instanceId.optional(), locationId: z.uuid().optional(),
    contactId: z.uuid().optional(), personKind: z.enum(PERSON_KINDS).optional(), firstTimeOnly: z.boolean().default(false),
  }),
  output: z.object({
    from: z.string(), to: z.string(), truncated: z.boolean(),
    checkins: z.array(z.object({
      id: z.uuid(), instanceId: z.string(), localDate: z.string(), locationId: z.uuid(), locationName: z.string(), contactId: z.uuid(), name: z.string(),
      personKind: z.enum(PERSON_KINDS), firstTime: z.boolean(), checkedInAt: z.string(), checkedOutAt: z.string().nullable(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const range = rangeOf(input, 7);
    const all = (await listCheckins(ctx.db, ctx.org.id, { ...range, instanceId: input.instanceId, locationId: input.locationId, contactId: input.contactId }))
      .filter((c) => (!input.personKind || c.personKind === input.personKind) && (!input.firstTimeOnly || c.firstTime));
    const page = all.slice(0, MAX_CHECKINS);
    const names = await namesOf(ctx, page.map((c) => c.contactId));
    return { ...range, truncated: all.length > MAX_CHECKINS, checkins: page.map((c) => ({ ...c, name: names.get(c.contactId) ?? 'Unknown' })) };
  },
});

const counts = {
  checkedIn: z.number().int(), regulars: z.number().int(), guests: z.number().int(), firstTimers: z.number().int(), volunteers: z.number().int(),
};

export const getSummaryTool = tools.read('get_summary', {
  title: 'Attendance summary',
  description: 'Attendance of the services in a range (default the last 4 weeks), by service, ISO week (with the change on the week before) and location: total (headcount when recorded: the whole-service count when there is one, else the sum of the areas counted; otherwise people checked in), regulars, guests, first-timers and volunteers, with the definition of each. A ticketed event held as no service is its own line under events, outside the service figures. Narrow to one service instance, series or location.',
  keywords: ['attendance', 'how many came', 'weekly attendance', 'trend', 'first-timers'],
  examples: ['how was attendance this month', 'how many came to the 10:30 each week', 'how many first-timers last Sunday', 'are numbers up or down on last week', 'what were our numbers like over Lent', 'compare attendance at the 8am and the 10:30', 'how many regulars versus guests this month', 'attendance figures by room for the last four weeks', 'how many volunteers served each week in October', 'is the evening service growing', 'attendance figures', "for the churchwardens' report, show weekly attendance at each service since Easter"],
  input: z.object({
    from: calendarDate().optional(), to: calendarDate().optional(), instanceId: instanceId.optional(), seriesId: z.uuid().optional().describe('One service series (schedule_list_series)'),
    locationId: z.uuid().optional().describe('One check-in location: its check-ins and headcounts only'),
  }),
  output: z.object({
    from: z.string(), to: z.string(), locationId: z.uuid().nullable(),
    definitions: z.object({ regular: z.string(), guest: z.string(), firstTimer: z.string(), volunteer: z.string(), ticketCheckins: z.string(), total: z.string(), events: z.string() }).strict(),
    totals: z.object({
      services: z.number().int(), total: z.number().int(), ...counts, ticketCheckins: z.number().int(), averagePerService: z.number().nullable(),
      events: z.number().int().describe('Lines under events: ticketed events held as no service'), eventCheckedIn: z.number().int().describe('People checked in at those events, not in the service total'),
    }).strict(),
    services: z.array(z.object({
      instanceId: z.string(), seriesId: z.string(), title: z.string(), localDate: z.string(), localStartTime: z.string(), headcount: z.number().int().nullable(), ...counts,
      volunteersScheduled: z.number().int(), ticketCheckins: z.number().int().describe('Tickets scanned at the door of a ticketed event held as this service'), total: z.number().int(), totalFrom: z.enum(['headcount', 'checkins']),
    }).strict()),
    events: z.array(z.object({
      eventId: z.string(), title: z.string(), localDate: z.string().describe('The day its tickets were scanned'), checkedIn: z.number().int(), regulars: z.number().int(), guests: z.number().int(),
      firstTimers: z.number().int(), ticketCheckins: z.number().int(),
    }).strict()).describe('Ticketed events held as no service, each a line of its own'),
    weeks: z.array(z.object({ weekStart: z.string(), services: z.number().int(), total: z.number().int(), firstTimers: z.number().int().describe('First-timers checked in at the week\'s services'), change: z.number().int().nullable(), changePercent: z.number().nullable() }).strict()),
    byLocation: z.array(z.object({ locationId: z.uuid().nullable(), area: z.string(), checkedIn: z.number().int(), headcount: z.number().int().nullable() }).strict()),
  }).strict(),
  run: async (ctx, input) => attendanceSummary(ctx.db, ctx.org.id, { ...rangeOf(input, 28), instanceId: input.instanceId, seriesId: input.seriesId, locationId: input.locationId }),
});

export const getPersonHistoryTool = tools.read('get_person_history', {
  title: 'A person\'s attendance',
  description: 'One person\'s check-ins over a range (default the last 52 weeks), one entry per service, newest first: service, date, locations, as guest or volunteer, first time; with services and weeks attended, first and last visit.',
  keywords: ['attendance history', 'when did they last come', 'how often', 'attendance since', 'person\'s attendance', 'been coming'],
  examples: ['when did Sam last come to church', 'how often has the Green family been this year', 'has Margaret been coming regularly', 'how many times has Jean been this year', 'when was the last time the Patels came', 'has Tom stopped coming to the evening service', "list the Sundays Margaret's grandson attended", "when was Ruth's first visit", "show Peter's attendance over the last year", "Doris's attendance", "Ray hasn't been seen for a while, when did he last come and how often before that?", 'how regularly has Hannah been coming this year?'],
  input: z.object({ contactId: z.uuid(), from: calendarDate().optional(), to: calendarDate().optional() }),
  output: z.object({
    contactId: z.uuid(), from: z.string(), to: z.string(), services: z.number().int(), weeksAttended: z.number().int(),
    firstVisit: z.string().nullable(), lastVisit: z.string().nullable(), servedAsVolunteer: z.number().int(),
    visits: z.array(z.object({
      instanceId: z.string(), title: z.string().nullable(), localDate: z.string(), locations: z.array(z.string()), personKind: z.enum(PERSON_KINDS),
      firstTime: z.boolean(), checkedInAt: z.string(), checkedOutAt: z.string().nullable(),
    }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    await requireContact(ctx.db, ctx.org.id, input.contactId);
    return personHistory(ctx.db, ctx.org.id, input.contactId, rangeOf(input, 364));
  },
});

export const attendanceTools = [recordHeadcountTool, listCheckinsTool, getSummaryTool, getPersonHistoryTool];
