import type { Migration } from '../../../db/migrate';

/**
 * Giving details follow a contact merge (people moves every declared contact column from the
 * duplicate to the kept contact) without breaking the merge on giving_givers' rules:
 * - when both contacts have giving details, the kept contact's stay and are filled in from the
 *   duplicate's where blank; the duplicate's row stays with the merged-away contact (UNIQUE
 *   (org_id, contact_id) would refuse the move), and goes when that contact is erased;
 * - a joint giver merged into the giver themselves leaves no joint giver (a giver is never their
 *   own joint giver).
 */
export const givingGiversMerge: Migration = {
  name: '2026.11.24T00.40.00.giving-givers-merge',
  up: `
CREATE FUNCTION giving_givers_follow_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.joint_contact_id = NEW.contact_id THEN
    NEW.joint_contact_id := NULL;
  END IF;
  IF NEW.contact_id <> OLD.contact_id
     AND EXISTS (SELECT 1 FROM giving_givers WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id AND id <> NEW.id) THEN
    UPDATE giving_givers SET
      title = COALESCE(title, OLD.title),
      house_name_or_number = COALESCE(house_name_or_number, OLD.house_name_or_number),
      address_line = COALESCE(address_line, OLD.address_line),
      town = COALESCE(town, OLD.town),
      postcode = COALESCE(postcode, OLD.postcode),
      joint_contact_id = COALESCE(joint_contact_id, NULLIF(OLD.joint_contact_id, NEW.contact_id)),
      bank_account_last4 = COALESCE(bank_account_last4, OLD.bank_account_last4),
      updated_at = now()
    WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER giving_givers_follow_merge BEFORE UPDATE OF contact_id, joint_contact_id ON giving_givers
  FOR EACH ROW EXECUTE FUNCTION giving_givers_follow_merge();
`,
  down: `
DROP TRIGGER giving_givers_follow_merge ON giving_givers;
DROP FUNCTION giving_givers_follow_merge();
`,
};
