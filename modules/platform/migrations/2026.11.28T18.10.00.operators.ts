import type { Migration } from '../../../db/migrate';

/**
 * The operator of a Steward installation (the people who host it for many organisations): a
 * platform-admin role that no organisation's role gives, granted only by the admin CLI, and keys
 * marked `operator` that carry it. Operators reach across organisations only through the
 * SECURITY DEFINER functions below, each of which first checks that the user it acts for is a
 * platform admin now: the application role itself can neither read nor change `platform_admins`,
 * and row-level security still holds for everything else it does.
 */
export const operators: Migration = {
  name: '2026.11.28T18.10.00.operators',
  up: `
CREATE TABLE platform_admins (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  granted_by text NOT NULL CHECK (length(granted_by) BETWEEN 1 AND 200),
  granted_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON platform_admins FROM steward_app;

ALTER TABLE api_keys ADD COLUMN operator boolean NOT NULL DEFAULT false;

CREATE FUNCTION steward_require_operator(p_admin uuid) RETURNS void LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $fn$
BEGIN
  IF p_admin IS NULL OR NOT EXISTS (SELECT 1 FROM platform_admins WHERE user_id = p_admin) THEN
    RAISE EXCEPTION 'not a platform admin' USING ERRCODE = '42501';
  END IF;
END
$fn$;

-- Organisations hosted here, with what an operator looks at first: plan, team size, use this month, last call.
CREATE FUNCTION steward_operator_organisations(p_admin uuid, p_search text, p_limit integer)
RETURNS TABLE (id uuid, name text, country text, plan_code text, created_at timestamptz, members bigint, units_this_month bigint, last_call_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $fn$
BEGIN
  PERFORM steward_require_operator(p_admin);
  RETURN QUERY
    SELECT o.id, o.name, o.country, o.plan_code, o.created_at,
      (SELECT count(*) FROM memberships m WHERE m.org_id = o.id),
      (SELECT coalesce(sum(u.units), 0)::bigint FROM usage_events u WHERE u.org_id = o.id AND u.occurred_at >= date_trunc('month', now())),
      (SELECT max(r.created_at) FROM tool_call_results r WHERE r.org_id = o.id)
    FROM organisations o
    WHERE p_search IS NULL OR position(lower(p_search) IN lower(o.name)) > 0
    ORDER BY o.created_at, o.id
    LIMIT least(greatest(p_limit, 1), 200);
END
$fn$;

-- People by sign-in email, with every organisation they belong to and their role there.
CREATE FUNCTION steward_operator_users(p_admin uuid, p_email text)
RETURNS TABLE (user_id uuid, email text, display_name text, created_at timestamptz, platform_admin boolean, memberships jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $fn$
BEGIN
  PERFORM steward_require_operator(p_admin);
  RETURN QUERY
    SELECT u.id, u.email, u.display_name, u.created_at, EXISTS (SELECT 1 FROM platform_admins a WHERE a.user_id = u.id),
      coalesce((SELECT jsonb_agg(jsonb_build_object('orgId', m.org_id, 'orgName', o.name, 'role', m.role) ORDER BY o.name)
        FROM memberships m JOIN organisations o ON o.id = m.org_id WHERE m.user_id = u.id), '[]'::jsonb)
    FROM users u
    WHERE position(lower(p_email) IN lower(u.email)) > 0
    ORDER BY lower(u.email)
    LIMIT 50;
END
$fn$;

-- One organisation as support sees it: owners, allowances against use, refused and failed calls lately.
CREATE FUNCTION steward_operator_support(p_admin uuid, p_org uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public AS $fn$
DECLARE
  org organisations;
BEGIN
  PERFORM steward_require_operator(p_admin);
  SELECT * INTO org FROM organisations WHERE id = p_org;
  IF NOT FOUND THEN RETURN NULL; END IF;
  RETURN jsonb_build_object(
    'organisation', jsonb_build_object('id', org.id, 'name', org.name, 'country', org.country, 'planCode', org.plan_code, 'createdAt', org.created_at),
    'owners', coalesce((SELECT jsonb_agg(jsonb_build_object('userId', u.id, 'email', u.email) ORDER BY lower(u.email))
      FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = org.id AND m.role = 'owner'), '[]'::jsonb),
    'allowances', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'feature', p.feature, 'planLimit', p.monthly_limit, 'override', ov.monthly_limit,
        'usedThisMonth', (SELECT coalesce(sum(e.units), 0) FROM usage_events e WHERE e.org_id = org.id AND e.feature = p.feature AND e.occurred_at >= date_trunc('month', now()))
      ) ORDER BY p.feature)
      FROM plan_allowances p LEFT JOIN org_allowance_overrides ov ON ov.org_id = org.id AND ov.feature = p.feature
      WHERE p.plan_code = org.plan_code), '[]'::jsonb),
    'lastCallAt', (SELECT max(r.created_at) FROM tool_call_results r WHERE r.org_id = org.id),
    'deniedLast30Days', (SELECT count(*) FROM audit_events a WHERE a.org_id = org.id AND a.outcome = 'denied' AND a.created_at >= now() - interval '30 days'),
    'failedLast30Days', (SELECT count(*) FROM audit_events a WHERE a.org_id = org.id AND a.outcome = 'failed' AND a.created_at >= now() - interval '30 days')
  );
END
$fn$;

-- Sets (or, with a null limit, removes) an organisation's own allowance for one feature, and tells
-- that organisation's audit trail who did it: an operator's change is never invisible to the church.
CREATE FUNCTION steward_operator_set_allowance(p_admin uuid, p_org uuid, p_feature text, p_limit integer, p_workflow text) RETURNS jsonb
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $fn$
DECLARE
  previous integer;
  plan_limit integer;
BEGIN
  PERFORM steward_require_operator(p_admin);
  IF NOT EXISTS (SELECT 1 FROM organisations WHERE id = p_org) THEN
    RAISE EXCEPTION 'organisation not found' USING ERRCODE = 'P0002';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM plan_allowances WHERE feature = p_feature) THEN
    RAISE EXCEPTION 'no such metered feature' USING ERRCODE = '22023';
  END IF;
  SELECT monthly_limit INTO previous FROM org_allowance_overrides WHERE org_id = p_org AND feature = p_feature FOR UPDATE;
  IF p_limit IS NULL THEN
    DELETE FROM org_allowance_overrides WHERE org_id = p_org AND feature = p_feature;
  ELSE
    INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES (p_org, p_feature, p_limit)
    ON CONFLICT (org_id, feature) DO UPDATE SET monthly_limit = EXCLUDED.monthly_limit;
  END IF;
  SELECT p.monthly_limit INTO plan_limit FROM organisations o JOIN plan_allowances p ON p.plan_code = o.plan_code AND p.feature = p_feature WHERE o.id = p_org;
  INSERT INTO audit_events (org_id, tool, workflow_id, action, operation, category, actor_kind, actor_user_id, target_type, target_id, changes, outcome)
  VALUES (p_org, 'platform_admin_invoke_api_write', p_workflow, 'platform.allowance_override.set', 'update', 'general', 'system', p_admin,
    'allowance', p_feature,
    jsonb_build_object('fields', jsonb_build_object('monthlyLimit', jsonb_build_object('before', previous, 'after', p_limit), 'by', jsonb_build_object('after', 'platform operator'))),
    'success');
  RETURN jsonb_build_object('orgId', p_org, 'feature', p_feature, 'override', p_limit, 'previousOverride', previous, 'planLimit', plan_limit, 'effectiveLimit', coalesce(p_limit, plan_limit));
END
$fn$;

REVOKE ALL ON FUNCTION steward_require_operator(uuid), steward_operator_organisations(uuid, text, integer), steward_operator_users(uuid, text),
  steward_operator_support(uuid, uuid), steward_operator_set_allowance(uuid, uuid, text, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION steward_require_operator(uuid), steward_operator_organisations(uuid, text, integer), steward_operator_users(uuid, text),
  steward_operator_support(uuid, uuid), steward_operator_set_allowance(uuid, uuid, text, integer, text) TO steward_app;
`,
  down: `
DROP FUNCTION steward_operator_set_allowance(uuid, uuid, text, integer, text), steward_operator_support(uuid, uuid),
  steward_operator_users(uuid, text), steward_operator_organisations(uuid, text, integer), steward_require_operator(uuid);
ALTER TABLE api_keys DROP COLUMN operator;
DROP TABLE platform_admins;
`,
};
