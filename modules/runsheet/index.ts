import { z } from 'zod';
import { hasScope } from '../../core/principal';
import { defineModule } from '../module';
import { createRunsheetActivities } from './activities';
import { runsheetAgents } from './agent';
import { runsheetMessageDelivery } from './messages';
import { openPlaces, openPlacesRule, runsheetMetrics } from './metrics';
import { runsheetMigration } from './migrations/2026.11.28T01.00.00.runsheet';
import { runsheetNeededPerTime } from './migrations/2026.11.29T13.00.10.runsheet-needed-per-time';
import { runsheetSongFiles } from './migrations/2026.11.29T13.00.20.runsheet-song-files';
import { runsheetModels } from './models';
import { runsheetPlaybooks } from './playbooks';
import { runsheetRoutes } from './routes';
import { countSeats } from './teams';
import { peopleTools } from './tools/people';
import { planTools } from './tools/plans';
import { checkReadinessTool } from './tools/readiness';
import { songTools } from './tools/songs';
import { runsheetWidgets } from './widgets';
import { blockoutWebhooks } from './webhooks/blockouts';
import { runsheetWebhooks } from './webhooks/respond';

/**
 * Service planning: plans past and future with their running order, songs and arrangements, teams and
 * positions, volunteer scheduling with conflicts, autofill, rota requests through channels, and declines
 * that fix themselves (a durable substitute search per vacated place, workflows/substitution.ts).
 */
export default defineModule({
  name: 'runsheet',
  title: 'Runsheet',
  description: 'Service plans and running orders, songs for CCLI, teams, positions and volunteer rotas with declines replaced automatically.',
  tools: [...planTools, ...songTools, ...peopleTools, checkReadinessTool],
  models: runsheetModels,
  migrations: [runsheetMigration, runsheetNeededPerTime, runsheetSongFiles],
  scopes: ['runsheet:read', 'runsheet:write'],
  routes: runsheetRoutes,
  widgets: runsheetWidgets,
  playbooks: runsheetPlaybooks,
  metrics: runsheetMetrics,
  alerts: [openPlacesRule],
  overview: {
    shape: {
      servicePlans: z.object({
        upcoming: z.number().int().describe('Plans in the next 14 days'),
        openPlaces: z.number().int().describe('Needed places on them nobody fills'),
      }).strict().nullable().describe('Service plans in the next 14 days and their open rota places; null without runsheet:read'),
    },
    compute: async (ctx) => {
      if (!hasScope(ctx.principal, 'runsheet:read')) return { servicePlans: null };
      const places = await openPlaces(ctx.db, ctx.org.id, 14);
      return { servicePlans: { upcoming: places.plans, openPlaces: places.open } };
    },
  },
  uses: ['platform', 'people', 'channels', 'schedule', 'guests', 'audit'],
  meters: [{ feature: 'runsheet_access_seats', allowances: { starter: 5, growth: 25, enterprise: 500 }, standingCount: countSeats }],
  contactRefs: [
    { table: 'runsheet_team_members', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'runsheet_plan_people', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'runsheet_blockouts', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'runsheet_preferences', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'runsheet_offers', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
    { table: 'runsheet_notifications', column: 'contact_id', onMerge: 'move', onErase: 'delete' },
  ],
  outboxSources: [runsheetMessageDelivery],
  workflows: require.resolve('./workflows'),
  activities: [createRunsheetActivities],
  webhooks: [runsheetWebhooks, blockoutWebhooks],
  agents: runsheetAgents,
});
