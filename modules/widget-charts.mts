/**
 * Series charts for the widgets (browser side, bundled into each widget that draws one), drawn by
 * uPlot on a canvas; the heatmap and the funnel, which uPlot does not draw, are SVGs in
 * widget-svg-charts.mts. Every chart comes with its numbers as a table under a "Numbers" disclosure:
 * a screen reader, a keyboard user and anyone who would rather read get the same figures, and the
 * chart itself carries a one-line description (`role="img"` with `aria-label`).
 */
import uPlot from 'uplot';
import { el } from './widget-view.mjs';
import { PALETTE, chartWidth, numbersTable } from './widget-chart-parts.mjs';

export interface ChartSeries {
  label: string;
  values: ReadonlyArray<number | null>;
  /** How a value reads in the table and the tooltip (money, a count). */
  format?: (value: number) => string;
  /** Bars (the default for the first series) or a line. */
  kind?: 'bars' | 'line';
  dashed?: boolean;
}

export interface SeriesChart {
  /** Names the chart for tests and styles (`data-chart`). */
  name: string;
  title: string;
  /** One sentence a screen reader says for the picture. */
  summary: string;
  /** The category of each point (a period, a week, a month). */
  labels: readonly string[];
  series: readonly ChartSeries[];
}

const plain = (value: number) => value.toLocaleString();

/** A bar-and-line chart of series over categories, with its table. */
export function seriesChart(chart: SeriesChart): HTMLElement {
  const canvasHolder = el('div', { class: 'chart', role: 'img', 'aria-label': chart.summary });
  const figure = el('figure', { 'data-chart': chart.name, 'data-series': String(chart.series.length), 'data-points': String(chart.labels.length) },
    el('figcaption', {}, chart.title),
    canvasHolder,
    numbersTable(chart.title, ['', ...chart.series.map((series) => series.label)],
      chart.labels.map((label, index) => [label, ...chart.series.map((series) => {
        const value = series.values[index];
        return value === null || value === undefined ? '—' : (series.format ?? plain)(value);
      })] as const)));
  if (chart.labels.length === 0) {
    canvasHolder.replaceWith(el('p', { class: 'muted' }, 'Nothing in this range.'));
    return figure;
  }
  const xs = chart.labels.map((_, index) => index);
  const stride = Math.max(1, Math.ceil(chart.labels.length / 8));
  const kindOf = (series: ChartSeries, index: number) => series.kind ?? (index === 0 ? 'bars' : 'line');
  // Two bar series stand side by side at each category; one stands centred on it.
  const barSeries = chart.series.filter((series, index) => kindOf(series, index) === 'bars').length;
  let barsSeen = 0;
  const nextBars = () => {
    const position = barsSeen++;
    if (barSeries < 2) return uPlot.paths.bars!({ size: [0.6, 60] });
    return uPlot.paths.bars!({ size: [0.38, 36], align: position === 0 ? -1 : 1 });
  };
  const options: uPlot.Options = {
    width: chartWidth(),
    height: 220,
    scales: {
      x: { time: false, range: () => [-0.5, chart.labels.length - 0.5] },
      // Counts and money start from nothing, so a bar's height reads as its size.
      y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      // A tick at each category, thinned to about eight so the labels do not collide.
      { splits: () => xs.filter((x) => x % stride === 0), values: (_u, ticks) => ticks.map((tick) => chart.labels[tick] ?? ''), stroke: 'currentColor' },
      { stroke: 'currentColor', size: 70, values: (_u, ticks) => ticks.map((tick) => (chart.series[0].format ?? plain)(tick)) },
    ],
    // The legend names the series; the figures are in the table below.
    legend: { show: true, live: false },
    series: [
      { label: '', value: (_u, value) => (value === null ? '' : chart.labels[value] ?? '') },
      ...chart.series.map((series, index) => {
        const colour = PALETTE[index % PALETTE.length];
        const kind = kindOf(series, index);
        return {
          label: series.label,
          stroke: colour,
          width: kind === 'bars' ? 1 : 2,
          fill: kind === 'bars' ? `${colour}b3` : undefined,
          dash: series.dashed ? [6, 4] : undefined,
          paths: kind === 'bars' ? nextBars() : undefined,
          points: { show: kind === 'line' },
          value: (_u: uPlot, value: number | null) => (value === null ? '—' : (series.format ?? plain)(value)),
        } satisfies uPlot.Series;
      }),
    ],
  };
  const data = [xs, ...chart.series.map((series) => series.values.map((value) => value ?? null))] as uPlot.AlignedData;
  new uPlot(options, data, canvasHolder);
  return figure;
}

