import { z } from 'zod';
import { queryValue, routesFor } from '../../routes';
import { canSeeRestricted } from '../pastoral/privacy';
import { contactTagsApi, crmLocations, crmSubscription, departments } from './crm';
import { getLayout } from './layouts';
import { contactAttendance, contactEmails, contactGroups, contactProfile, contactSummary } from './profile';
import { deleteSavedSearch, searchConfig } from './searches';
import { listPartnerContacts, listShares } from './shares';
import { getBulkOperation } from './bulk';
import { analyticsStats, contactStats, crmChart, engagementOverview, integrationOverview, recentActivities, smartDiscoveries } from './stats';
import {
  getAnalyticsStatsTool, getContactStatsTool, getCrmAnalyticsChartTool, getEngagementOverviewTool, getIntegrationOverviewTool, getSmartDiscoveriesTool,
  layoutToolList, listRecentActivitiesTool,
} from './tools/overview';
import {
  getContactAttendanceTool, getContactProfileTool, getContactSummaryTool, listContactEmailsTool, listContactGroupsTabTool,
  generateMemberQrTool,
} from './tools/profile';
import { listContactTagsApiTool, listCrmLocationsTool, listCrmSearchConfigTool, listDepartmentsTool, getCrmSubscriptionTool, saveCrmSearchTool } from './tools/crm';
import {
  createPartnerShareTool, getContactsBulkOperationTool, listPartnerContactsTool, listPartnerSharesTool, revokePartnerShareTool, runContactsBulkOperationTool,
} from './tools/jobs';

/**
 * The people dashboard's routes: each view a curated tool also serves, at its own path for the
 * dashboard and through people_invoke_api_read/_write for everyone else; writes a curated tool
 * does name it (the bridges send callers there). Deleting a saved search is route-only.
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });
const id = z.uuid();
const contactParams = z.object({ contactId: id }).strict();
const [getMain, setMain, getCrm, setCrm] = layoutToolList;

export const dashboardRoutes = [
  routes.get('dashboard/layouts/main', { summary: 'The caller\'s main people dashboard layout', response: getMain!.output, run: async (ctx) => ({ layout: await getLayout(ctx.db, ctx.org.id, ctx.principal.userId, 'main') }) }),
  routes.put('dashboard/layouts/main', { summary: 'Save the caller\'s main people dashboard layout', body: setMain!.input, response: setMain!.output, curatedTool: 'people_set_main_dashboard_layout' }),
  routes.get('dashboard/layouts/crm', { summary: 'The caller\'s CRM dashboard layout', response: getCrm!.output, run: async (ctx) => ({ layout: await getLayout(ctx.db, ctx.org.id, ctx.principal.userId, 'crm') }) }),
  routes.put('dashboard/layouts/crm', { summary: 'Save the caller\'s CRM dashboard layout', body: setCrm!.input, response: setCrm!.output, curatedTool: 'people_set_crm_dashboard_layout' }),
  routes.get('dashboard/stats', {
    summary: 'Headline people figures for a period', query: z.object({ days: queryValue.integer(1, 365).default(30) }).strict(), response: getAnalyticsStatsTool.output,
    run: async (ctx, { query }) => ({ stats: await analyticsStats(ctx.db, ctx.org.id, query.days) }),
  }),
  routes.get('dashboard/contact-stats', { summary: 'Contacts by status, stage and gender', response: getContactStatsTool.output, run: async (ctx) => ({ stats: await contactStats(ctx.db, ctx.org.id) }) }),
  routes.get('dashboard/chart', {
    summary: 'CRM analytics chart series, one point a day (default 7 days)', query: z.object({ days: queryValue.integer(1, 365).default(7) }).strict(), response: getCrmAnalyticsChartTool.output,
    run: async (ctx, { query }) => crmChart(ctx.db, ctx.org.id, query.days, canSeeRestricted(ctx.principal)),
  }),
  routes.get('dashboard/activities', {
    summary: 'Recent care timeline activity across everyone', query: z.object({ limit: queryValue.integer(1, 100).default(25), days: queryValue.integer(1, 365).default(30) }).strict(),
    response: listRecentActivitiesTool.output,
    run: async (ctx, { query }) => ({ activities: await recentActivities(ctx.db, ctx.org.id, { ...query, canSeeRestricted: canSeeRestricted(ctx.principal) }) }),
  }),
  routes.get('dashboard/engagement', { summary: 'Engagement bands and coverage', response: getEngagementOverviewTool.output, run: async (ctx) => engagementOverview(ctx.db, ctx.org.id, canSeeRestricted(ctx.principal)) }),
  routes.get('dashboard/discoveries', {
    summary: 'Smart discoveries: findings worth a look, with their rules', query: z.object({ sampleSize: queryValue.integer(0, 20).default(5) }).strict(), response: getSmartDiscoveriesTool.output,
    run: async (ctx, { query }) => ({ discoveries: await smartDiscoveries(ctx.db, ctx.org.id, query.sampleSize) }),
  }),
  routes.get('dashboard/integration', {
    summary: 'Newcomer journey funnel; stalled=true lists stalled contacts',
    query: z.object({ stalled: queryValue.boolean().default(false), stallDays: queryValue.integer(7, 365).default(21), limit: queryValue.integer(1, 200).default(50) }).strict(),
    response: getIntegrationOverviewTool.output,
    run: async (ctx, { query }) => integrationOverview(ctx.db, ctx.org.id, { ...query, canSeeRestricted: canSeeRestricted(ctx.principal) }),
  }),
  routes.get('contacts/{contactId}/profile', { summary: 'A contact\'s profile page', params: contactParams, response: getContactProfileTool.output, run: async (ctx, { params }) => ({ profile: await contactProfile(ctx.db, ctx.org.id, params.contactId, canSeeRestricted(ctx.principal)) }) }),
  routes.get('contacts/{contactId}/summary', { summary: 'A short summary of a contact', params: contactParams, response: getContactSummaryTool.output, run: async (ctx, { params }) => contactSummary(ctx.db, ctx.org.id, params.contactId, canSeeRestricted(ctx.principal)) }),
  routes.get('contacts/{contactId}/emails', {
    summary: 'Messages sent to a contact', params: contactParams, query: z.object({ channel: z.enum(['email', 'all']).default('email'), limit: queryValue.integer(1, 100).default(25) }).strict(),
    response: listContactEmailsTool.output, run: async (ctx, { params, query }) => contactEmails(ctx.db, ctx.org.id, params.contactId, query),
  }),
  routes.get('contacts/{contactId}/groups', { summary: 'A contact\'s teams, segments and roster entry', params: contactParams, response: listContactGroupsTabTool.output, run: async (ctx, { params }) => contactGroups(ctx.db, ctx.org.id, params.contactId) }),
  routes.get('contacts/{contactId}/attendance', {
    summary: 'A contact\'s attendance over a range', params: contactParams, query: z.object({ from: z.iso.date().optional(), to: z.iso.date().optional() }).strict(),
    response: getContactAttendanceTool.output, run: async (ctx, { params, query }) => contactAttendance(ctx.db, ctx.org.id, params.contactId, query),
  }),
  routes.get('contacts/{contactId}/tags', {
    summary: 'A contact\'s tags with colour and category', params: contactParams, response: listContactTagsApiTool.output,
    run: async (ctx, { params }) => {
      await contactSummary(ctx.db, ctx.org.id, params.contactId, false);
      return { contactId: params.contactId, tags: await contactTagsApi(ctx.db, ctx.org.id, params.contactId) };
    },
  }),
  routes.post('contacts/{contactId}/member-qr', { summary: 'Issue a member QR code', params: contactParams, response: generateMemberQrTool.output, curatedTool: 'people_generate_member_qr' }),
  routes.get('locations', { summary: 'Towns and postcode districts of contacts', query: z.object({ limit: queryValue.integer(1, 200).default(25) }).strict(), response: listCrmLocationsTool.output, run: async (ctx, { query }) => crmLocations(ctx.db, ctx.org.id, query.limit) }),
  routes.get('departments', { summary: 'Departments (active ministry teams) with leaders', response: listDepartmentsTool.output, run: async (ctx) => ({ departments: await departments(ctx.db, ctx.org.id) }) }),
  routes.get('searches', { summary: 'CRM search options and saved searches', response: listCrmSearchConfigTool.output, run: async (ctx) => searchConfig(ctx.db, ctx.org.id) }),
  routes.post('searches', { summary: 'Save a CRM search', body: saveCrmSearchTool.input, response: saveCrmSearchTool.output, curatedTool: 'people_save_crm_search' }),
  routes.delete('searches/{searchId}', {
    summary: 'Delete a saved CRM search', params: z.object({ searchId: id }).strict(),
    response: z.object({ id, name: z.string() }).strict(),
    run: async (ctx, { params }) => { const removed = await deleteSavedSearch(ctx.db, ctx.org.id, params.searchId); return { id: removed.id, name: removed.name }; },
  }),
  routes.get('partner-shares', {
    summary: 'Contact lists shared with partner organisations', query: z.object({ state: z.enum(['active', 'all']).default('active') }).strict(), response: listPartnerSharesTool.output,
    run: async (ctx, { query }) => ({ shares: await listShares(ctx.db, ctx.org.id, query.state) }),
  }),
  routes.post('partner-shares', { summary: 'Share a contact list with a partner', body: createPartnerShareTool.input, response: createPartnerShareTool.output, curatedTool: 'people_create_partner_share' }),
  routes.get('partner-shares/{shareId}/contacts', {
    summary: 'What a partner share shows the partner', params: z.object({ shareId: id }).strict(), query: z.object({ limit: queryValue.integer(1, 2000).default(100) }).strict(),
    response: listPartnerContactsTool.output, run: async (ctx, { params, query }) => listPartnerContacts(ctx.db, ctx.org.id, params.shareId, query.limit),
  }),
  routes.delete('partner-shares/{shareId}', { summary: 'Revoke a partner share', params: z.object({ shareId: id }).strict(), body: z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict(), response: revokePartnerShareTool.output, curatedTool: 'people_revoke_partner_share' }),
  routes.post('bulk-operations', { summary: 'Preview or run a bulk operation on contacts', body: runContactsBulkOperationTool.input, response: runContactsBulkOperationTool.output, curatedTool: 'people_run_contacts_bulk_operation' }),
  routes.get('bulk-operations/{operationId}', {
    summary: 'A bulk operation\'s progress', params: z.object({ operationId: id }).strict(), response: getContactsBulkOperationTool.output,
    run: async (ctx, { params }) => ({ operation: await getBulkOperation(ctx.db, ctx.org.id, params.operationId) }),
  }),
  routes.get('subscription', { summary: 'Contacts allowance and use', response: getCrmSubscriptionTool.output, run: async (ctx) => crmSubscription(ctx.db, ctx.org.id, ctx.org.planCode) }),
];
