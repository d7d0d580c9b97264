import { z } from 'zod';
import { countOf, defineMetric, periodRange, rangeOr, spokenRange, type AnyMetric } from '../../../metrics';
import { canSeeRestricted } from '../privacy';
import { prayerAnalytics } from './prayer';
import { countRoster, getCommunitySettings } from './roster';
import { visitAnalytics } from './visits';

// What prayer, visits and the roster answer through platform_analytics_query, each under the caller's
// view: restricted (private, amber, red) records are counted only for a caller holding people:safeguarding.

const pastoralVisits = defineMetric({
  name: 'pastoral_visits',
  description: 'Pastoral visits made in a range (default: this month so far) and how many people they reached; restricted visits only with people:safeguarding.',
  scope: 'people:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), visits: z.number().int(), peopleVisited: z.number().int() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const stats = await visitAnalytics(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { from, to });
    return {
      data: { from, to, visits: stats.total, peopleVisited: stats.contactsVisited },
      speakToUser: `${countOf(stats.total, 'pastoral visit')} ${spokenRange(from, to)}, to ${countOf(stats.contactsVisited, 'person', 'people')}.`,
    };
  },
});

const prayerRequests = defineMetric({
  name: 'prayer_requests',
  description: 'Prayer requests added in a range (default: this month so far), how many of them are answered, and the answered rate; restricted requests only with people:safeguarding.',
  scope: 'people:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), added: z.number().int(), answered: z.number().int(), answeredRate: z.number().nullable() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const stats = await prayerAnalytics(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal), { from, to });
    return {
      data: { from, to, added: stats.total, answered: stats.byStatus.answered, answeredRate: stats.answeredRate },
      speakToUser: `${countOf(stats.total, 'prayer request')} ${spokenRange(from, to)}; ${stats.byStatus.answered.toLocaleString('en-GB')} answered so far.`,
    };
  },
});

const rosterMembers = defineMetric({
  name: 'roster_members',
  description: 'How many people are on the community roster now, and how many joined or left within the new-member window of the community settings.',
  scope: 'people:read',
  params: [],
  output: z.object({ current: z.number().int(), joinedRecently: z.number().int(), leftRecently: z.number().int(), windowDays: z.number().int() }).strict(),
  compute: async (ctx) => {
    const { newMemberWindowDays } = await getCommunitySettings(ctx.db, ctx.org.id);
    const { current, joinedRecently, leftRecently, windowDays } = await countRoster(ctx.db, ctx.org.id, newMemberWindowDays);
    return {
      data: { current, joinedRecently, leftRecently, windowDays },
      speakToUser: `${countOf(current, 'person is', 'people are')} on the community roster; ${joinedRecently.toLocaleString('en-GB')} joined and ${leftRecently.toLocaleString('en-GB')} left in the last ${windowDays} days.`,
    };
  },
});

export const prayerVisitsMetrics: readonly AnyMetric[] = [pastoralVisits, prayerRequests, rosterMembers];
