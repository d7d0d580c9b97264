import type { Migration } from '../../../db/migrate';

/**
 * Retention of audit events by category, without breaking the chain: the years each category is
 * kept after the year it was written in (finance six plus the current one), `expire_audit_events` deleting
 * the expired oldest events of each organisation (a prefix of its chain, so what remains verifies
 * from its first event) and redacting the personal fields of expired events that still sit behind
 * a kept one (a finance event keeps the general ones after it; their people are gone, the facts stay).
 */
export const auditRetention: Migration = {
  name: '2026.11.28T07.00.01.audit-retention',
  up: `
CREATE FUNCTION audit_retention_years(category text) RETURNS integer LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE category WHEN 'finance' THEN 6 WHEN 'export' THEN 6 WHEN 'access' THEN 2 ELSE 3 END
$fn$;

CREATE FUNCTION audit_expired(category text, created_at timestamptz, p_now timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE AS $fn$
  SELECT created_at < (date_trunc('year', p_now AT TIME ZONE 'UTC') - make_interval(years => audit_retention_years(category))) AT TIME ZONE 'UTC'
$fn$;

CREATE FUNCTION audit_redacted_changes(changes jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN changes IS NULL THEN NULL
    WHEN changes ? 'redacted' THEN changes
    ELSE jsonb_build_object('redacted', true, 'fields', (SELECT coalesce(jsonb_agg(k ORDER BY k), '[]'::jsonb) FROM jsonb_object_keys(coalesce(changes -> 'fields', '{}'::jsonb)) AS k)) END
$fn$;

CREATE FUNCTION expire_audit_events(p_now timestamptz) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $fn$
DECLARE
  deleted integer;
BEGIN
  WITH marked AS (SELECT org_id, seq, audit_expired(category, created_at, p_now) AS gone FROM audit_events),
  cut AS (SELECT org_id, least(coalesce(min(seq) FILTER (WHERE NOT gone), max(seq)), max(seq)) AS keep_from FROM marked GROUP BY org_id)
  DELETE FROM audit_events e USING cut WHERE e.org_id = cut.org_id AND e.seq < cut.keep_from;
  GET DIAGNOSTICS deleted = ROW_COUNT;
  PERFORM set_config('steward.audit_redaction', 'on', true);
  UPDATE audit_events SET changes = audit_redacted_changes(changes), action_summary = NULL, redacted_at = p_now
    WHERE redacted_at IS NULL AND audit_expired(category, created_at, p_now);
  PERFORM set_config('steward.audit_redaction', 'off', true);
  RETURN deleted;
END
$fn$;
REVOKE ALL ON FUNCTION expire_audit_events(timestamptz) FROM PUBLIC;
`,
  down: `
DROP FUNCTION expire_audit_events(timestamptz);
DROP FUNCTION audit_redacted_changes(jsonb);
DROP FUNCTION audit_expired(text, timestamptz, timestamptz);
DROP FUNCTION audit_retention_years(text);
`,
};
