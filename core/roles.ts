import { ALL_SCOPES, type Scope } from './scopes';

export const ROLES = ['owner', 'admin', 'staff', 'volunteer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * The most a role may ever be granted. Volunteers read and write people and
 * rosters but never see safeguarding material or billing; staff get everything
 * but audit (reading and exporting it); owners and admins get everything.
 */
const VOLUNTEER_DENIED = new Set<Scope>([
  'people:safeguarding', 'audit:read', 'audit:export', 'billing:read', 'billing:write',
  'giving:read', 'giving:write', 'ticketing:refund', 'store:write', 'channels:send',
]);

export function scopesAllowedForRole(role: Role, holdsSafeguarding: boolean): Scope[] {
  return ALL_SCOPES.filter((scope) => {
    if (scope === 'people:safeguarding') return holdsSafeguarding && role !== 'volunteer';
    if (role === 'volunteer') return !VOLUNTEER_DENIED.has(scope);
    if (role === 'staff') return scope !== 'audit:read' && scope !== 'audit:export';
    return true;
  });
}

/** Staff and above: they use the approvals dashboard and decide pastoral messages; volunteers never do. */
export const STAFF_ROLES: readonly Role[] = ['owner', 'admin', 'staff'];
