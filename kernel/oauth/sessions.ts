import { randomUUID } from 'node:crypto';
import { isRole, type Role } from '../../core/roles';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { hashPassword, verifyPassword } from '../passwords';
import { hashSecret, LIFETIMES, newSecret } from './secrets';

export interface SignedInUser {
  userId: string;
  email: string;
  displayName: string | null;
}

// Verified when the email is unknown, so a wrong email costs as long as a wrong password
// and response times do not tell which accounts exist.
let dummyHash: Promise<string> | undefined;

/** The user whose email and password these are, or undefined; never says which part was wrong. */
export async function checkPassword(db: Queryable, email: string, password: string): Promise<SignedInUser | undefined> {
  const row = await queryOne<{ id: string; email: string; display_name: string | null; password_hash: string | null }>(db,
    'SELECT id, email, display_name, password_hash FROM users WHERE lower(email) = lower($1)', [email.trim()]);
  if (!row?.password_hash) {
    dummyHash ??= hashPassword(newSecret());
    await verifyPassword(await dummyHash, password);
    return undefined;
  }
  if (!(await verifyPassword(row.password_hash, password))) return undefined;
  return { userId: row.id, email: row.email, displayName: row.display_name };
}

/** Starts a browser session; the returned value goes in the cookie and only its hash is stored. */
export async function createSession(db: Queryable, userId: string): Promise<{ token: string; maxAgeSeconds: number }> {
  const token = newSecret();
  await db.query(`INSERT INTO oauth_sessions (id, token_hash, user_id, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`, [
    randomUUID(), hashSecret(token), userId, LIFETIMES.sessionSeconds,
  ]);
  return { token, maxAgeSeconds: LIFETIMES.sessionSeconds };
}

export async function sessionUser(db: Queryable, token: string | undefined): Promise<SignedInUser | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await queryOne<{ id: string; email: string; display_name: string | null }>(db, `
    SELECT u.id, u.email, u.display_name FROM oauth_sessions s JOIN users u ON u.id = s.user_id
    WHERE s.token_hash = $1 AND s.expires_at > now()`, [hashSecret(token)]);
  return row && { userId: row.id, email: row.email, displayName: row.display_name };
}

export async function endSession(db: Queryable, token: string): Promise<void> {
  await db.query('DELETE FROM oauth_sessions WHERE token_hash = $1', [hashSecret(token)]);
}

export interface OrgMembership {
  orgId: string;
  orgName: string;
  role: Role;
  safeguarding: boolean;
}

export async function membershipsOf(db: Queryable, userId: string): Promise<OrgMembership[]> {
  const rows = await queryRows<{ org_id: string; name: string; role: string; safeguarding: boolean }>(db, `
    SELECT m.org_id, o.name, m.role, m.safeguarding FROM memberships m JOIN organisations o ON o.id = m.org_id
    WHERE m.user_id = $1 ORDER BY o.name, m.org_id`, [userId]);
  return rows.filter((row) => isRole(row.role)).map((row) => ({ orgId: row.org_id, orgName: row.name, role: row.role as Role, safeguarding: row.safeguarding }));
}
