import { z } from 'zod';
import { notFound } from '../kit';
import { routesFor } from '../routes';
import { agentSchema, listAgents } from './agents';
import { revokeApiKey } from '../../kernel/api-keys';
import { listApiKeys, listTeam, requireOwnerOrAdmin, updateOrgSettings } from './settings';

/**
 * The platform's settings routes: organisation settings, team, API keys and agents'
 * configuration. They are the `settings` surface, reached by `platform_settings_invoke_api_*`
 * (and, like every route, by the dashboard pair and their own paths).
 */
const routes = routesFor('platform', { read: 'platform:read', write: 'platform:write' });

const settingsSchema = z.object({
  id: z.uuid(), name: z.string(), country: z.string(), dateFormat: z.enum(['DMY', 'MDY', 'YMD']), planCode: z.string(),
}).strict();
const keySchema = z.object({
  id: z.uuid(), name: z.string(), prefix: z.string(), scopes: z.array(z.string()), ownerEmail: z.string(),
  createdAt: z.string(), lastUsedAt: z.string().nullable(), revoked: z.boolean(),
}).strict();

export const platformRoutes = [
  routes.get('settings', {
    surface: 'settings',
    summary: 'The organisation\'s settings: name, country, date format and plan',
    response: z.object({ settings: settingsSchema }).strict(),
    run: async (ctx) => ({ settings: { id: ctx.org.id, name: ctx.org.name, country: ctx.org.country, dateFormat: ctx.org.dateFormat, planCode: ctx.org.planCode } }),
  }),
  routes.patch('settings', {
    surface: 'settings',
    summary: 'Rename the organisation or change how it writes dates (owner or admin)',
    body: z.object({ name: z.string().trim().min(1).max(200).optional(), dateFormat: z.enum(['DMY', 'MDY', 'YMD']).optional() }).strict(),
    response: z.object({ settings: settingsSchema }).strict(),
    run: async (ctx, { body }) => {
      requireOwnerOrAdmin(ctx.principal, 'change the organisation\'s settings');
      return { settings: await updateOrgSettings(ctx.db, ctx.org.id, body) };
    },
  }),
  routes.get('team', {
    surface: 'settings',
    summary: 'Who has access to the organisation, with role and safeguarding permission (owner or admin)',
    response: z.object({
      members: z.array(z.object({ userId: z.uuid(), email: z.string(), displayName: z.string().nullable(), role: z.string(), safeguarding: z.boolean(), joinedAt: z.string() }).strict()),
    }).strict(),
    run: async (ctx) => {
      requireOwnerOrAdmin(ctx.principal, 'see the team');
      return { members: await listTeam(ctx.db, ctx.org.id) };
    },
  }),
  routes.get('api-keys', {
    surface: 'settings',
    summary: 'API keys with their scopes and last use, never their secrets (owner or admin)',
    response: z.object({ keys: z.array(keySchema) }).strict(),
    run: async (ctx) => {
      requireOwnerOrAdmin(ctx.principal, 'see the API keys');
      return { keys: await listApiKeys(ctx.db, ctx.org.id) };
    },
  }),
  routes.delete('api-keys/{keyId}', {
    surface: 'settings',
    summary: 'Revoke an API key at once (owner or admin)',
    params: z.object({ keyId: z.uuid() }).strict(),
    response: z.object({ id: z.uuid(), revoked: z.literal(true) }).strict(),
    run: async (ctx, { params }) => {
      requireOwnerOrAdmin(ctx.principal, 'revoke API keys');
      if (!(await revokeApiKey(ctx.db, ctx.org.id, params.keyId))) throw notFound('API key', params.keyId);
      return { id: params.keyId, revoked: true as const };
    },
  }),
  routes.get('agents', {
    surface: 'settings',
    summary: 'The autonomous agents with their autonomy and schedule',
    response: z.object({ agents: z.array(agentSchema) }).strict(),
    run: async (ctx) => ({ agents: await listAgents(ctx.db, ctx.org.id) }),
  }),
  routes.patch('agents/{agentKey}', {
    surface: 'settings',
    summary: 'Change an agent\'s autonomy or interval',
    params: z.object({ agentKey: z.string().min(1).max(40) }).strict(),
    body: z.object({ autonomy: z.string().max(40), intervalMinutes: z.number().int().min(1).max(10080).optional() }).strict(),
    response: z.object({ agent: agentSchema }).strict(),
    curatedTool: 'platform_set_agent_autonomy',
  }),
];
