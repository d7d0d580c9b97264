// CRM analytics chart: people_get_crm_analytics_chart's series, one row of bars per series, a bar per day.
import { el, startWidget } from '../../widget-view.mjs';

interface Series { key: string; label: string; total: number; points: Array<{ date: string; value: number }> }
interface Chart { period: { from: string; to: string; days: number }; series: Series[] }

/** A bar sized through the CSS object model: the widget's content security policy allows no style attributes. */
function bar(point: { date: string; value: number }, max: number, count: number): HTMLElement {
  const node = el('div', { class: 'bar', title: `${point.date}: ${point.value}`, 'data-date': point.date, 'data-value': String(point.value) });
  Object.assign(node.style, {
    display: 'inline-block', verticalAlign: 'bottom', width: `${Math.max(2, Math.floor(100 / count) - 1)}%`,
    height: `${Math.round((point.value / max) * 60) + 1}px`, background: 'currentColor', marginRight: '1px',
  });
  return node;
}

function seriesView(series: Series): Node {
  const max = Math.max(1, ...series.points.map((point) => point.value));
  return el('section', { class: 'series', 'data-series': series.key, 'aria-label': series.label },
    el('h2', {}, `${series.label}: ${series.total}`),
    el('div', { class: 'bars', role: 'img', 'aria-label': `${series.label}, ${series.points.map((p) => `${p.date} ${p.value}`).join(', ')}` },
      series.points.map((point) => bar(point, max, series.points.length))));
}

function chartView(chart: Chart): Node {
  return el('article', { class: 'card' },
    el('h1', {}, `CRM activity, ${chart.period.from} to ${chart.period.to}`),
    chart.series.map(seriesView));
}

startWidget('steward-crm-chart', chartView);
