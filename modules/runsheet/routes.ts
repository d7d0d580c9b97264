import { z } from 'zod';
import { calendarDate, cursorInput } from '../kit';
import { routesFor } from '../routes';
import { getPlan, getRota, listPlans, listServiceTypes } from './plans';
import { checkReadiness } from './readiness';
import { listSongs, songUsageReport } from './songs';
import { listTeams } from './teams';
import { listTemplates } from './templates';
import { checkReadinessTool } from './tools/readiness';
import {
  addArrangementTool, createSongTool, listSongsTool, songUsageReportTool,
} from './tools/songs';
import {
  addItemTool, applyTemplateTool, copyPlanTool, createPlanTool, createServiceTypeTool, getPlanTool, getRotaTool, listPlansTool, listServiceTypesTool, listTemplatesTool,
  lockPlanTool, removeItemTool, reorderItemsTool, updateItemTool,
} from './tools/plans';
import {
  addPositionTool, addTeamMemberTool, autofillTool, createTeamTool, listTeamsTool, recordBlockoutTool, respondToRequestTool, schedulePersonTool, sendRequestsTool,
  setNeededPositionsTool, unschedulePersonTool, updateTeamTool,
} from './tools/people';

/**
 * The runsheet's dashboard API routes: the reads a planning page needs (plans, one plan, the rota,
 * songs, teams, templates, the readiness check, the CCLI report). Every write is a curated tool's,
 * so the invoke bridges send callers to the durable tool.
 */
const routes = routesFor('runsheet', { read: 'runsheet:read', write: 'runsheet:write' });
const planParams = z.object({ planId: z.uuid() }).strict();
const teamParams = z.object({ teamId: z.uuid() }).strict();

export const runsheetRoutes = [
  routes.get('service-types', { summary: 'Service types by name', response: listServiceTypesTool.output, run: async (ctx) => ({ serviceTypes: await listServiceTypes(ctx.db, ctx.org.id) }) }),
  routes.get('plans', {
    summary: 'Plans, upcoming soonest first or past latest first',
    query: z.object({ serviceTypeId: z.uuid().optional(), when: z.enum(['upcoming', 'past']).default('upcoming'), limit: z.coerce.number().int().min(1).max(100).default(25), cursor: cursorInput.cursor }).strict(),
    response: listPlansTool.output,
    run: async (ctx, { query }) => listPlans(ctx.db, ctx.org.id, query),
  }),
  routes.get('plans/{planId}', { summary: 'One plan in full', params: planParams, response: getPlanTool.output, run: async (ctx, { params }) => getPlan(ctx.db, ctx.org.id, params.planId) }),
  routes.get('plans/{planId}/readiness', {
    summary: 'The Sunday-readiness check for one plan', params: planParams, response: checkReadinessTool.output,
    run: async (ctx, { params }) => checkReadiness(ctx.db, ctx.org.id, params.planId),
  }),
  routes.get('rota', {
    summary: 'Who serves where on the coming plans',
    query: z.object({ serviceTypeId: z.uuid().optional(), weeks: z.coerce.number().int().min(1).max(26).default(4) }).strict(),
    response: getRotaTool.output,
    run: async (ctx, { query }) => getRota(ctx.db, ctx.org.id, query),
  }),
  routes.get('songs', {
    summary: 'The song library with arrangements',
    query: z.object({ search: z.string().trim().min(1).max(200).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) }).strict(),
    response: listSongsTool.output,
    run: async (ctx, { query }) => ({ songs: await listSongs(ctx.db, ctx.org.id, query) }),
  }),
  routes.get('song-usage', {
    summary: 'Song usage for the CCLI return', query: z.object({ from: calendarDate(), to: calendarDate() }).strict(), response: songUsageReportTool.output,
    run: async (ctx, { query }) => songUsageReport(ctx.db, ctx.org.id, query),
  }),
  routes.get('teams', {
    summary: 'Teams with positions and members', query: z.object({ serviceTypeId: z.uuid().optional() }).strict(), response: listTeamsTool.output,
    run: async (ctx, { query }) => ({ teams: await listTeams(ctx.db, ctx.org.id, query) }),
  }),
  routes.get('templates', {
    summary: 'Plan templates', query: z.object({ serviceTypeId: z.uuid().optional() }).strict(), response: listTemplatesTool.output,
    run: async (ctx, { query }) => ({ templates: await listTemplates(ctx.db, ctx.org.id, query) }),
  }),
  routes.post('service-types', { summary: 'Create a service type', body: createServiceTypeTool.input, response: createServiceTypeTool.output, curatedTool: 'runsheet_create_service_type' }),
  routes.post('plans', { summary: 'Create a plan', body: createPlanTool.input, response: createPlanTool.output, curatedTool: 'runsheet_create_plan' }),
  routes.post('plans/copies', { summary: 'Copy a plan or template to a new date', body: copyPlanTool.input, response: copyPlanTool.output, curatedTool: 'runsheet_copy_plan' }),
  routes.post('plans/{planId}/items', { summary: 'Add an item', params: planParams, body: addItemTool.input.omit({ planId: true }), response: addItemTool.output, curatedTool: 'runsheet_add_item' }),
  routes.patch('plans/{planId}/items/{itemId}', {
    summary: 'Update an item', params: z.object({ planId: z.uuid(), itemId: z.uuid() }).strict(), body: updateItemTool.input.omit({ planId: true, itemId: true }),
    response: updateItemTool.output, curatedTool: 'runsheet_update_item',
  }),
  routes.delete('plans/{planId}/items/{itemId}', {
    summary: 'Remove an item', params: z.object({ planId: z.uuid(), itemId: z.uuid() }).strict(), response: removeItemTool.output, curatedTool: 'runsheet_remove_item',
  }),
  routes.put('plans/{planId}/order', { summary: 'Reorder items', params: planParams, body: reorderItemsTool.input.omit({ planId: true }), response: reorderItemsTool.output, curatedTool: 'runsheet_reorder_items' }),
  routes.post('plans/{planId}/lock', { summary: 'Lock or unlock a plan', params: planParams, body: lockPlanTool.input.omit({ planId: true }), response: lockPlanTool.output, curatedTool: 'runsheet_lock_plan' }),
  routes.post('plans/{planId}/template', { summary: 'Apply a template', params: planParams, body: applyTemplateTool.input.omit({ planId: true }), response: applyTemplateTool.output, curatedTool: 'runsheet_apply_template' }),
  routes.put('plans/{planId}/needed-positions', {
    summary: 'Set needed positions', params: planParams, body: setNeededPositionsTool.input.omit({ planId: true }), response: setNeededPositionsTool.output, curatedTool: 'runsheet_set_needed_positions',
  }),
  routes.post('plans/{planId}/people', { summary: 'Schedule someone', params: planParams, body: schedulePersonTool.input.omit({ planId: true }), response: schedulePersonTool.output, curatedTool: 'runsheet_schedule_person' }),
  routes.delete('plan-people/{planPersonId}', {
    summary: 'Take someone off a plan', params: z.object({ planPersonId: z.uuid() }).strict(), response: unschedulePersonTool.output, curatedTool: 'runsheet_unschedule_person',
  }),
  routes.post('responses', { summary: 'Answer a request or offer', body: respondToRequestTool.input, response: respondToRequestTool.output, curatedTool: 'runsheet_respond_to_request' }),
  routes.post('plans/{planId}/autofill', { summary: 'Autofill open positions', params: planParams, body: autofillTool.input.omit({ planId: true }), response: autofillTool.output, curatedTool: 'runsheet_autofill_positions' }),
  routes.post('plans/{planId}/requests', { summary: 'Send rota requests', params: planParams, body: sendRequestsTool.input.omit({ planId: true }), response: sendRequestsTool.output, curatedTool: 'runsheet_send_requests' }),
  routes.post('blockouts', { summary: 'Record a blockout', body: recordBlockoutTool.input, response: recordBlockoutTool.output, curatedTool: 'runsheet_record_blockout' }),
  routes.post('songs', { summary: 'Add a song', body: createSongTool.input, response: createSongTool.output, curatedTool: 'runsheet_create_song' }),
  routes.post('songs/{songId}/arrangements', {
    summary: 'Add an arrangement', params: z.object({ songId: z.uuid() }).strict(), body: addArrangementTool.input.omit({ songId: true }), response: addArrangementTool.output, curatedTool: 'runsheet_add_arrangement',
  }),
  routes.post('teams', { summary: 'Create a team', body: createTeamTool.input, response: createTeamTool.output, curatedTool: 'runsheet_create_team' }),
  routes.patch('teams/{teamId}', { summary: 'Update a team', params: teamParams, body: updateTeamTool.input.omit({ teamId: true }), response: updateTeamTool.output, curatedTool: 'runsheet_update_team' }),
  routes.post('teams/{teamId}/positions', { summary: 'Add a position', params: teamParams, body: addPositionTool.input.omit({ teamId: true }), response: addPositionTool.output, curatedTool: 'runsheet_add_position' }),
  routes.post('team-members', { summary: 'Add someone to a team position', body: addTeamMemberTool.input, response: addTeamMemberTool.output, curatedTool: 'runsheet_add_team_member' }),
];
