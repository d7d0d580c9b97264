import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { calendarDate, toolsFor } from '../../kit';
import {
  addOneOffInstance, canonicalTimeZone, instancesOnLocalDate, listInstances, localDateAt, localTimeSchema, localToUtc, MAX_LIST_INSTANCES, organisationTimeZone, serviceInstanceSchema,
} from '../../schedule/api';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 92;

const timeZone = z.string().trim().min(1).max(64).optional()
  .describe('IANA zone whose calendar day to use; default: the zone the organisation\'s service series use (Europe/London when it has none)');

async function zoneFor(db: Parameters<typeof organisationTimeZone>[0], orgId: string, requested: string | undefined): Promise<string> {
  return requested === undefined ? organisationTimeZone(db, orgId) : canonicalTimeZone(requested);
}

const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

export const listServicesTodayTool = tools.read('list_services_today', {
  title: 'Services today',
  description: 'Today\'s services (instances from the schedule module) on the organisation\'s local calendar day, earliest first, with their instance ids for check-in, local start times, locations and status (cancelled ones included, marked). Use guests_list_services for other dates.',
  keywords: ['this morning', 'sunday services', 'check-in services', 'what is on today'],
  examples: ['which services are on today', 'what time is this morning\'s service', "what's on this morning for check-in", "today's services and which rooms they're in", "is tonight's service still happening", 'which service should I check the kids into today', 'list the services running today', 'what time is the first service today', "today's services", "I'm on the welcome desk this morning, which services are running today for check-in?", 'is there anything on this afternoon we need to check children into?'],
  input: z.object({ timeZone, includeCancelled: z.boolean().default(true).describe('Include cancelled services (marked cancelled)') }),
  output: z.object({ date: z.string().describe('Today\'s local date (YYYY-MM-DD)'), timeZone: z.string(), services: z.array(serviceInstanceSchema) }).strict(),
  run: async (ctx, input) => {
    const zone = await zoneFor(ctx.db, ctx.org.id, input.timeZone);
    const date = localDateAt(new Date(), zone);
    return { date, timeZone: zone, services: await instancesOnLocalDate(ctx.db, ctx.org.id, date, { includeCancelled: input.includeCancelled }) };
  },
});

export const listServicesTool = tools.read('list_services', {
  title: 'Services in a date range',
  description: `Services (instances from the schedule module) on local dates from \`from\` to \`to\` inclusive (at most ${MAX_RANGE_DAYS} days), earliest first, with instance ids, local dates and times, locations and status. The schedule keeps instances 12 weeks ahead.`,
  keywords: ['service list', 'upcoming services', 'services this month'],
  examples: ['list services for the next three Sundays', 'which services were there last month', 'services between 1 and 24 December', 'which services are there over Easter weekend', "find last Sunday's services so I can add late check-ins", 'what services do we have in August', 'services on Christmas Eve and Christmas Day', 'list services for the next two weeks with their ids', 'services in July', 'for the summer holiday club register I need each service between 22 July and 2 August', 'which services were there on Palm Sunday weekend?'],
  input: z.object({
    from: calendarDate().describe('First local date'),
    to: calendarDate().describe('Last local date (inclusive)'),
    timeZone,
    includeCancelled: z.boolean().default(false),
  }),
  output: z.object({
    from: z.string(), to: z.string(), timeZone: z.string(), services: z.array(serviceInstanceSchema),
    truncated: z.boolean().describe(`True when the range held more than ${MAX_LIST_INSTANCES} services: ask for a shorter range`),
  }).strict(),
  run: async (ctx, input) => {
    if (input.from > input.to) throw new StewardError('validation_failed', '`from` is after `to`', { issues: [{ path: 'from', message: 'must be on or before to' }] });
    if (Date.parse(input.to) - Date.parse(input.from) > MAX_RANGE_DAYS * DAY_MS) {
      throw new StewardError('validation_failed', `The range is longer than ${MAX_RANGE_DAYS} days`, { hint: 'Ask for a shorter range.', issues: [{ path: 'to', message: `at most ${MAX_RANGE_DAYS} days after from` }] });
    }
    const zone = await zoneFor(ctx.db, ctx.org.id, input.timeZone);
    const start = localToUtc(input.from, '00:00', zone);
    const end = new Date(localToUtc(nextDay(input.to), '00:00', zone).getTime() - 1);
    const services = await listInstances(ctx.db, ctx.org.id, { from: start.toISOString(), to: end.toISOString(), includeCancelled: input.includeCancelled });
    return { from: input.from, to: input.to, timeZone: zone, services, truncated: services.length === MAX_LIST_INSTANCES };
  },
});

export const duplicateServiceTool = tools.write('duplicate_service', {
  title: 'Duplicate a service',
  description: 'Adds a one-off extra service copied from an existing one (same series, title, length, location) at a new local date and time in its zone, e.g. an extra Christmas Eve service. The copy is a schedule instance of its own; the series\' rule is unchanged.',
  keywords: ['extra service', 'additional service', 'copy service', 'one-off service'],
  examples: ['add an extra 4pm service on Christmas Eve like the 6pm one', 'duplicate Sunday\'s service for Saturday evening', 'copy the 10:30 to make an extra service on Easter Saturday', 'we need a second crib service at 3pm, same as the 4pm', "clone this Sunday's service for Monday evening", 'repeat the carol service on Friday at 7 as well', 'add another one just like the 6pm on the 23rd', 'an overflow service, a copy of the morning one, at 12:15', 'duplicate this service', 'the crib service is always full, so copy it as an extra one at 2pm on Christmas Eve', "can we add another service just like Sunday's 10:30 on Saturday?"],
  input: z.object({
    instanceId: z.uuid().describe('The service to copy (from guests_list_services)'),
    localDate: calendarDate().describe('Local date of the new service'),
    localStartTime: localTimeSchema().describe('Local start time of the new service (HH:MM)'),
    title: z.string().trim().min(1).max(200).optional().describe('A title of its own; the original\'s when omitted'),
    durationMinutes: z.number().int().min(1).max(1440).optional().describe('Length in minutes; the original\'s when omitted'),
  }),
  output: z.object({ service: serviceInstanceSchema, copiedFrom: z.uuid() }).strict(),
  run: async (ctx, input) => ({
    service: await addOneOffInstance(ctx.db, ctx.org.id, input.instanceId, input),
    copiedFrom: input.instanceId,
  }),
});

export const guestsServicesTools = [listServicesTodayTool, listServicesTool, duplicateServiceTool];
