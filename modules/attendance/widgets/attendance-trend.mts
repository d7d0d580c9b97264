// Attendance trend: attendance_get_summary's weeks as bars of the total with a line of first-timers.
import { seriesChart } from '../../widget-charts.mjs';
import { el, startWidget } from '../../widget-view.mjs';

interface Summary {
  from: string;
  to: string;
  totals: { services: number; total: number; firstTimers: number; averagePerService: number | null };
  weeks: Array<{ weekStart: string; services: number; total: number; firstTimers: number; change: number | null }>;
}

function trend(data: Summary): Node {
  return el('section', {},
    el('h1', {}, `Attendance ${data.from} to ${data.to}`),
    el('p', { class: 'muted', 'data-field': 'totals' }, `${data.totals.total} at ${data.totals.services} services (${data.totals.averagePerService ?? 0} a service), ${data.totals.firstTimers} first-timers`),
    seriesChart({
      name: 'attendance-trend', title: 'Each week, with first-timers',
      summary: `Attendance by week: ${data.weeks.map((week) => `week of ${week.weekStart} ${week.total}, ${week.firstTimers} first-timers`).join('; ')}`,
      labels: data.weeks.map((week) => week.weekStart),
      series: [
        { label: 'Attendance', values: data.weeks.map((week) => week.total) },
        { label: 'First-timers', values: data.weeks.map((week) => week.firstTimers), kind: 'line' },
      ],
    }));
}

startWidget('steward-attendance-trend', trend);
