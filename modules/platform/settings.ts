import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { queryRows, type Queryable } from '../../db/pool';
import { withModels } from '../../db/sequelize';
import type { OrgSettings } from '../tool';
import { Organisation } from './models';
import { getOrgSettings } from './orgs';

/**
 * Organisation settings and team: what the dashboard's settings pages read and change. Only
 * owners and admins see the team and the keys or change settings: staff keys hold platform
 * scopes for the account tools, which must not reveal who else holds access.
 */
export function requireOwnerOrAdmin(principal: Principal, what: string): void {
  if (principal.role !== 'owner' && principal.role !== 'admin') {
    throw new StewardError('forbidden', `Only an owner or admin may ${what}`, { hint: 'Ask an owner or admin of the organisation.' });
  }
}

export async function updateOrgSettings(db: Queryable, orgId: string, change: { name?: string; dateFormat?: OrgSettings['dateFormat'] }): Promise<OrgSettings> {
  if (change.name !== undefined || change.dateFormat !== undefined) {
    await withModels(db, (transaction) => Organisation.update(
      { ...(change.name !== undefined ? { name: change.name } : {}), ...(change.dateFormat !== undefined ? { dateFormat: change.dateFormat } : {}) },
      { where: { id: orgId }, transaction },
    ));
  }
  return getOrgSettings(db, orgId);
}

export interface TeamMember {
  userId: string;
  email: string;
  displayName: string | null;
  role: string;
  safeguarding: boolean;
  joinedAt: string;
}

export async function listTeam(db: Queryable, orgId: string): Promise<TeamMember[]> {
  const rows = await queryRows<{ user_id: string; email: string; display_name: string | null; role: string; safeguarding: boolean; created_at: Date }>(db, `
    SELECT m.user_id, u.email, u.display_name, m.role, m.safeguarding, m.created_at
    FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1
    ORDER BY array_position(ARRAY['owner', 'admin', 'staff', 'volunteer'], m.role), lower(u.email)`, [orgId]);
  return rows.map((row) => ({ userId: row.user_id, email: row.email, displayName: row.display_name, role: row.role, safeguarding: row.safeguarding, joinedAt: row.created_at.toISOString() }));
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  ownerEmail: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

/** Keys without their secrets (only a hash is stored anyway): name, visible prefix, scopes, use. */
export async function listApiKeys(db: Queryable, orgId: string): Promise<ApiKeyView[]> {
  const rows = await queryRows<{ id: string; name: string; display_prefix: string; scopes: string[]; email: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(db, `
    SELECT k.id, k.name, k.display_prefix, k.scopes, u.email, k.created_at, k.last_used_at, k.revoked_at
    FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.org_id = $1 ORDER BY k.created_at DESC, k.id`, [orgId]);
  return rows.map((row) => ({
    id: row.id, name: row.name, prefix: row.display_prefix, scopes: row.scopes, ownerEmail: row.email,
    createdAt: row.created_at.toISOString(), lastUsedAt: row.last_used_at?.toISOString() ?? null, revoked: row.revoked_at !== null,
  }));
}
