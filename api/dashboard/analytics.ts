import type { Principal } from '../../core/principal';
import { allMetrics } from '../../modules/catalogue';
import { chartView, type ChartView } from '../pages/svg-chart';
import type { ToolCaller } from '../tool-caller';

export interface AnalyticsPage {
  charts: Array<{ metric: string; chart: ChartView; sentence: string }>;
  figures: Array<{ metric: string; sentence: string }>;
  /** Metrics that could not be worked out just now (named, so the person knows what is missing). */
  failed: string[];
  /** Metrics the person's role does not reach, described, never computed. */
  withheld: string[];
}

/** Whether any registered metric is within the credential's scopes: the page (and its link) is offered to exactly those people. */
export function readsAnyMetric(principal: Principal): boolean {
  return [...allMetrics().available.values()].some(({ metric }) => principal.scopes.includes(metric.scope));
}

/**
 * The analytics page's figures: every registered metric the person's credential may read, each
 * asked through `platform_analytics_query` as an assistant would ask it (same scope checks, same
 * numbers, same durable call), drawn as a chart where its module says how, else its sentence.
 */
export async function analyticsPageOf(caller: ToolCaller, principal: Principal): Promise<AnalyticsPage> {
  const page: AnalyticsPage = { charts: [], figures: [], failed: [], withheld: [] };
  const metrics = [...allMetrics().available].sort(([a], [b]) => a.localeCompare(b));
  const readable = metrics.filter(([, { metric }]) => principal.scopes.includes(metric.scope));
  page.withheld = metrics.filter(([, { metric }]) => !principal.scopes.includes(metric.scope)).map(([, { metric }]) => metric.description);
  const answers = await Promise.all(readable.map(async ([name, { metric }]) => {
    try {
      const answer = await caller.call(principal, 'platform_analytics_query', { metric: name }) as { data: unknown; speakToUser: string };
      return { name, metric, answer };
    } catch {
      return { name, metric, answer: null };
    }
  }));
  for (const { name, metric, answer } of answers) {
    if (!answer) page.failed.push(name.replace(/_/g, ' '));
    else if (metric.chart) page.charts.push({ metric: name, chart: chartView(metric.chart(metric.output.parse(answer.data))), sentence: answer.speakToUser });
    else page.figures.push({ metric: name, sentence: answer.speakToUser });
  }
  return page;
}
