import { defineModule } from '../module';
import { createGivingRecurringActivities } from './activities/recurring';
import { createStatementActivities } from './activities/statements';
import { giving } from './migrations/2026.11.24T00.00.00.giving';
import { givingSettings } from './migrations/2026.11.24T00.05.00.giving-settings';
import { giftAid } from './migrations/2026.11.24T00.10.00.giving-gift-aid';
import { givingGiversMerge } from './migrations/2026.11.24T00.40.00.giving-givers-merge';
import { givingStatementDelivery } from './migrations/2026.11.24T01.20.05.giving-statement-delivery';
import { givingPledgeFunds } from './migrations/2026.11.27T21.45.00.giving-pledge-funds';
import { statementDelivery } from './gift-aid/statement-delivery';
import { giftAidModels } from './models/gift-aid';
import { giftAidContactRefs } from './gift-aid/contact-refs';
import { coreContactRefs } from './givers';
import { givingModels } from './models';
import { givingPlaybooks } from './playbooks';
import { givingRoutes } from './routes';
import { givingOverview } from './summary';
import { givingMetrics } from './metrics';
import { coreTools } from './tools/core';
import { giftAidTools } from './tools/gift-aid';
import { pledgeAndRecurringTools } from './tools/pledges-recurring';
import { givingAlertRules } from './alerts';
import { givingWidgets } from './widgets';

export default defineModule({
  name: 'giving',
  title: 'Giving',
  description: 'Funds, givers, donations in batches, pledges, recurring gifts, refunds, statements and UK Gift Aid.',
  tools: [...coreTools, ...giftAidTools, ...pledgeAndRecurringTools],
  widgets: givingWidgets,
  models: [...givingModels, ...giftAidModels],
  migrations: [giving, givingSettings, giftAid, givingGiversMerge, givingStatementDelivery, givingPledgeFunds],
  outboxSources: [statementDelivery],
  scopes: ['giving:read', 'giving:write'],
  uses: ['platform', 'people', 'audit'],
  routes: givingRoutes,
  overview: givingOverview,
  metrics: givingMetrics,
  alerts: givingAlertRules,
  playbooks: givingPlaybooks,
  contactRefs: [...coreContactRefs, ...giftAidContactRefs],
  meters: [{ feature: 'donations', allowances: { starter: 1000, growth: 10000, enterprise: 1000000 } }],
  workflows: require.resolve('./workflows'),
  activities: [createGivingRecurringActivities, createStatementActivities],
  // Hourly, so a gift is recorded within an hour of its date starting (UTC), and a run that follows an outage catches up.
  schedules: [{ id: 'giving-recurring', workflowType: 'givingRecurringWorkflow', everyMs: 3_600_000, note: 'Records recurring gifts that have come due' }],
});
