/**
 * What every widget chart shares (browser side): the colours, the figures as a table under a
 * "Numbers" disclosure, and the width a chart may take. Series charts are in widget-charts.mts
 * (uPlot), the heatmap and the funnel in widget-svg-charts.mts, so a widget bundles only what it draws.
 */
import { el } from './widget-view.mjs';

// The colours are the ones the dashboard's server-drawn charts use (core/charts.ts is pure, so the bundle takes it).
export { PALETTE } from '../core/charts.js';

/** The figures as a table: a row for each label, a column for each series. */
export function numbersTable(caption: string, columns: readonly string[], rows: ReadonlyArray<readonly [string, ...string[]]>): HTMLElement {
  return el('details', { class: 'numbers' },
    el('summary', {}, 'Numbers'),
    el('table', {},
      el('caption', {}, caption),
      el('thead', {}, el('tr', {}, columns.map((column) => el('th', { scope: 'col' }, column)))),
      el('tbody', {}, rows.map(([head, ...cells]) => el('tr', {}, el('th', { scope: 'row' }, head), cells.map((cell) => el('td', {}, cell)))))));
}

export function chartWidth(): number {
  return Math.max(280, Math.min(720, (document.getElementById('root')?.clientWidth ?? 600) - 8));
}

