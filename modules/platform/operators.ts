import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { databaseErrorOf } from '../../db/sequelize';

/**
 * What an operator sees and does across organisations. Every read and write goes through the
 * SECURITY DEFINER functions of migration 2026.11.28T18.10.00.operators, which check that the user
 * acting is a platform admin now; the tool's own transaction stays under row-level security.
 */

/** The functions' refusals, as the stable errors every tool answers with. */
async function asOperator<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = (databaseErrorOf(error) as { code?: unknown } | null)?.code;
    if (code === '42501') throw new StewardError('forbidden', 'Only a platform admin reaches the operator routes', { hint: 'A platform admin is granted by the admin CLI: npm run admin -- operator grant --email …' });
    if (code === 'P0002') throw new StewardError('not_found', 'That organisation is not hosted here', { hint: 'GET /api/platform/admin/organisations lists them.' });
    if (code === '22023') throw new StewardError('validation_failed', 'That is not a metered feature', { issues: [{ path: 'feature', message: 'unknown feature' }], hint: 'GET /api/platform/admin/organisations/{orgId}/support lists the features and their allowances.' });
    throw error;
  }
}

export interface OperatorOrganisation {
  id: string; name: string; country: string; planCode: string; createdAt: string; members: number; unitsThisMonth: number; lastCallAt: string | null;
}

export async function operatorOrganisations(db: Queryable, adminUserId: string, filter: { search?: string; limit: number }): Promise<OperatorOrganisation[]> {
  const rows = await asOperator(() => queryRows<{ id: string; name: string; country: string; plan_code: string; created_at: Date; members: string; units_this_month: string; last_call_at: Date | null }>(db,
    'SELECT * FROM steward_operator_organisations($1, $2, $3)', [adminUserId, filter.search ?? null, filter.limit]));
  return rows.map((row) => ({
    id: row.id, name: row.name, country: row.country, planCode: row.plan_code, createdAt: row.created_at.toISOString(),
    members: Number(row.members), unitsThisMonth: Number(row.units_this_month), lastCallAt: row.last_call_at?.toISOString() ?? null,
  }));
}

export interface OperatorUser {
  userId: string; email: string; displayName: string | null; createdAt: string; platformAdmin: boolean;
  memberships: Array<{ orgId: string; orgName: string; role: string }>;
}

export async function operatorUsers(db: Queryable, adminUserId: string, email: string): Promise<OperatorUser[]> {
  const rows = await asOperator(() => queryRows<{ user_id: string; email: string; display_name: string | null; created_at: Date; platform_admin: boolean; memberships: OperatorUser['memberships'] }>(db,
    'SELECT * FROM steward_operator_users($1, $2)', [adminUserId, email]));
  return rows.map((row) => ({
    userId: row.user_id, email: row.email, displayName: row.display_name, createdAt: row.created_at.toISOString(), platformAdmin: row.platform_admin, memberships: row.memberships,
  }));
}

export async function operatorSupportView(db: Queryable, adminUserId: string, orgId: string): Promise<Record<string, unknown>> {
  const row = await asOperator(() => queryOne<{ view: Record<string, unknown> | null }>(db, 'SELECT steward_operator_support($1, $2) AS view', [adminUserId, orgId]));
  if (!row?.view) throw new StewardError('not_found', `Organisation ${orgId} is not hosted here`, { hint: 'GET /api/platform/admin/organisations lists them.' });
  return row.view;
}

/** Sets or (null) removes an organisation's allowance override; the organisation's own audit trail records it. */
export async function setOperatorAllowance(db: Queryable, adminUserId: string, input: { orgId: string; feature: string; monthlyLimit: number | null; workflowId: string }) {
  const row = await asOperator(() => queryOne<{ result: { orgId: string; feature: string; override: number | null; previousOverride: number | null; planLimit: number | null; effectiveLimit: number | null } }>(db,
    'SELECT steward_operator_set_allowance($1, $2, $3, $4, $5) AS result', [adminUserId, input.orgId, input.feature, input.monthlyLimit, input.workflowId]));
  return row!.result;
}
