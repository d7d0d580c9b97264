import type { Migration } from '../../../db/migrate';

export const people: Migration = {
  name: '2026.11.22T01.10.00.people',
  up: `
-- One row per direction: (A, B, 'daughter') says B is A's daughter; its inverse row is written with it.
CREATE TABLE family_relationships (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  related_contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  relationship text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, related_contact_id),
  CHECK (contact_id <> related_contact_id)
);
CREATE INDEX family_relationships_org_idx ON family_relationships (org_id, contact_id);
CREATE INDEX contacts_family_idx ON contacts (org_id, family_id) WHERE family_id IS NOT NULL;

-- Consent changes, so unsubscribes can be counted over any date range.
CREATE TABLE contact_status_events (
  id bigserial PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  from_status text,
  to_status text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contact_status_events_org_idx ON contact_status_events (org_id, to_status, occurred_at);

CREATE TABLE crm_groups (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'on-hold')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX crm_groups_name_key ON crm_groups (org_id, lower(name));

CREATE TABLE crm_group_members (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  group_id uuid NOT NULL REFERENCES crm_groups(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  role text,
  joined_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (group_id, contact_id)
);

CREATE TABLE custom_field_sections (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  position integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX custom_field_sections_name_key ON custom_field_sections (org_id, lower(name));

CREATE TABLE custom_field_definitions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  key text NOT NULL,
  label text NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'date', 'select')),
  options text[],
  section_id uuid REFERENCES custom_field_sections(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, key)
);

CREATE TABLE segments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  template_id text,
  rules jsonb NOT NULL,
  member_count integer NOT NULL DEFAULT 0,
  refreshed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX segments_name_key ON segments (org_id, lower(name));

-- 'rule' rows are rebuilt on refresh; 'manual' rows are added by hand and survive refreshes.
CREATE TABLE segment_members (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  segment_id uuid NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  source text NOT NULL CHECK (source IN ('rule', 'manual')),
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (segment_id, contact_id)
);

-- Welcome Desk follow-ups: separate from pastoral note follow-ups and from the guests pipeline.
CREATE TABLE follow_up_tasks (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  title text NOT NULL,
  due_date date,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
  outcome text,
  completed_at timestamptz,
  completed_by uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX follow_up_tasks_org_idx ON follow_up_tasks (org_id, status, due_date);

ALTER TABLE contacts ADD COLUMN first_visit_date date;

CREATE TABLE postcode_cache (
  postcode text PRIMARY KEY,
  result jsonb,
  fetched_at timestamptz NOT NULL DEFAULT now()
);
`,
  down: `
ALTER TABLE contacts DROP COLUMN first_visit_date;
DROP TABLE postcode_cache, follow_up_tasks, segment_members, segments, custom_field_definitions, custom_field_sections,
  crm_group_members, crm_groups, contact_status_events, family_relationships;
DROP INDEX IF EXISTS contacts_family_idx;
`,
};
