import { hasScope, type Principal } from '../../core/principal';
import { STAFF_ROLES } from '../../core/roles';
import { queryRows, type Queryable } from '../../db/pool';

/**
 * Who may see which small groups. Team members map to a person in a group through the leader's
 * membership row: `groups_set_leader` links a leader (a contact) to the team member whose login
 * acts as that leader (`leader_user_id`, given or matched once by email when the leader is set).
 * The platform keeps no other link between a login and a contact, so a leader's access never
 * follows a contact's email edited later.
 *
 * - Staff (owner, admin, staff) with the groups scopes see every group of the organisation.
 * - Any other credential (a volunteer's) is a leader's: it sees only the groups it leads, and a
 *   group it does not lead answers exactly as a missing one.
 * - A confidential group's roster is shown only to its leaders and to staff holding
 *   people:safeguarding (the scope that guards every confidential record, as for pastoral notes).
 */
export interface Viewer {
  userId: string;
  staff: boolean;
  safeguarding: boolean;
  /** Groups this credential leads now. */
  leads: ReadonlySet<string>;
}

export async function viewerOf(db: Queryable, orgId: string, principal: Principal): Promise<Viewer> {
  const rows = await queryRows<{ group_id: string }>(db,
    `SELECT DISTINCT group_id FROM groups_memberships WHERE org_id = $1 AND leader_user_id = $2 AND role = 'leader' AND left_at IS NULL`, [orgId, principal.userId]);
  const staff = STAFF_ROLES.includes(principal.role);
  return { userId: principal.userId, staff, safeguarding: staff && hasScope(principal, 'people:safeguarding'), leads: new Set(rows.map((row) => row.group_id)) };
}

export const canSeeGroup = (viewer: Viewer, groupId: string): boolean => viewer.staff || viewer.leads.has(groupId);

export const canSeeRoster = (viewer: Viewer, group: { id: string; confidential: boolean }): boolean =>
  !group.confidential || viewer.safeguarding || viewer.leads.has(group.id);
