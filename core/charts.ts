/**
 * A chart as plain data: what a module says should be drawn from its figures, and what every
 * surface draws the same way (the dashboard as a server-rendered SVG, api/pages/svg-chart.ts; the
 * in-chat widgets in the browser, modules/widget-chart-parts.mts). Pure: the widgets' bundle imports it.
 */

/** Colours that keep contrast on light and dark backgrounds, in series order. */
export const PALETTE = ['#2f6f9f', '#c0692b', '#2f8f4f', '#8a4fb0', '#b3261e', '#6b6b6b'] as const;

export interface ChartSeriesSpec {
  label: string;
  values: ReadonlyArray<number | null>;
  /** Bars (the default for the first series) or a line. */
  kind?: 'bars' | 'line';
  dashed?: boolean;
}

export interface ChartSpec {
  /** Names the chart for tests and styles (`data-chart`). */
  name: string;
  title: string;
  /** One sentence a screen reader says for the picture. */
  summary: string;
  /** The category of each point (a week, a stage). */
  labels: readonly string[];
  series: readonly ChartSeriesSpec[];
  /** How the values read: counts, or integer minor units of a currency. */
  unit: { kind: 'count' } | { kind: 'money'; currency: string };
}
