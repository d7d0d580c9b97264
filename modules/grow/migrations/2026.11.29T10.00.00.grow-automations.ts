import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['grow_automations', 'grow_automation_versions', 'grow_automation_runs'];

/**
 * Automations: the automation (its status and where its trigger has read up to), each version of
 * its trigger, conditions and steps (an edit makes a new version; a run keeps the version it started
 * with), and one row per subject's run (the step it is at, when its next action is due, the message
 * being handed to the outbox, why it stopped, failures). Runs are not unique per contact in the
 * table (merging two contacts keeps both); the trigger sweep adds one under a lock per automation.
 */
export const growAutomationsMigration: Migration = {
  name: '2026.11.29T10.00.00.grow-automations',
  up: `
CREATE TABLE grow_automations (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused')),
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  allow_reentry boolean NOT NULL DEFAULT false,
  messages_people boolean NOT NULL DEFAULT false,
  activated_at timestamptz,
  trigger_cursor timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX grow_automations_org_idx ON grow_automations (org_id, status);

CREATE TABLE grow_automation_versions (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  automation_id uuid NOT NULL REFERENCES grow_automations(id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  trigger jsonb NOT NULL,
  conditions jsonb,
  steps jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (automation_id, version)
);

CREATE TABLE grow_automation_runs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  automation_id uuid NOT NULL REFERENCES grow_automations(id) ON DELETE CASCADE,
  version integer NOT NULL,
  contact_id uuid NOT NULL,
  entry integer NOT NULL DEFAULT 1 CHECK (entry >= 1),
  event_key text NOT NULL CHECK (length(event_key) <= 200),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'stopped', 'cancelled', 'failed')),
  step integer NOT NULL DEFAULT 0 CHECK (step >= 0),
  next_at timestamptz,
  pending_message_id uuid,
  stop_reason text CHECK (stop_reason IS NULL OR length(stop_reason) <= 500),
  failures integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  last_error text CHECK (last_error IS NULL OR length(last_error) <= 500),
  workflow_started boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX grow_automation_runs_automation_idx ON grow_automation_runs (automation_id, contact_id);
CREATE INDEX grow_automation_runs_status_idx ON grow_automation_runs (org_id, automation_id, status, started_at DESC);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE grow_automation_runs, grow_automation_versions, grow_automations;
`,
};
