import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * Message templates and their versions. A template names the channel, purpose and locale; its
 * content lives in numbered versions (draft → approved → active → archived). At most one version
 * of a template is active (a partial unique index, so two concurrent activations cannot both
 * win), and a version's content never changes once written: an edit is a new version, so every
 * message that names a version id can be traced to exactly the words it was rendered from (a
 * trigger refuses any change to the content columns).
 *
 * WhatsApp versions also mirror the provider's review (pending → approved | rejected, later
 * paused or disabled); the provider's template id is unique across organisations, which is how
 * a status webhook (which carries no organisation) finds its version.
 */
export const templatesTables: Migration = {
  name: '2026.11.24T12.00.00.templates',
  up: `
CREATE TABLE templates (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
  purpose text NOT NULL CHECK (purpose IN ('marketing', 'charitable_purpose', 'service')),
  locale text NOT NULL CHECK (locale ~ '^[a-z]{2,3}(-[A-Z]{2})?$'),
  description text CHECK (description IS NULL OR length(description) <= 1000),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz
);
CREATE UNIQUE INDEX templates_live_name ON templates (org_id, lower(name)) WHERE archived_at IS NULL;
CREATE INDEX templates_list ON templates (org_id, created_at DESC, id DESC);

CREATE TABLE template_versions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  template_id uuid NOT NULL REFERENCES templates(id) ON DELETE CASCADE,
  number integer NOT NULL CHECK (number >= 1),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'approved', 'active', 'archived')),
  subject text CHECK (subject IS NULL OR length(subject) <= 998),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  html text CHECK (html IS NULL OR length(html) <= 200000),
  variables jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  approved_at timestamptz,
  activated_at timestamptz,
  archived_at timestamptz,
  whatsapp_status text CHECK (whatsapp_status IN ('pending', 'approved', 'rejected', 'paused', 'disabled')),
  whatsapp_name text,
  whatsapp_template_id text,
  whatsapp_category text CHECK (whatsapp_category IN ('MARKETING', 'UTILITY')),
  whatsapp_reason text CHECK (whatsapp_reason IS NULL OR length(whatsapp_reason) <= 1000),
  whatsapp_submitted_at timestamptz,
  whatsapp_status_at timestamptz,
  UNIQUE (template_id, number),
  CHECK ((whatsapp_status IS NULL) = (whatsapp_template_id IS NULL))
);
CREATE UNIQUE INDEX template_versions_one_active ON template_versions (template_id) WHERE status = 'active';
CREATE UNIQUE INDEX template_versions_whatsapp_id ON template_versions (whatsapp_template_id) WHERE whatsapp_template_id IS NOT NULL;
CREATE INDEX template_versions_of_template ON template_versions (org_id, template_id, number DESC);

CREATE FUNCTION template_versions_content_immutable() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.subject IS DISTINCT FROM OLD.subject OR NEW.body IS DISTINCT FROM OLD.body OR NEW.html IS DISTINCT FROM OLD.html
     OR NEW.variables IS DISTINCT FROM OLD.variables OR NEW.template_id IS DISTINCT FROM OLD.template_id OR NEW.number IS DISTINCT FROM OLD.number THEN
    RAISE EXCEPTION 'a template version''s content never changes; create a new version' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER template_versions_content_immutable BEFORE UPDATE ON template_versions
  FOR EACH ROW EXECUTE FUNCTION template_versions_content_immutable();
${tenantPolicies(['templates', 'template_versions']).up}
`,
  down: `
${tenantPolicies(['templates', 'template_versions']).down}
DROP TABLE template_versions;
DROP FUNCTION template_versions_content_immutable();
DROP TABLE templates;
`,
};
