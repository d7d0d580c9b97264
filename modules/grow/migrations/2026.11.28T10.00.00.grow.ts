import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['grow_forms', 'grow_form_revisions', 'grow_submissions', 'grow_landing_pages', 'grow_page_views'];

/**
 * Grow's forms and landing pages: a form's fields are kept per revision (a submission names the
 * revision it answered, so its answers read as they were asked), submissions keep their answers as
 * submitted with what they created (a contact matched or created, a guest card), landing pages
 * are blocks under a slug, and page views are a count per page and day (no visitor is identified).
 */
export const growMigration: Migration = {
  name: '2026.11.28T10.00.00.grow',
  up: `
CREATE TABLE grow_forms (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'closed', 'archived')),
  fields jsonb NOT NULL,
  revision integer NOT NULL DEFAULT 1 CHECK (revision >= 1),
  opens_at timestamptz,
  closes_at timestamptz,
  thank_you text NOT NULL CHECK (length(thank_you) BETWEEN 1 AND 2000),
  follow_up_subject text CHECK (follow_up_subject IS NULL OR length(follow_up_subject) <= 200),
  follow_up_body text CHECK (follow_up_body IS NULL OR length(follow_up_body) <= 5000),
  creates text[] NOT NULL DEFAULT ARRAY['contact'] CHECK (creates <@ ARRAY['contact', 'guest_card']),
  published_at timestamptz,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (closes_at IS NULL OR opens_at IS NULL OR closes_at > opens_at)
);
CREATE UNIQUE INDEX grow_forms_name ON grow_forms (org_id, lower(name)) WHERE status <> 'archived';
CREATE INDEX grow_forms_created_idx ON grow_forms (org_id, created_at, id);

CREATE TABLE grow_form_revisions (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES grow_forms(id) ON DELETE CASCADE,
  revision integer NOT NULL,
  fields jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (form_id, revision)
);

CREATE TABLE grow_landing_pages (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  slug text NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 80),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  blocks jsonb NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'unpublished')),
  published_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX grow_landing_pages_slug ON grow_landing_pages (org_id, slug);
CREATE INDEX grow_landing_pages_created_idx ON grow_landing_pages (org_id, created_at, id);

CREATE TABLE grow_submissions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES grow_forms(id) ON DELETE CASCADE,
  revision integer NOT NULL,
  page_id uuid REFERENCES grow_landing_pages(id) ON DELETE SET NULL,
  answers jsonb,
  contact_id uuid,
  contact_outcome text NOT NULL CHECK (contact_outcome IN ('created', 'matched', 'none', 'erased')),
  matched_on text[] NOT NULL DEFAULT '{}',
  guest_card_id uuid,
  follow_up_message_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (form_id, revision) REFERENCES grow_form_revisions(form_id, revision)
);
CREATE INDEX grow_submissions_form_idx ON grow_submissions (org_id, form_id, created_at, id);
CREATE INDEX grow_submissions_contact_idx ON grow_submissions (org_id, contact_id) WHERE contact_id IS NOT NULL;

CREATE TABLE grow_page_views (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  page_id uuid NOT NULL REFERENCES grow_landing_pages(id) ON DELETE CASCADE,
  day date NOT NULL,
  views integer NOT NULL DEFAULT 0 CHECK (views >= 0),
  PRIMARY KEY (page_id, day)
);

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE ${[...TABLES].reverse().join(', ')};
`,
};
