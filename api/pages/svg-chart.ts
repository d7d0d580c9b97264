import { PALETTE, type ChartSpec } from '../../core/charts';
import { minorUnitsAsDecimal } from '../../core/money';

/**
 * A chart (core/charts.ts) as the geometry of a server-rendered SVG: the dashboard's pages run no
 * script, so what the widgets draw with uPlot in the browser is laid out here and drawn by the
 * `chart` partial (api/pages/views/chart.eta), which escapes every text through the template engine.
 * Like the widgets', each chart carries a one-line description for screen readers and its figures
 * as a table under a "Numbers" disclosure.
 */

export interface ChartView {
  name: string;
  title: string;
  summary: string;
  width: number;
  height: number;
  empty: boolean;
  bars: Array<{ x: number; y: number; width: number; height: number; fill: string; value: number; title: string }>;
  lines: Array<{ points: string; stroke: string; dashed: boolean; dots: Array<{ x: number; y: number; title: string; value: number }> }>;
  xLabels: Array<{ x: number; y: number; text: string }>;
  yTicks: Array<{ y: number; text: string; labelY: number }>;
  legend: Array<{ label: string; colour: string; dashed: boolean; kind: 'bars' | 'line' }>;
  table: { columns: string[]; rows: string[][] };
}

const WIDTH = 640;
const HEIGHT = 240;
const MARGIN = { left: 78, right: 8, top: 10, bottom: 30 };
const MAX_X_LABELS = 8;

/** How a value reads: a count, or money in the currency's own format. */
export function chartValueFormat(unit: ChartSpec['unit']): (value: number) => string {
  if (unit.kind === 'count') return (value) => value.toLocaleString('en-GB');
  const { currency } = unit;
  return (value) => {
    const decimal = minorUnitsAsDecimal(value, currency);
    try {
      // Intl formats a decimal string exactly (ECMA-402 2023); the type still says number.
      return new Intl.NumberFormat('en-GB', { style: 'currency', currency }).format(decimal as unknown as number);
    } catch {
      return `${decimal} ${currency}`;
    }
  };
}

/** A round step for about four gridlines up to `max`: 1, 2 or 5 times a power of ten. */
function tickStep(max: number): number {
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power;
  return Math.max(1, step);
}

export function chartView(spec: ChartSpec): ChartView {
  const format = chartValueFormat(spec.unit);
  const kindOf = (index: number) => spec.series[index].kind ?? (index === 0 ? 'bars' : 'line');
  const values = spec.series.flatMap((series) => series.values.filter((v): v is number => v !== null));
  const step = tickStep(Math.max(1, ...values));
  const top = step * Math.max(1, Math.ceil(Math.max(1, ...values) / step));
  const plot = { width: WIDTH - MARGIN.left - MARGIN.right, height: HEIGHT - MARGIN.top - MARGIN.bottom };
  const n = Math.max(1, spec.labels.length);
  const band = plot.width / n;
  const yOf = (value: number) => MARGIN.top + plot.height - (Math.max(0, value) / top) * plot.height;
  const centreOf = (index: number) => MARGIN.left + band * index + band / 2;
  const round = (value: number) => Math.round(value * 10) / 10;

  const barSeries = spec.series.map((_, index) => index).filter((index) => kindOf(index) === 'bars');
  const barWidth = (band * 0.7) / Math.max(1, barSeries.length);
  const bars = barSeries.flatMap((seriesIndex, position) => spec.series[seriesIndex].values.flatMap((value, index) => {
    if (value === null) return [];
    const x = centreOf(index) - (band * 0.7) / 2 + position * barWidth;
    const y = yOf(value);
    return [{
      x: round(x), y: round(y), width: round(Math.max(1, barWidth - 1)), height: round(MARGIN.top + plot.height - y),
      fill: PALETTE[seriesIndex % PALETTE.length], value, title: `${spec.labels[index]}, ${spec.series[seriesIndex].label}: ${format(value)}`,
    }];
  }));
  const lines = spec.series.flatMap((series, seriesIndex) => {
    if (kindOf(seriesIndex) !== 'line') return [];
    const dots = series.values.flatMap((value, index) => (value === null ? [] : [{ x: round(centreOf(index)), y: round(yOf(value)), value, title: `${spec.labels[index]}, ${series.label}: ${format(value)}` }]));
    return [{ points: dots.map((dot) => `${dot.x},${dot.y}`).join(' '), stroke: PALETTE[seriesIndex % PALETTE.length], dashed: series.dashed === true, dots }];
  });
  const stride = Math.max(1, Math.ceil(spec.labels.length / MAX_X_LABELS));
  const xLabels = spec.labels.flatMap((text, index) => (index % stride === 0 ? [{ x: round(centreOf(index)), y: HEIGHT - 10, text }] : []));
  const yTicks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step).map((value) => ({ y: round(yOf(value)), labelY: round(yOf(value) + 4), text: format(value) }));
  return {
    name: spec.name, title: spec.title, summary: spec.summary, width: WIDTH, height: HEIGHT, empty: spec.labels.length === 0,
    bars, lines, xLabels, yTicks,
    legend: spec.series.map((series, index) => ({ label: series.label, colour: PALETTE[index % PALETTE.length], dashed: series.dashed === true, kind: kindOf(index) })),
    table: {
      columns: ['', ...spec.series.map((series) => series.label)],
      rows: spec.labels.map((label, index) => [label, ...spec.series.map((series) => {
        const value = series.values[index];
        return value === null || value === undefined ? '—' : format(value);
      })]),
    },
  };
}
