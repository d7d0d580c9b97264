import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { queryOne } from '../../db/pool';
import { defineModule } from '../module';
import { createGrowAutomationActivities } from './activities/automations';
import { createGrowCampaignActivities } from './activities/campaigns';
import { growAiRoutes } from './ai-studio';
import { growAutomationTools } from './automation-tools';
import { countActiveAutomations } from './automations';
import { growCampaignTools } from './campaign-tools';
import { growMigration } from './migrations/2026.11.28T10.00.00.grow';
import { growCampaignsMigration } from './migrations/2026.11.28T10.00.01.grow-campaigns';
import { growAutomationsMigration } from './migrations/2026.11.29T10.00.00.grow-automations';
import { growSubmissionActionsMigration } from './migrations/2026.11.29T11.00.00.grow-submission-actions';
import { growCampaignAttemptsMigration } from './migrations/2026.11.29T17.00.00.grow-campaign-attempts';
import { growMetrics } from './metrics';
import { growAutomationModels, growCampaignModels, growModels } from './models';
import { growPlaybooks } from './playbooks';
import { growWebhooks } from './public';
import { growRoutes } from './routes';
import { growWidgets } from './widgets';
import { growTestEmailTools } from './test-email';
import { growFormTools } from './tools';

/**
 * Grow: public forms and landing pages served by Steward (rate-limited, size-capped, bot-checked,
 * CSRF-safe, every value escaped), their submissions matched to contacts (never duplicated) and
 * optionally opening a guests pipeline card. Grow never sends on its own: anything it sends goes
 * through the channels module's outbox.
 */
export default defineModule({
  name: 'grow',
  title: 'Grow',
  description: 'Forms and landing pages people fill in, with their submissions, contacts matched or created, and page stats.',
  tools: [...growFormTools, ...growCampaignTools, ...growTestEmailTools, ...growAutomationTools],
  models: [...growModels, ...growCampaignModels, ...growAutomationModels],
  migrations: [growMigration, growCampaignsMigration, growAutomationsMigration, growSubmissionActionsMigration, growCampaignAttemptsMigration],
  workflows: require.resolve('./workflows'),
  activities: [createGrowCampaignActivities, createGrowAutomationActivities],
  scopes: ['grow:read', 'grow:write'],
  uses: ['platform', 'people', 'guests', 'templates', 'channels', 'giving', 'groups', 'mediahub', 'schedule', 'audit'],
  routes: [...growRoutes, ...growAiRoutes],
  widgets: growWidgets,
  playbooks: growPlaybooks,
  metrics: growMetrics,
  meters: [
    { feature: 'form_submissions', allowances: { starter: 500, growth: 5000, enterprise: 100000 } },
    { feature: 'active_automations', allowances: { starter: 3, growth: 25, enterprise: 500 }, standingCount: countActiveAutomations },
  ],
  webhooks: [growWebhooks],
  overview: {
    shape: {
      grow: z.object({ publishedForms: z.number().int(), publishedLandingPages: z.number().int() }).strict().nullable()
        .describe('Published forms and landing pages; null without grow:read'),
    },
    compute: async (ctx) => {
      if (!hasScope(ctx.principal, 'grow:read')) return { grow: null };
      const row = await queryOne<{ forms: number; pages: number }>(ctx.db, `SELECT
        (SELECT count(*)::int FROM grow_forms WHERE org_id = $1 AND status = 'published') AS forms,
        (SELECT count(*)::int FROM grow_landing_pages WHERE org_id = $1 AND status = 'published') AS pages`, [ctx.org.id]);
      return { grow: { publishedForms: row?.forms ?? 0, publishedLandingPages: row?.pages ?? 0 } };
    },
  },
  contactRefs: [
    // Erasure clears the person and the answers they gave; the submission is kept as a count.
    { table: 'grow_submissions', column: 'contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['answers'] },
    { table: 'grow_campaign_recipients', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'grow_campaign_events', column: 'contact_id', onMerge: 'move', onErase: 'null' },
    { table: 'grow_campaign_test_sends', column: 'contact_id', onMerge: 'move', onErase: 'null' },
    { table: 'grow_automation_runs', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
});
