import type { Migration } from '../../../../../db/migrate';
import { tenantPolicies } from '../../../../../db/row-level-security';
import { COMMUNITY_SETTINGS_DEFAULTS as D, textArraySql } from '../defaults';

const TABLES = ['community_memberships', 'community_settings'];

/**
 * The community roster (who is part of the congregation-facing community, counted by
 * platform_overview as people.communityMembers) and the community settings. People owns both:
 * membership is a fact about a contact. One row per contact; leaving keeps the row with left_on,
 * so "who joined recently" and "who left" both stay answerable. celebration_consent records that
 * the person agreed to have life events celebrated in front of the congregation.
 */
export const communityRoster: Migration = {
  name: '2026.11.24T03.20.01.community-roster',
  up: `
CREATE TABLE community_memberships (
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  joined_on date NOT NULL,
  left_on date,
  celebration_consent boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, contact_id),
  CHECK (left_on IS NULL OR left_on >= joined_on)
);
CREATE INDEX community_memberships_joined ON community_memberships (org_id, joined_on DESC);

-- Merging two contacts repoints this table's contact_id (contactRefs onMerge 'move'). When both were on the
-- roster, the kept contact's row absorbs the merged one (earliest join, still a member if either was) and
-- the merged row goes, instead of the move failing on the primary key.
CREATE FUNCTION community_membership_merge() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.contact_id <> OLD.contact_id AND EXISTS (
    SELECT 1 FROM community_memberships WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id) THEN
    UPDATE community_memberships SET joined_on = LEAST(joined_on, OLD.joined_on),
      left_on = CASE WHEN left_on IS NULL OR OLD.left_on IS NULL THEN NULL ELSE GREATEST(left_on, OLD.left_on) END,
      updated_at = now()
    WHERE org_id = NEW.org_id AND contact_id = NEW.contact_id;
    DELETE FROM community_memberships WHERE org_id = OLD.org_id AND contact_id = OLD.contact_id;
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER community_membership_merge BEFORE UPDATE OF contact_id ON community_memberships
  FOR EACH ROW EXECUTE FUNCTION community_membership_merge();

CREATE TABLE community_settings (
  org_id uuid PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  prayer_wall_enabled boolean NOT NULL DEFAULT ${D.prayerWallEnabled},
  celebrations_enabled boolean NOT NULL DEFAULT ${D.celebrationsEnabled},
  celebrated_life_event_types text[] NOT NULL DEFAULT ${textArraySql(D.celebratedLifeEventTypes)},
  wall_post_lifetime_days integer NOT NULL DEFAULT ${D.wallPostLifetimeDays} CHECK (wall_post_lifetime_days BETWEEN 1 AND 365),
  new_member_window_days integer NOT NULL DEFAULT ${D.newMemberWindowDays} CHECK (new_member_window_days BETWEEN 1 AND 730),
  updated_at timestamptz NOT NULL DEFAULT now()
);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TRIGGER community_membership_merge ON community_memberships;
DROP FUNCTION community_membership_merge();
DROP TABLE community_settings;
DROP TABLE community_memberships;
`,
};
