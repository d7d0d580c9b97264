import { z } from 'zod';
import { bulkOf, toolsFor } from '../../kit';
import type { ToolContext } from '../../tool';
import { listCaptureSessions, unlockCaptureSession } from './capture';
import {
  ACTIVE_WINDOW_DAYS, INVITE_STATUSES, MAX_INVITES_PER_CALL, PORTAL_CHANNELS, PORTAL_INVITE_LIFETIME_DAYS, PORTAL_PURPOSES,
  listInvites, manageInvite, portalAnalytics, sendInvites,
} from './invites';
import { MAX_POST_LENGTH, POST_STATUSES, listModeration, moderatePost } from './posts';

const tools = toolsFor('people', { read: 'people:read', write: 'people:write' });
const actor = (ctx: ToolContext) => ctx.principal.userId;

export const inviteSchema = z.object({
  inviteId: z.uuid(), contactId: z.uuid(), contactName: z.string(), channel: z.enum(PORTAL_CHANNELS), address: z.string(),
  purpose: z.enum(PORTAL_PURPOSES), status: z.enum(INVITE_STATUSES).describe('pending (live, not yet used), joined (signed in), revoked, expired'),
  sends: z.number().int().describe('How many times a link was sent'), sentAt: z.string().nullable().describe('When the last link was delivered'),
  sendError: z.object({ code: z.string(), message: z.string() }).strict().nullable().describe('Why the last link did not go, if it did not'),
  expiresAt: z.string(), joinedAt: z.string().nullable(), revokedAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const postSchema = z.object({
  postId: z.uuid(), contactId: z.uuid(), authorName: z.string(), body: z.string(), status: z.enum(POST_STATUSES),
  rejectionReason: z.string().nullable(), moderatedBy: z.uuid().nullable(), moderatedAt: z.string().nullable(), createdAt: z.string(),
}).strict();

export const captureSessionSchema = z.object({
  captureSessionId: z.uuid(), name: z.string(), status: z.enum(['open', 'closed']),
  state: z.enum(['open', 'locked', 'closed']).describe('locked: idle past idleLockMinutes (or locked since); takes no sign-ups until a staff credential unlocks it'),
  idleLockMinutes: z.number().int(), lastActivityAt: z.string(), lockedAt: z.string().nullable(), signups: z.number().int(), unlocks: z.number().int(),
  lastUnlockedBy: z.uuid().nullable(), createdAt: z.string(),
}).strict();

export const listPortalInvitesTool = tools.read('list_portal_invites', {
  title: 'Member portal invites',
  description: 'Invitations to the member portal, newest first: who, the address it went to, whether it is pending, joined, revoked or expired, how many times it was sent and any delivery problem. Filter by status or contact.',
  keywords: ['portal invites', 'member portal', 'invitations', 'who has been invited', 'members website', 'invite not used yet'],
  examples: ['who have we invited to the member portal', 'show pending portal invitations', 'has Jo joined the portal yet', 'which portal invites expired', 'list the people who accepted their portal invite', 'did the portal invite to the Smiths go out', 'which member portal invites are still pending', 'portal invites that failed to deliver', "who's been invited online", 'I sent portal invites to the choir last week, which of them have joined', 'has Colin accepted his members area invitation?'],
  input: z.object({
    status: z.enum(INVITE_STATUSES).optional().describe('Only invites in this state'),
    contactId: z.uuid().optional().describe('Only this contact\'s invites'),
    limit: z.number().int().min(1).max(100).default(50),
  }),
  output: z.object({ invites: z.array(inviteSchema) }).strict(),
  run: async (ctx, input) => ({ invites: await listInvites(ctx.db, ctx.org.id, input) }),
});

export const sendPortalInvitesTool = tools.send('send_portal_invites', {
  title: 'Invite members to the portal',
  description: `Invites up to ${MAX_INVITES_PER_CALL} contacts to the member portal by email (default) or text, each with a sign-in link that works once and expires in ${PORTAL_INVITE_LIFETIME_DAYS} days. Each recipient is checked as channels checks every message (consent for the purpose, default charitable_purpose; unsubscribes, bounces, crisis holds), now and again when it goes; those it may not reach are skipped with the reason. One live invite per address: an address already invited keeps its invite (already_invited) — resend it with people_manage_portal_invite. Metered as a send when it goes.`,
  keywords: ['invite to portal', 'member portal invitation', 'send portal link', 'self-service portal'],
  examples: ['invite the Hendersons to the member portal', 'send portal invitations to everyone in the welcome class', 'let Sam update their own details online', 'email Priya a link to the members area', 'text Ben an invite to check his details', 'give the new members access to the portal', 'send the PCC a link to the member portal', 'invite the home group leaders to the portal by text', 'invite Grace to the portal', 'we want the choir to update their own contact details, so send them portal invites', 'can you text Colin a link to the members area?'],
  followUp: { kind: 'people.send_portal_invites' },
  input: z.object({
    contactIds: bulkOf(z.uuid(), MAX_INVITES_PER_CALL).describe('The contacts to invite'),
    channel: z.enum(PORTAL_CHANNELS).default('email'),
    purpose: z.enum(PORTAL_PURPOSES).default('charitable_purpose').describe('Consent purpose checked: charitable_purpose (default; needs their consent) or service'),
  }),
  output: z.object({
    results: z.array(z.object({
      contactId: z.uuid(), outcome: z.enum(['invited', 'already_invited', 'skipped']), invite: inviteSchema.nullable(),
      reason: z.string().nullable().describe('Why skipped: the channels reason code (no_consent, suppressed, no_address, crisis_hold, not_found)'), message: z.string().nullable(),
    }).strict()),
    sent: z.array(z.object({ inviteId: z.uuid() }).strict()).describe('Invites whose link is being sent by this call'),
  }).strict(),
  run: async (ctx, input) => {
    const outcomes = await sendInvites(ctx.db, ctx.org.id, actor(ctx), input);
    return {
      results: outcomes.map((o) => ({
        contactId: o.contactId, outcome: o.outcome, invite: 'invite' in o ? o.invite : null, reason: 'reason' in o ? o.reason : null, message: 'message' in o ? o.message : null,
      })),
      sent: outcomes.flatMap((o) => (o.outcome === 'invited' ? [{ inviteId: o.invite.inviteId }] : [])),
    };
  },
});

export const managePortalInviteTool = tools.send('manage_portal_invite', {
  title: 'Resend or revoke a portal invite',
  description: 'resend: sends a fresh sign-in link (the previous link stops working; an expired invite becomes live again unless the address has another live one; a member who joined gets a new sign-in link). revoke: the link stops working and a member\'s portal sessions end at once. Revoking twice changes nothing.',
  keywords: ['resend portal invite', 'revoke portal access', 'cancel portal invitation', 'new sign-in link'],
  examples: ['resend Jo\'s portal invite', 'Sam lost the portal email, send it again', 'revoke the portal invite we sent to the wrong address', 'take away Ben\'s portal access', 'cancel that member portal invitation', 'send Priya a new portal sign-in link', "resend the portal link to Mrs Ahmed's email", "revoke Tom's member portal access and sign him out", "resend Colin's invite", "Grace's portal invite went to her old work email, cancel it", 'can Ruth get a fresh sign-in link, hers expired?'],
  followUp: { kind: 'people.send_portal_invites' },
  input: z.object({ inviteId: z.uuid(), action: z.enum(['resend', 'revoke']) }),
  output: z.object({ invite: inviteSchema, changed: z.boolean(), sent: z.array(z.object({ inviteId: z.uuid() }).strict()) }).strict(),
  run: async (ctx, input) => {
    const done = await manageInvite(ctx.db, ctx.org.id, input.inviteId, input.action);
    return { ...done, sent: input.action === 'resend' ? [{ inviteId: input.inviteId }] : [] };
  },
});

export const getPortalAnalyticsTool = tools.read('get_portal_analytics', {
  title: 'Member portal analytics',
  description: `How the member portal is taken up, counted in people: invited, pending, joined (signed in at least once), active (signed in within ${ACTIVE_WINDOW_DAYS} days), revoked and expired, with the join rate (joined / invited) and the active rate (active / joined).`,
  keywords: ['portal analytics', 'portal uptake', 'portal adoption', 'members using the portal', 'logged in to the portal', 'signed in online', 'members website usage'],
  examples: ['how many people have joined the member portal', 'what is our portal uptake', 'how many members used the portal this month', 'portal join rate', 'how many invites are still pending', 'is anyone actually using the members area', 'what share of invited members joined the portal', 'how many portal members are active in 30 days', 'portal sign-in numbers', 'the PCC want to know if the members area was worth it, how many have signed in', 'how many people are actively using the portal?'],
  input: z.object({}),
  output: z.object({
    invited: z.number().int(), pending: z.number().int(), joined: z.number().int(), active: z.number().int(), revoked: z.number().int(), expired: z.number().int(),
    joinRate: z.number().nullable(), activeRate: z.number().nullable(), activeWindowDays: z.number().int(),
  }).strict(),
  run: async (ctx) => portalAnalytics(ctx.db, ctx.org.id),
});

export const listPortalModerationTool = tools.read('list_portal_moderation', {
  title: 'Portal posts awaiting moderation',
  description: 'Members\' portal posts by moderation status (pending by default, oldest first) with the number still pending. Nothing a member posts is shown to other members before a person approves it.',
  keywords: ['portal moderation', 'member posts', 'posts to approve', 'moderation queue'],
  examples: ['what portal posts need approving', 'show the moderation queue', 'any member posts waiting', 'list rejected portal posts', 'which posts did we approve on the portal', 'is there anything to moderate', 'oldest pending member portal posts', 'how many portal posts are waiting approval', 'posts to moderate', "I'm on moderation duty this week, what members' posts are waiting", 'has anyone posted something that needs checking?'],
  input: z.object({ status: z.enum(POST_STATUSES).default('pending'), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ posts: z.array(postSchema), pendingCount: z.number().int() }).strict(),
  run: async (ctx, input) => listModeration(ctx.db, ctx.org.id, input),
});

export const moderatePortalPostTool = tools.write('moderate_portal_post', {
  title: 'Approve or reject a portal post',
  description: 'Decides a pending portal post: approve shows it to members; reject hides it from everyone but its author, who sees the reason (required). A post already decided answers conflict.',
  keywords: ['approve post', 'reject post', 'moderate portal', 'hide member post'],
  examples: ['approve Jo\'s post on the portal', 'reject that post, it has someone\'s phone number in it', 'publish the pending member post', 'decline the post about selling tickets', 'ok the prayer post from Sam', 'turn down the advert posted on the portal', 'approve the pending portal post about the bake sale', 'reject that portal post: personal details shown', "approve Grace's post", "Colin's post includes his neighbour's address, reject it and tell him why", 'can you publish the pending post about the quiz night?'],
  input: z.object({
    postId: z.uuid(), decision: z.enum(['approve', 'reject']),
    reason: z.string().trim().min(1).max(500).optional().describe('Why it was rejected (required to reject); the author sees it'),
  }),
  output: z.object({ post: postSchema }).strict(),
  run: async (ctx, input) => ({ post: await moderatePost(ctx.db, ctx.org.id, actor(ctx), input) }),
});

export const listCaptureSessionsTool = tools.read('list_capture_sessions', {
  title: 'Sign-up capture sessions',
  description: 'Kiosks and tablets taking sign-ups (capture sessions), newest first, with whether each is open, locked (idle past its idle-lock minutes) or closed, its sign-ups and unlocks. Open one with platform_portal_invoke_api_write (POST /api/people/portal/capture-sessions).',
  keywords: ['capture sessions', 'kiosk', 'sign-up tablet', 'welcome desk tablet'],
  examples: ['is the welcome tablet locked', 'how many people signed up on the kiosk', 'list our sign-up kiosks', 'which capture sessions are open', 'show the tablets taking sign-ups', 'is the foyer iPad still taking names', 'which sign-up kiosks are closed', 'how many unlocks has the foyer tablet had', 'sign-up tablets', 'after the harvest supper I want to know how many names the kiosk collected', 'which kiosks are locked right now?'],
  input: z.object({ state: z.enum(['open', 'locked', 'closed']).optional(), limit: z.number().int().min(1).max(100).default(50) }),
  output: z.object({ sessions: z.array(captureSessionSchema) }).strict(),
  run: async (ctx, input) => ({ sessions: await listCaptureSessions(ctx.db, ctx.org.id, input) }),
});

export const unlockCaptureSessionTool = tools.write('unlock_capture_session', {
  title: 'Unlock a sign-up kiosk',
  description: 'Unlocks a capture session that locked itself after its idle minutes, restarting its idle clock. Needs a staff credential (owner, admin or staff); a volunteer\'s is refused. An open session is left as it is; a closed one cannot be unlocked.',
  keywords: ['unlock kiosk', 'unlock tablet', 'capture session locked'],
  examples: ['unlock the welcome desk tablet', 'the sign-up kiosk has locked itself, open it again', 'unlock the foyer iPad', 'reactivate the capture session', 'the tablet says it is locked', 'let the kiosk take sign-ups again', 'the welcome desk kiosk went idle, unlock it', 'unlock capture session 4', 'unlock the kiosk', 'the iPad at the back of church went to sleep during the service, unlock it', 'can you get the sign-up tablet working again?'],
  input: z.object({ captureSessionId: z.uuid() }),
  output: z.object({ session: captureSessionSchema, wasLocked: z.boolean() }).strict(),
  run: async (ctx, input) => unlockCaptureSession(ctx.db, ctx.org.id, ctx.principal, input.captureSessionId),
});

export const portalTools = [
  listPortalInvitesTool, sendPortalInvitesTool, managePortalInviteTool, getPortalAnalyticsTool,
  listPortalModerationTool, moderatePortalPostTool, listCaptureSessionsTool, unlockCaptureSessionTool,
];
export { MAX_POST_LENGTH };
