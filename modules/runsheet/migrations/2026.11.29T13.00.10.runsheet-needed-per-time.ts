import type { Migration } from '../../../db/migrate';

const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";

/**
 * Needed positions per plan time (the 9:00 and the 11:00 may need different people): a needed row,
 * a scheduled person and a substitute search may name one of the plan's times; without one they
 * cover every time of the plan, as before. One row per position and time (the whole plan counting
 * as a time of its own), so the unique keys take the time in. Merging contacts gives way per time.
 */
export const runsheetNeededPerTime: Migration = {
  name: '2026.11.29T13.00.10.runsheet-needed-per-time',
  up: `
ALTER TABLE runsheet_needed_positions ADD COLUMN plan_time_id uuid REFERENCES runsheet_plan_times(id) ON DELETE CASCADE;
DROP INDEX runsheet_needed_positions_once;
CREATE UNIQUE INDEX runsheet_needed_positions_once ON runsheet_needed_positions (org_id, plan_id, position_id, (COALESCE(plan_time_id, ${NIL})));
ALTER TABLE runsheet_plan_people ADD COLUMN plan_time_id uuid REFERENCES runsheet_plan_times(id) ON DELETE CASCADE;
DROP INDEX runsheet_plan_people_once;
CREATE UNIQUE INDEX runsheet_plan_people_once ON runsheet_plan_people (org_id, plan_id, position_id, contact_id, (COALESCE(plan_time_id, ${NIL})));
ALTER TABLE runsheet_substitutions ADD COLUMN plan_time_id uuid REFERENCES runsheet_plan_times(id) ON DELETE CASCADE;

CREATE OR REPLACE FUNCTION runsheet_merge_gives_way() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
    IF EXISTS (SELECT 1 FROM runsheet_plan_people WHERE org_id = NEW.org_id AND plan_id = NEW.plan_id AND position_id = NEW.position_id AND contact_id = NEW.contact_id
        AND plan_time_id IS NOT DISTINCT FROM NEW.plan_time_id AND id <> NEW.id) THEN
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
`,
  down: `
ALTER TABLE runsheet_substitutions DROP COLUMN plan_time_id;
DROP INDEX runsheet_plan_people_once;
DELETE FROM runsheet_plan_people WHERE plan_time_id IS NOT NULL;
ALTER TABLE runsheet_plan_people DROP COLUMN plan_time_id;
CREATE UNIQUE INDEX runsheet_plan_people_once ON runsheet_plan_people (org_id, plan_id, position_id, contact_id);
DROP INDEX runsheet_needed_positions_once;
DELETE FROM runsheet_needed_positions WHERE plan_time_id IS NOT NULL;
ALTER TABLE runsheet_needed_positions DROP COLUMN plan_time_id;
CREATE UNIQUE INDEX runsheet_needed_positions_once ON runsheet_needed_positions (org_id, plan_id, position_id);
`,
};
