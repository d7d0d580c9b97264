import { z } from 'zod';
import type { AnyTool } from '../tool';
import { curatedVia, queryValue, readVia as readViaTool, routesFor } from '../routes';
import { growCampaignTools } from './campaign-tools';
import { formView, requireForm } from './forms';
import { growTestEmailTools, listTestSends } from './test-email';
import { formSchema, growFormTools } from './tools';

/**
 * The grow module's dashboard API routes (reached by grow_invoke_api_read/_write, /api/grow/… and
 * the OpenAPI document): what a forms and campaigns page needs beyond the curated tools (one form
 * on its own, a campaign's test emails), and the curated writes named so the bridges send callers
 * to the tool. Reads answer what the matching tool answers.
 */
const routes = routesFor('grow', { read: 'grow:read', write: 'grow:write' });
const id = z.uuid();

const ALL_TOOLS: readonly AnyTool[] = [...growFormTools, ...growCampaignTools, ...growTestEmailTools];
function tool(name: string): AnyTool {
  const found = ALL_TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`grow routes: no tool ${name}`);
  return found;
}
/** A read route that is the named read tool (see readVia). */
const readVia = (name: string) => readViaTool(tool(name));
/** A write a curated tool covers: catalogued, never run here. */
const curated = (name: string) => curatedVia(tool(name));

const formParams = z.object({ formId: id }).strict();
const campaignParams = z.object({ campaignId: id }).strict();
const pageParams = z.object({ pageId: id }).strict();

export const growRoutes = [
  routes.get('forms', {
    summary: 'Forms with their status, fields, window, public address and submission counts',
    query: z.object({ status: z.enum(['draft', 'published', 'closed', 'archived']).optional(), limit: queryValue.integer(1, 100).default(50) }).strict(),
    ...readVia('grow_list_forms'),
  }),
  routes.post('forms', { summary: 'Create a form', ...curated('grow_create_form') }),
  routes.get('forms/{formId}', {
    summary: 'One form: fields, window, thank-you, follow-up email, what a submission creates and its public address',
    params: formParams,
    response: z.object({ form: formSchema }).strict(),
    run: async (ctx, { params }) => ({ form: formView(await requireForm(ctx.db, ctx.org.id, params.formId)) }),
  }),
  routes.patch('forms/{formId}', { summary: 'Change a form', params: formParams, ...curated('grow_update_form') }),
  routes.post('forms/{formId}/publish', { summary: 'Publish a form', params: formParams, ...curated('grow_publish_form') }),
  routes.post('forms/{formId}/close', { summary: 'Close or archive a form', params: formParams, ...curated('grow_close_form') }),
  routes.get('forms/{formId}/submissions', {
    summary: 'A form\'s submissions, newest first',
    params: formParams,
    query: z.object({ contactId: id.optional(), limit: queryValue.integer(1, 100).default(25), offset: queryValue.integer(0, 100_000).default(0) }).strict(),
    ...readVia('grow_list_submissions'),
  }),
  routes.get('forms/{formId}/export', {
    summary: 'Every submission of a form as CSV',
    params: formParams,
    ...readVia('grow_export_submissions'),
  }),
  routes.get('submissions/{submissionId}', {
    summary: 'One submission with the questions it answered and what it created',
    params: z.object({ submissionId: id }).strict(),
    ...readVia('grow_get_submission'),
  }),
  routes.get('landing-pages', {
    summary: 'Landing pages with their status and public address',
    query: z.object({ status: z.enum(['draft', 'published', 'unpublished']).optional(), limit: queryValue.integer(1, 100).default(50) }).strict(),
    ...readVia('grow_list_landing_pages'),
  }),
  routes.post('landing-pages', { summary: 'Create a landing page', ...curated('grow_create_landing_page') }),
  routes.get('landing-pages/{pageId}/stats', {
    summary: 'A landing page\'s views, submissions and conversion by day',
    params: pageParams,
    query: z.object({ from: z.iso.date().optional(), to: z.iso.date().optional() }).strict(),
    ...readVia('grow_get_page_stats'),
  }),
  routes.get('campaigns', {
    summary: 'Email campaigns, newest first',
    query: z.object({ status: z.enum(['draft', 'previewed', 'scheduled', 'testing', 'sending', 'sent', 'paused', 'cancelled']).optional(), limit: queryValue.integer(1, 100).default(50) }).strict(),
    ...readVia('grow_list_campaigns'),
  }),
  routes.post('campaigns', { summary: 'Create an email campaign', ...curated('grow_create_campaign') }),
  routes.get('campaigns/{campaignId}', {
    summary: 'One email campaign',
    params: campaignParams,
    ...readVia('grow_get_campaign'),
  }),
  routes.get('campaigns/{campaignId}/report', {
    summary: 'A campaign\'s report: handed, skipped, opens, clicks, unsubscribes, bounces and complaints, per variant',
    params: campaignParams,
    ...readVia('grow_get_campaign_report'),
  }),
  routes.get('campaigns/{campaignId}/test-emails', {
    summary: 'A campaign\'s test emails, newest first (never part of its report)',
    params: campaignParams,
    query: z.object({ limit: queryValue.integer(1, 100).default(25) }).strict(),
    response: z.object({ testEmails: z.array(z.object({ messageId: id, contactId: id.nullable(), variant: z.number().int(), sentAt: z.string() }).strict()) }).strict(),
    run: async (ctx, { params, query }) => ({ testEmails: await listTestSends(ctx.db, ctx.org.id, params.campaignId, query.limit) }),
  }),
  routes.post('campaigns/{campaignId}/test-email', { summary: 'Send a test of a campaign email', params: campaignParams, ...curated('grow_send_test_email') }),
  routes.post('campaigns/{campaignId}/schedule', { summary: 'Schedule a previewed campaign', params: campaignParams, ...curated('grow_schedule_campaign') }),
];
