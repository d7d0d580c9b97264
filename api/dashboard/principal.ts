import type { Principal } from '../../core/principal';
import { scopesAllowedForRole } from '../../core/roles';
import type { OrgMembership, SignedInUser } from '../../kernel/oauth/sessions';
import { stableUuid } from '../../kernel/proposals';

/** A signed-in staff member acting in one organisation, as a principal: the scopes their role allows, nothing more. */
export function staffPrincipalOf(user: SignedInUser, membership: OrgMembership, sessionToken: string): Principal {
  return {
    orgId: membership.orgId, userId: user.userId, role: membership.role,
    scopes: scopesAllowedForRole(membership.role, membership.safeguarding), intent: null,
    // A stable, non-secret id for this browser session, for the audit trail.
    credentialId: stableUuid(`session\n${sessionToken}`),
    credentialKind: 'dashboard',
  };
}
