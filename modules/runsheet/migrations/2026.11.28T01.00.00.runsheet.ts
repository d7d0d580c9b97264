import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = [
  'runsheet_service_types', 'runsheet_plans', 'runsheet_plan_times', 'runsheet_items', 'runsheet_songs', 'runsheet_arrangements',
  'runsheet_teams', 'runsheet_positions', 'runsheet_team_members', 'runsheet_needed_positions', 'runsheet_plan_people',
  'runsheet_blockouts', 'runsheet_preferences', 'runsheet_templates', 'runsheet_autofill_runs', 'runsheet_substitutions',
  'runsheet_offers', 'runsheet_notifications',
];

/**
 * Service planning: service types → plans (with their times) → items (a tree: headers hold items);
 * songs → arrangements; teams → positions and their members; needed positions and the people
 * scheduled per plan; blockouts and scheduling preferences; templates; autofill runs (undone by id);
 * substitutions (a decline or blockout being filled by offers one at a time) and the messages the
 * module sends through the outbox (requests, offers, the scheduler's notice).
 *
 * Merging two contacts repoints contact_id; where the kept contact already holds the same slot
 * (team member, plan person, preference) the moved row gives way to the kept one.
 */
export const runsheetMigration: Migration = {
  name: '2026.11.28T01.00.00.runsheet',
  up: `
CREATE TABLE runsheet_service_types (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  schedule_series_id uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_service_types_name ON runsheet_service_types (org_id, lower(name));

CREATE TABLE runsheet_plans (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  service_type_id uuid NOT NULL REFERENCES runsheet_service_types(id) ON DELETE CASCADE,
  instance_id uuid,
  plan_date date NOT NULL,
  time_zone text NOT NULL,
  title text CHECK (title IS NULL OR length(title) <= 200),
  series_title text CHECK (series_title IS NULL OR length(series_title) <= 200),
  notes text CHECK (notes IS NULL OR length(notes) <= 5000),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'locked')),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  copied_from_plan_id uuid,
  locked_at timestamptz,
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at > starts_at)
);
CREATE INDEX runsheet_plans_when ON runsheet_plans (org_id, service_type_id, starts_at);
CREATE UNIQUE INDEX runsheet_plans_instance ON runsheet_plans (org_id, instance_id) WHERE instance_id IS NOT NULL;

CREATE TABLE runsheet_plan_times (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('service', 'rehearsal', 'other')),
  name text CHECK (name IS NULL OR length(name) <= 200),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  CHECK (ends_at > starts_at)
);
CREATE INDEX runsheet_plan_times_plan ON runsheet_plan_times (org_id, plan_id);
CREATE INDEX runsheet_plan_times_when ON runsheet_plan_times (org_id, starts_at, ends_at);

CREATE TABLE runsheet_songs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  author text CHECK (author IS NULL OR length(author) <= 200),
  ccli_number text CHECK (ccli_number IS NULL OR ccli_number ~ '^[0-9]{1,10}$'),
  public_domain boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_songs_title ON runsheet_songs (org_id, lower(title));

CREATE TABLE runsheet_arrangements (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  song_id uuid NOT NULL REFERENCES runsheet_songs(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  music_key text CHECK (music_key IS NULL OR length(music_key) <= 10),
  bpm integer CHECK (bpm IS NULL OR bpm BETWEEN 20 AND 400),
  meter text CHECK (meter IS NULL OR meter ~ '^[0-9]{1,2}/[0-9]{1,2}$'),
  sequence text[] NOT NULL DEFAULT '{}',
  lyrics text CHECK (lyrics IS NULL OR length(lyrics) <= 20000),
  length_seconds integer CHECK (length_seconds IS NULL OR length_seconds BETWEEN 0 AND 86400),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_arrangements_name ON runsheet_arrangements (org_id, song_id, lower(name));

CREATE TABLE runsheet_items (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  parent_id uuid REFERENCES runsheet_items(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('song', 'header', 'media', 'item')),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  length_seconds integer NOT NULL DEFAULT 0 CHECK (length_seconds BETWEEN 0 AND 86400),
  sort_order integer NOT NULL,
  song_id uuid REFERENCES runsheet_songs(id) ON DELETE SET NULL,
  arrangement_id uuid REFERENCES runsheet_arrangements(id) ON DELETE SET NULL,
  music_key text CHECK (music_key IS NULL OR length(music_key) <= 10),
  notes jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runsheet_items_plan ON runsheet_items (org_id, plan_id, sort_order);
CREATE INDEX runsheet_items_song ON runsheet_items (org_id, song_id) WHERE song_id IS NOT NULL;

CREATE TABLE runsheet_teams (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  service_type_id uuid REFERENCES runsheet_service_types(id) ON DELETE SET NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  auto_replace boolean NOT NULL DEFAULT false,
  offer_expires_seconds integer NOT NULL DEFAULT 86400 CHECK (offer_expires_seconds BETWEEN 5 AND 604800),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_teams_name ON runsheet_teams (org_id, lower(name));

CREATE TABLE runsheet_positions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  team_id uuid NOT NULL REFERENCES runsheet_teams(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  requires_clearance boolean NOT NULL DEFAULT false,
  clearance_check_type text CHECK (clearance_check_type IS NULL OR length(clearance_check_type) <= 100),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_positions_name ON runsheet_positions (org_id, team_id, lower(name));

CREATE TABLE runsheet_team_members (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  team_id uuid NOT NULL REFERENCES runsheet_teams(id) ON DELETE CASCADE,
  position_id uuid NOT NULL REFERENCES runsheet_positions(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_team_members_once ON runsheet_team_members (org_id, position_id, contact_id);
CREATE INDEX runsheet_team_members_contact ON runsheet_team_members (org_id, contact_id);

CREATE TABLE runsheet_needed_positions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  position_id uuid NOT NULL REFERENCES runsheet_positions(id) ON DELETE CASCADE,
  quantity integer NOT NULL CHECK (quantity BETWEEN 0 AND 100)
);
CREATE UNIQUE INDEX runsheet_needed_positions_once ON runsheet_needed_positions (org_id, plan_id, position_id);

CREATE TABLE runsheet_autofill_runs (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  filled integer NOT NULL DEFAULT 0,
  created_by_user_id uuid,
  undone_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE runsheet_plan_people (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  position_id uuid NOT NULL REFERENCES runsheet_positions(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'unconfirmed' CHECK (status IN ('unconfirmed', 'accepted', 'declined')),
  decline_reason text CHECK (decline_reason IS NULL OR length(decline_reason) <= 500),
  scheduled_by_user_id uuid,
  scheduled_at timestamptz NOT NULL DEFAULT now(),
  notified_at timestamptz,
  responded_at timestamptz,
  autofill_run_id uuid REFERENCES runsheet_autofill_runs(id) ON DELETE SET NULL,
  substitution_id uuid,
  conflicts_overridden text[] NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX runsheet_plan_people_once ON runsheet_plan_people (org_id, plan_id, position_id, contact_id);
CREATE INDEX runsheet_plan_people_contact ON runsheet_plan_people (org_id, contact_id);

CREATE TABLE runsheet_blockouts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  starts_on date NOT NULL,
  ends_on date NOT NULL,
  reason text CHECK (reason IS NULL OR length(reason) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_on >= starts_on)
);
CREATE INDEX runsheet_blockouts_contact ON runsheet_blockouts (org_id, contact_id, starts_on);

CREATE TABLE runsheet_preferences (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  max_per_month integer CHECK (max_per_month IS NULL OR max_per_month BETWEEN 0 AND 31),
  household_rule text CHECK (household_rule IS NULL OR household_rule IN ('together', 'apart')),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_preferences_once ON runsheet_preferences (org_id, contact_id);

CREATE TABLE runsheet_templates (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  service_type_id uuid REFERENCES runsheet_service_types(id) ON DELETE SET NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  items jsonb NOT NULL DEFAULT '[]',
  positions jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX runsheet_templates_name ON runsheet_templates (org_id, lower(name));

CREATE TABLE runsheet_substitutions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  position_id uuid NOT NULL REFERENCES runsheet_positions(id) ON DELETE CASCADE,
  vacated_plan_person_id uuid REFERENCES runsheet_plan_people(id) ON DELETE SET NULL,
  cause text NOT NULL CHECK (cause IN ('declined', 'blockout')),
  status text NOT NULL DEFAULT 'searching' CHECK (status IN ('searching', 'filled', 'unfilled', 'cancelled')),
  filled_plan_person_id uuid REFERENCES runsheet_plan_people(id) ON DELETE SET NULL,
  notify_user_id uuid,
  workflow_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX runsheet_substitutions_plan ON runsheet_substitutions (org_id, plan_id);

CREATE TABLE runsheet_notifications (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('request', 'offer', 'scheduler_notice')),
  contact_id uuid,
  to_user_id uuid,
  plan_id uuid REFERENCES runsheet_plans(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  subject text,
  body text NOT NULL CHECK (length(body) <= 5000),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'refused')),
  problem jsonb,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((contact_id IS NULL) <> (to_user_id IS NULL))
);
CREATE INDEX runsheet_notifications_plan ON runsheet_notifications (org_id, plan_id);

CREATE TABLE runsheet_offers (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  substitution_id uuid NOT NULL REFERENCES runsheet_substitutions(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL,
  rank integer NOT NULL CHECK (rank >= 1),
  status text NOT NULL DEFAULT 'offered' CHECK (status IN ('offered', 'accepted', 'declined', 'expired', 'unreachable', 'withdrawn')),
  reason text CHECK (reason IS NULL OR length(reason) <= 500),
  message_id uuid REFERENCES runsheet_notifications(id) ON DELETE SET NULL,
  offered_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  responded_at timestamptz
);
CREATE UNIQUE INDEX runsheet_offers_once ON runsheet_offers (org_id, substitution_id, contact_id);
CREATE UNIQUE INDEX runsheet_offers_one_open ON runsheet_offers (org_id, substitution_id) WHERE status = 'offered';

CREATE FUNCTION runsheet_merge_gives_way() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id = OLD.contact_id THEN
    RETURN NEW;
  END IF;
  IF TG_TABLE_NAME = 'runsheet_team_members' THEN
    IF EXISTS (SELECT 1 FROM runsheet_team_members WHERE org_id = NEW.org_id AND position_id = NEW.position_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
      DELETE FROM runsheet_team_members WHERE id = OLD.id;
      RETURN NULL;
    END IF;
  ELSIF TG_TABLE_NAME = 'runsheet_plan_people' THEN
    IF EXISTS (SELECT 1 FROM runsheet_plan_people WHERE org_id = NEW.org_id AND plan_id = NEW.plan_id AND position_id = NEW.position_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
      DELETE FROM runsheet_plan_people WHERE id = OLD.id;
      RETURN NULL;
    END IF;
  ELSIF TG_TABLE_NAME = 'runsheet_preferences' THEN
    IF EXISTS (SELECT 1 FROM runsheet_preferences WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
      DELETE FROM runsheet_preferences WHERE id = OLD.id;
      RETURN NULL;
    END IF;
  ELSIF TG_TABLE_NAME = 'runsheet_offers' THEN
    IF EXISTS (SELECT 1 FROM runsheet_offers WHERE org_id = NEW.org_id AND substitution_id = NEW.substitution_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
      DELETE FROM runsheet_offers WHERE id = OLD.id;
      RETURN NULL;
    END IF;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER runsheet_team_members_merge BEFORE UPDATE OF contact_id ON runsheet_team_members FOR EACH ROW EXECUTE FUNCTION runsheet_merge_gives_way();
CREATE TRIGGER runsheet_plan_people_merge BEFORE UPDATE OF contact_id ON runsheet_plan_people FOR EACH ROW EXECUTE FUNCTION runsheet_merge_gives_way();
CREATE TRIGGER runsheet_preferences_merge BEFORE UPDATE OF contact_id ON runsheet_preferences FOR EACH ROW EXECUTE FUNCTION runsheet_merge_gives_way();
CREATE TRIGGER runsheet_offers_merge BEFORE UPDATE OF contact_id ON runsheet_offers FOR EACH ROW EXECUTE FUNCTION runsheet_merge_gives_way();

${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE runsheet_offers, runsheet_notifications, runsheet_substitutions, runsheet_templates, runsheet_preferences, runsheet_blockouts,
  runsheet_plan_people, runsheet_autofill_runs, runsheet_needed_positions, runsheet_team_members, runsheet_positions, runsheet_teams,
  runsheet_items, runsheet_arrangements, runsheet_songs, runsheet_plan_times, runsheet_plans, runsheet_service_types;
DROP FUNCTION runsheet_merge_gives_way();
`,
};
