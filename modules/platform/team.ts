import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { ROLES, type Role } from '../../core/roles';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import type { RowOf } from '../kit';
import type { Membership } from '../../kernel/models/memberships';
import type { TeamInvite } from './models/team-invites';
import type { User } from './models/users';
import { listTeam } from './settings';

/**
 * The team: who belongs to the organisation with which role, and the invitations that
 * bring people in. Only owners and admins manage it, and only an owner hands out, changes
 * or takes away the owner role, so an admin can never lock the owners out.
 */

/** How long an emailed invitation link stays valid, counted from its (latest) sending. */
export const INVITE_LIFETIME_DAYS = 7;

export const ROLE_LABELS: Readonly<Record<Role, { label: string; description: string }>> = {
  owner: { label: 'Owner', description: 'Everything, including billing and the other owners' },
  admin: { label: 'Administrator', description: 'Everything but the owners: settings, team, keys, all data' },
  staff: { label: 'Staff', description: 'Day-to-day work and approvals; no audit log' },
  volunteer: { label: 'Volunteer', description: 'People and rosters; never safeguarding, giving or billing' },
};

export function requireTeamManager(principal: Principal, what: string): void {
  if (principal.role !== 'owner' && principal.role !== 'admin') {
    throw new StewardError('forbidden', `Only an owner or admin may ${what}`, { hint: 'Ask an owner or admin of the organisation.' });
  }
}

/** Owners grant or take the owner role; admins the rest. */
function requireMayAssign(principal: Principal, role: string): void {
  if (role === 'owner' && principal.role !== 'owner') {
    throw new StewardError('forbidden', 'Only an owner may make someone an owner', { hint: 'Ask an owner of the organisation.' });
  }
}

export interface AssignableRole {
  roleId: Role;
  label: string;
  description: string;
  assignable: boolean;
}

export function listRoles(principal: Principal): AssignableRole[] {
  return ROLES.map((role) => ({ roleId: role, ...ROLE_LABELS[role], assignable: role !== 'owner' || principal.role === 'owner' }));
}

export async function listMembers(db: Queryable, orgId: string) {
  // role holds only the roles (a CHECK constraint), which the listing types as text.
  const members = await listTeam(db, orgId);
  return members.map((member) => ({ ...member, role: member.role as Role, roleLabel: ROLE_LABELS[member.role as Role].label }));
}

// ---------------------------------------------------------------- members

// role holds only the roles (a CHECK constraint), which the model types as text.
type MembershipRow = Pick<RowOf<Membership>, 'user_id'> & Pick<RowOf<User>, 'email'> & { role: Role };

/** The member, locked for the change; another organisation's user is not found. */
async function lockMember(db: Queryable, orgId: string, userId: string): Promise<MembershipRow> {
  const row = await queryOne<MembershipRow>(db, `SELECT m.user_id, u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.org_id = $1 AND m.user_id = $2 FOR UPDATE OF m`, [orgId, userId]);
  if (!row) throw new StewardError('not_found', `Team member ${userId} was not found`, { hint: 'List the team with platform_list_team_members.' });
  return row;
}

/**
 * The owners' rows, locked in one order before the member's own, so two changes at once run one
 * after the other (neither can leave the other as the last owner and remove it) and never deadlock.
 */
async function lockOwners(db: Queryable, orgId: string): Promise<string[]> {
  const rows = await queryRows<{ user_id: string }>(db, "SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'owner' ORDER BY user_id FOR UPDATE", [orgId]);
  return rows.map((row) => row.user_id);
}

async function lockForChange(db: Queryable, orgId: string, userId: string): Promise<{ owners: string[]; member: MembershipRow }> {
  const owners = await lockOwners(db, orgId);
  return { owners, member: await lockMember(db, orgId, userId) };
}

function refuseLastOwner(owners: string[], member: MembershipRow, what: string): void {
  if (member.role !== 'owner') return;
  if (owners.length <= 1) {
    throw new StewardError('conflict', `${member.email} is the organisation's only owner and cannot be ${what}`, {
      hint: 'Make another member an owner first (platform_update_team_member_role).',
    });
  }
}

function requireMayChangeOwner(principal: Principal, member: MembershipRow): void {
  if (member.role === 'owner' && principal.role !== 'owner') {
    throw new StewardError('forbidden', 'Only an owner may change or remove another owner', { hint: 'Ask an owner of the organisation.' });
  }
}

export async function updateMemberRole(db: Queryable, principal: Principal, userId: string, role: Role) {
  requireTeamManager(principal, 'change team roles');
  requireMayAssign(principal, role);
  const { owners, member } = await lockForChange(db, principal.orgId, userId);
  requireMayChangeOwner(principal, member);
  if (role !== 'owner') refuseLastOwner(owners, member, 'demoted');
  // Credentials resolve their scopes from the membership on every request, so this narrows them at once.
  await db.query('UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2', [principal.orgId, userId, role]);
  return { userId, email: member.email, previousRole: member.role, role, roleLabel: ROLE_LABELS[role].label };
}

export async function removeMember(db: Queryable, principal: Principal, userId: string) {
  requireTeamManager(principal, 'remove team members');
  if (userId === principal.userId) {
    throw new StewardError('conflict', 'You cannot remove yourself from the team', { hint: 'Ask another owner or admin to remove you.' });
  }
  const { owners, member } = await lockForChange(db, principal.orgId, userId);
  requireMayChangeOwner(principal, member);
  refuseLastOwner(owners, member, 'removed');
  const keys = await db.query('UPDATE api_keys SET revoked_at = now() WHERE org_id = $1 AND user_id = $2 AND revoked_at IS NULL', [principal.orgId, userId]);
  const grants = await db.query("UPDATE oauth_grants SET revoked_at = now(), revoked_reason = 'member removed from the organisation' WHERE org_id = $1 AND user_id = $2 AND revoked_at IS NULL", [principal.orgId, userId]);
  await db.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [principal.orgId, userId]);
  return { userId, email: member.email, role: member.role, revokedApiKeys: keys.rowCount ?? 0, revokedOAuthGrants: grants.rowCount ?? 0 };
}

// ---------------------------------------------------------------- invites

export interface InviteView {
  inviteId: string;
  email: string;
  role: Role;
  roleLabel: string;
  status: 'pending' | 'accepted' | 'cancelled' | 'replaced';
  expired: boolean;
  expiresAt: string;
  sends: number;
  lastSentAt: string | null;
  sendError: { code: string; message: string } | null;
  createdAt: string;
}

/** An invite as `SELECT *` reads it, typed by its model. */
type InviteRow = RowOf<TeamInvite>;

function viewOf(row: InviteRow): InviteView {
  return {
    inviteId: row.id, email: row.email, role: row.role, roleLabel: ROLE_LABELS[row.role].label, status: row.status,
    expired: row.expires_at.getTime() <= Date.now(), expiresAt: row.expires_at.toISOString(), sends: row.sends,
    lastSentAt: row.sent_at?.toISOString() ?? null, sendError: row.send_error, createdAt: row.created_at.toISOString(),
  };
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function listPendingInvites(db: Queryable, orgId: string): Promise<InviteView[]> {
  const rows = await queryRows<InviteRow>(db, "SELECT * FROM team_invites WHERE org_id = $1 AND status = 'pending' ORDER BY created_at DESC, id DESC", [orgId]);
  return rows.map(viewOf);
}

/** Serialises every change to one address's invitations, so two at once leave exactly one live invite. */
async function lockAddress(db: Queryable, orgId: string, email: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`team-invite:${orgId}:${email}`]);
}

async function refuseExistingMember(db: Queryable, orgId: string, email: string): Promise<void> {
  const member = await queryOne(db, 'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND lower(u.email) = $2', [orgId, email]);
  if (member) {
    throw new StewardError('conflict', `${email} is already a member of the team`, { hint: 'Change their role with platform_update_team_member_role instead.' });
  }
}

function expiresAt(): Date {
  return new Date(Date.now() + INVITE_LIFETIME_DAYS * 24 * 60 * 60 * 1000);
}

/** A new invite for the address, replacing a pending one; the email leaves after the call (the tool's follow-up). */
export async function inviteMember(db: Queryable, principal: Principal, input: { email: string; role: Role }): Promise<{ invite: InviteView; replacedInviteId: string | null }> {
  requireTeamManager(principal, 'invite team members');
  requireMayAssign(principal, input.role);
  const email = normaliseEmail(input.email);
  await lockAddress(db, principal.orgId, email);
  await refuseExistingMember(db, principal.orgId, email);
  const replaced = await queryOne<{ id: string }>(db, `UPDATE team_invites SET status = 'replaced', token_hash = NULL, updated_at = now()
    WHERE org_id = $1 AND email = $2 AND status = 'pending' RETURNING id`, [principal.orgId, email]);
  const row = await queryOne<InviteRow>(db, `INSERT INTO team_invites (id, org_id, email, role, send_id, expires_at, invited_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`, [randomUUID(), principal.orgId, email, input.role, randomUUID(), expiresAt(), principal.userId]);
  return { invite: viewOf(row!), replacedInviteId: replaced?.id ?? null };
}

/** The pending invite named by id or by address, locked; anything else (another organisation's) is not found. */
async function lockPendingInvite(db: Queryable, orgId: string, by: { inviteId?: string; email?: string }): Promise<InviteRow> {
  const email = by.email === undefined ? null : normaliseEmail(by.email);
  if (email) await lockAddress(db, orgId, email);
  const row = await queryOne<InviteRow>(db, `SELECT * FROM team_invites WHERE org_id = $1 AND status = 'pending'
    AND ($2::uuid IS NULL OR id = $2) AND ($3::text IS NULL OR email = $3) FOR UPDATE`, [orgId, by.inviteId ?? null, email]);
  if (!row) {
    throw new StewardError('not_found', `Pending invite ${by.inviteId ?? `for ${email}`} was not found`, { hint: 'List them with platform_list_pending_team_invites.' });
  }
  return row;
}

/** A fresh link (the old one stops working) and a new send; the expiry starts again when it is sent. */
export async function resendInvite(db: Queryable, principal: Principal, by: { inviteId?: string; email?: string }): Promise<InviteView> {
  requireTeamManager(principal, 'resend team invites');
  const invite = await lockPendingInvite(db, principal.orgId, by);
  requireMayAssign(principal, invite.role);
  const row = await queryOne<InviteRow>(db, `UPDATE team_invites SET send_id = $3, sends = sends + 1, token_hash = NULL, send_error = NULL,
    expires_at = $4, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`, [principal.orgId, invite.id, randomUUID(), expiresAt()]);
  return viewOf(row!);
}

export async function cancelInvite(db: Queryable, principal: Principal, by: { inviteId?: string; email?: string }): Promise<InviteView> {
  requireTeamManager(principal, 'cancel team invites');
  const invite = await lockPendingInvite(db, principal.orgId, by);
  const row = await queryOne<InviteRow>(db, `UPDATE team_invites SET status = 'cancelled', token_hash = NULL, updated_at = now()
    WHERE org_id = $1 AND id = $2 RETURNING *`, [principal.orgId, invite.id]);
  return viewOf(row!);
}

/** Roles that hold power over the organisation: granting one is approved by a person (see grantsPowerfulRole). */
export const POWERFUL_ROLES: readonly Role[] = ['owner', 'admin'];

/**
 * Whether giving this member the role grants owner or admin power they do not hold: a promotion to
 * admin, or to owner from any other role, does; a demotion does not. A member not found is left to
 * the change itself to refuse. ROLES runs from most to least power.
 */
export async function grantsPowerfulRole(db: Queryable, orgId: string, userId: string, role: Role): Promise<boolean> {
  if (!POWERFUL_ROLES.includes(role)) return false;
  const row = await queryOne<{ role: Role }>(db, 'SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
  return row !== undefined && row !== null && ROLES.indexOf(role) < ROLES.indexOf(row.role);
}
