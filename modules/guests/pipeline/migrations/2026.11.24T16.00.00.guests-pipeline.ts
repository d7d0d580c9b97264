import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['guests_pipeline_stages', 'guests_pipeline_cards', 'guests_pipeline_events', 'guests_welcome_cards', 'guests_card_submissions', 'guests_volunteer_assignments'];

/**
 * The guest pipeline: ordered stages, one card per guest moving through them (with every move kept as
 * an event, so a journey can be read back and a next step explained), welcome cards sent to guests (email
 * and text through the channels module, `dispatched` with the channel message's id; posted cards queued for a person) and
 * the connect cards guests fill in, and the volunteers on each service's teams.
 *
 * One card per guest, ever (`guests_pipeline_cards_one_per_guest`): a card submission, a first-visit
 * run and a person opening one by hand all meet on this constraint, so concurrent paths never open two.
 * A removed stage is archived, not deleted, so past events still name it.
 * Service instances and check-in locations live in other parts and modules; they are referred to by id.
 */
export const guestsPipeline: Migration = {
  name: '2026.11.24T16.00.00.guests-pipeline',
  up: `
CREATE TABLE guests_pipeline_stages (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  description text CHECK (description IS NULL OR length(description) <= 500),
  position integer NOT NULL CHECK (position >= 0),
  expected_days integer NOT NULL CHECK (expected_days BETWEEN 0 AND 365),
  default_assignee_user_id uuid,
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX guests_pipeline_stages_live_name ON guests_pipeline_stages (org_id, lower(name)) WHERE archived_at IS NULL;
CREATE INDEX guests_pipeline_stages_order ON guests_pipeline_stages (org_id, position) WHERE archived_at IS NULL;

CREATE TABLE guests_pipeline_cards (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  stage_id uuid NOT NULL REFERENCES guests_pipeline_stages(id),
  assignee_user_id uuid,
  source text NOT NULL CHECK (source IN ('welcome_card', 'first_visit', 'manual')),
  instance_id text CHECK (instance_id IS NULL OR length(instance_id) <= 200),
  stage_entered_at timestamptz NOT NULL DEFAULT now(),
  due_date date NOT NULL,
  snoozed_until date,
  snooze_reason text CHECK (snooze_reason IS NULL OR length(snooze_reason) <= 500),
  completed_at timestamptz,
  outcome text CHECK (outcome IS NULL OR length(outcome) <= 1000),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX guests_pipeline_cards_one_per_guest ON guests_pipeline_cards (org_id, contact_id);
-- Merging two contacts who both have a card: the kept contact keeps its own card and journey; the
-- duplicate's card is not moved (it stays with the merged, soft-deleted contact, out of every list)
-- rather than the unique index refusing the whole merge. Any other move goes ahead.
CREATE FUNCTION guests_pipeline_cards_keep_one() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.contact_id <> OLD.contact_id AND EXISTS (
    SELECT 1 FROM guests_pipeline_cards WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id AND id <> NEW.id
  ) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guests_pipeline_cards_keep_one BEFORE UPDATE OF contact_id ON guests_pipeline_cards
  FOR EACH ROW EXECUTE FUNCTION guests_pipeline_cards_keep_one();
CREATE INDEX guests_pipeline_cards_due ON guests_pipeline_cards (org_id, due_date) WHERE completed_at IS NULL;
CREATE INDEX guests_pipeline_cards_stage ON guests_pipeline_cards (org_id, stage_id);

CREATE TABLE guests_pipeline_events (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  card_id uuid NOT NULL REFERENCES guests_pipeline_cards(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('opened', 'advanced', 'moved', 'snoozed', 'completed', 'reopened', 'assigned', 'stage_removed', 'welcome_card_sent', 'card_submitted')),
  from_stage_id uuid REFERENCES guests_pipeline_stages(id),
  to_stage_id uuid REFERENCES guests_pipeline_stages(id),
  note text CHECK (note IS NULL OR length(note) <= 1000),
  actor_user_id uuid,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX guests_pipeline_events_card ON guests_pipeline_events (org_id, card_id, at);

CREATE TABLE guests_welcome_cards (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  template_key text NOT NULL CHECK (length(template_key) BETWEEN 1 AND 100),
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'post')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'dispatched', 'sent', 'cancelled')),
  purpose text CHECK (purpose IS NULL OR purpose IN ('marketing', 'charitable_purpose', 'service')),
  channel_message_id uuid,
  subject text CHECK (subject IS NULL OR length(subject) <= 200),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
  queued_for_user_id uuid,
  created_by_user_id uuid,
  sent_by_user_id uuid,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'sent') = (sent_at IS NOT NULL)),
  CHECK ((status = 'dispatched') = (channel_message_id IS NOT NULL))
);
CREATE INDEX guests_welcome_cards_list ON guests_welcome_cards (org_id, created_at DESC, id DESC);

CREATE TABLE guests_card_submissions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  card_id uuid REFERENCES guests_pipeline_cards(id) ON DELETE SET NULL,
  contact_outcome text NOT NULL CHECK (contact_outcome IN ('created', 'matched')),
  matched_on text[] NOT NULL DEFAULT '{}',
  instance_id text CHECK (instance_id IS NULL OR length(instance_id) <= 200),
  first_name text CHECK (first_name IS NULL OR length(first_name) <= 100),
  last_name text CHECK (last_name IS NULL OR length(last_name) <= 100),
  email text CHECK (email IS NULL OR length(email) <= 320),
  phone text CHECK (phone IS NULL OR length(phone) <= 40),
  how_heard text CHECK (how_heard IS NULL OR length(how_heard) <= 500),
  interests text[] NOT NULL DEFAULT '{}',
  message text CHECK (message IS NULL OR length(message) <= 2000),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guests_card_submissions_list ON guests_card_submissions (org_id, created_at DESC, id DESC);

CREATE TABLE guests_volunteer_assignments (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  instance_id text NOT NULL CHECK (length(instance_id) BETWEEN 1 AND 200),
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  team text NOT NULL CHECK (team ~ '^[a-z][a-z0-9_]{0,49}$'),
  role text CHECK (role IS NULL OR length(role) <= 100),
  location_id uuid,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'confirmed', 'declined')),
  notes text CHECK (notes IS NULL OR length(notes) <= 1000),
  copied_from_id uuid,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX guests_volunteer_assignments_once ON guests_volunteer_assignments (org_id, instance_id, contact_id, team);
CREATE INDEX guests_volunteer_assignments_contact ON guests_volunteer_assignments (org_id, contact_id);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE guests_volunteer_assignments;
DROP TABLE guests_card_submissions;
DROP TABLE guests_welcome_cards;
DROP TABLE guests_pipeline_events;
DROP TABLE guests_pipeline_cards;
DROP FUNCTION guests_pipeline_cards_keep_one();
DROP TABLE guests_pipeline_stages;
`,
};
