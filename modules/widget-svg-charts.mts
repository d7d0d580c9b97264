/**
 * The heatmap and the funnel of the widgets (browser side): small SVGs, each with a description for
 * screen readers and its figures as a table (widget-chart-parts.mts).
 */
import { PALETTE, chartWidth, numbersTable } from './widget-chart-parts.mjs';
import { el } from './widget-view.mjs';

const SVG = 'http://www.w3.org/2000/svg';

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
