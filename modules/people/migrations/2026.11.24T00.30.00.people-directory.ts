import type { Migration } from '../../../db/migrate';

/**
 * `people_directory`: the people module's published read model for other modules' SQL. A list
 * of donations or pledges shows each giver's name in the same query (one join instead of a
 * service call per row), without reaching into `contacts` itself: the view names the columns
 * others may rely on, and people may change its tables behind it. Live contacts only.
 *
 * `security_invoker` makes the view check the caller's rights and row-level security, not its
 * owner's: without it, the migration role that owns it (exempt from the tenant policy) would
 * let a tool transaction read every organisation's contacts through it.
 */
export const peopleDirectory: Migration = {
  name: '2026.11.24T00.30.00.people-directory',
  up: `
CREATE VIEW people_directory WITH (security_invoker = true) AS
  SELECT id, org_id, preferred_name, first_name, last_name, email, prefix, address_line1, address_postcode
  FROM contacts WHERE deleted_at IS NULL;
GRANT SELECT ON people_directory TO steward_app;
COMMENT ON VIEW people_directory IS 'Live contacts, for other modules to join: name, email and postal basics only. Owned by the people module.';
`,
  down: 'DROP VIEW people_directory;',
};
