import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { addDays, countOf, defineMetric, mondayOf, periodRange, rangeOr, spokenDate, spokenRange, todayUtc, type AnyMetric, type MetricParams } from '../metrics';
import type { ToolContext } from '../tool';
import { formatMinorUnits } from './money';
import { givingSettingsOf } from './settings';
import { givingSummary, topGiverSchema, topGiversBetween } from './summary';

/**
 * What giving answers through platform_analytics_query. Every figure is the giving summary's:
 * committed gifts only, by the date received, net of refunds, in integer minor units.
 */

/** The longest range a weekly trend covers: two years of weeks is already more than a chart shows. */
const MAX_TREND_WEEKS = 105;
/** Top donors need at least this many months, as giving_list_top_givers does, so one large gift singles nobody out. */
const MIN_TOP_DONOR_MONTHS = 3;
const DEFAULT_TREND_WEEKS = 12;

const money = (ctx: ToolContext, currency: string | null) => (amount: number) => formatMinorUnits(amount, currency, ctx.org.country);

/** "2026-W45": the ISO week a Monday starts (the week belongs to the year of its Thursday). */
function isoWeekOf(monday: string): string {
  const thursday = addDays(monday, 3);
  const yearStart = Date.parse(`${thursday.slice(0, 4)}-01-01T00:00:00Z`);
  const week = 1 + Math.floor((Date.parse(`${thursday}T00:00:00Z`) - yearStart) / (7 * 86_400_000));
  return `${thursday.slice(0, 4)}-W${String(week).padStart(2, '0')}`;
}

/** The date `months` whole months before `date`, plus a day: the first day of a period of that many months ending on `date`. */
function monthsEndingOn(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 - months, d + 1)).toISOString().slice(0, 10);
}

const givingTotal = defineMetric({
  name: 'giving_total',
  description: 'What was given in a range (default: this month so far): committed gifts net of refunds, in minor units, with the number of gifts.',
  scope: 'giving:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), currency: z.string().nullable(), total: z.number().int(), giftCount: z.number().int() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const summary = await givingSummary(ctx.db, ctx.org, { from, to, period: 'month' });
    const when = spokenRange(from, to);
    const speakToUser = summary.donationCount === 0
      ? `Nothing was given ${when}.`
      : `${money(ctx, summary.currency)(summary.total)} was given ${when} across ${countOf(summary.donationCount, 'gift')}.`;
    return { data: { from, to, currency: summary.currency, total: summary.total, giftCount: summary.donationCount }, speakToUser };
  },
});

/** The default trend: the current ISO week and the eleven before it. */
function lastTrendWeeks(): { from: string; to: string } {
  const today = todayUtc();
  return { from: addDays(mondayOf(today), -7 * (DEFAULT_TREND_WEEKS - 1)), to: today };
}

function trendRange(params: MetricParams): { from: string; to: string; mondays: string[] } {
  const { from, to } = rangeOr(params, lastTrendWeeks);
  const mondays: string[] = [];
  for (let monday = mondayOf(from); monday <= to; monday = addDays(monday, 7)) {
    if (mondays.length === MAX_TREND_WEEKS) {
      throw new StewardError('validation_failed', `A weekly trend covers at most ${MAX_TREND_WEEKS} weeks`, {
        issues: [{ path: 'from', message: `the range spans more than ${MAX_TREND_WEEKS} weeks` }], hint: 'Shorten the range, or ask giving_total for the whole of it.',
      });
    }
    mondays.push(monday);
  }
  return { from, to, mondays };
}

const weeklyTrendGiving = defineMetric({
  name: 'weekly_trend_giving',
  description: `Giving per ISO week (Monday to Sunday) over a range (default: the last ${DEFAULT_TREND_WEEKS} weeks, this one included), committed gifts net of refunds; weeks with no gifts show 0.`,
  scope: 'giving:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), currency: z.string().nullable(), total: z.number().int(),
    weeks: z.array(z.object({
      weekStart: z.string(), isoWeek: z.string(), total: z.number().int(), giftCount: z.number().int(),
      lastYearTotal: z.number().int().describe('What was given in the same week a year earlier (its gifts moved on a year), net of refunds'),
    }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to, mondays } = trendRange(params);
    const summary = await givingSummary(ctx.db, ctx.org, { from, to, period: 'week' });
    const byWeek = new Map(summary.byPeriod.map((week) => [week.periodStart, week]));
    const weeks = mondays.map((weekStart) => ({
      weekStart, isoWeek: isoWeekOf(weekStart), total: byWeek.get(weekStart)?.total ?? 0, giftCount: byWeek.get(weekStart)?.donationCount ?? 0,
      lastYearTotal: byWeek.get(weekStart)?.lastYearTotal ?? 0,
    }));
    return { data: { from, to, currency: summary.currency, total: summary.total, weeks }, speakToUser: trendSentence(weeks, summary.total, money(ctx, summary.currency), from, to) };
  },
  chart: (data) => ({
    name: 'weekly-giving', title: 'Giving by week, with the same weeks last year',
    summary: `Giving by week from ${data.from} to ${data.to}: ${data.weeks.map((week) => `${week.isoWeek} ${week.total} (last year ${week.lastYearTotal})`).join('; ')}`,
    labels: data.weeks.map((week) => week.isoWeek),
    series: [
      { label: 'This year', values: data.weeks.map((week) => week.total) },
      { label: 'Last year', values: data.weeks.map((week) => week.lastYearTotal), kind: 'line', dashed: true },
    ],
    unit: data.currency ? { kind: 'money', currency: data.currency } : { kind: 'count' },
  }),
});

function trendSentence(weeks: Array<{ weekStart: string; total: number }>, total: number, format: (n: number) => string, from: string, to: string): string {
  const span = `${countOf(weeks.length, 'week')} ${spokenRange(from, to)}`;
  const best = weeks.reduce((top, week) => (week.total > top.total ? week : top), weeks[0]);
  if (!best || best.total <= 0) return `Nothing was given over the ${span}.`;
  return `${format(total)} was given over the ${span}; the highest week began ${spokenDate(best.weekStart)}, with ${format(best.total)}.`;
}

function topDonorRange(params: MetricParams): { from: string; to: string } {
  const range = rangeOr(params, () => ({ from: monthsEndingOn(todayUtc(), 12), to: todayUtc() }));
  if (range.from > monthsEndingOn(range.to, MIN_TOP_DONOR_MONTHS)) {
    throw new StewardError('validation_failed', `Top donors cover at least ${MIN_TOP_DONOR_MONTHS} months, so no single gift singles anyone out`, {
      issues: [{ path: 'from', message: `must be on or before ${monthsEndingOn(range.to, MIN_TOP_DONOR_MONTHS)}` }],
    });
  }
  return range;
}

const topDonors = defineMetric({
  name: 'top_donors',
  description: `The givers who gave most over at least ${MIN_TOP_DONOR_MONTHS} months (default: the last 12), net of refunds; anonymous gifts are never listed. limit: how many (default 10).`,
  scope: 'giving:read',
  params: ['range', 'limit'],
  output: z.object({ from: z.string(), to: z.string(), currency: z.string().nullable(), donors: z.array(topGiverSchema) }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = topDonorRange(params);
    const donors = await topGiversBetween(ctx.db, ctx.org.id, from, to, params.limit ?? 10);
    const { currency } = await givingSettingsOf(ctx.db, ctx.org);
    const format = money(ctx, currency);
    const speakToUser = donors.length === 0
      ? `Nobody gave ${spokenRange(from, to)}, apart from any anonymous gifts.`
      : `The top ${countOf(donors.length, 'giver')} ${spokenRange(from, to)}: ${donors.map((donor) => `${donor.displayName} (${format(donor.total)})`).join(', ')}.`;
    return { data: { from, to, currency, donors }, speakToUser };
  },
});

export const givingMetrics: readonly AnyMetric[] = [givingTotal, weeklyTrendGiving, topDonors];
