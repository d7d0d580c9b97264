import { z } from 'zod';
import { curatedVia, queryValue, routesFor } from '../routes';
import { GROUP_STATUSES, listGroupMembers, listGroups } from './crm-groups';
import { listCrmGroupMembersTool, listCrmGroupsTool, updateCrmGroupTool } from './tools/crm-groups';
import { listFamilyTool, listHouseholdTool } from './tools/family';
import { listSegmentsTool } from './tools/segments';
import { listFollowUpTasksTool } from './tools/welcome-desk';
import { mergeContactsTool } from './tools/outreach';
import { listFamily, listHousehold } from './family';
import { deleteSegment, listSegments } from './segments';
import { listFollowUpTasks } from './welcome-desk';
import { createCrmTagTool, listTagsTool } from './tools/tags';
import { deleteTagCategory, listTagCategories, listTags } from './tags';

/**
 * The people module's dashboard API routes: reads a dashboard page needs, and small edits
 * that have no curated tool. Writes a curated tool covers name it, so the invoke bridges send
 * callers there.
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });
const id = z.uuid();

export const peopleRoutes = [
  routes.get('tags', {
    summary: 'List tags with category, colour and contact counts',
    query: z.object({ categoryId: id.optional() }).strict(),
    response: listTagsTool.output,
    run: async (ctx, { query }) => ({ tags: await listTags(ctx.db, ctx.org.id, query.categoryId) }),
  }),
  routes.post('tags', {
    summary: 'Create a tag',
    body: z.object({ name: z.string().trim().min(1).max(100), colour: z.string().max(20).optional(), categoryId: id.optional() }).strict(),
    response: createCrmTagTool.output,
    curatedTool: 'people_create_crm_tag',
  }),
  routes.get('tag-categories', {
    summary: 'List tag categories with how many tags each holds',
    response: z.object({ categories: z.array(z.object({ id, name: z.string(), tagCount: z.number().int() }).strict()) }).strict(),
    run: async (ctx) => ({ categories: await listTagCategories(ctx.db, ctx.org.id) }),
  }),
  routes.delete('tag-categories/{categoryId}', {
    summary: 'Delete a tag category; its tags stay, uncategorised',
    params: z.object({ categoryId: id }).strict(),
    response: z.object({ id, uncategorisedTags: z.number().int() }).strict(),
    run: async (ctx, { params }) => deleteTagCategory(ctx.db, ctx.org.id, params.categoryId),
  }),
  routes.get('groups', {
    summary: 'List ministry teams and departments (CRM groups) with member counts',
    query: z.object({ status: z.enum(GROUP_STATUSES).optional() }).strict(),
    response: listCrmGroupsTool.output,
    run: async (ctx, { query }) => ({ groups: await listGroups(ctx.db, ctx.org.id, query.status) }),
  }),
  routes.get('groups/{groupId}/members', {
    summary: 'Members of a ministry team',
    params: z.object({ groupId: id }).strict(),
    response: listCrmGroupMembersTool.output,
    run: async (ctx, { params }) => listGroupMembers(ctx.db, ctx.org.id, { groupId: params.groupId }),
  }),
  routes.get('segments', {
    summary: 'List saved segments with their rules and member counts',
    response: listSegmentsTool.output,
    run: async (ctx) => ({ segments: await listSegments(ctx.db, ctx.org.id) }),
  }),
  routes.delete('segments/{segmentId}', {
    summary: 'Delete a segment; its contacts are untouched',
    params: z.object({ segmentId: id }).strict(),
    response: z.object({ id, name: z.string(), removedMemberships: z.number().int() }).strict(),
    run: async (ctx, { params }) => deleteSegment(ctx.db, ctx.org.id, params.segmentId),
  }),
  routes.get('follow-up-tasks', {
    summary: 'Welcome Desk follow-up tasks, open by default, optionally for one contact',
    query: z.object({
      status: z.enum(['open', 'completed', 'all']).default('open'),
      contactId: id.optional(),
      limit: queryValue.integer(1, 500).default(100),
    }).strict(),
    response: listFollowUpTasksTool.output,
    run: async (ctx, { query }) => ({ tasks: await listFollowUpTasks(ctx.db, ctx.org.id, query) }),
  }),
  routes.get('contacts/{contactId}/family', {
    summary: 'A contact\'s family links, each with its relationship',
    params: z.object({ contactId: id }).strict(),
    response: listFamilyTool.output,
    run: async (ctx, { params }) => ({ family: await listFamily(ctx.db, ctx.org.id, params.contactId) }),
  }),
  routes.get('contacts/{contactId}/household', {
    summary: 'Everyone in a contact\'s household',
    params: z.object({ contactId: id }).strict(),
    response: listHouseholdTool.output,
    run: async (ctx, { params }) => listHousehold(ctx.db, ctx.org.id, params.contactId),
  }),
  routes.patch('groups/{groupId}', {
    summary: 'Rename a ministry team, change its description or status',
    params: z.object({ groupId: id }).strict(),
    body: z.object({ name: z.string().trim().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional(), status: z.enum(GROUP_STATUSES).optional() }).strict(),
    response: updateCrmGroupTool.output,
    curatedTool: 'people_update_crm_group',
  }),
  routes.post('contacts/merges', { summary: 'Merge a duplicate contact into the one kept (needs approval)', ...curatedVia(mergeContactsTool) }),
];
