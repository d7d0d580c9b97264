import { z } from 'zod';
import { METERED_FEATURES } from '../../../core/billing';
import type { ModuleDefinition } from '../../module';
import { toolsFor } from '../../kit';
import { usageSummary } from '../../../kernel/billing';
import { capabilityGapSummary, LATEST_GAPS_IN_OVERVIEW, mayReadCapabilityGaps } from '../capability-gaps';
import { gapSchema } from './capability-gaps';
import { evaluateAlerts, registeredAlertRules } from '../alerts/tool';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

const featureUsage = z.object({
  feature: z.enum(METERED_FEATURES),
  used: z.number().int(),
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  period: z.enum(['month', 'standing']),
}).strict();

/**
 * Usage against allowances, with what other modules add (billing: the entitlements the subscription's
 * state gives, the same ones every metered call is checked against), built from the registry.
 */
export function usageTool(modules: readonly ModuleDefinition[]) {
  const contributions = modules.flatMap((module) => (module.usage ? [module.usage] : []));
  const contributed = Object.assign({}, ...contributions.map((c) => c.shape)) as z.ZodRawShape;
  return tools.read('usage', {
    title: 'Usage and allowances',
    description: 'Usage against the plan\'s allowance for each metered feature (email sends, messaging credits, contacts, runsheet access seats, donations, tickets, check-ins, rooms, streams, media items), and what the subscription\'s state allows now (with billing:read). Contacts count standing records; the others count this calendar month.',
    keywords: ['billing', 'allowance', 'quota', 'limits', 'plan usage', 'credits left'],
    examples: ['how much of our plan have we used this month', 'are we near our limits on texts or contacts', 'have we gone over our subscription allowance', 'how many check-ins and tickets have we used on our plan', 'how close are we to the maximum number of people records we pay for', 'usage this month against what our package includes', 'how many rooms and streams does our subscription still allow', 'is our plan running out of anything this month', 'texts used this month', 'we sent a lot of emails for the Christmas mailing, how much of our allowance is left?', 'have we hit the cap on anything we pay for?'],
    input: z.object({}),
    output: z.object({ plan: z.string(), features: z.array(featureUsage), ...contributed }).strict(),
    run: async (ctx) => {
      const parts: Record<string, unknown> = {};
      for (const contribution of contributions) Object.assign(parts, await contribution.compute(ctx));
      return { plan: ctx.org.planCode, features: await usageSummary(ctx.db, ctx.org.id), ...parts };
    },
  });
}

/**
 * Built from the registry, not written by hand: each module's overview contribution adds its
 * fields to the output schema and its numbers to the answer, so the platform never reads
 * another module's tables.
 */
export function overviewTool(modules: readonly ModuleDefinition[]) {
  const contributions = modules.flatMap((module) => (module.overview ? [module.overview] : []));
  const contributed = Object.assign({}, ...contributions.map((c) => c.shape)) as z.ZodRawShape;
  const alertRules = registeredAlertRules(modules);
  return tools.read('overview', {
    title: 'Organisation overview',
    description: 'One-call snapshot of the organisation: CRM contact totals (by status and membership stage), notes with open follow-ups, giving this month (with giving:read), plan and usage, how many things need attention (platform_proactive_alerts has the reasons), open capability gaps agents reported (owners and admins), and which modules and how many tools this credential can use. Start here to orient.',
    keywords: ['snapshot', 'summary', 'dashboard', 'orient', 'totals'],
    examples: ['how are things looking across the church', 'give me a summary of where we stand', 'quick rundown of the whole parish for the PCC meeting', 'where are we at overall, people, giving and everything', 'big picture view of the church before I start the week', "I'm new in the office, give me the lay of the land", "overall state of play at St Mark's", "one-page snapshot of the congregation and this month's giving", 'church at a glance', 'the bishop is visiting on Friday so I want headline numbers for membership and giving', 'how is the church doing overall right now?'],
    listed: true,
    input: z.object({}),
    output: z.object({
      organisation: z.object({ id: z.string(), name: z.string(), country: z.string(), dateFormat: z.string(), plan: z.string() }).strict(),
      ...contributed,
      usage: z.array(featureUsage),
      attention: z.object({
        urgent: z.number().int(), warning: z.number().int(), info: z.number().int(),
        titles: z.array(z.string()).describe('The most pressing few, in order'),
      }).strict().describe('Alerts from platform_proactive_alerts under this credential\'s view; call it for reasons and the tools to act with'),
      capabilityGaps: z.object({
        open: z.number().int().describe('Reports not yet resolved'),
        latest: z.array(gapSchema).describe(`The latest ${LATEST_GAPS_IN_OVERVIEW} open ones, newest first`),
      }).strict().nullable().describe('What agents could not do (platform_report_capability_gap); null unless the caller is an owner or admin'),
      modules: z.array(z.string()),
      toolsAvailable: z.number().int(),
    }).strict(),
    run: async (ctx) => {
      const parts: Record<string, unknown> = {};
      for (const contribution of contributions) Object.assign(parts, await contribution.compute(ctx));
      return {
        organisation: { id: ctx.org.id, name: ctx.org.name, country: ctx.org.country, dateFormat: ctx.org.dateFormat, plan: ctx.org.planCode },
        ...parts,
        usage: await usageSummary(ctx.db, ctx.org.id),
        attention: attentionOf((await evaluateAlerts(alertRules, ctx)).alerts),
        capabilityGaps: mayReadCapabilityGaps(ctx.principal) ? await capabilityGapSummary(ctx.db, ctx.org.id) : null,
        modules: ctx.catalogue.modules,
        toolsAvailable: ctx.catalogue.permittedTools(ctx.principal).length,
      };
    },
  });
}

/** How many alerts of each severity, with the first few titles: enough to know whether to ask for them. */
const TITLES_IN_OVERVIEW = 3;

function attentionOf(alerts: ReadonlyArray<{ severity: string; title: string }>) {
  const count = (severity: string) => alerts.filter((alert) => alert.severity === severity).length;
  return { urgent: count('urgent'), warning: count('warning'), info: count('info'), titles: alerts.slice(0, TITLES_IN_OVERVIEW).map((alert) => alert.title) };
}
