import { z } from 'zod';
import { calendarDate, toolsFor } from '../../../../kit';
import type { ToolContext } from '../../../../tool';
import { dateText } from '../../../schemas';
import { getPastoralSettings } from '../../care/settings';
import { canSeeRestricted, isRestrictedRecord, pastoralPrivacyInput } from '../../privacy';
import { VISIT_KINDS, pastoralVisitSchema } from '../schemas';
import { VISIT_REMOVED_TIMELINE_KIND, VISIT_TIMELINE_KIND, listPastoralVisits, logPastoralVisit, removePastoralVisit, visitAnalytics } from '../visits';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const sees = (ctx: ToolContext) => canSeeRestricted(ctx.principal);

/** Timeline source kinds: the visit itself, and the content-free entry its removal leaves. */
const VISIT_SOURCE = 'pastoral_visit';
const VISIT_REMOVAL_SOURCE = 'pastoral_visit_removal';

export const logPastoralVisitTool = tools.write('log_pastoral_visit', {
  title: 'Log a pastoral visit',
  description: 'Records a pastoral visit or call (home, hospital, care home, phone, video, church) on a date, adds it to the care timeline and counts it as pastoral contact for welfare checks. Private or amber/red visits are seen only with people:safeguarding.',
  keywords: ['visit', 'hospital visit', 'home visit', 'pastoral call'],
  examples: ['I visited Edith in hospital yesterday', 'log a phone call with the Browns about the funeral', 'popped in to see Mavis at the care home this morning', 'had a video call with Stan for 30 minutes', 'record a home visit to the Singhs on 4 June', 'I called Jean on the phone today for twenty minutes', 'went to see Brian at the hospice', 'put down that Revd Sue visited the Khans at home yesterday', 'visited Hilda today', 'spent an hour with Colin at the Royal Infirmary this afternoon, log that visit', 'I need to record a phone call with Ruth from Monday'],
  // One of the few pastoral tools in the default tools/list: recording a visit is an everyday act.
  listed: true,
  input: z.object({
    contactId: z.uuid().describe('The contact visited'),
    visitDate: dateText().optional().describe("When it happened, in the organisation's date format or YYYY-MM-DD; today when omitted; never in the future"),
    kind: z.enum(VISIT_KINDS).default('home').describe('home (default), hospital, care_home, phone, video, church or other'),
    durationMinutes: z.number().int().min(1).max(1440).optional().describe('How long it lasted, in minutes'),
    summary: z.string().trim().min(1).max(4000).describe('How it went, naming people by name, never by id'),
    visitorName: z.string().trim().min(1).max(200).optional().describe('Who made the visit'),
    ...pastoralPrivacyInput,
  }),
  output: z.object({ visit: pastoralVisitSchema }).strict(),
  timeline: (_input, output) => [{
    contactId: output.visit.contactId, kind: VISIT_TIMELINE_KIND, sourceKind: VISIT_SOURCE, sourceId: output.visit.id,
    summary: `Pastoral visit (${output.visit.kind.replace('_', ' ')})`, occurredAt: `${output.visit.visitDate}T12:00:00Z`,
    restricted: isRestrictedRecord(output.visit),
  }],
  run: async (ctx, input) => {
    // Unstated privacy follows the organisation's pastoral settings, as for every pastoral record.
    const settings = await getPastoralSettings(ctx.db, ctx.org.id);
    return {
      visit: await logPastoralVisit(ctx.db, ctx.org, ctx.principal.userId, {
        ...input, privacy: input.privacy ?? settings.defaultPrivacy, confidentialityLevel: input.confidentialityLevel ?? settings.defaultConfidentialityLevel,
      }),
    };
  },
});

export const listPastoralVisitsTool = tools.read('list_pastoral_visits', {
  title: 'List pastoral visits',
  description: 'Pastoral visits, most recent first, optionally for one contact, a kind or dates between from and to (YYYY-MM-DD). Private and amber/red visits are included only for callers holding people:safeguarding.',
  keywords: ['visits', 'visit log', 'who was visited', 'visits list', 'home visits'],
  examples: ['who did we visit last month', 'show the hospital visits to Edith', 'list all care home visits in May', 'show visits between 1 and 15 June', "every visit we've made to the Singhs", 'recent home visits', 'who has been visited this week', 'phone calls logged as visits last month', 'which visits did Grace make in March', 'when did we last visit Doris', 'all hospital visits this year', 'list care home visits since Easter'],
  input: z.object({
    contactId: z.uuid().optional().describe('Only visits to this contact'),
    kind: z.enum(VISIT_KINDS).optional().describe('Only this kind of visit'),
    from: calendarDate().optional().describe('First visit date (YYYY-MM-DD)'),
    to: calendarDate().optional().describe('Last visit date (YYYY-MM-DD)'),
    limit: z.number().int().min(1).max(200).default(50).describe('How many to return (1 to 200)'),
  }),
  output: z.object({ visits: z.array(pastoralVisitSchema) }).strict(),
  run: async (ctx, input) => ({ visits: await listPastoralVisits(ctx.db, ctx.org.id, sees(ctx), input) }),
});

export const getVisitAnalyticsTool = tools.read('get_visit_analytics', {
  title: 'Pastoral visit analytics',
  description: 'Counts of pastoral visits (total, people visited, minutes, by kind, month and visitor) for visit dates between optional from and to (YYYY-MM-DD, inclusive). Restricted visits are counted only for callers holding people:safeguarding.',
  keywords: ['visit statistics', 'pastoral report', 'how many visits'],
  examples: ['how many visits did we make this quarter', 'visits per month this year', 'how many hours did we spend visiting last year', 'number of visits by each visitor', 'breakdown of hospital versus home visits', 'visit figures for the annual report', 'how many different people did we visit in the spring', 'total pastoral visits in 2024', 'visit numbers for 2025', 'the PCC want to know how much visiting the team did since April', 'which visitor made the most visits this year?'],
  input: z.object({
    from: calendarDate().optional().describe('First visit date counted (YYYY-MM-DD)'),
    to: calendarDate().optional().describe('Last visit date counted (YYYY-MM-DD)'),
  }),
  output: z.object({
    from: z.string().nullable(),
    to: z.string().nullable(),
    total: z.number().int(),
    contactsVisited: z.number().int(),
    totalMinutes: z.number().int(),
    byKind: z.record(z.string(), z.number().int()),
    byMonth: z.array(z.object({ month: z.string().describe('YYYY-MM'), visits: z.number().int(), contacts: z.number().int() }).strict()),
    byVisitor: z.array(z.object({ visitor: z.string(), visits: z.number().int() }).strict()),
    includesRestricted: z.boolean().describe('Whether private and confidential visits were counted (only with people:safeguarding)'),
  }).strict(),
  run: async (ctx, input) => visitAnalytics(ctx.db, ctx.org.id, sees(ctx), input),
});

export const removePastoralVisitTool = tools.write('remove_pastoral_visit', {
  title: 'Remove a pastoral visit',
  description: 'Deletes a pastoral visit logged in error. The care timeline keeps a content-free entry saying a visit record was removed, visible by the same rule as the visit (a restricted visit\'s removal only to people:safeguarding holders).',
  keywords: ['delete visit', 'undo visit', 'delete pastoral visit', 'visit logged in error'],
  examples: ['that visit was logged against the wrong person, remove it', 'delete the visit I logged twice', "undo the hospital visit entry, it didn't happen", 'scrap the visit to Mavis, wrong date and person', 'bin that home visit record', 'the visit to the Khans was cancelled, remove it', 'take off the phone call I logged by mistake', 'I logged a visit to the wrong Jean, delete it', "remove Tuesday's visit record, it never happened", 'delete the duplicate hospital visit to Stan', 'that visit entry was a mistake, take it off'],
  destructive: true,
  input: z.object({ visitId: z.uuid().describe('The visit to remove') }),
  output: z.object({ visitId: z.uuid(), contactId: z.uuid(), removed: z.literal(true), restricted: z.boolean() }).strict(),
  timeline: (input, output) => [{
    contactId: output.contactId, kind: VISIT_REMOVED_TIMELINE_KIND, sourceKind: VISIT_REMOVAL_SOURCE, sourceId: input.visitId,
    summary: 'A pastoral visit record was removed', restricted: output.restricted,
  }],
  run: async (ctx, input) => {
    const visit = await removePastoralVisit(ctx.db, ctx.org.id, input.visitId, sees(ctx));
    return { visitId: visit.id, contactId: visit.contactId, removed: true as const, restricted: isRestrictedRecord(visit) };
  },
});

export const visitTools = [logPastoralVisitTool, listPastoralVisitsTool, getVisitAnalyticsTool, removePastoralVisitTool];
