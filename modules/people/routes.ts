import { z } from 'zod';
import { routesFor } from '../routes';
import { GROUP_STATUSES, listGroupMembers, listGroups } from './crm-groups';
import { listCrmGroupMembersTool, listCrmGroupsTool, updateCrmGroupTool } from './tools/crm-groups';
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
  routes.patch('groups/{groupId}', {
    summary: 'Rename a ministry team, change its description or status',
    params: z.object({ groupId: id }).strict(),
    body: z.object({ name: z.string().trim().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional(), status: z.enum(GROUP_STATUSES).optional() }).strict(),
    response: updateCrmGroupTool.output,
    curatedTool: 'people_update_crm_group',
  }),
];
