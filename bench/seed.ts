/**
 * An organisation for a bench: an owner holding safeguarding permission and an API key with every
 * scope, checked to resolve to its organisation before any call is timed.
 */
import type { Principal } from '../core/principal';
import { ALL_SCOPES } from '../core/scopes';
import { withTransaction, type Pool } from '../db/pool';
import { createApiKey, principalForApiKey } from '../kernel/api-keys';
import { createOrganisation } from '../modules/platform/orgs';
import { createMember } from '../modules/platform/users';

export interface BenchOrg {
  orgId: string;
  apiKey: string;
  principal: Principal;
}

export async function createBenchOrg(pool: Pool, name: string, planCode?: string): Promise<BenchOrg> {
  const { apiKey, orgId } = await withTransaction(pool, async (db) => {
    const org = await createOrganisation(db, { name, country: 'GB', ...(planCode ? { planCode } : {}) });
    const owner = await createMember(db, { orgId: org.id, email: `owner-${org.id}@bench.local`, role: 'owner', safeguarding: true });
    const key = await createApiKey(db, { orgId: org.id, userId: owner.userId, scopes: [...ALL_SCOPES] });
    return { apiKey: key.apiKey, orgId: org.id };
  });
  const principal = await principalForApiKey(pool, apiKey);
  if (!principal || principal.orgId !== orgId) throw new Error(`the bench API key for ${name} did not resolve to its organisation`);
  return { orgId, apiKey, principal };
}
