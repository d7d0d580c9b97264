import { sqlIdentifier } from './sql';

/**
 * The tenant policy every table with `org_id` gets: a row is visible and writable only while the
 * transaction-local setting `steward.org_id` names its organisation. Unset, the setting reads as
 * NULL, or as '' on a connection where an earlier transaction set it locally; both match nothing.
 */
export const TENANT_PREDICATE = "org_id = NULLIF(current_setting('steward.org_id', true), '')::uuid";

/** SQL enabling (and, for `down`, removing) the tenant policy on each table. Table names are constants of the calling migration. */
export function tenantPolicies(tables: readonly string[]): { up: string; down: string } {
  for (const table of tables) sqlIdentifier(table);
  return {
    up: tables.map((table) => `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON ${table} USING (${TENANT_PREDICATE}) WITH CHECK (${TENANT_PREDICATE});`).join('\n'),
    down: tables.map((table) => `DROP POLICY tenant_isolation ON ${table};
ALTER TABLE ${table} DISABLE ROW LEVEL SECURITY;`).join('\n'),
  };
}
