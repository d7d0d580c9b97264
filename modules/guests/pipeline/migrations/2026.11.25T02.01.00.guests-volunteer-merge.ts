import type { Migration } from '../../../../db/migrate';

/**
 * Merging two contacts repoints `guests_volunteer_assignments.contact_id` (contactRefs onMerge 'move').
 * When both were on the same team for the same service, the unique index
 * (`guests_volunteer_assignments_once`) would refuse the whole merge. Instead the kept contact's
 * assignment absorbs the merged one: the firmer answer wins (confirmed over scheduled over declined),
 * blank role, location and notes are filled from it (differing notes both kept), and the merged row goes.
 */
export const guestsVolunteerMerge: Migration = {
  name: '2026.11.25T02.01.00.guests-volunteer-merge',
  up: `
CREATE FUNCTION guests_volunteer_assignments_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  kept guests_volunteer_assignments%ROWTYPE;
BEGIN
  IF NEW.contact_id = OLD.contact_id THEN
    RETURN NEW;
  END IF;
  SELECT * INTO kept FROM guests_volunteer_assignments
    WHERE org_id = NEW.org_id AND instance_id = NEW.instance_id AND contact_id = NEW.contact_id AND team = NEW.team AND id <> NEW.id
    FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  UPDATE guests_volunteer_assignments k SET
    status = CASE WHEN 'confirmed' IN (k.status, OLD.status) THEN 'confirmed'
      WHEN 'scheduled' IN (k.status, OLD.status) THEN 'scheduled' ELSE 'declined' END,
    role = COALESCE(k.role, OLD.role),
    location_id = COALESCE(k.location_id, OLD.location_id),
    notes = CASE WHEN OLD.notes IS NULL OR k.notes = OLD.notes THEN k.notes
      WHEN k.notes IS NULL THEN OLD.notes ELSE left(k.notes || '; ' || OLD.notes, 1000) END,
    updated_at = now()
  WHERE k.id = kept.id;
  DELETE FROM guests_volunteer_assignments WHERE id = OLD.id;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER guests_volunteer_assignments_merge BEFORE UPDATE OF contact_id ON guests_volunteer_assignments
  FOR EACH ROW EXECUTE FUNCTION guests_volunteer_assignments_merge();
`,
  down: `
DROP TRIGGER guests_volunteer_assignments_merge ON guests_volunteer_assignments;
DROP FUNCTION guests_volunteer_assignments_merge();
`,
};
