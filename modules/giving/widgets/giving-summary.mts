// Giving summary: giving_summary's periods and funds as bar charts, each with the same dates a year earlier beside it.
import { seriesChart } from '../../widget-charts.mjs';
import { el, money, startWidget } from '../../widget-view.mjs';

interface Summary {
  currency: string | null;
  from: string;
  to: string;
  period: string;
  total: number;
  donationCount: number;
  byFund: Array<{ fundId: string; fundName: string; total: number; donationCount: number; lastYearTotal: number }>;
  byPeriod: Array<{ periodStart: string; total: number; donationCount: number; lastYearTotal: number }>;
  thisMonth: { total: number; sameMonthLastYear: number };
}

function summary(data: Summary): Node {
  const format = (minor: number) => (data.currency ? money(minor, data.currency) : minor.toLocaleString());
  const periodLabel = (start: string) => (data.period === 'year' ? start.slice(0, 4) : data.period === 'month' || data.period === 'quarter' ? start.slice(0, 7) : start);
  const lastYear = (rows: Array<{ lastYearTotal: number }>) => rows.reduce((sum, row) => sum + row.lastYearTotal, 0);
  return el('section', {},
    el('h1', {}, `Giving ${data.from} to ${data.to}`),
    el('p', { class: 'muted', 'data-field': 'total' }, `${format(data.total)} from ${data.donationCount} gifts; the same dates last year: ${format(lastYear(data.byFund.length ? data.byFund : data.byPeriod))} in these funds`),
    seriesChart({
      name: 'by-period', title: `By ${data.period}, with last year`,
      summary: `Giving by ${data.period} from ${data.from} to ${data.to}: ${data.byPeriod.map((row) => `${periodLabel(row.periodStart)} ${format(row.total)} (last year ${format(row.lastYearTotal)})`).join('; ')}`,
      labels: data.byPeriod.map((row) => periodLabel(row.periodStart)),
      series: [
        { label: 'This year', values: data.byPeriod.map((row) => row.total), format },
        { label: 'Last year', values: data.byPeriod.map((row) => row.lastYearTotal), format, kind: 'line', dashed: true },
      ],
    }),
    seriesChart({
      name: 'by-fund', title: 'By fund, with last year',
      summary: `Giving by fund: ${data.byFund.map((row) => `${row.fundName} ${format(row.total)} (last year ${format(row.lastYearTotal)})`).join('; ')}`,
      labels: data.byFund.map((row) => row.fundName),
      series: [
        { label: 'This year', values: data.byFund.map((row) => row.total), format },
        { label: 'Last year', values: data.byFund.map((row) => row.lastYearTotal), format, kind: 'bars' },
      ],
    }));
}

startWidget('steward-giving-summary', summary);
