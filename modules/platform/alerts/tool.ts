import { z } from 'zod';
import { hasScope } from '../../../core/principal';
import { countOf } from '../../metrics';
import { ALERT_SEVERITIES, type AlertRule, type ModuleDefinition } from '../../module';
import type { ToolContext } from '../../tool';
import { toolsFor } from '../../kit';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

/**
 * platform_proactive_alerts: every module's alert rules (`alerts` in its definition or parts),
 * evaluated in one read snapshot under the caller's view. A rule whose scope the caller lacks is
 * not evaluated at all, and is named as not checked, so an empty list never pretends to be
 * a clean bill of health the caller could not see.
 */

interface RegisteredRule { module: string; rule: AlertRule }

export function registeredAlertRules(modules: readonly ModuleDefinition[]): RegisteredRule[] {
  const seen = new Set<string>();
  return modules.flatMap((module) => (module.alerts ?? []).map((rule) => {
    if (seen.has(rule.id)) throw new Error(`Alert rule ${rule.id} is declared twice`);
    seen.add(rule.id);
    return { module: module.name, rule };
  }));
}

const alertSchema = z.object({
  ruleId: z.string().describe('The rule that found it (see the description)'),
  module: z.string(),
  severity: z.enum(ALERT_SEVERITIES),
  title: z.string(),
  reason: z.string().describe('Why, with the figures the rule used'),
  count: z.number().int().describe('How many things it is about'),
  actWith: z.object({ tool: z.string().describe('The tool to act with'), args: z.record(z.string(), z.unknown()).optional() }).strict(),
}).strict();

type AlertView = z.infer<typeof alertSchema>;

const RANK: Record<string, number> = Object.fromEntries(ALERT_SEVERITIES.map((severity, index) => [severity, index]));

/** Every rule the caller may see, evaluated now; shared by platform_proactive_alerts and platform_overview. */
export async function evaluateAlerts(rules: readonly RegisteredRule[], ctx: ToolContext, minimum: (typeof ALERT_SEVERITIES)[number] = 'info') {
  const alerts: AlertView[] = [];
  const notChecked: Array<{ ruleId: string; requiredScope: string }> = [];
  for (const { module, rule } of rules) {
    if (!hasScope(ctx.principal, rule.scope)) {
      notChecked.push({ ruleId: rule.id, requiredScope: rule.scope });
      continue;
    }
    for (const alert of await rule.evaluate(ctx)) {
      if (RANK[alert.severity] <= RANK[minimum]) alerts.push({ ruleId: rule.id, module, ...alert });
    }
  }
  alerts.sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.ruleId.localeCompare(b.ruleId));
  return { alerts, rulesChecked: rules.length - notChecked.length, notChecked, speakToUser: sentence(alerts) };
}

function sentence(alerts: readonly AlertView[]): string {
  if (alerts.length === 0) return 'Nothing needs attention right now.';
  const urgent = alerts.filter((a) => a.severity === 'urgent').length;
  const first = alerts[0];
  return `${countOf(alerts.length, 'thing needs', 'things need')} attention${urgent ? `, ${urgent} urgent` : ''}; first: ${first.title}.`;
}

export function proactiveAlertsTool(modules: readonly ModuleDefinition[]) {
  const rules = registeredAlertRules(modules);
  return tools.read('proactive_alerts', {
    title: 'Proactive alerts',
    description: [
      'What needs attention in the organisation now, from explainable rules over its data: each alert has its rule, severity, a plain reason with the figures, and the tool to act with. Rules whose scope this credential lacks are listed as not checked. Rules:',
      ...rules.map(({ rule }) => `${rule.id} (${rule.scope}): ${rule.description}`),
    ].join('\n'),
    keywords: ['alerts', 'warnings', 'attention', 'what needs doing', 'problems', 'health check'],
    examples: ['is there anything I should know about', 'what needs my attention this week', 'anything urgent I need to deal with today', 'run a health check across the church', 'have any messages failed to go out this week', "what's slipping through the cracks", 'any red flags or warnings', 'what should I be worrying about right now', 'any alerts', "I'm back from leave on Monday, what's gone wrong or needs following up?", 'are there any problems I ought to sort out?'],
    // Unlisted to keep the default listing small (its description grows with every rule); platform_overview's attention field points to it.
    input: z.object({
      minimumSeverity: z.enum(ALERT_SEVERITIES).default('info').describe('Leave out alerts less pressing than this (urgent, warning, info)'),
    }),
    output: z.object({
      alerts: z.array(alertSchema).describe('Most pressing first'),
      rulesChecked: z.number().int(),
      notChecked: z.array(z.object({ ruleId: z.string(), requiredScope: z.string() }).strict()).describe('Rules not evaluated because this credential lacks their scope'),
      speakToUser: z.string().describe('A plain sentence to relay'),
    }).strict(),
    run: (ctx, input) => evaluateAlerts(rules, ctx, input.minimumSeverity),
  });
}
