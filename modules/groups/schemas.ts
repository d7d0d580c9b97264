import { z } from 'zod';
import { ENROLMENT_STRATEGIES, LOCATION_KINDS, WEEKDAYS } from './groups';

export const NOT_CRM_GROUPS = 'Small groups (cell, home groups, classes) are not the people module\'s CRM groups (ministry teams and departments: people_list_crm_groups).';

export const groupSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  type: z.object({ id: z.uuid(), name: z.string() }).strict().nullable(),
  description: z.string().nullable(),
  schedule: z.object({ text: z.string().nullable(), day: z.enum(WEEKDAYS).nullable(), time: z.string().nullable() }).strict(),
  location: z.object({ kind: z.enum(LOCATION_KINDS), address: z.string().nullable(), area: z.string().nullable(), onlineUrl: z.string().nullable() }).strict(),
  listed: z.boolean().describe('Shown in the group finder (groups_search); a hidden group is reached by staff and its leaders only'),
  confidential: z.boolean().describe('Its roster is shown only to its leaders and staff holding people:safeguarding'),
  capacity: z.number().int().nullable().describe('How many the meeting place holds'),
  ageRange: z.object({ min: z.number().int().nullable(), max: z.number().int().nullable() }).strict(),
  tags: z.array(z.string()),
  archived: z.boolean(),
  archivedAt: z.string().nullable(),
  enrolment: z.object({
    strategy: z.enum(ENROLMENT_STRATEGIES),
    open: z.boolean().describe('Taking members (or requests) now'),
    closedBy: z.enum(['strategy', 'member_limit', 'closing_date', 'archived']).nullable(),
    memberLimit: z.number().int().nullable(),
    closesOn: z.string().nullable(),
    autoClosedAt: z.string().nullable().describe('When reaching the member limit or the closing date closed it'),
    members: z.number().int().describe('Current members (leaders not counted); 0 when the roster is confidential to you'),
    placesLeft: z.number().int().nullable().describe('Null without a limit, or when the roster is confidential to you'),
  }).strict(),
  leaders: z.number().int(),
  youLead: z.boolean().describe('Your credential is linked to one of its leaders'),
  createdAt: z.string(),
}).strict();

export const joinRequestSchema = z.object({
  id: z.uuid(), groupId: z.uuid(), contactId: z.uuid(), name: z.string(), status: z.enum(['pending', 'approved', 'declined']), message: z.string().nullable(),
  declineReason: z.string().nullable(), decidedByUserId: z.uuid().nullable(), decidedAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const rosterEntrySchema = z.object({
  membershipId: z.uuid(), contactId: z.uuid(), name: z.string(), role: z.enum(['leader', 'member']), leaderUserId: z.uuid().nullable().describe('The team login acting as this leader'),
  joinedAt: z.string(), leftAt: z.string().nullable(), leftReason: z.string().nullable(),
}).strict();

export const meetingSchema = z.object({
  id: z.uuid(), groupId: z.uuid(), seriesId: z.uuid().nullable(), rrule: z.string().nullable(), title: z.string().nullable(), startsAt: z.string(),
  localDate: z.string(), localTime: z.string(), timeZone: z.string(), durationMinutes: z.number().int(), location: z.string().nullable(), notes: z.string().nullable(),
  rsvps: z.object({ yes: z.number().int(), no: z.number().int(), maybe: z.number().int() }).strict(),
  attendance: z.object({ recorded: z.boolean(), present: z.number().int().describe('Members present'), absent: z.number().int(), visitors: z.number().int() }).strict(),
}).strict();

export const attendanceRecordSchema = z.object({ contactId: z.uuid().nullable(), name: z.string(), present: z.boolean(), visitor: z.boolean() }).strict();
