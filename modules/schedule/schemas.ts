import { z } from 'zod';
import { calendarDate } from '../kit';

/** Shapes the schedule's tools (and the guests module's services tools) answer with. */

export const localTime = () => z.string().max(5).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a local time as HH:MM (24-hour)');

export const instanceSchema = z.object({
  id: z.uuid(),
  seriesId: z.uuid(),
  title: z.string(),
  startsAt: z.string().describe('Real start, UTC ISO 8601'),
  endsAt: z.string().describe('Real end, UTC ISO 8601'),
  localDate: z.string().describe('Start date on the local wall clock (YYYY-MM-DD)'),
  localStartTime: z.string().describe('Start time on the local wall clock (HH:MM)'),
  timeZone: z.string(),
  status: z.enum(['scheduled', 'cancelled']),
  locationLabel: z.string().nullable(),
  campus: z.string().nullable(),
  cancelReason: z.string().nullable(),
  originalStartsAt: z.string().nullable().describe('Where the series\' rule put it (UTC); null for a one-off'),
  moved: z.boolean().describe('Moved away from the rule\'s time'),
  oneOff: z.boolean().describe('An extra instance added by hand'),
  detached: z.boolean().describe('Edited on its own: changes to the whole series leave it alone'),
}).strict();

export const seriesSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  rrule: z.string().describe('RFC 5545 RRULE; UNTIL is local time'),
  ruleText: z.string().describe('The rule in words'),
  timeZone: z.string(),
  startDate: z.string(),
  startTime: z.string(),
  durationMinutes: z.number().int(),
  locationLabel: z.string().nullable(),
  campus: z.string().nullable(),
  splitFromSeriesId: z.uuid().nullable().describe('The series this one continues after a "this and following" change'),
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();

export const materialisedSchema = z.object({
  created: z.number().int(), updated: z.number().int(), removed: z.number().int(),
}).strict().describe('Instances created, updated and removed in the rolling window');

export const title = z.string().trim().min(1).max(200);
export const rrule = z.string().trim().min(1).max(500)
  .describe('RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=SU, FREQ=MONTHLY;BYDAY=1SU, FREQ=WEEKLY;BYDAY=WE;UNTIL=20270630 (UNTIL is local; a date includes that day)');
export const timeZone = z.string().trim().min(1).max(64).describe('IANA zone, e.g. Europe/London or America/New_York');
export const durationMinutes = z.number().int().min(1).max(1440).describe('Length in minutes');
export const locationLabel = z.string().trim().min(1).max(200).nullable().describe('Where it happens, as people say it (e.g. "Main hall"); null clears it');
export const campus = z.string().trim().min(1).max(200).nullable().describe('Campus or site, for churches with more than one; null clears it');
export const startDate = calendarDate().describe('The local date of the first occurrence (the rule counts from here)');
export const startTime = localTime().describe('Local start time (HH:MM, 24-hour); stays the same across clock changes');
