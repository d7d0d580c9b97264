import { withTenantTransaction, type Pool } from '../../db/pool';

export interface FloorActivities {
  floorReadContact(orgId: string, contactId: string): Promise<{ id: string; firstName: string } | null>;
}

/** One primary-key read in a read-only transaction under the organisation's tenant policy, as a tool's read runs. */
export function createFloorActivities(pool: Pool): FloorActivities {
  return {
    async floorReadContact(orgId, contactId) {
      return withTenantTransaction(pool, orgId, async (client) => {
        const { rows } = await client.query<{ id: string; first_name: string }>(
          'SELECT id, first_name FROM contacts WHERE id = $1 AND deleted_at IS NULL', [contactId]);
        return rows[0] ? { id: rows[0].id, firstName: rows[0].first_name } : null;
      }, { readOnly: true });
    },
  };
}
