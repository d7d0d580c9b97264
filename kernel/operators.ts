import { StewardError } from '../core/errors';
import { queryOne, type Queryable } from '../db/pool';
import { createApiKey, type CreatedApiKey } from './api-keys';

/**
 * Platform admins: the operator of a Steward installation, across every organisation it hosts.
 * The role is granted and revoked only here, from the admin CLI (scripts/admin.ts), never by a
 * tool, route or dashboard: no organisation's owner can make someone an operator. An operator acts
 * through an operator key (scope platform:admin, modules/platform/operator-routes.ts).
 */

async function userByEmail(db: Queryable, email: string): Promise<{ id: string; email: string }> {
  const user = await queryOne<{ id: string; email: string }>(db, 'SELECT id, email FROM users WHERE lower(email) = lower($1)', [email.trim()]);
  if (!user) throw new StewardError('not_found', `No user signs in as ${email}`, { hint: 'The person needs a Steward login first (a team invite, or bootstrap).' });
  return user;
}

export async function grantPlatformAdmin(db: Queryable, email: string, grantedBy: string): Promise<{ userId: string; email: string; granted: boolean }> {
  const user = await userByEmail(db, email);
  const inserted = await db.query('INSERT INTO platform_admins (user_id, granted_by) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [user.id, grantedBy.slice(0, 200) || 'admin CLI']);
  return { userId: user.id, email: user.email, granted: (inserted.rowCount ?? 0) > 0 };
}

/** Revoking the role ends the operator scope on every key of theirs at once (checked on each request). */
export async function revokePlatformAdmin(db: Queryable, email: string): Promise<{ userId: string; revoked: boolean }> {
  const user = await userByEmail(db, email);
  const removed = await db.query('DELETE FROM platform_admins WHERE user_id = $1', [user.id]);
  return { userId: user.id, revoked: (removed.rowCount ?? 0) > 0 };
}

/**
 * An operator key for a platform admin, in one organisation they belong to (where the audit events
 * of what they do with it are kept): platform:read (to find the tools) and the operator scope.
 */
export async function createOperatorKey(db: Queryable, input: { email: string; orgId: string; name?: string }): Promise<CreatedApiKey> {
  const user = await userByEmail(db, input.email);
  const admin = await queryOne<{ user_id: string }>(db, 'SELECT user_id FROM platform_admins WHERE user_id = $1', [user.id]);
  if (!admin) throw new StewardError('forbidden', `${user.email} is not a platform admin`, { hint: 'Grant the role first: npm run admin -- operator grant --email …' });
  return createApiKey(db, { orgId: input.orgId, userId: user.id, name: input.name ?? 'Operator key', scopes: ['platform:read'], operator: true });
}
