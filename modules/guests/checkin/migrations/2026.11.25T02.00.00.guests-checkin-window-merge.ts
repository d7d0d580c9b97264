import type { Migration } from '../../../../db/migrate';

/**
 * The check-in window, and merging two contacts who both have check-in records.
 *
 * - `checkin_opens_minutes_before` / `checkin_closes_minutes_after`: check-in to a service opens that
 *   long before it starts and closes that long after it ends (checking out is never refused by it).
 * - Merging two contacts repoints `guests_checkins.contact_id` (contactRefs onMerge 'move'). When both
 *   were checked in to the same service and neither is out yet, the one-open-check-in index would refuse
 *   the merge. Instead the earlier check-in stays open (its group's security code stays valid) and the
 *   other is closed as merged into it (`merged_into_checkin_id`, checked out at its own station with no
 *   person recorded), its history kept; its group's code is released once none of its children is in.
 * - Child profiles: a merge used to leave two, and only the newest was read, so allergies or medical
 *   notes on the other were lost from view. The kept contact's profile absorbs the merged one (blank
 *   fields filled, differing notes both kept, pickup lists joined) and the merged row goes.
 */
export const guestsCheckinWindowMerge: Migration = {
  name: '2026.11.25T02.00.00.guests-checkin-window-merge',
  up: `
ALTER TABLE guests_checkin_settings
  ADD COLUMN checkin_opens_minutes_before integer NOT NULL DEFAULT 60 CHECK (checkin_opens_minutes_before BETWEEN 0 AND 43200),
  ADD COLUMN checkin_closes_minutes_after integer NOT NULL DEFAULT 30 CHECK (checkin_closes_minutes_after BETWEEN 0 AND 1440);

ALTER TABLE guests_checkins ADD COLUMN merged_into_checkin_id uuid REFERENCES guests_checkins(id) ON DELETE SET NULL;
ALTER TABLE guests_checkins ADD CONSTRAINT guests_checkins_merged_closed CHECK (merged_into_checkin_id IS NULL OR checked_out_at IS NOT NULL);

CREATE FUNCTION guests_checkins_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  kept guests_checkins%ROWTYPE;
  closed_id uuid;
  closed_group uuid;
BEGIN
  IF NEW.contact_id = OLD.contact_id OR NEW.checked_out_at IS NOT NULL THEN
    RETURN NEW;
  END IF;
  SELECT * INTO kept FROM guests_checkins
    WHERE org_id = NEW.org_id AND instance_id = NEW.instance_id AND contact_id = NEW.contact_id AND checked_out_at IS NULL AND id <> NEW.id
    FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  IF (kept.checked_in_at, kept.id) <= (NEW.checked_in_at, NEW.id) THEN
    -- The other contact's check-in is the earlier one: this one closes as merged into it.
    NEW.checked_out_at := now();
    NEW.checkout_station_id := NEW.station_id;
    NEW.merged_into_checkin_id := kept.id;
    closed_id := NEW.id;
    closed_group := NEW.group_id;
  ELSE
    UPDATE guests_checkins SET checked_out_at = now(), checkout_station_id = station_id, merged_into_checkin_id = NEW.id WHERE id = kept.id;
    closed_id := kept.id;
    closed_group := kept.group_id;
  END IF;
  UPDATE guests_checkin_groups g SET released_at = now()
    WHERE g.id = closed_group AND g.released_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM guests_checkins c WHERE c.group_id = g.id AND c.person_kind = 'child' AND c.checked_out_at IS NULL AND c.id <> closed_id);
  RETURN NEW;
END
$fn$;
CREATE TRIGGER guests_checkins_merge BEFORE UPDATE OF contact_id ON guests_checkins
  FOR EACH ROW EXECUTE FUNCTION guests_checkins_merge();

CREATE FUNCTION guests_child_profiles_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  kept_id uuid;
BEGIN
  IF NEW.contact_id = OLD.contact_id THEN
    RETURN NEW;
  END IF;
  SELECT id INTO kept_id FROM guests_child_profiles
    WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id AND id <> NEW.id
    ORDER BY updated_at DESC, id LIMIT 1 FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  UPDATE guests_child_profiles k SET
    grade = COALESCE(k.grade, OLD.grade),
    allergies = CASE WHEN OLD.allergies IS NULL OR k.allergies = OLD.allergies THEN k.allergies
      WHEN k.allergies IS NULL THEN OLD.allergies ELSE left(k.allergies || '; ' || OLD.allergies, 1000) END,
    medical_notes = CASE WHEN OLD.medical_notes IS NULL OR k.medical_notes = OLD.medical_notes THEN k.medical_notes
      WHEN k.medical_notes IS NULL THEN OLD.medical_notes ELSE left(k.medical_notes || '; ' || OLD.medical_notes, 2000) END,
    authorised_pickup_ids = k.authorised_pickup_ids || ARRAY(
      SELECT p FROM unnest(OLD.authorised_pickup_ids) WITH ORDINALITY AS u(p, n)
      WHERE p <> ALL (k.authorised_pickup_ids) AND p <> NEW.contact_id ORDER BY n),
    updated_at = now()
  WHERE k.id = kept_id;
  DELETE FROM guests_child_profiles WHERE id = OLD.id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER guests_child_profiles_merge BEFORE UPDATE OF contact_id ON guests_child_profiles
  FOR EACH ROW EXECUTE FUNCTION guests_child_profiles_merge();
`,
  down: `
DROP TRIGGER guests_child_profiles_merge ON guests_child_profiles;
DROP FUNCTION guests_child_profiles_merge();
DROP TRIGGER guests_checkins_merge ON guests_checkins;
DROP FUNCTION guests_checkins_merge();
ALTER TABLE guests_checkins DROP CONSTRAINT guests_checkins_merged_closed;
ALTER TABLE guests_checkins DROP COLUMN merged_into_checkin_id;
ALTER TABLE guests_checkin_settings DROP COLUMN checkin_closes_minutes_after, DROP COLUMN checkin_opens_minutes_before;
`,
};
