import path from 'node:path';
import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { defineModule } from '../module';
import { defineWidget } from '../widget';
import { billingMigration } from './migrations/2026.11.28T06.00.00.billing';
import { billingMetrics } from './metrics';
import { billingModels } from './models';
import { billingPlaybooks } from './playbooks';
import { billingRoutes } from './routes';
import { billingAllowanceGuard, entitlementsFor, SUBSCRIPTION_STATUSES, usageWithCaps } from './service';
import { billingTools } from './tools';
import { billingWebhooks } from './webhooks/payments';

/**
 * Billing: the organisation's own Steward plan. Subscription with Stripe's states, entitlements
 * from plan and state, checkout links (the plan granted only by the provider's signed webhook),
 * the customer portal, invoices, and spend caps per metered feature that the kernel's allowance
 * check enforces (allowanceGuards) with alerts at 50, 80 and 100 %.
 */
export default defineModule({
  name: 'billing',
  title: 'Billing',
  description: 'The organisation\'s own Steward plan: status and entitlements, plans and prices, checkout and portal links, invoices, spend caps and usage.',
  tools: billingTools,
  models: [...billingModels],
  migrations: [billingMigration],
  scopes: ['billing:read', 'billing:write'],
  uses: ['audit'],
  routes: billingRoutes,
  playbooks: billingPlaybooks,
  metrics: billingMetrics,
  widgets: [defineWidget({
    id: 'billing-plan-status', module: 'billing', title: 'Plan status',
    description: 'The organisation\'s plan at a glance: subscription state, renewal or end date, what is paused, and usage against each allowance and spend cap.',
    tools: ['billing_get_plan_status'], script: path.join(__dirname, 'widgets', 'plan-status.mts'),
  })],
  webhooks: [billingWebhooks],
  allowanceGuards: [billingAllowanceGuard],
  overview: {
    shape: {
      plan: z.object({ planCode: z.string(), status: z.enum(SUBSCRIPTION_STATUSES), readOnly: z.boolean(), marketingSends: z.boolean(), reason: z.string() }).strict().nullable()
        .describe('The organisation\'s Steward plan, its subscription state and what it allows now; null without billing:read'),
    },
    compute: async (ctx) => {
      if (!hasScope(ctx.principal, 'billing:read')) return { plan: null };
      const entitlements = await entitlementsFor(ctx.db, ctx.org.id);
      return { plan: { planCode: entitlements.plan, status: entitlements.status, readOnly: entitlements.readOnly, marketingSends: entitlements.marketingSends, reason: entitlements.reason } };
    },
  },
  usage: {
    shape: {
      entitlements: z.object({
        status: z.enum(SUBSCRIPTION_STATUSES), meteredUse: z.boolean(), serviceMessages: z.boolean(), marketingSends: z.boolean(), readOnly: z.boolean(),
        graceEndsAt: z.string().nullable(), reason: z.string(),
      }).strict().nullable()
        .describe('What the subscription\'s state allows now, as every metered call is checked (past due: service messages only, until graceEndsAt; canceled: read-only); null without billing:read'),
    },
    compute: async (ctx) => {
      if (!hasScope(ctx.principal, 'billing:read')) return { entitlements: null };
      const { plan: _plan, ...entitlements } = await entitlementsFor(ctx.db, ctx.org.id);
      return { entitlements };
    },
  },
  alerts: [{
    id: 'billing.spend_cap',
    description: 'A metered feature has used 50, 80 or 100 % of the spend cap the organisation set for it this month.',
    scope: 'billing:read',
    evaluate: async (ctx) => {
      if (!hasScope(ctx.principal, 'billing:read')) return [];
      const usage = await usageWithCaps(ctx.db, ctx.org.id);
      return usage.filter((entry) => entry.alertLevel !== null).map((entry) => ({
        severity: entry.alertLevel === 100 ? 'urgent' as const : entry.alertLevel === 80 ? 'warning' as const : 'info' as const,
        title: `${entry.feature.replace(/_/g, ' ')} at ${entry.capPercent} % of its spend cap`,
        reason: `${entry.used} of the ${entry.capUnits} ${entry.feature.replace(/_/g, ' ')} capped this month are used${entry.alertLevel === 100 ? ': further use is refused until the cap is raised or the month ends' : ''}.`,
        count: entry.used,
        actWith: { tool: 'billing_get_usage', args: { feature: entry.feature } },
      }));
    },
  }],
});
