import { z } from 'zod';
import { StewardError } from '../../../core/errors';
import { hasScope } from '../../../core/principal';
import { METRIC_PERIODS, metricCatalogue, periodRange, type AnyMetric, type MetricCatalogue, type MetricParams } from '../../metrics';
import type { ModuleDefinition } from '../../module';
import type { AnyObjectSchema, ToolContext } from '../../tool';
import { toolsFor } from '../../kit';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

/**
 * platform_analytics_query: one tool over every module's metrics, built from the registry. The
 * platform only routes: each metric's query, scope and sentence belong to the module that owns
 * the data, and a promised metric whose module is not built yet answers module_not_available.
 */

const MAX_LIMIT = 50;

const isoDay = z.iso.date('a date as YYYY-MM-DD');

type AnalyticsInput = { metric: string; from?: string; to?: string; period?: (typeof METRIC_PERIODS)[number]; limit?: number };

/** Which of the caller's parameters the metric does not take: refused rather than silently ignored. */
function unusedParams(metric: AnyMetric, input: AnalyticsInput): string[] {
  const takesRange = metric.params.includes('range');
  const unused: string[] = [];
  for (const key of ['from', 'to', 'period'] as const) if (input[key] !== undefined && !takesRange) unused.push(key);
  if (input.limit !== undefined && !metric.params.includes('limit')) unused.push('limit');
  return unused;
}

/** Checks that need the catalogue or two fields at once, so a bad call is refused before any workflow starts. */
function checkInput(catalogue: MetricCatalogue, input: AnalyticsInput, ctx: z.RefinementCtx): void {
  if (input.period && (input.from || input.to)) ctx.addIssue({ code: 'custom', path: ['period'], message: 'give period or from/to, not both' });
  if (input.from && input.to && input.from > input.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be on or before to' });
  const entry = catalogue.available.get(input.metric);
  if (!entry) return;
  for (const key of unusedParams(entry.metric, input)) ctx.addIssue({ code: 'custom', path: [key], message: `${input.metric} does not take ${key}` });
}

function notAvailable(metric: string, module: string): StewardError {
  return new StewardError('module_not_available', `${metric} comes from the ${module} module, which this Steward does not have yet`, {
    details: { metric, module },
    hint: 'Tell the person it is not available yet; platform_report_capability_gap records that it was wanted.',
  });
}

function insufficientScope(metric: AnyMetric): StewardError {
  return new StewardError('insufficient_scope', `${metric.name} needs the scope ${metric.scope}, which this credential does not hold`, {
    details: { requiredScope: metric.scope },
    hint: 'platform_session_tools lists what this credential can do.',
  });
}

/** The description, from the catalogue: what each metric is, and which are not available yet. */
function describe(catalogue: MetricCatalogue): string {
  const lines = [...catalogue.available.values()].map(({ metric }) => `${metric.name} (${metric.scope}): ${metric.description}`);
  const waiting = [...catalogue.unavailable].map(([name, module]) => `${name} (${module} module)`);
  return [
    'Answers one named metric about the organisation with its figures and speakToUser, a plain sentence to relay as it is. Ranges are from/to (YYYY-MM-DD, inclusive) or a named period; money is in integer minor units. Metrics:',
    ...lines,
    ...(waiting.length ? [`Not available yet, because their module is not built (they answer module_not_available): ${waiting.join(', ')}.`] : []),
  ].join('\n');
}

async function runMetric(catalogue: MetricCatalogue, ctx: ToolContext, input: AnalyticsInput) {
  const entry = catalogue.available.get(input.metric);
  if (!entry) throw notAvailable(input.metric, catalogue.unavailable.get(input.metric) ?? 'unknown');
  if (!hasScope(ctx.principal, entry.metric.scope)) throw insufficientScope(entry.metric);
  const range = input.period ? periodRange(input.period) : { from: input.from, to: input.to };
  const params: MetricParams = { ...range, limit: input.limit };
  const answer = await entry.metric.compute(ctx, params);
  return { metric: input.metric, module: entry.module, data: entry.metric.output.parse(answer.data), speakToUser: answer.speakToUser };
}

/** Every metric's data shape, for the output schema; a registry without metrics still gets a valid one. */
function dataSchema(catalogue: MetricCatalogue) {
  const outputs = [...catalogue.available.values()].map(({ metric }) => metric.output);
  return outputs.length ? z.union(outputs as [AnyObjectSchema, ...AnyObjectSchema[]]) : z.object({}).strict();
}

export function analyticsQueryTool(modules: readonly ModuleDefinition[]) {
  const catalogue = metricCatalogue(modules);
  const names = [...catalogue.available.keys(), ...catalogue.unavailable.keys()];
  const input = z.object({
    metric: z.enum(names as [string, ...string[]]).describe('Which metric (see the description)'),
    from: isoDay.optional().describe('First day of the range, YYYY-MM-DD'),
    to: isoDay.optional().describe('Last day of the range, YYYY-MM-DD'),
    period: z.enum(METRIC_PERIODS).optional().describe('A named range instead of from/to'),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`For lists such as top_donors: how many (1 to ${MAX_LIMIT})`),
  }).strict().superRefine((value, ctx) => checkInput(catalogue, value, ctx));
  return tools.read('analytics_query', {
    title: 'Analytics query',
    description: describe(catalogue),
    keywords: ['analytics', 'metrics', 'how many', 'statistics', 'report', 'trend', 'totals', 'numbers', 'figures'],
    examples: ['how much was given last month', 'how many contacts do we have', 'how many first-time visitors this month', 'weekly giving trend', 'how many people have we got on the books', 'what did the offerings come to in March', 'who are our ten most generous givers', 'how many pastoral visits did we make in February', 'breakdown of folk by membership stage', 'total attendance across all services this quarter', 'how full is the rota for the next month', 'how many tickets have we sold for events this month'],
    input,
    output: z.object({
      metric: z.string(),
      module: z.string().describe('The module that computed it'),
      data: dataSchema(catalogue),
      speakToUser: z.string().describe('A plain sentence to relay to the person as it is'),
    }).strict(),
    run: (ctx, args) => runMetric(catalogue, ctx, args),
  });
}
