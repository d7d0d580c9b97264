import { z } from 'zod';
import { routesFor } from '../../routes';
import { closeCaptureSession, openCaptureSession, requireCaptureSession } from './capture';
import { INVITE_STATUSES, listInvites, portalAnalytics, requireInvite } from './invites';
import { listModeration, POST_STATUSES } from './posts';
import {
  captureSessionSchema, getPortalAnalyticsTool, inviteSchema, listCaptureSessionsTool, listPortalInvitesTool, listPortalModerationTool,
  managePortalInviteTool, moderatePortalPostTool, sendPortalInvitesTool, unlockCaptureSessionTool,
} from './tools';
import { listCaptureSessions } from './capture';
import { queryValue } from '../../routes';

/**
 * The member portal's administration routes, `/api/people/portal/…`, on the `portal` surface: reached
 * by platform_portal_invoke_api_read/_write (and the people pair). Writes a curated tool does name it.
 */
const routes = routesFor('people', { read: 'people:read', write: 'people:write' });
const id = z.uuid();
const surface = 'portal' as const;

export const portalRoutes = [
  routes.get('portal/invites', {
    summary: 'List member portal invites (status, contact filters)', surface,
    query: z.object({ status: z.enum(INVITE_STATUSES).optional(), contactId: id.optional(), limit: queryValue.integer(1, 100).default(50) }).strict(),
    response: listPortalInvitesTool.output,
    run: async (ctx, { query }) => ({ invites: await listInvites(ctx.db, ctx.org.id, query) }),
  }),
  routes.get('portal/invites/{inviteId}', {
    summary: 'One member portal invite', surface,
    params: z.object({ inviteId: id }).strict(),
    response: z.object({ invite: inviteSchema }).strict(),
    run: async (ctx, { params }) => ({ invite: await requireInvite(ctx.db, ctx.org.id, params.inviteId) }),
  }),
  routes.post('portal/invites', {
    summary: 'Invite contacts to the member portal', surface,
    body: z.object({ contactIds: z.array(id).max(50) }).strict(),
    response: sendPortalInvitesTool.output,
    curatedTool: 'people_send_portal_invites',
  }),
  routes.post('portal/invites/{inviteId}/resend', {
    summary: 'Resend a member portal invite', surface,
    params: z.object({ inviteId: id }).strict(),
    response: managePortalInviteTool.output,
    curatedTool: 'people_manage_portal_invite',
  }),
  routes.get('portal/analytics', {
    summary: 'Member portal uptake: invited, joined, active', surface,
    response: getPortalAnalyticsTool.output,
    run: async (ctx) => portalAnalytics(ctx.db, ctx.org.id),
  }),
  routes.get('portal/moderation', {
    summary: 'Member posts by moderation status (pending first)', surface,
    query: z.object({ status: z.enum(POST_STATUSES).default('pending'), limit: queryValue.integer(1, 100).default(50) }).strict(),
    response: listPortalModerationTool.output,
    run: async (ctx, { query }) => listModeration(ctx.db, ctx.org.id, query),
  }),
  routes.patch('portal/posts/{postId}', {
    summary: 'Approve or reject a member post', surface,
    params: z.object({ postId: id }).strict(),
    body: z.object({ decision: z.enum(['approve', 'reject']), reason: z.string().max(500).optional() }).strict(),
    response: moderatePortalPostTool.output,
    curatedTool: 'people_moderate_portal_post',
  }),
  routes.get('portal/capture-sessions', {
    summary: 'Sign-up kiosks and tablets (capture sessions) with their lock state', surface,
    query: z.object({ state: z.enum(['open', 'locked', 'closed']).optional(), limit: queryValue.integer(1, 100).default(50) }).strict(),
    response: listCaptureSessionsTool.output,
    run: async (ctx, { query }) => ({ sessions: await listCaptureSessions(ctx.db, ctx.org.id, query) }),
  }),
  routes.get('portal/capture-sessions/{captureSessionId}', {
    summary: 'One capture session', surface,
    params: z.object({ captureSessionId: id }).strict(),
    response: z.object({ session: captureSessionSchema }).strict(),
    run: async (ctx, { params }) => ({ session: await requireCaptureSession(ctx.db, ctx.org.id, params.captureSessionId) }),
  }),
  routes.post('portal/capture-sessions', {
    summary: 'Open a capture session for a kiosk or tablet; the kiosk link is shown in this answer only', surface,
    body: z.object({
      name: z.string().trim().min(1).max(100),
      idleLockMinutes: z.number().int().min(1).max(240).default(10),
    }).strict(),
    response: z.object({ session: captureSessionSchema, kioskUrl: z.string() }).strict(),
    run: async (ctx, { body }) => openCaptureSession(ctx.db, ctx.org.id, ctx.principal.userId, body),
  }),
  routes.post('portal/capture-sessions/{captureSessionId}/close', {
    summary: 'Close a capture session: its kiosk link stops taking sign-ups for good', surface,
    params: z.object({ captureSessionId: id }).strict(),
    response: z.object({ session: captureSessionSchema }).strict(),
    run: async (ctx, { params }) => ({ session: await closeCaptureSession(ctx.db, ctx.org.id, params.captureSessionId) }),
  }),
  routes.post('portal/capture-sessions/{captureSessionId}/unlock', {
    summary: 'Unlock a capture session (needs a staff credential)', surface,
    params: z.object({ captureSessionId: id }).strict(),
    response: unlockCaptureSessionTool.output,
    curatedTool: 'people_unlock_capture_session',
  }),
];
