import { z } from 'zod';
import { assertDateRange, calendarDate, toolsFor } from '../../../kit';
import { addDays, todayUtc } from '../../../metrics';
import { StewardError } from '../../../../core/errors';
import { analyticsHeatmap, analyticsSummary } from '../analytics';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });
const MAX_RANGE_DAYS = 366;

const range = {
  from: calendarDate().optional().describe('First service date (default: 27 days before to)'),
  to: calendarDate().optional().describe('Last service date (default today)'),
};

function resolveRange(input: { from?: string; to?: string }): { from: string; to: string } {
  const to = input.to ?? todayUtc();
  const resolved = { from: input.from ?? addDays(to, -27), to };
  assertDateRange(resolved);
  if (resolved.from < addDays(resolved.to, -MAX_RANGE_DAYS)) {
    throw new StewardError('validation_failed', `A range covers at most ${MAX_RANGE_DAYS} days`, { issues: [{ path: 'from', message: 'shorten the range' }] });
  }
  return resolved;
}

export const getAnalyticsSummaryTool = tools.read('get_analytics_summary', {
  title: 'Guest analytics summary',
  description: 'Guests over a range of service dates (default the last 4 weeks): check-ins and unique people by kind, first-time guests, guests with an earlier card who came back, pipeline cards opened and completed, welcome cards queued and sent, and welcome card submissions that created or matched a contact.',
  keywords: ['guest statistics', 'newcomers this month', 'first-time guests', 'visitor numbers', 'guest report'],
  examples: ['how many first-time guests did we have this month', 'how many visitors came back after their first visit', 'newcomer numbers since September', 'how many newcomers have we had since Easter', 'guest numbers for the last month', 'how many visitors filled in a welcome card this term', 'how many first-time guests came back', 'new visitor stats for the autumn', 'how many welcome cards did we send this quarter', 'how many guests did we have this term', 'guest figures for the last four weeks', 'how many newcomer cards were opened and completed since Easter'],
  input: z.object(range),
  output: z.object({
    from: z.string(), to: z.string(), checkins: z.number().int(), uniquePeople: z.number().int(), firstTimeGuests: z.number().int(), returningGuests: z.number().int(),
    byKind: z.object({ adult: z.number().int(), child: z.number().int(), volunteer: z.number().int() }).strict(),
    servicesWithCheckins: z.number().int(), cardsOpened: z.number().int(), cardsCompleted: z.number().int(), welcomeCardsQueued: z.number().int(), welcomeCardsSent: z.number().int(),
    cardSubmissions: z.object({ createdContact: z.number().int(), matchedContact: z.number().int() }).strict(),
  }).strict(),
  run: async (ctx, input) => analyticsSummary(ctx.db, ctx.org.id, resolveRange(input)),
});

export const getAnalyticsHeatmapTool = tools.read('get_analytics_heatmap', {
  title: 'Arrivals heatmap',
  description: 'When people arrive, by local time slot (15, 30 or 60 minutes, in the organisation\'s time zone) and check-in location, over a range of service dates (default the last 4 weeks); with totals per slot and the busiest slot, to plan stations and volunteers.',
  keywords: ['arrival times', 'busiest time', 'check-in heatmap', 'peak'],
  examples: ['when do most families arrive on Sunday', 'busiest check-in time in the kids rooms', 'do we need a second welcome desk at ten past ten', 'what time do families start arriving', 'peak arrival time at the creche', 'when is the welcome desk busiest', 'arrivals by quarter hour over the last month', 'do we need more volunteers on the door at 10:15', 'which room gets the rush and when', 'arrivals heatmap', "we're thinking of opening the kids' check-in earlier, show when families actually arrive", "what's our busiest time at check-in?"],
  input: z.object({ ...range, slotMinutes: z.union([z.literal(15), z.literal(30), z.literal(60)]).default(15), locationId: z.uuid().optional() }),
  output: z.object({
    from: z.string(), to: z.string(), timeZone: z.string(), slotMinutes: z.number().int(), slots: z.array(z.string()).describe('Slot start times, HH:MM local'),
    locations: z.array(z.object({ locationId: z.uuid(), locationName: z.string(), arrivals: z.array(z.number().int()).describe('Arrivals per slot, in the order of slots'), total: z.number().int() }).strict()),
    totalsBySlot: z.array(z.number().int()),
    busiest: z.object({ locationName: z.string(), slot: z.string(), arrivals: z.number().int() }).strict().nullable(),
  }).strict(),
  run: async (ctx, input) => analyticsHeatmap(ctx.db, ctx.org.id, { ...resolveRange(input), slotMinutes: input.slotMinutes, locationId: input.locationId }),
});

export const analyticsTools = [getAnalyticsSummaryTool, getAnalyticsHeatmapTool];
