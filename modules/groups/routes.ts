import { z } from 'zod';
import { queryValue, routesFor } from '../routes';
import { canSeeRoster, viewerOf } from './access';
import { listJoinRequests } from './enrolment';
import { listGroups, listTypes, requireGroup } from './groups';
import { attendanceOf, listMeetings, recordRsvp, requireMeeting } from './meetings';
import { attendanceRecordSchema, joinRequestSchema, meetingSchema } from './schemas';
import {
  addMemberTool, archiveGroupTool, groupDetail, createGroupTool, decideJoinRequestTool, getGroupTool, listGroupsTool, recordAttendanceTool, scheduleMeetingTool, updateEnrolmentTool, updateGroupTool,
} from './tools';

/**
 * The groups module's dashboard API routes: what a group page needs beyond the curated tools
 * (types, a group's meetings and join requests, one meeting's register) and RSVPs, which no
 * curated tool records. Writes a curated tool covers name it, so the invoke bridges send callers there.
 * Every route answers as the tools do for the caller: staff see every group, a leader's credential
 * only the groups it leads, and a confidential roster only its leaders and safeguarding staff.
 */
const routes = routesFor('groups', { read: 'groups:read', write: 'groups:write' });
const id = z.uuid();
const groupParams = z.object({ groupId: id }).strict();
const meetingParams = z.object({ meetingId: id }).strict();

export const groupsRoutes = [
  routes.get('types', {
    summary: 'Small group types (home group, cell, class…) with how many live groups each has',
    response: z.object({ types: z.array(z.object({ id, name: z.string(), groups: z.number().int() }).strict()) }).strict(),
    run: async (ctx) => ({ types: await listTypes(ctx.db, ctx.org.id) }),
  }),
  routes.get('groups', {
    summary: 'Small groups you can see (not CRM ministry teams)',
    query: z.object({ includeArchived: queryValue.boolean().default(false) }).strict(),
    response: listGroupsTool.output,
    run: async (ctx, { query }) => listGroups(ctx.db, ctx.org.id, await viewerOf(ctx.db, ctx.org.id, ctx.principal), { includeArchived: query.includeArchived }, { limit: 500, offset: 0 }),
  }),
  routes.post('groups', { summary: 'Create a small group', body: createGroupTool.input, response: createGroupTool.output, curatedTool: 'groups_create' }),
  routes.get('groups/{groupId}', {
    summary: 'One small group with its roster, pending requests and recent and coming meetings',
    params: groupParams,
    query: z.object({ includeFormerMembers: queryValue.boolean().default(false) }).strict(),
    response: getGroupTool.output,
    run: async (ctx, { params, query }) => groupDetail(ctx, params.groupId, query.includeFormerMembers),
  }),
  routes.patch('groups/{groupId}', { summary: 'Change a small group\'s details', params: groupParams, body: updateGroupTool.input, response: updateGroupTool.output, curatedTool: 'groups_update' }),
  routes.post('groups/{groupId}/archive', { summary: 'Archive or restore a small group', params: groupParams, body: archiveGroupTool.input, response: archiveGroupTool.output, curatedTool: 'groups_archive' }),
  routes.put('groups/{groupId}/enrolment', { summary: 'Set a small group\'s enrolment', params: groupParams, body: updateEnrolmentTool.input, response: updateEnrolmentTool.output, curatedTool: 'groups_update_enrolment' }),
  routes.post('groups/{groupId}/members', { summary: 'Add a member', params: groupParams, body: addMemberTool.input, response: addMemberTool.output, curatedTool: 'groups_add_member' }),
  routes.get('groups/{groupId}/join-requests', {
    summary: 'A small group\'s join requests (pending by default), oldest first',
    params: groupParams,
    query: z.object({ status: z.enum(['pending', 'approved', 'declined', 'all']).default('pending') }).strict(),
    response: z.object({ requests: z.array(joinRequestSchema), rosterHidden: z.boolean() }).strict(),
    run: async (ctx, { params, query }) => {
      const viewer = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
      const group = await requireGroup(ctx.db, ctx.org.id, viewer, params.groupId);
      if (!canSeeRoster(viewer, group)) return { requests: [], rosterHidden: true };
      return { requests: await listJoinRequests(ctx.db, ctx.org.id, group.id, query.status === 'all' ? null : query.status), rosterHidden: false };
    },
  }),
  routes.post('join-requests/{requestId}/decision', {
    summary: 'Approve or decline a join request (the group\'s leaders)', params: z.object({ requestId: id }).strict(), body: decideJoinRequestTool.input,
    response: decideJoinRequestTool.output, curatedTool: 'groups_decide_join_request',
  }),
  routes.get('groups/{groupId}/meetings', {
    summary: 'A small group\'s meetings in a date range (default all), oldest first',
    params: groupParams,
    query: z.object({ from: z.iso.date().optional(), to: z.iso.date().optional(), limit: queryValue.integer(1, 500).default(100) }).strict(),
    response: z.object({ meetings: z.array(meetingSchema) }).strict(),
    run: async (ctx, { params, query }) => {
      const group = await requireGroup(ctx.db, ctx.org.id, await viewerOf(ctx.db, ctx.org.id, ctx.principal), params.groupId);
      return { meetings: await listMeetings(ctx.db, ctx.org.id, group.id, query) };
    },
  }),
  routes.post('groups/{groupId}/meetings', { summary: 'Schedule meetings', params: groupParams, body: scheduleMeetingTool.input, response: scheduleMeetingTool.output, curatedTool: 'groups_schedule_meeting' }),
  routes.get('meetings/{meetingId}/attendance', {
    summary: 'One meeting\'s register: members present and absent, and visitors',
    params: meetingParams,
    response: z.object({ meeting: meetingSchema, records: z.array(attendanceRecordSchema), rosterHidden: z.boolean() }).strict(),
    run: async (ctx, { params }) => {
      const viewer = await viewerOf(ctx.db, ctx.org.id, ctx.principal);
      const { meeting, group } = await requireMeeting(ctx.db, ctx.org.id, viewer, params.meetingId);
      const visible = canSeeRoster(viewer, group);
      return { meeting, records: visible ? await attendanceOf(ctx.db, ctx.org.id, meeting.id) : [], rosterHidden: !visible };
    },
  }),
  routes.post('meetings/{meetingId}/attendance', {
    summary: 'Record a meeting\'s register', params: meetingParams, body: recordAttendanceTool.input, response: recordAttendanceTool.output, curatedTool: 'groups_record_attendance',
  }),
  routes.put('meetings/{meetingId}/rsvps', {
    summary: 'Record whether someone is coming to a meeting (yes, no, maybe); answering again replaces it. Staff or the group\'s leaders',
    params: meetingParams,
    body: z.object({ contactId: id, response: z.enum(['yes', 'no', 'maybe']), note: z.string().trim().min(1).max(500).optional() }).strict(),
    response: z.object({ meeting: meetingSchema }).strict(),
    run: async (ctx, { params, body }) => recordRsvp(ctx.db, ctx.org.id, await viewerOf(ctx.db, ctx.org.id, ctx.principal), { meetingId: params.meetingId, ...body }),
  }),
];
