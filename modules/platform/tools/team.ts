import { z } from 'zod';
import { ROLES, type Role } from '../../../core/roles';
import { exactlyOne } from '../../tool';
import { toolsFor } from '../../kit';
import {
  cancelInvite, grantsPowerfulRole, inviteMember, listMembers, listPendingInvites, listRoles, POWERFUL_ROLES, removeMember, requireTeamManager, resendInvite, updateMemberRole,
} from '../team';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

const roleId = z.enum(ROLES).describe('A role id from platform_list_team_roles: owner, admin, staff or volunteer');
const email = z.email().max(320).describe('The person\'s email address');

const memberSchema = z.object({
  userId: z.uuid(),
  email: z.string(),
  displayName: z.string().nullable(),
  role: z.enum(ROLES),
  roleLabel: z.string(),
  safeguarding: z.boolean().describe('Holds safeguarding permission (private pastoral material)'),
  joinedAt: z.string(),
}).strict();

const inviteSchema = z.object({
  inviteId: z.uuid(),
  email: z.string(),
  role: z.enum(ROLES),
  roleLabel: z.string(),
  status: z.enum(['pending', 'accepted', 'cancelled', 'replaced']),
  expired: z.boolean().describe('The link has expired: resend it to send a fresh one'),
  expiresAt: z.string(),
  sends: z.number().int().describe('How many times it has been (re)sent'),
  lastSentAt: z.string().nullable().describe('When the mail server last took it; null while sending or if it failed'),
  sendError: z.object({ code: z.string(), message: z.string() }).strict().nullable().describe('Why the latest send did not go'),
  createdAt: z.string(),
}).strict();

/** Names one pending invite, by id or by the address it went to. */
const inviteRef = z.object({
  inviteId: z.uuid().optional().describe('The invite\'s id'),
  email: email.optional().describe('The address the pending invite went to'),
}).refine(...exactlyOne('inviteId', 'email'));

export const listTeamMembersTool = tools.read('list_team_members', {
  power: 'organisation',
  title: 'List team members',
  description: 'Everyone with access to the organisation: email, name, role id with its label, safeguarding permission, when they joined. Pending invitations are in platform_list_pending_team_invites. Owner or admin only.',
  keywords: ['team', 'staff', 'users', 'members', 'roles', 'who has access', 'logins'],
  examples: ['who is on our team', 'list the admins', 'who has a login to Steward', 'list the staff accounts and their roles', 'which of the office logins can see safeguarding information', 'who are the owners of our account', 'when did the new curate get access', 'show everyone with dashboard access and their permission level', 'staff logins', 'before the audit I need every person with dashboard access and their role', 'who can currently log into our account?'],
  listed: true,
  input: z.object({}),
  output: z.object({ members: z.array(memberSchema) }).strict(),
  run: async (ctx) => {
    requireTeamManager(ctx.principal, 'see the team');
    return { members: await listMembers(ctx.db, ctx.org.id) };
  },
});

export const listTeamRolesTool = tools.read('list_team_roles', {
  power: 'organisation',
  title: 'List team roles',
  description: 'The role ids a team member can have, with a label, what each may do, and whether you may assign it (only an owner makes owners). Use a roleId from here with platform_invite_team_member or platform_update_team_member_role.',
  keywords: ['roles', 'permissions', 'access levels', 'user roles', 'who can do what'],
  examples: ['what roles can I give someone', 'what access levels are there', "what's the difference between the staff and volunteer roles", 'which roles am I allowed to hand out', 'what can an admin do compared to an owner', 'list the permission levels for office logins', 'what role id do I use for a volunteer login', 'which roles are set up for people who log in', 'can a volunteer login see giving, what does each role allow', 'show me the user types and what they can do', 'before I add Priya, what are my options for her access level?'],
  input: z.object({}),
  output: z.object({
    roles: z.array(z.object({ roleId: z.enum(ROLES), label: z.string(), description: z.string(), assignable: z.boolean() }).strict()),
  }).strict(),
  run: async (ctx) => ({ roles: listRoles(ctx.principal) }),
});

export const listPendingTeamInvitesTool = tools.read('list_pending_team_invites', {
  power: 'organisation',
  title: 'List pending team invites',
  description: 'Invitations not yet accepted or cancelled, newest first, with whether each has expired and whether its email went. Owner or admin only.',
  keywords: ['invites', 'invitations', 'pending', 'unaccepted invites', 'awaiting sign up'],
  examples: ['who have we invited who has not joined yet', 'has the churchwarden accepted her invite yet', 'which access invitations are still outstanding', 'any invites that expired without being used', 'did the invite email to the new curate actually go', "list the people we've asked to join the dashboard", 'outstanding login invites', 'has anyone not clicked their joining link yet', 'list invites still waiting to be accepted', 'is Graham still showing as invited or has he signed up', 'which staff invitations are still hanging around unused'],
  input: z.object({}),
  output: z.object({ invites: z.array(inviteSchema) }).strict(),
  run: async (ctx) => {
    requireTeamManager(ctx.principal, 'see team invites');
    return { invites: await listPendingInvites(ctx.db, ctx.org.id) };
  },
});

export const inviteTeamMemberTool = tools.send('invite_team_member', {
  power: 'organisation',
  title: 'Invite a team member',
  description: 'Emails someone a link to join the organisation with a role (a roleId from platform_list_team_roles). One live invite per address: inviting an address again replaces its pending invite and its link. The link works once and expires after 7 days; accepting creates their account or links the existing one. Owner or admin only; only an owner invites owners. Someone already on the team is refused: change their role instead.',
  keywords: ['invite', 'add user', 'add staff', 'new team member', 'give access'],
  examples: ['invite jo@example.org as staff', 'give our new volunteer access', 'set up a login for our new administrator Claire', 'send the treasurer an invite to join as admin', 'give mary@stmarks.org.uk volunteer access to Steward', 'add the youth worker to the system as staff', 'our new curate starts Monday, invite him in', 'invite the churchwarden to help with the dashboard', 'invite bev@example.org', 'Priya is joining the office team in April, send her a staff invitation', 'can you give our new churchwarden a login?'],
  listed: true,
  // An agent never grants power alone: an owner or admin invite waits for a person to approve it.
  approval: {
    kind: 'gated',
    when: { reason: 'the invite grants the owner or admin role', applies: async (args) => POWERFUL_ROLES.includes(args.roleId as Role) },
  },
  input: z.object({ email, roleId }),
  output: z.object({ invite: inviteSchema, replacedInviteId: z.uuid().nullable().describe('The pending invite this one replaced') }).strict(),
  followUp: { kind: 'platform.send_team_invite' },
  run: (ctx, input) => inviteMember(ctx.db, ctx.principal, { email: input.email, role: input.roleId }),
});

export const resendTeamInviteTool = tools.send('resend_team_invite', {
  power: 'organisation',
  title: 'Resend a team invite',
  description: 'Sends a pending invite again with a fresh link (the previous link stops working) and a new 7-day expiry; name it by inviteId or by email. Owner or admin only.',
  keywords: ['resend invite', 'invite expired', 'did not get the invite', 'send invite again', 'new invite link'],
  examples: ['send Jo\'s invitation again', 'Claire says she never got the invite email', "the treasurer's invite link has expired, send a new one", 'send the joining link to the curate again', 're-send the access invitation to mary@stmarks.org.uk', 'her invite went to spam, can you send it again', 'refresh the invite for the youth worker', 'Graham deleted the joining email by accident, send another', 'the link we gave Priya has run out, can she have a fresh one', 'nudge Tom with his login invitation again', 'Helen never received her access email, please re-send'],
  input: inviteRef,
  output: z.object({ invite: inviteSchema }).strict(),
  followUp: { kind: 'platform.send_team_invite' },
  run: async (ctx, input) => ({ invite: await resendInvite(ctx.db, ctx.principal, input) }),
});

export const cancelTeamInviteTool = tools.write('cancel_team_invite', {
  power: 'organisation',
  title: 'Cancel a team invite',
  description: 'Withdraws a pending invite, by inviteId or email: its link stops working and the address can be invited afresh. Owner or admin only.',
  keywords: ['revoke invite', 'withdraw invitation', 'cancel invitation', 'retract invite'],
  examples: ['cancel the invite we sent to jo@example.org', 'withdraw the invite to the old treasurer', 'we invited the wrong email for Claire, scrap that invite', 'stop the pending invitation to tom@example.org working', 'take back the access invite we sent to the organist', "he's not joining the staff after all, cancel his invitation", 'kill the invite link we emailed yesterday', 'Graham has left before starting, withdraw his invite', 'revoke the pending access invite for the old organist', 'we sent Helen an invite by mistake, cancel it', 'stop the outstanding joining link for Tom from working'],
  input: inviteRef,
  output: z.object({ invite: inviteSchema }).strict(),
  run: async (ctx, input) => ({ invite: await cancelInvite(ctx.db, ctx.principal, input) }),
});

export const removeTeamMemberTool = tools.write('remove_team_member', {
  power: 'organisation',
  title: 'Remove a team member',
  description: 'Takes someone off the team: their membership ends and, in the same step, their API keys and OAuth grants for this organisation are revoked, so their credentials stop working at once. Never yourself, never the last owner; only an owner removes an owner. Owner or admin only.',
  keywords: ['remove user', 'revoke access', 'offboard', 'delete team member'],
  examples: ['Sam has left, take away their access', 'the old administrator has left, remove her login', 'take the former curate off the system', "revoke all of Tom's access straight away", 'offboard the youth worker who finished last week', "get rid of Sam's account and API keys", 'our treasurer stood down, she should no longer have access', 'remove Priya from the team', 'Kevin finished as youth pastor on Friday so close his login and keys', 'can you cut off access for the old treasurer?'],
  destructive: true,
  input: z.object({ userId: z.uuid().describe('The member\'s userId from platform_list_team_members') }),
  output: z.object({
    userId: z.uuid(), email: z.string(), role: z.enum(ROLES),
    revokedApiKeys: z.number().int(), revokedOAuthGrants: z.number().int(),
  }).strict(),
  run: (ctx, input) => removeMember(ctx.db, ctx.principal, input.userId),
});

export const updateTeamMemberRoleTool = tools.write('update_team_member_role', {
  power: 'organisation',
  title: 'Change a team member\'s role',
  description: 'Gives a member another role (a roleId from platform_list_team_roles). Their existing API keys and OAuth tokens are narrowed to what the new role allows from their next request. The last owner cannot be demoted; only an owner makes or changes owners. Owner or admin only.',
  keywords: ['promote', 'demote', 'make admin', 'change permissions'],
  examples: ['make Jo an admin', 'Sam should only be a volunteer now', 'promote Claire to admin', 'bump the youth worker down to volunteer', 'give the new treasurer admin rights instead of staff', 'make the vicar an owner of the account', "change Tom's access level to staff", 'Mary no longer needs admin, reduce her permissions', 'make Bev staff', "now that Hannah's the parish administrator she needs admin instead of volunteer", "can you change Priya's role to owner?"],
  // Raising someone to owner or admin waits for a person to approve it; lowering or moving between the two does not.
  approval: {
    kind: 'gated',
    when: {
      reason: 'the change raises the member to owner or admin',
      applies: async (args, deps) => grantsPowerfulRole(deps.db, deps.orgId, String(args.userId), args.roleId as Role),
    },
  },
  input: z.object({ userId: z.uuid().describe('The member\'s userId from platform_list_team_members'), roleId }),
  output: z.object({ userId: z.uuid(), email: z.string(), previousRole: z.enum(ROLES), role: z.enum(ROLES), roleLabel: z.string() }).strict(),
  run: (ctx, input) => updateMemberRole(ctx.db, ctx.principal, input.userId, input.roleId),
});

export const teamTools = [
  listTeamMembersTool, listTeamRolesTool, listPendingTeamInvitesTool, inviteTeamMemberTool, resendTeamInviteTool, cancelTeamInviteTool,
  removeTeamMemberTool, updateTeamMemberRoleTool,
];
