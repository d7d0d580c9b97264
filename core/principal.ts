import type { Role } from './roles';
import type { Scope } from './scopes';

/** Who is calling, resolved from an API key or an OAuth access token alike. */
export interface Principal {
  orgId: string;
  userId: string;
  role: Role;
  scopes: Scope[];
  /** OAuth intent id; null for API keys. */
  intent: string | null;
  credentialId: string;
  credentialKind: 'api_key' | 'oauth';
}

export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}
