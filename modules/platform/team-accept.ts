import { randomUUID } from 'node:crypto';
import { isRole, type Role } from '../../core/roles';
import { queryOne, withTransaction, type Pool, type Queryable } from '../../db/pool';
import { hashSecret } from '../../kernel/oauth/secrets';
import { checkPassword } from '../../kernel/oauth/sessions';
import { hashPassword } from '../../kernel/passwords';
import { ROLE_LABELS } from './team';

/**
 * Accepting an invitation from its emailed link (the page in api/pages/team-invite.ts).
 * The token is looked up by its hash; it works once, until it expires, and only while the
 * invite is pending. Accepting joins the organisation with the invited role: an address
 * with an account signs in with its password, a new one chooses a password.
 */

/** Tokens are `inv_` and 43 base64url characters; anything else is not looked up at all. */
const TOKEN_SHAPE = /^inv_[A-Za-z0-9_-]{43}$/;

export const MIN_PASSWORD_LENGTH = 12;

export interface InviteOffer {
  email: string;
  orgName: string;
  role: Role;
  roleLabel: string;
  /** The address already has an account with a password: they sign in instead of choosing one. */
  hasAccount: boolean;
}

export type AcceptOutcome =
  | { kind: 'joined'; orgName: string; roleLabel: string; email: string }
  | { kind: 'invalid' }
  | { kind: 'wrong_password' }
  | { kind: 'weak_password' };

interface LiveInvite {
  id: string;
  org_id: string;
  email: string;
  role: string;
  org_name: string;
}

async function liveInvite(db: Queryable, token: string, lock: boolean): Promise<LiveInvite | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await queryOne<LiveInvite>(db, `SELECT i.id, i.org_id, i.email, i.role, o.name AS org_name
    FROM team_invites i JOIN organisations o ON o.id = i.org_id
    WHERE i.token_hash = $1 AND i.status = 'pending' AND i.expires_at > now() ${lock ? 'FOR UPDATE OF i' : ''}`, [hashSecret(token)]);
  return row && isRole(row.role) ? row : undefined;
}

async function accountOf(db: Queryable, email: string): Promise<{ id: string; has_password: boolean } | undefined> {
  return queryOne(db, 'SELECT id, password_hash IS NOT NULL AS has_password FROM users WHERE lower(email) = lower($1)', [email]);
}

export async function inviteOffer(pool: Pool, token: string): Promise<InviteOffer | undefined> {
  const invite = await liveInvite(pool, token, false);
  if (!invite) return undefined;
  const account = await accountOf(pool, invite.email);
  const role = invite.role as Role;
  return { email: invite.email, orgName: invite.org_name, role, roleLabel: ROLE_LABELS[role].label, hasAccount: Boolean(account?.has_password) };
}

/** The user who accepts: the existing account after its password checks out, or a new one with the chosen password. */
async function acceptingUser(db: Queryable, email: string, password: string, displayName: string | null): Promise<string | AcceptOutcome> {
  const account = await accountOf(db, email);
  if (account?.has_password) {
    const user = await checkPassword(db, email, password);
    return user ? user.userId : { kind: 'wrong_password' };
  }
  if (password.length < MIN_PASSWORD_LENGTH) return { kind: 'weak_password' };
  const passwordHash = await hashPassword(password);
  if (account) {
    await db.query('UPDATE users SET password_hash = $2, display_name = COALESCE(display_name, $3) WHERE id = $1', [account.id, passwordHash, displayName]);
    return account.id;
  }
  const id = randomUUID();
  await db.query('INSERT INTO users (id, email, display_name, password_hash) VALUES ($1, $2, $3, $4)', [id, email, displayName, passwordHash]);
  return id;
}

/**
 * One transaction with the invite locked: a second acceptance of the same token waits, then
 * finds it accepted. Someone already in the organisation keeps the role they have.
 */
export async function acceptInvite(pool: Pool, token: string, input: { password: string; displayName?: string }): Promise<AcceptOutcome> {
  return withTransaction(pool, async (db) => {
    const invite = await liveInvite(db, token, true);
    if (!invite) return { kind: 'invalid' };
    const userId = await acceptingUser(db, invite.email, input.password, input.displayName?.trim() || null);
    if (typeof userId !== 'string') return userId;
    await db.query('INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (org_id, user_id) DO NOTHING', [invite.org_id, userId, invite.role]);
    await db.query(`UPDATE team_invites SET status = 'accepted', token_hash = NULL, accepted_user_id = $2, accepted_at = now(), updated_at = now()
      WHERE id = $1`, [invite.id, userId]);
    return { kind: 'joined', orgName: invite.org_name, roleLabel: ROLE_LABELS[invite.role as Role].label, email: invite.email };
  });
}
