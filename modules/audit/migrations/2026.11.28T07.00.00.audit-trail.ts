import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const heads = tenantPolicies(['audit_chain_heads']);

/**
 * The audit trail on the kernel's `audit_events` (one row per write tool call, written in the call's
 * own transaction): what was done (`module.noun.verb`, operation, category), by whom (actor kind,
 * the person it acted for, the credential's id and a hash of the id, never a secret, its scopes), to
 * what (target, contact ids it names), the changed fields (after values, and previous values where
 * the tool declares them), the outcome, the approval it carried out, money or units, and a hash chain
 * per organisation.
 *
 * The chain: a BEFORE INSERT trigger takes the organisation's chain head (`audit_chain_heads`) with
 * FOR UPDATE, so concurrent writers of one organisation queue there (from their audit insert, the
 * last statement of a call, to their commit) and each links to the one committed before it; writers
 * of different organisations never wait for each other. Each row's hash covers the previous hash and
 * every column except the personal ones (`changes`, `action_summary`), which it covers through
 * `personal_digest`: erasure can then redact those (`redacted_at` says so) and the chain still
 * verifies, while any other change to any row breaks it.
 *
 * Append-only: the application role `steward_app` keeps SELECT and INSERT on audit_events and loses
 * UPDATE, DELETE and TRUNCATE; a trigger refuses any UPDATE that is not the redaction function's.
 * Redaction (a contact's erasure, by a trigger on `contacts`) and retention run as the owner
 * through SECURITY DEFINER functions that change nothing else.
 */
export const auditTrail: Migration = {
  name: '2026.11.28T07.00.00.audit-trail',
  up: `
ALTER TABLE audit_events
  ADD COLUMN seq bigint,
  ADD COLUMN action text,
  ADD COLUMN operation text,
  ADD COLUMN category text NOT NULL DEFAULT 'general' CHECK (category IN ('general', 'finance', 'pastoral', 'access', 'export')),
  ADD COLUMN actor_kind text NOT NULL DEFAULT 'agent' CHECK (actor_kind IN ('human', 'agent', 'system', 'webhook')),
  ADD COLUMN on_behalf_of_user_id uuid,
  ADD COLUMN credential_hash text,
  ADD COLUMN scopes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN target_type text,
  ADD COLUMN target_id text,
  ADD COLUMN changes jsonb,
  ADD COLUMN contact_ids uuid[] NOT NULL DEFAULT '{}',
  ADD COLUMN outcome text NOT NULL DEFAULT 'success' CHECK (outcome IN ('success', 'denied', 'failed')),
  ADD COLUMN approval_id uuid,
  ADD COLUMN amount_minor bigint,
  ADD COLUMN currency text,
  ADD COLUMN units integer,
  ADD COLUMN personal_digest text,
  ADD COLUMN prev_hash text,
  ADD COLUMN hash text,
  ADD COLUMN redacted_at timestamptz;

CREATE TABLE audit_chain_heads (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  seq bigint NOT NULL DEFAULT 0,
  hash text NOT NULL DEFAULT ''
);
-- Only the chain trigger (as the owner) writes the heads; the application role may read them (audit_verify_chain).
REVOKE ALL ON audit_chain_heads FROM steward_app;
GRANT SELECT ON audit_chain_heads TO steward_app;
${heads.up}

CREATE FUNCTION audit_personal_digest(changes jsonb, summary text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT encode(sha256(convert_to(jsonb_build_object('changes', changes, 'summary', summary)::text, 'UTF8')), 'hex')
$fn$;

-- What a row's hash covers, as canonical text (jsonb prints its keys in one fixed order).
CREATE FUNCTION audit_event_payload(e audit_events) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT jsonb_build_object(
    'seq', e.seq, 'org', e.org_id, 'at', (extract(epoch FROM e.created_at) * 1000000)::bigint,
    'action', e.action, 'operation', e.operation, 'category', e.category, 'tool', e.tool, 'workflow', e.workflow_id,
    'actorKind', e.actor_kind, 'actor', e.actor_user_id, 'onBehalfOf', e.on_behalf_of_user_id,
    'credential', e.credential_id, 'credentialKind', e.credential_kind, 'credentialHash', e.credential_hash, 'scopes', to_jsonb(e.scopes),
    'targetType', e.target_type, 'targetId', e.target_id, 'contacts', to_jsonb(e.contact_ids), 'outcome', e.outcome, 'approval', e.approval_id,
    'amount', e.amount_minor, 'currency', e.currency, 'units', e.units, 'personal', e.personal_digest
  )::text
$fn$;

CREATE FUNCTION audit_event_hash(prev text, e audit_events) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT encode(sha256(convert_to(coalesce(prev, '') || '|' || audit_event_payload(e), 'UTF8')), 'hex')
$fn$;

CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $fn$
DECLARE
  head record;
BEGIN
  INSERT INTO audit_chain_heads (org_id) VALUES (NEW.org_id) ON CONFLICT (org_id) DO NOTHING;
  SELECT seq, hash INTO head FROM audit_chain_heads WHERE org_id = NEW.org_id FOR UPDATE;
  NEW.created_at := coalesce(NEW.created_at, now());
  NEW.seq := head.seq + 1;
  NEW.prev_hash := head.hash;
  NEW.redacted_at := NULL;
  NEW.personal_digest := audit_personal_digest(NEW.changes, NEW.action_summary);
  NEW.hash := audit_event_hash(NEW.prev_hash, NEW);
  UPDATE audit_chain_heads SET seq = NEW.seq, hash = NEW.hash WHERE org_id = NEW.org_id;
  RETURN NEW;
END
$fn$;

-- Rows written before the chain: linked in their order, per organisation.
DO $do$
DECLARE
  r audit_events;
  prev_org uuid := NULL;
  n bigint := 0;
  h text := '';
BEGIN
  FOR r IN SELECT * FROM audit_events ORDER BY org_id, created_at, id LOOP
    IF prev_org IS DISTINCT FROM r.org_id THEN
      IF prev_org IS NOT NULL THEN INSERT INTO audit_chain_heads (org_id, seq, hash) VALUES (prev_org, n, h); END IF;
      prev_org := r.org_id; n := 0; h := '';
    END IF;
    n := n + 1;
    r.seq := n;
    -- module.noun.verb from <module>_<verb>_<noun> (record.ts, actionOf).
    r.action := coalesce(r.action, CASE WHEN split_part(r.tool, '_', 3) = '' THEN replace(r.tool, '_', '.')
      ELSE split_part(r.tool, '_', 1) || '.' || substr(r.tool, length(split_part(r.tool, '_', 1)) + length(split_part(r.tool, '_', 2)) + 3) || '.' || split_part(r.tool, '_', 2) END);
    r.operation := coalesce(r.operation, 'execute');
    r.prev_hash := h;
    r.personal_digest := audit_personal_digest(r.changes, r.action_summary);
    h := audit_event_hash(h, r);
    UPDATE audit_events SET seq = n, action = r.action, operation = r.operation, prev_hash = r.prev_hash,
      personal_digest = r.personal_digest, hash = h WHERE id = r.id;
  END LOOP;
  IF prev_org IS NOT NULL THEN INSERT INTO audit_chain_heads (org_id, seq, hash) VALUES (prev_org, n, h); END IF;
END
$do$;

ALTER TABLE audit_events ALTER COLUMN seq SET NOT NULL, ALTER COLUMN action SET NOT NULL, ALTER COLUMN operation SET NOT NULL,
  ALTER COLUMN hash SET NOT NULL, ALTER COLUMN personal_digest SET NOT NULL;
CREATE UNIQUE INDEX audit_events_chain_idx ON audit_events (org_id, seq);
CREATE INDEX audit_events_target_idx ON audit_events (org_id, target_id, seq);
CREATE INDEX audit_events_actor_idx ON audit_events (org_id, actor_user_id, seq);
CREATE INDEX audit_events_action_idx ON audit_events (org_id, action text_pattern_ops, created_at DESC);
CREATE INDEX audit_events_contacts_idx ON audit_events USING gin (contact_ids);
CREATE INDEX audit_events_org_time_id_idx ON audit_events (org_id, created_at DESC, id DESC);

CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();

-- Nothing changes a written event but redaction (audit_redact_contact sets the setting it checks, locally).
CREATE FUNCTION audit_events_guard() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('steward.audit_redaction', true) IS DISTINCT FROM 'on' OR current_user = 'steward_app' THEN
    RAISE EXCEPTION 'audit events are append-only' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF (to_jsonb(NEW) - 'changes' - 'action_summary' - 'redacted_at') IS DISTINCT FROM (to_jsonb(OLD) - 'changes' - 'action_summary' - 'redacted_at') THEN
    RAISE EXCEPTION 'redaction changes only the personal fields of an audit event' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER audit_events_guard BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_guard();

REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM steward_app;

-- Erasure keeps the fact and drops the person: changed values and the summary go, every other column stays.
CREATE FUNCTION audit_redact_contact(p_org uuid, p_contact uuid) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $fn$
DECLARE
  n integer;
BEGIN
  PERFORM set_config('steward.audit_redaction', 'on', true);
  UPDATE audit_events SET
    changes = CASE WHEN changes IS NULL THEN NULL ELSE jsonb_build_object('redacted', true, 'fields', (SELECT coalesce(jsonb_agg(k ORDER BY k), '[]'::jsonb) FROM jsonb_object_keys(coalesce(changes -> 'fields', '{}'::jsonb)) AS k)) END,
    action_summary = NULL,
    redacted_at = now()
  WHERE org_id = p_org AND contact_ids @> ARRAY[p_contact] AND redacted_at IS NULL;
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('steward.audit_redaction', 'off', true);
  RETURN n;
END
$fn$;
REVOKE ALL ON FUNCTION audit_redact_contact(uuid, uuid) FROM PUBLIC;

CREATE FUNCTION audit_contact_erased() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $fn$
BEGIN
  -- An organisation being deleted takes its events with it: nothing to redact.
  IF EXISTS (SELECT 1 FROM organisations WHERE id = OLD.org_id) THEN
    PERFORM audit_redact_contact(OLD.org_id, OLD.id);
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER audit_contact_erased AFTER DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION audit_contact_erased();
`,
  down: `
DROP TRIGGER audit_contact_erased ON contacts;
DROP FUNCTION audit_contact_erased();
DROP FUNCTION audit_redact_contact(uuid, uuid);
GRANT UPDATE, DELETE, TRUNCATE ON audit_events TO steward_app;
DROP TRIGGER audit_events_guard ON audit_events;
DROP FUNCTION audit_events_guard();
DROP TRIGGER audit_events_chain ON audit_events;
DROP FUNCTION audit_events_chain();
DROP FUNCTION audit_event_hash(text, audit_events);
DROP FUNCTION audit_event_payload(audit_events);
DROP FUNCTION audit_personal_digest(jsonb, text);
${heads.down}
DROP TABLE audit_chain_heads;
DROP INDEX audit_events_chain_idx, audit_events_target_idx, audit_events_actor_idx, audit_events_action_idx, audit_events_contacts_idx, audit_events_org_time_id_idx;
ALTER TABLE audit_events DROP COLUMN seq, DROP COLUMN action, DROP COLUMN operation, DROP COLUMN category, DROP COLUMN actor_kind,
  DROP COLUMN on_behalf_of_user_id, DROP COLUMN credential_hash, DROP COLUMN scopes, DROP COLUMN target_type, DROP COLUMN target_id,
  DROP COLUMN changes, DROP COLUMN contact_ids, DROP COLUMN outcome, DROP COLUMN approval_id, DROP COLUMN amount_minor, DROP COLUMN currency,
  DROP COLUMN units, DROP COLUMN personal_digest, DROP COLUMN prev_hash, DROP COLUMN hash, DROP COLUMN redacted_at;
`,
};
