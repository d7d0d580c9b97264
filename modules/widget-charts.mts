/**
 * Charts for the widgets (browser side, bundled into each widget that draws one). Series charts
 * are drawn by uPlot on a canvas; a heatmap and a funnel, which uPlot does not draw, are small
 * SVGs built here. Every chart comes with its numbers as a table under a "Numbers" disclosure: a
 * screen reader, a keyboard user and anyone who would rather read get the same figures, and the
 * chart itself carries a one-line description (`role="img"` with `aria-label`).
 */
import uPlot from 'uplot';
import { el } from './widget-view.mjs';

const SVG = 'http://www.w3.org/2000/svg';

/** Colours that keep contrast on light and dark hosts, in series order. */
export const PALETTE = ['#2f6f9f', '#c0692b', '#2f8f4f', '#8a4fb0', '#b3261e', '#6b6b6b'];

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

/** The figures as a table: a row for each label, a column for each series. */
function numbersTable(caption: string, columns: readonly string[], rows: ReadonlyArray<readonly [string, ...string[]]>): HTMLElement {
  return el('details', { class: 'numbers' },
    el('summary', {}, 'Numbers'),
    el('table', {},
      el('caption', {}, caption),
      el('thead', {}, el('tr', {}, columns.map((column) => el('th', { scope: 'col' }, column)))),
      el('tbody', {}, rows.map(([head, ...cells]) => el('tr', {}, el('th', { scope: 'row' }, head), cells.map((cell) => el('td', {}, cell)))))));
}

function chartWidth(): number {
  return Math.max(280, Math.min(720, (document.getElementById('root')?.clientWidth ?? 600) - 8));
}

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

/** One grid of counts: a row for each name, a column for each slot, darker where there were more. */
export interface Heatmap {
  name: string;
  title: string;
  summary: string;
  columns: readonly string[];
  rows: ReadonlyArray<{ label: string; values: readonly number[] }>;
}

function svg(tag: string, attributes: Record<string, string | number>, ...children: Node[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.appendChild(child);
  return element;
}

function svgText(content: string, attributes: Record<string, string | number>): SVGElement {
  const text = svg('text', attributes);
  text.textContent = content;
  return text;
}

function svgTitle(content: string): SVGElement {
  const title = svg('title', {});
  title.textContent = content;
  return title;
}

export function heatmap(chart: Heatmap): HTMLElement {
  const max = Math.max(1, ...chart.rows.flatMap((row) => row.values));
  const labelWidth = 120;
  const cell = Math.max(14, Math.min(40, Math.floor((chartWidth() - labelWidth) / Math.max(1, chart.columns.length))));
  const rowHeight = 26;
  const width = labelWidth + cell * chart.columns.length;
  const height = 24 + rowHeight * chart.rows.length;
  // Roughly every fourth slot is labelled, so the times stay legible.
  const every = Math.max(1, Math.ceil(chart.columns.length / Math.max(1, Math.floor((width - labelWidth) / 48))));
  const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': chart.summary, class: 'heatmap' },
    ...chart.columns.flatMap((column, index) => (index % every === 0 ? [svgText(column, { x: labelWidth + index * cell, y: 14, 'font-size': 11, fill: 'currentColor' })] : [])),
    ...chart.rows.flatMap((row, rowIndex) => [
      svgText(row.label.length > 18 ? `${row.label.slice(0, 17)}…` : row.label, { x: 0, y: 24 + rowIndex * rowHeight + 17, 'font-size': 12, fill: 'currentColor' }),
      ...row.values.map((value, index) => {
        const rect = svg('rect', {
          x: labelWidth + index * cell + 1, y: 24 + rowIndex * rowHeight + 1, width: cell - 2, height: rowHeight - 2, rx: 3,
          fill: PALETTE[0], 'fill-opacity': value === 0 ? 0.06 : (0.2 + 0.8 * value / max).toFixed(3), 'data-value': value,
        });
        // A <title> inside each cell is what browsers show on hover.
        rect.appendChild(svgTitle(`${row.label}, ${chart.columns[index]}: ${value}`));
        return rect;
      }),
    ]));
  return el('figure', { 'data-chart': chart.name, 'data-series': String(chart.rows.length), 'data-points': String(chart.columns.length) },
    el('figcaption', {}, chart.title),
    el('div', { class: 'chart scroll' }, picture),
    numbersTable(chart.title, ['', ...chart.columns], chart.rows.map((row) => [row.label, ...row.values.map(String)] as const)));
}

/** Stages that each keep some of the one before (recipients, sent, delivered): a bar each, as a share of the first. */
export interface Funnel {
  name: string;
  title: string;
  summary: string;
  stages: ReadonlyArray<{ label: string; count: number }>;
}

export function funnel(chart: Funnel): HTMLElement {
  const first = Math.max(1, chart.stages[0]?.count ?? 0);
  const labelWidth = 130;
  const width = chartWidth();
  const barRoom = width - labelWidth - 110;
  const rowHeight = 30;
  const percent = (count: number) => `${Math.round((count / first) * 100)}%`;
  const picture = svg('svg', { viewBox: `0 0 ${width} ${rowHeight * chart.stages.length}`, width, height: rowHeight * chart.stages.length, role: 'img', 'aria-label': chart.summary, class: 'funnel' },
    ...chart.stages.flatMap((stage, index) => {
      const barWidth = Math.max(2, Math.round(barRoom * Math.min(1, stage.count / first)));
      const y = index * rowHeight;
      const bar = svg('rect', { x: labelWidth, y: y + 4, width: barWidth, height: rowHeight - 8, rx: 3, fill: PALETTE[index % PALETTE.length], 'data-value': stage.count });
      bar.appendChild(svgTitle(`${stage.label}: ${stage.count} (${percent(stage.count)})`));
      return [
        svgText(stage.label, { x: 0, y: y + 19, 'font-size': 12, fill: 'currentColor' }),
        bar,
        svgText(`${stage.count.toLocaleString()} · ${percent(stage.count)}`, { x: labelWidth + barWidth + 6, y: y + 19, 'font-size': 12, fill: 'currentColor' }),
      ];
    }));
  return el('figure', { 'data-chart': chart.name, 'data-series': '1', 'data-points': String(chart.stages.length) },
    el('figcaption', {}, chart.title),
    el('div', { class: 'chart' }, picture),
    numbersTable(chart.title, ['Stage', 'Count', 'Share of the first'], chart.stages.map((stage) => [stage.label, stage.count.toLocaleString(), percent(stage.count)] as const)));
}
