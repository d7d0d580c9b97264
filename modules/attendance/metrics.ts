import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { addDays, countOf, defineMetric, mondayOf, periodRange, rangeOr, spokenDate, spokenRange, todayUtc, type AnyMetric, type MetricParams } from '../metrics';
import { attendanceSummary } from './summary';

/** What attendance answers through platform_analytics_query; every figure is attendance_get_summary's. */

const DEFAULT_TREND_WEEKS = 12;
/** The schedule lists at most 400 days of instances at once; a range stays inside that. */
export const MAX_RANGE_DAYS = 396;

export function assertRangeLength(range: { from: string; to: string }): void {
  if (range.from < addDays(range.to, -MAX_RANGE_DAYS)) {
    throw new StewardError('validation_failed', `A range covers at most ${MAX_RANGE_DAYS} days`, { issues: [{ path: 'from', message: `at most ${MAX_RANGE_DAYS} days before to` }], hint: 'Ask for a shorter range.' });
  }
}

const attendanceTotal = defineMetric({
  name: 'attendance_total',
  description: 'Attendance over a range (default: this month so far): the sum over services of each service\'s total (its headcount when recorded, else the people checked in), with the number of services and the average.',
  scope: 'attendance:read',
  params: ['range'],
  output: z.object({ from: z.string(), to: z.string(), total: z.number().int(), services: z.number().int(), averagePerService: z.number().nullable(), firstTimers: z.number().int() }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    assertRangeLength({ from, to });
    const { totals } = await attendanceSummary(ctx.db, ctx.org.id, { from, to });
    const when = spokenRange(from, to);
    const speakToUser = totals.services === 0
      ? `No services took place ${when}.`
      : `${countOf(totals.total, 'person', 'people')} attended ${countOf(totals.services, 'service')} ${when}, ${totals.averagePerService} on average.`;
    return { data: { from, to, total: totals.total, services: totals.services, averagePerService: totals.averagePerService, firstTimers: totals.firstTimers }, speakToUser };
  },
});

function trendRange(params: MetricParams): { from: string; to: string } {
  const range = rangeOr(params, () => ({ from: addDays(mondayOf(todayUtc()), -7 * (DEFAULT_TREND_WEEKS - 1)), to: todayUtc() }));
  assertRangeLength(range);
  return range;
}

const weeklyTrendAttendance = defineMetric({
  name: 'weekly_trend_attendance',
  description: `Attendance per ISO week (Monday to Sunday) over a range (default: the last ${DEFAULT_TREND_WEEKS} weeks, this one included), with the change on the week before; weeks without services show 0.`,
  scope: 'attendance:read',
  params: ['range'],
  output: z.object({
    from: z.string(), to: z.string(), total: z.number().int(),
    weeks: z.array(z.object({ weekStart: z.string(), services: z.number().int(), total: z.number().int(), firstTimers: z.number().int(), change: z.number().int().nullable(), changePercent: z.number().nullable() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = trendRange(params);
    const summary = await attendanceSummary(ctx.db, ctx.org.id, { from, to });
    const weeks = summary.weeks;
    const last = weeks[weeks.length - 1];
    const best = weeks.reduce((top, week) => (week.total > top.total ? week : top), weeks[0]);
    const speakToUser = summary.totals.total === 0
      ? `Nobody was counted over the ${countOf(weeks.length, 'week')} ${spokenRange(from, to)}.`
      : `${countOf(summary.totals.total, 'attendance')} over the ${countOf(weeks.length, 'week')} ${spokenRange(from, to)}; the highest week began ${spokenDate(best.weekStart)} with ${best.total}`
        + (last.change === null ? '.' : `, and the latest week was ${last.change >= 0 ? 'up' : 'down'} ${Math.abs(last.change)} on the week before.`);
    return { data: { from, to, total: summary.totals.total, weeks }, speakToUser };
  },
  chart: (data) => ({
    name: 'weekly-attendance', title: 'Attendance by week, with first-timers',
    summary: `Attendance by week from ${data.from} to ${data.to}: ${data.weeks.map((week) => `week of ${week.weekStart} ${week.total} (${week.firstTimers} first-time)`).join('; ')}`,
    labels: data.weeks.map((week) => week.weekStart),
    series: [
      { label: 'Attendance', values: data.weeks.map((week) => week.total) },
      { label: 'First-timers', values: data.weeks.map((week) => week.firstTimers), kind: 'line' },
    ],
    unit: { kind: 'count' },
  }),
});

export const attendanceMetrics: readonly AnyMetric[] = [attendanceTotal, weeklyTrendAttendance];
