import { z } from 'zod';
import { assertDateRange, calendarDate, toolsFor } from '../../../../kit';
import type { ToolContext } from '../../../../tool';
import { CONFIDENTIALITY_LEVELS } from '../../../schemas';
import { canSeeRestricted } from '../../privacy';
import { addPrayerRequest, isRestrictedPrayer, listPrayerRequests, prayerAnalytics, setPrayerRequestStatus, updatePrayerRequest } from '../prayer';
import { PRAYER_STATUSES, PRAYER_VISIBILITIES, prayerRequestSchema, visibilityOfPrivacy, type PrayerRequestView } from '../schemas';
import { getPastoralSettings } from '../../care/settings';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const sees = (ctx: ToolContext) => canSeeRestricted(ctx.principal);

/** A prayer request's entry on the care timeline: its opening words, restricted as the request is. */
function prayerTimeline(request: PrayerRequestView, kind: 'prayer_request' | 'prayer_answered') {
  const words = request.request.replace(/\s+/g, ' ').trim();
  const summary = kind === 'prayer_answered' ? 'Prayer request marked answered' : `Prayer request: ${words.length > 120 ? `${words.slice(0, 117)}...` : words}`;
  return {
    contactId: request.contactId, kind, sourceKind: 'prayer_request', sourceId: request.id, summary,
    occurredAt: kind === 'prayer_answered' ? request.answeredAt ?? undefined : request.createdAt, restricted: isRestrictedPrayer(request),
  };
}

export const addPrayerRequestTool = tools.write('add_prayer_request', {
  title: 'Record a prayer request',
  description: 'Records a prayer request for or from a contact and adds it to their care timeline. visibility: private (only people:safeguarding holders), team or congregation (may later be shared to the moderated prayer wall), by default from the pastoral settings; amber/red confidentiality is restricted like private.',
  keywords: ['prayer', 'pray for', 'prayer need'],
  examples: ['Margaret asked us to pray for her hip operation', 'add a private prayer request for John', "please pray for Dave's job interview on Friday", 'Ann wants prayer for her grandson, keep it private', "add a prayer need for the Wilsons' move", 'Stan asked us to pray for his scan results', 'the Okafors would like prayer for their new baby', "put down a prayer for Jean's daughter, who's unwell", "pray for Hilda's surgery", 'Colin said after church his brother is very ill and asked for prayer, keep it to the team', "I need to add a prayer request for Ruth's new job"],
  input: z.object({
    contactId: z.uuid().describe('The contact the request is for or from'),
    request: z.string().trim().min(1).max(4000).describe('What to pray for, naming people by name, never by id'),
    visibility: z.enum(PRAYER_VISIBILITIES).optional().describe('private, team or congregation; default from the pastoral settings\' default privacy (public counts as congregation), else team'),
    confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).optional().describe('green, amber or red (amber and red are seen only with people:safeguarding); default from the pastoral settings, else green'),
    urgent: z.boolean().default(false).describe('True when the care lead should see it first'),
  }),
  output: z.object({ prayerRequest: prayerRequestSchema }).strict(),
  timeline: (_input, output) => [prayerTimeline(output.prayerRequest, 'prayer_request')],
  run: async (ctx, input) => {
    const settings = await getPastoralSettings(ctx.db, ctx.org.id);
    return {
      prayerRequest: await addPrayerRequest(ctx.db, ctx.org.id, ctx.principal.userId, {
        ...input,
        visibility: input.visibility ?? visibilityOfPrivacy(settings.defaultPrivacy),
        confidentialityLevel: input.confidentialityLevel ?? settings.defaultConfidentialityLevel,
      }),
    };
  },
});

export const listPrayerRequestsTool = tools.read('list_prayer_requests', {
  title: 'List prayer requests',
  description: 'Prayer requests, newest first, optionally for one contact or by status, visibility or urgency. Private and amber/red requests are included only for callers holding people:safeguarding.',
  keywords: ['prayer list', 'prayer needs', 'prayer requests', 'what to pray for'],
  examples: ['what are we praying for this week', 'show urgent prayer requests', 'show answered prayer requests', 'what are we praying for for the Joneses', 'any urgent prayer needs', 'list all the current prayer requests', 'prayer requests shared with the whole congregation', 'what has Margaret asked us to pray for', 'which prayer requests are still open', 'prayers for the prayer chain this week', 'what prayer requests has the team got for the Wilsons', 'show the private prayer requests'],
  input: z.object({
    contactId: z.uuid().optional().describe('Only this contact\'s requests'),
    status: z.enum(PRAYER_STATUSES).optional().describe('active or answered; both when omitted'),
    visibility: z.enum(PRAYER_VISIBILITIES).optional().describe('Only requests with this visibility'),
    urgentOnly: z.boolean().default(false).describe('Only urgent requests'),
    limit: z.number().int().min(1).max(200).default(50).describe('How many to return (1 to 200)'),
  }),
  output: z.object({ prayerRequests: z.array(prayerRequestSchema) }).strict(),
  run: async (ctx, input) => ({ prayerRequests: await listPrayerRequests(ctx.db, ctx.org.id, sees(ctx), input) }),
});

export const setPrayerRequestStatusTool = tools.write('set_prayer_request_status', {
  title: 'Set a prayer request\'s status',
  description: 'Marks a prayer request answered (with an optional note of how) or active again, and records it on the care timeline. Setting the status it already has changes nothing.',
  keywords: ['answered prayer', 'praise report', 'reopen prayer request'],
  examples: ['her prayer was answered, the surgery went well', 'mark the prayer request for the job as answered', 'Sue got the job, mark her prayer answered', "reopen the prayer for Tom's health", 'praise report: Lily has recovered', "the scan was clear, close Stan's prayer as answered", "put Jean's prayer request back to active", "answered prayer for the Wilsons, they've found a house", "Hilda's prayer answered", "Colin's brother is out of hospital, so mark that prayer as answered with a note", "can Ruth's prayer request be made active again?"],
  idempotent: true,
  input: z.object({
    prayerRequestId: z.uuid().describe('The prayer request'),
    status: z.enum(PRAYER_STATUSES).describe('answered, or active to reopen it'),
    answerNote: z.string().trim().min(1).max(2000).optional().describe('How the prayer was answered (only with status answered)'),
  }),
  output: z.object({ prayerRequest: prayerRequestSchema, changed: z.boolean() }).strict(),
  timeline: (_input, output) => (output.changed && output.prayerRequest.status === 'answered' ? [prayerTimeline(output.prayerRequest, 'prayer_answered')] : []),
  run: async (ctx, input) => setPrayerRequestStatus(ctx.db, ctx.org.id, sees(ctx), input),
});

export const updatePrayerRequestTool = tools.write('update_prayer_request', {
  title: 'Update a prayer request',
  description: 'Changes a prayer request\'s text, visibility (private, team, congregation), confidentiality or urgency; only the fields given change. Making it private or confidential takes it off the prayer wall and hides it, and its timeline entries, from callers without people:safeguarding.',
  keywords: ['edit prayer request', 'make prayer private', 'prayer visibility', 'change prayer request', 'reword prayer'],
  examples: ['Margaret would rather keep her request within the pastoral team', 'mark the prayer for Tom as urgent', "change Ann's prayer to team only", 'reword the prayer request for Bill', "mark Jim's prayer request confidential", "let the whole church see the Wilsons' prayer request", "Stan's prayer is no longer urgent", "edit the wording of Dave's prayer need", "make Sue's prayer request private", "share Ken's prayer with the congregation now he has agreed", "the prayer for Sam's operation is urgent now", 'update the wording of the prayer for the Morgans'],
  idempotent: true,
  input: z.object({
    prayerRequestId: z.uuid().describe('The prayer request'),
    request: z.string().trim().min(1).max(4000).optional().describe('New wording, naming people by name, never by id'),
    visibility: z.enum(PRAYER_VISIBILITIES).optional().describe('private, team or congregation'),
    confidentialityLevel: z.enum(CONFIDENTIALITY_LEVELS).optional().describe('green, amber or red'),
    urgent: z.boolean().optional().describe('Whether the care lead should see it first'),
  }),
  output: z.object({ prayerRequest: prayerRequestSchema, changedFields: z.array(z.string()) }).strict(),
  // Both entries follow the request's new audience (an upsert rewrites the restricted flag).
  timeline: (_input, output) => [
    prayerTimeline(output.prayerRequest, 'prayer_request'),
    ...(output.prayerRequest.status === 'answered' ? [prayerTimeline(output.prayerRequest, 'prayer_answered')] : []),
  ],
  run: async (ctx, input) => {
    const { prayerRequest, changed } = await updatePrayerRequest(ctx.db, ctx.org.id, sees(ctx), input);
    return { prayerRequest, changedFields: changed };
  },
});

const countsByMonth = z.array(z.object({ month: z.string().describe('YYYY-MM'), added: z.number().int(), answered: z.number().int() }).strict());

export const getPrayerAnalyticsTool = tools.read('get_prayer_analytics', {
  title: 'Prayer request analytics',
  description: 'Counts of prayer requests by status, visibility and month added, the answered rate and the median days to an answer, optionally for requests added between from and to (YYYY-MM-DD). Restricted requests are counted only for callers holding people:safeguarding.',
  keywords: ['prayer statistics', 'answered prayers', 'prayer report', 'prayer stats', 'prayer numbers'],
  examples: ['how many prayers were answered this year', 'prayer request trends by month', 'what proportion of prayers are answered', 'how long on average before a prayer is answered', 'prayer request statistics for the AGM', 'how many prayer requests came in each month', 'number of prayer requests by status since January', 'prayer figures for the last year', 'prayer stats for last year', 'how many prayer requests have been answered so far', 'average time before a prayer request is marked answered', 'how many prayer requests are team only versus congregation'],
  input: z.object({
    from: calendarDate().optional().describe('First day (YYYY-MM-DD) a request was added'),
    to: calendarDate().optional().describe('Last day (YYYY-MM-DD) a request was added'),
  }),
  output: z.object({
    total: z.number().int(),
    byStatus: z.object({ active: z.number().int(), answered: z.number().int() }).strict(),
    byVisibility: z.object({ private: z.number().int(), team: z.number().int(), congregation: z.number().int() }).strict(),
    urgentActive: z.number().int(),
    answeredRate: z.number().nullable().describe('answered / total, null when there are none'),
    medianDaysToAnswer: z.number().nullable(),
    byMonth: countsByMonth,
    includesRestricted: z.boolean().describe('Whether private and confidential requests were counted (only with people:safeguarding)'),
  }).strict(),
  run: async (ctx, input) => {
    assertDateRange(input);
    return prayerAnalytics(ctx.db, ctx.org.id, sees(ctx), input);
  },
});

export const prayerTools = [addPrayerRequestTool, listPrayerRequestsTool, updatePrayerRequestTool, setPrayerRequestStatusTool, getPrayerAnalyticsTool];
