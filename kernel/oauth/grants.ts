import type { RowOf } from '../../modules/kit';
import type { OAuthGrant } from '../models/oauth-grants';
import { randomUUID } from 'node:crypto';
import { isRole, scopesAllowedForRole, type Role } from '../../core/roles';
import { isScope, type Scope } from '../../core/scopes';
import { queryOne, type Queryable } from '../../db/pool';

/** One person's consent for one client in one organisation; codes and tokens descend from it. */
export interface Grant {
  id: string;
  clientId: string;
  orgId: string;
  userId: string;
  intent: string;
  scopes: Scope[];
  resource: string;
  revokedAt: Date | null;
}

type GrantRow = Pick<RowOf<OAuthGrant>, 'id' | 'client_id' | 'org_id' | 'user_id' | 'intent' | 'scopes' | 'resource' | 'revoked_at'>;

const GRANT_COLUMNS = 'g.id, g.client_id, g.org_id, g.user_id, g.intent, g.scopes, g.resource, g.revoked_at';

function grantOf(row: GrantRow): Grant {
  return {
    id: row.id, clientId: row.client_id, orgId: row.org_id, userId: row.user_id, intent: row.intent,
    scopes: row.scopes.filter(isScope), resource: row.resource, revokedAt: row.revoked_at,
  };
}

export async function createGrant(db: Queryable, input: Omit<Grant, 'id' | 'revokedAt'>): Promise<Grant> {
  const id = randomUUID();
  await db.query('INSERT INTO oauth_grants (id, client_id, org_id, user_id, intent, scopes, resource) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    id, input.clientId, input.orgId, input.userId, input.intent, input.scopes, input.resource,
  ]);
  return { ...input, id, revokedAt: null };
}

export async function findGrant(db: Queryable, grantId: string): Promise<Grant | undefined> {
  const row = await queryOne<GrantRow>(db, `SELECT ${GRANT_COLUMNS} FROM oauth_grants g WHERE g.id = $1`, [grantId]);
  return row && grantOf(row);
}

/** Revokes the grant and with it every code, refresh token and access token issued under it. */
export async function revokeGrant(db: Queryable, grantId: string, reason: string): Promise<void> {
  await db.query('UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL', [grantId, reason]);
}

export interface GrantHolder {
  grant: Grant;
  /** null when the person has left the organisation since consenting. */
  role: Role | null;
  /** The grant's scopes that the person's role still allows today. */
  scopes: Scope[];
}

/**
 * The grant with the person's current membership. Roles change after consent;
 * a token never carries more than the role allows now.
 */
export async function grantHolder(db: Queryable, grantId: string): Promise<GrantHolder | undefined> {
  const row = await queryOne<GrantRow & { role: string | null; safeguarding: boolean | null }>(db, `
    SELECT ${GRANT_COLUMNS}, m.role, m.safeguarding
    FROM oauth_grants g LEFT JOIN memberships m ON m.org_id = g.org_id AND m.user_id = g.user_id
    WHERE g.id = $1`, [grantId]);
  if (!row) return undefined;
  const grant = grantOf(row);
  if (!row.role || !isRole(row.role)) return { grant, role: null, scopes: [] };
  const allowed = new Set(scopesAllowedForRole(row.role, row.safeguarding ?? false));
  return { grant, role: row.role, scopes: grant.scopes.filter((scope) => allowed.has(scope)) };
}

/** A connected application as the dashboard lists it: who consented, for which intent, and when. */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  intent: string;
  scopes: Scope[];
  userId: string;
  userEmail: string;
  createdAt: string;
}

/** The organisation's live grants (all of them, or one person's), newest first. */
export async function listConnectedApps(db: Queryable, orgId: string, userId?: string): Promise<ConnectedApp[]> {
  const { rows } = await db.query<{ id: string; client_id: string; client_name: string | null; intent: string; scopes: string[]; user_id: string; email: string; created_at: Date }>(
    `SELECT g.id, g.client_id, c.metadata->>'client_name' AS client_name, g.intent, g.scopes, g.user_id, u.email, g.created_at
       FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id JOIN users u ON u.id = g.user_id
      WHERE g.org_id = $1 AND g.revoked_at IS NULL AND ($2::uuid IS NULL OR g.user_id = $2)
      ORDER BY g.created_at DESC LIMIT 200`, [orgId, userId ?? null]);
  return rows.map((row) => ({
    grantId: row.id, clientId: row.client_id, clientName: row.client_name?.trim() || `Unnamed application (${row.client_id.slice(0, 8)})`,
    intent: row.intent, scopes: row.scopes.filter(isScope), userId: row.user_id, userEmail: row.email, createdAt: row.created_at.toISOString(),
  }));
}
