import type { Role } from './roles';
import type { Scope } from './scopes';

/**
 * How the caller proved who they are: an API key or OAuth token from outside,
 * a staff member signed in to the dashboard, or an autonomous agent's own run.
 */
export const CREDENTIAL_KINDS = ['api_key', 'oauth', 'dashboard', 'agent'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** Who is calling, resolved from an API key or an OAuth access token alike. */
export interface Principal {
  orgId: string;
  userId: string;
  role: Role;
  scopes: Scope[];
  /** OAuth intent id; null for API keys. */
  intent: string | null;
  credentialId: string;
  credentialKind: CredentialKind;
}

export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}

/** How every API key begins (the rest is 32 random bytes, base64url); documents that describe keys name it from here. */
export const API_KEY_PREFIX = 'sk_live_';
