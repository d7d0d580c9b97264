// Prayer and visit analytics: people_get_prayer_analytics and people_get_visit_analytics month by month.
import { seriesChart } from '../../widget-charts.mjs';
import { el, startWidget } from '../../widget-view.mjs';

interface Prayer {
  kind: 'prayer';
  total: number;
  byStatus: { active: number; answered: number };
  answeredRate: number | null;
  medianDaysToAnswer: number | null;
  byMonth: Array<{ month: string; added: number; answered: number }>;
}

interface Visits {
  kind: 'visits';
  total: number;
  contactsVisited: number;
  totalMinutes: number;
  byMonth: Array<{ month: string; visits: number; contacts: number }>;
  byVisitor: Array<{ visitor: string; visits: number }>;
}

type Analytics = Omit<Prayer, 'kind'> | Omit<Visits, 'kind'>;

function prayer(data: Omit<Prayer, 'kind'>): Node {
  return el('section', {},
    el('h1', {}, 'Prayer requests'),
    el('p', { class: 'muted', 'data-field': 'totals' }, `${data.total} requests: ${data.byStatus.active} active, ${data.byStatus.answered} answered${data.medianDaysToAnswer === null ? '' : `; answered in ${data.medianDaysToAnswer} days (median)`}`),
    seriesChart({
      name: 'prayer-by-month', title: 'Added and answered each month',
      summary: `Prayer requests by month: ${data.byMonth.map((row) => `${row.month} ${row.added} added, ${row.answered} answered`).join('; ')}`,
      labels: data.byMonth.map((row) => row.month),
      series: [
        { label: 'Added', values: data.byMonth.map((row) => row.added) },
        { label: 'Answered', values: data.byMonth.map((row) => row.answered), kind: 'bars' },
      ],
    }));
}

function visits(data: Omit<Visits, 'kind'>): Node {
  return el('section', {},
    el('h1', {}, 'Pastoral visits'),
    el('p', { class: 'muted', 'data-field': 'totals' }, `${data.total} visits to ${data.contactsVisited} people, ${data.totalMinutes} minutes`),
    seriesChart({
      name: 'visits-by-month', title: 'Visits and people visited each month',
      summary: `Pastoral visits by month: ${data.byMonth.map((row) => `${row.month} ${row.visits} visits to ${row.contacts} people`).join('; ')}`,
      labels: data.byMonth.map((row) => row.month),
      series: [
        { label: 'Visits', values: data.byMonth.map((row) => row.visits) },
        { label: 'People visited', values: data.byMonth.map((row) => row.contacts), kind: 'line' },
      ],
    }),
    data.byVisitor.length ? seriesChart({
      name: 'visits-by-visitor', title: 'Visits by visitor',
      summary: `Visits by visitor: ${data.byVisitor.map((row) => `${row.visitor} ${row.visits}`).join('; ')}`,
      labels: data.byVisitor.map((row) => row.visitor),
      series: [{ label: 'Visits', values: data.byVisitor.map((row) => row.visits) }],
    }) : null);
}

/** Both tools share the view: a prayer result has byStatus, a visit result byVisitor. */
startWidget<Analytics>('steward-care-analytics', (data) => ('byStatus' in data ? prayer(data) : visits(data)));
