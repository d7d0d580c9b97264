import { z } from 'zod';
import { OPERATOR_SCOPE } from '../../core/scopes';
import { routesFor } from '../routes';
import { operatorOrganisations, operatorSupportView, operatorUsers, setOperatorAllowance } from './operators';

/**
 * The operator's routes (`surface: 'operator'`, scope platform:admin): the organisations this
 * installation hosts, the people who sign in to them, one organisation as support sees it, and an
 * organisation's allowance. Reached only by platform_admin_invoke_api_read/_write, which only an
 * operator key holds; each call is a tool call, so it is a durable workflow and audited in the
 * operator's own organisation, and a change is also written to the affected organisation's trail.
 */
const routes = routesFor('platform', { read: OPERATOR_SCOPE, write: OPERATOR_SCOPE });
const operator = { surface: 'operator' as const, scope: OPERATOR_SCOPE };

const organisationSchema = z.object({
  id: z.uuid(), name: z.string(), country: z.string(), planCode: z.string(), createdAt: z.string(), members: z.number().int(),
  unitsThisMonth: z.number().int().describe('Metered units used this calendar month, all features'), lastCallAt: z.string().nullable(),
}).strict();

export const operatorRoutes = [
  routes.get('admin/organisations', {
    ...operator,
    summary: 'Operator: the organisations this installation hosts, with plan, team size, use this month and last call (platform admins only)',
    query: z.object({ search: z.string().trim().min(1).max(200).optional().describe('Part of the name'), limit: z.coerce.number().int().min(1).max(200).default(50) }).strict(),
    response: z.object({ organisations: z.array(organisationSchema) }).strict(),
    run: async (ctx, { query }) => ({ organisations: await operatorOrganisations(ctx.db, ctx.principal.userId, query) }),
  }),
  routes.get('admin/organisations/{orgId}/support', {
    ...operator,
    summary: 'Operator: one organisation as support sees it: owners, allowances against use, refused and failed calls in 30 days (platform admins only)',
    params: z.object({ orgId: z.uuid() }).strict(),
    response: z.object({ support: z.record(z.string(), z.unknown()) }).strict(),
    run: async (ctx, { params }) => ({ support: await operatorSupportView(ctx.db, ctx.principal.userId, params.orgId) }),
  }),
  routes.get('admin/users', {
    ...operator,
    summary: 'Operator: people by sign-in email, with each organisation they belong to and their role there (platform admins only)',
    query: z.object({ email: z.string().trim().min(3).max(320).describe('All or part of the email') }).strict(),
    response: z.object({
      users: z.array(z.object({
        userId: z.uuid(), email: z.string(), displayName: z.string().nullable(), createdAt: z.string(), platformAdmin: z.boolean(),
        memberships: z.array(z.object({ orgId: z.uuid(), orgName: z.string(), role: z.string() }).strict()),
      }).strict()),
    }).strict(),
    run: async (ctx, { query }) => ({ users: await operatorUsers(ctx.db, ctx.principal.userId, query.email) }),
  }),
  routes.put('admin/organisations/{orgId}/allowances/{feature}', {
    ...operator,
    summary: "Operator: set (or with null remove) an organisation's own monthly allowance for one metered feature; recorded in that organisation's audit trail (platform admins only)",
    params: z.object({ orgId: z.uuid(), feature: z.string().trim().min(1).max(60) }).strict(),
    body: z.object({ monthlyLimit: z.number().int().min(0).max(100_000_000).nullable() }).strict(),
    response: z.object({
      allowance: z.object({
        orgId: z.uuid(), feature: z.string(), override: z.number().int().nullable(), previousOverride: z.number().int().nullable(),
        planLimit: z.number().int().nullable(), effectiveLimit: z.number().int().nullable(),
      }).strict(),
    }).strict(),
    run: async (ctx, { params, body }) => ({
      allowance: await setOperatorAllowance(ctx.db, ctx.principal.userId, { orgId: params.orgId, feature: params.feature, monthlyLimit: body.monthlyLimit, workflowId: ctx.workflowId }),
    }),
  }),
];
