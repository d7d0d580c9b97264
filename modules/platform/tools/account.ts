import { z } from 'zod';
import { METERED_FEATURES } from '../../../core/billing';
import { allModules, permittedTools } from '../../catalogue';
import { countContacts } from '../../people/contacts';
import { defineTool } from '../../tool';
import { usageSummary } from '../billing';
import { visibleNoteSql } from '../../people/notes';
import { hasScope } from '../../../core/principal';
import { SAFEGUARDING_SCOPE } from '../../../core/scopes';
import { queryRows } from '../../../db/pool';

const featureUsage = z.object({
  feature: z.enum(METERED_FEATURES),
  used: z.number().int(),
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  period: z.enum(['month', 'standing']),
}).strict();

export const usageTool = defineTool({
  name: 'platform_usage',
  module: 'platform',
  title: 'Usage and allowances',
  description: 'Usage against the plan\'s allowance for each metered feature (email sends, messaging credits, contacts, runsheet access seats, donations, tickets, check-ins, rooms, streams, media items). Contacts count standing records; the others count this calendar month.',
  keywords: ['billing', 'allowance', 'quota', 'limits', 'plan usage', 'credits left'],
  scope: 'platform:read',
  effect: 'read',
  listed: true,
  input: z.object({}).strict(),
  output: z.object({ plan: z.string(), features: z.array(featureUsage) }).strict(),
  run: async (ctx) => ({ plan: ctx.org.planCode, features: await usageSummary(ctx.db, ctx.org.id) }),
});

export const overviewTool = defineTool({
  name: 'platform_overview',
  module: 'platform',
  title: 'Organisation overview',
  description: 'One-call snapshot of the organisation: CRM contact totals (by status and membership stage), notes with open follow-ups, plan and usage, and which modules and how many tools this credential can use. Start here to orient.',
  keywords: ['snapshot', 'summary', 'dashboard', 'orient', 'totals'],
  scope: 'platform:read',
  effect: 'read',
  listed: true,
  input: z.object({}).strict(),
  output: z.object({
    organisation: z.object({ id: z.string(), name: z.string(), country: z.string(), dateFormat: z.string(), plan: z.string() }).strict(),
    contacts: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()), byMembershipStatus: z.record(z.string(), z.number().int()) }).strict(),
    openFollowUps: z.number().int(),
    usage: z.array(featureUsage),
    modules: z.array(z.string()),
    toolsAvailable: z.number().int(),
  }).strict(),
  run: async (ctx) => {
    const contacts = await countContacts(ctx.db, ctx.org.id);
    const membership = await queryRows<{ stage: string; n: number }>(ctx.db, `
      SELECT COALESCE(membership_status, 'unknown') AS stage, count(*)::int AS n FROM contacts
      WHERE org_id = $1 AND deleted_at IS NULL GROUP BY 1`, [ctx.org.id]);
    // Counted like the follow-up list: restricted notes only for callers holding people:safeguarding.
    const followUps = await queryRows<{ n: number }>(ctx.db, `
      SELECT count(*)::int AS n FROM notes n JOIN contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
      WHERE n.org_id = $1 AND n.follow_up_date IS NOT NULL AND NOT n.follow_up_completed
        AND ${visibleNoteSql('n', hasScope(ctx.principal, SAFEGUARDING_SCOPE))}`, [ctx.org.id]);
    return {
      organisation: { id: ctx.org.id, name: ctx.org.name, country: ctx.org.country, dateFormat: ctx.org.dateFormat, plan: ctx.org.planCode },
      contacts: { ...contacts, byMembershipStatus: Object.fromEntries(membership.map((row) => [row.stage, row.n])) },
      openFollowUps: followUps[0]?.n ?? 0,
      usage: await usageSummary(ctx.db, ctx.org.id),
      modules: allModules(),
      toolsAvailable: permittedTools(ctx.principal.scopes).length,
    };
  },
});
