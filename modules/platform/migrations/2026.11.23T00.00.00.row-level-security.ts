import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/** The platform module's tables that hold one organisation's rows. */
const TENANT_TABLES = [
  'org_allowance_overrides', 'memberships', 'api_keys', 'usage_events', 'tool_call_results', 'audit_events',
  'oauth_grants', 'agents', 'proposals', 'outbox_messages',
];

/**
 * Row-level security, part one: the application role and the platform module's tables.
 *
 * Tool calls run as `steward_app` (SET LOCAL ROLE in the tool transaction, see
 * withTenantTransaction): it is not the tables' owner, not a superuser and has no BYPASSRLS, so
 * every policy applies to it and it cannot drop or disable one. The migration role owns the
 * tables and is exempt, which the paths outside tool calls (sign-in, OAuth, schedules, outbox,
 * maintenance) rely on.
 *
 * Roles belong to the whole cluster while tests create many databases in it, often at once: the
 * role is created only if missing, and a concurrent creation or grant is not an error.
 */
export const rowLevelSecurity: Migration = {
  name: '2026.11.23T00.00.00.row-level-security',
  up: `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'steward_app') THEN
    CREATE ROLE steward_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
-- The connecting role must be a member to SET ROLE to it (a superuser needs no membership).
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'steward_app', 'MEMBER') THEN
    EXECUTE format('GRANT steward_app TO %I', current_user);
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation OR insufficient_privilege THEN NULL;
END $$;

GRANT USAGE ON SCHEMA public TO steward_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO steward_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO steward_app;
-- Tables later migrations create are granted too; each must also get its policy (a test checks every org_id table has one).
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO steward_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO steward_app;
-- A tool never needs the migration log or another person's OAuth secrets.
REVOKE ALL ON steward_migrations, oauth_clients, oauth_signing_keys, oauth_sessions, oauth_authorization_requests,
  oauth_codes, oauth_refresh_tokens FROM steward_app;

-- A tool may read its own organisation's row only.
ALTER TABLE organisations ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON organisations
  USING (id = NULLIF(current_setting('steward.org_id', true), '')::uuid)
  WITH CHECK (id = NULLIF(current_setting('steward.org_id', true), '')::uuid);
${tenantPolicies(TENANT_TABLES).up}
`,
  down: `
${tenantPolicies(TENANT_TABLES).down}
DROP POLICY tenant_isolation ON organisations;
ALTER TABLE organisations DISABLE ROW LEVEL SECURITY;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM steward_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM steward_app;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM steward_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM steward_app;
REVOKE USAGE ON SCHEMA public FROM steward_app;
`,
};
