import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { API_KEY_PREFIX } from '../core/principal';
import type { Principal } from '../core/principal';
import { scopesAllowedForRole, type Role } from '../core/roles';
import { ALL_SCOPES, OPERATOR_SCOPE, isScope, type Scope } from '../core/scopes';
import { StewardError } from '../core/errors';
import { fn } from 'sequelize';
import { namedStatement, queryNamed, type Pool, type Queryable } from '../db/pool';
import { withModels } from '../db/sequelize';
import { ApiKey } from './models/api-keys';
import { Membership } from './models/memberships';


/**
 * Keys carry 256 random bits, so a single sha-256 is enough to make the stored
 * value useless to a thief; a slow hash would only slow every request.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

export interface CreatedApiKey {
  id: string;
  apiKey: string;
  scopes: Scope[];
}

interface KeyHolder {
  role: Role;
  safeguarding: boolean;
}

async function keyHolder(db: Queryable, orgId: string, userId: string): Promise<KeyHolder> {
  const membership = await withModels(db, (transaction) => Membership.findOne({
    attributes: ['role', 'safeguarding'], where: { orgId, userId }, transaction,
  }));
  if (!membership) throw new StewardError('not_found', 'The key holder is not a member of this organisation');
  // role holds only the roles (a CHECK constraint), which the model types as text.
  return { role: membership.role as Role, safeguarding: membership.safeguarding };
}

// An ordinary key names only the columns every schema version has; the column's default marks it not an operator's.
const KEY_FIELDS = ['id', 'orgId', 'userId', 'name', 'displayPrefix', 'secretHash', 'scopes'] as const;

/**
 * A key never carries more than its holder's role allows: a volunteer's key
 * cannot hold people:safeguarding, whatever was asked for.
 */
export async function createApiKey(db: Queryable, input: { orgId: string; userId: string; name?: string; scopes: string[]; operator?: boolean }): Promise<CreatedApiKey> {
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw new StewardError('validation_failed', `Unknown scope(s): ${unknown.join(', ')}`, { hint: `Valid scopes: ${ALL_SCOPES.join(', ')}` });
  }
  if (input.scopes.length === 0) throw new StewardError('validation_failed', 'An API key needs at least one scope');
  const scopes = [...new Set(input.scopes)] as Scope[];
  const holder = await keyHolder(db, input.orgId, input.userId);
  const allowed = new Set(scopesAllowedForRole(holder.role, holder.safeguarding));
  const beyond = scopes.filter((scope) => !allowed.has(scope));
  if (beyond.length > 0) {
    throw new StewardError('forbidden', `The key holder's role (${holder.role}${holder.safeguarding ? ', safeguarding' : ''}) does not allow: ${beyond.join(', ')}`, {
      hint: 'people:safeguarding needs a member with safeguarding permission; audit and billing scopes need staff or above.',
      details: { notAllowed: beyond },
    });
  }
  const apiKey = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const id = randomUUID();
  await withModels(db, (transaction) => ApiKey.create({
    id, orgId: input.orgId, userId: input.userId, name: input.name ?? 'API key',
    displayPrefix: apiKey.slice(0, API_KEY_PREFIX.length + 4), secretHash: hashSecret(apiKey), scopes, operator: input.operator ?? false,
  }, { transaction, fields: input.operator ? [...KEY_FIELDS, 'operator'] : [...KEY_FIELDS], returning: false }));
  return { id, apiKey, scopes };
}

/** The key with its membership: one join in SQL, named so Postgres plans it once per connection (it runs on every request). */
const KEY_LOOKUP = namedStatement('api-key-lookup', `
    SELECT k.id, k.org_id, k.user_id, k.scopes, m.role, m.safeguarding,
      k.operator AND EXISTS (SELECT 1 FROM platform_admins a WHERE a.user_id = k.user_id) AS operator
    FROM api_keys k JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id
    WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`);

/** The principal behind a live key, or undefined for an unknown or revoked one. */
export async function principalForApiKey(pool: Pool, apiKey: string): Promise<Principal | undefined> {
  const [row] = await queryNamed<{ id: string; org_id: string; user_id: string; scopes: string[]; role: Role; safeguarding: boolean; operator: boolean }>(
    pool, KEY_LOOKUP, [hashSecret(apiKey)]);
  if (!row) return undefined;
  // Checked on every request, so a member who loses a role or safeguarding permission loses it on their keys at once.
  const allowed = new Set(scopesAllowedForRole(row.role, row.safeguarding));
  return {
    orgId: row.org_id,
    userId: row.user_id,
    role: row.role,
    // The operator scope lasts only while its holder is a platform admin: revoking the role ends it on every key at once.
    scopes: [...row.scopes.filter((scope): scope is Scope => isScope(scope) && allowed.has(scope)), ...(row.operator ? [OPERATOR_SCOPE] : [])],
    intent: null,
    credentialId: row.id,
    credentialKind: 'api_key',
  };
}

export async function revokeApiKey(db: Queryable, orgId: string, keyId: string): Promise<boolean> {
  const [revoked] = await withModels(db, (transaction) => ApiKey.update({ revokedAt: fn('now') }, {
    where: { id: keyId, orgId, revokedAt: null }, transaction,
  }));
  return revoked > 0;
}

/** An organisation's API key as the dashboard lists it: never the secret, only the prefix shown when it was made. */
export interface ApiKeySummary {
  id: string;
  name: string;
  displayPrefix: string;
  scopes: Scope[];
  holderEmail: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The organisation's keys, newest first; revoked ones too (the last `limit`). */
export async function listApiKeys(db: Queryable, orgId: string, limit = 100): Promise<ApiKeySummary[]> {
  const { rows } = await db.query<{ id: string; name: string; display_prefix: string; scopes: string[]; email: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(
    `SELECT k.id, k.name, k.display_prefix, k.scopes, u.email, k.created_at, k.last_used_at, k.revoked_at
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.org_id = $1 ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC LIMIT $2`, [orgId, limit]);
  return rows.map((row) => ({
    id: row.id, name: row.name, displayPrefix: row.display_prefix, scopes: row.scopes.filter(isScope), holderEmail: row.email,
    createdAt: row.created_at.toISOString(), lastUsedAt: row.last_used_at?.toISOString() ?? null, revokedAt: row.revoked_at?.toISOString() ?? null,
  }));
}
