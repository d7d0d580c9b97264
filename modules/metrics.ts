import { z } from 'zod';
import { StewardError } from '../core/errors';
import type { ChartSpec } from '../core/charts';
import type { Scope } from '../core/scopes';
import type { ModuleDefinition } from './module';
import type { AnyObjectSchema, ToolContext } from './tool';

/**
 * Metrics: the named, module-owned queries platform_analytics_query answers. A module declares
 * them in its definition (`metrics`); the platform reads them through the registry, so it never
 * names another module's tables, and a caller can only ever ask for a query someone wrote.
 */

/**
 * The metrics the product promises (spec 4.3), each with the module meant to own it. A name whose
 * module is not registered yet is still accepted and answered with module_not_available, so callers
 * learn it is coming rather than that it does not exist.
 */
export const PROMISED_METRICS: Readonly<Record<string, string>> = {
  total_contacts: 'people',
  contacts_by_membership_status: 'people',
  contacts_by_status: 'people',
  count_unsubscribes: 'people',
  first_time_visitors: 'people',
  top_donors: 'giving',
  giving_total: 'giving',
  weekly_trend_giving: 'giving',
  attendance_total: 'attendance',
  weekly_trend_attendance: 'attendance',
};

/** What a metric may be asked with: `range` is from/to or a named period, `limit` caps a list. */
export type MetricParam = 'range' | 'limit';

/** Named periods a caller may give instead of from/to. */
export const METRIC_PERIODS = ['this_month', 'last_month', 'this_year', 'last_year'] as const;
export type MetricPeriod = (typeof METRIC_PERIODS)[number];

/** The parameters a metric's compute receives: a range already resolved to dates, or none. */
export interface MetricParams {
  from?: string;
  to?: string;
  limit?: number;
}

export interface MetricAnswer<T = Record<string, unknown>> {
  data: T;
  /** One plain sentence a caller can say to the person as it is. */
  speakToUser: string;
}

export interface MetricDefinition<O extends AnyObjectSchema = AnyObjectSchema> {
  /** snake_case, unique across every module. */
  name: string;
  /** One sentence: what is counted, and the default range if it takes one. */
  description: string;
  /** The scope a caller must hold for this metric, besides the tool's own; one the module declares. */
  scope: Scope;
  params: readonly MetricParam[];
  /** The shape of `data`; strict. */
  output: O;
  /** Runs in the call's read transaction, under the caller's organisation. */
  compute: (ctx: ToolContext, params: MetricParams) => Promise<MetricAnswer<z.input<O>>>;
  /** How the answer is best looked at, when a chart says more than the sentence (the dashboard's analytics page draws it). */
  chart?: (data: z.output<O>) => ChartSpec;
}

export type AnyMetric = MetricDefinition<AnyObjectSchema>;

/** Declares a metric, keeping its output type tied to what compute returns. */
export function defineMetric<O extends AnyObjectSchema>(metric: MetricDefinition<O>): AnyMetric {
  return metric as unknown as AnyMetric;
}

export interface MetricCatalogue {
  /** Registered metrics by name, with their module. */
  available: ReadonlyMap<string, { module: string; metric: AnyMetric }>;
  /** Promised metrics whose module is not registered, with that module's name. */
  unavailable: ReadonlyMap<string, string>;
}

/** Every registered metric, and the promised ones still waiting on their module; a name declared twice is refused. */
export function metricCatalogue(modules: readonly ModuleDefinition[]): MetricCatalogue {
  const available = new Map<string, { module: string; metric: AnyMetric }>();
  for (const module of modules) {
    for (const metric of module.metrics ?? []) {
      const earlier = available.get(metric.name);
      if (earlier) throw new Error(`Metric ${metric.name} is declared by both ${earlier.module} and ${module.name}`);
      available.set(metric.name, { module: module.name, metric });
    }
  }
  const unavailable = new Map(Object.entries(PROMISED_METRICS).filter(([name]) => !available.has(name)));
  return { available, unavailable };
}

/** Load-time checks of one module's metrics (called by defineModule). */
export function checkMetrics(module: Pick<ModuleDefinition, 'name' | 'scopes' | 'metrics'>): void {
  for (const metric of module.metrics ?? []) {
    if (!/^[a-z][a-z0-9_]*$/.test(metric.name)) throw new Error(`Metric ${metric.name} of ${module.name} must be snake_case`);
    if (!module.scopes.includes(metric.scope)) throw new Error(`Metric ${metric.name} requires ${metric.scope}, which module ${module.name} does not declare`);
    const promisedTo = PROMISED_METRICS[metric.name];
    if (promisedTo && promisedTo !== module.name) throw new Error(`Metric ${metric.name} belongs to module ${promisedTo}, not ${module.name}`);
  }
}

// ---------------------------------------------------------------- ranges and sentences

/**
 * Today's date in UTC as YYYY-MM-DD: the tools' "today" where no organisation zone applies, and the day
 * every default range ends on (scheduled runs pass their own `now`). The one definition; import it.
 */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

function isoOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A date `days` after an ISO date (negative for before). */
export function addDays(date: string, days: number): string {
  return isoOf(new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000));
}

/** The Monday starting the ISO week a date falls in. */
export function mondayOf(date: string): string {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, -((day + 6) % 7));
}

/** The last day of the month an ISO date falls in. */
function monthEnd(date: string): string {
  const [y, m] = date.split('-').map(Number);
  return isoOf(new Date(Date.UTC(y, m, 0)));
}

/** A named period as dates; the current month and year end today, not in the future. */
export function periodRange(period: MetricPeriod, today = todayUtc()): { from: string; to: string } {
  const year = Number(today.slice(0, 4));
  switch (period) {
    case 'this_month': return { from: `${today.slice(0, 8)}01`, to: today };
    case 'last_month': {
      const lastOfPrevious = addDays(`${today.slice(0, 8)}01`, -1);
      return { from: `${lastOfPrevious.slice(0, 8)}01`, to: lastOfPrevious };
    }
    case 'this_year': return { from: `${year}-01-01`, to: today };
    case 'last_year': return { from: `${year - 1}-01-01`, to: `${year - 1}-12-31` };
  }
}

/** A range as the caller gave it, or the metric's default when they gave none. */
export function rangeOr(params: MetricParams, fallback: () => { from: string; to: string }): { from: string; to: string } {
  // The default is only worked out when the caller left an end open.
  const defaults = params.from && params.to ? { from: params.from, to: params.to } : fallback();
  const range = { from: params.from ?? defaults.from, to: params.to ?? defaults.to };
  if (range.from > range.to) {
    throw new StewardError('validation_failed', `from (${range.from}) is after to (${range.to})`, {
      issues: [{ path: params.from ? 'from' : 'to', message: 'the range ends before it starts' }],
      hint: 'Give both from and to, with from on or before to.',
    });
  }
  return range;
}

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "3 November 2026". */
export function spokenDate(date: string): string {
  return DAY.format(new Date(`${date}T00:00:00Z`));
}

/** A range as words: "in 2025", "in October 2026", "in November 2026 so far", "on 3 November 2026", "between … and …". */
export function spokenRange(from: string, to: string, today = todayUtc()): string {
  const year = from.slice(0, 4);
  if (from === `${year}-01-01` && (to === `${year}-12-31` || to === today) && to.startsWith(year)) return to === today ? `in ${year} so far` : `in ${year}`;
  const wholeMonthStart = from.endsWith('-01') && from.slice(0, 7) === to.slice(0, 7);
  // Today first: on a month's last day the month is still going, though the range reaches its end.
  if (wholeMonthStart && to === today) return `in ${MONTH.format(new Date(`${from}T00:00:00Z`))} so far`;
  if (wholeMonthStart && to === monthEnd(from)) return `in ${MONTH.format(new Date(`${from}T00:00:00Z`))}`;
  if (from === to) return `on ${spokenDate(from)}`;
  return `between ${spokenDate(from)} and ${spokenDate(to)}`;
}

/** "1 gift", "1,204 gifts". */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-GB')} ${n === 1 ? singular : plural}`;
}
