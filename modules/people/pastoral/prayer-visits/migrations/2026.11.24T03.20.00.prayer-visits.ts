import type { Migration } from '../../../../../db/migrate';
import { tenantPolicies } from '../../../../../db/row-level-security';
import { PRIVACY_COLUMNS_SQL } from '../../privacy';

const TABLES = ['prayer_requests', 'pastoral_visits'];

/**
 * Prayer requests and pastoral visits. Both carry the two privacy columns every pastoral record
 * shares (privacy, confidentiality_level), so one rule (pastoral/privacy.ts) decides who sees them.
 * A prayer request's visibility private / team / congregation is stored as privacy private / team /
 * public: the congregation is the widest audience the rule knows.
 *
 * `shareable_prayer_requests` is people's published read model for the community module's prayer
 * wall: only requests the congregation may see (privacy public, confidentiality green) of live
 * contacts. The wall joins it, so a request made private or confidential after it was shared drops
 * off the wall at once, without the community module reading people's tables. It carries no contact
 * column: the wall needs only whether, and in what state, a request may be shown.
 */
export const prayerVisits: Migration = {
  name: '2026.11.24T03.20.00.prayer-visits',
  up: `
CREATE TABLE prayer_requests (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  request text NOT NULL CHECK (length(request) BETWEEN 1 AND 4000),
  ${PRIVACY_COLUMNS_SQL},
  urgent boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'answered')),
  answered_at timestamptz,
  answer_note text CHECK (answer_note IS NULL OR length(answer_note) <= 2000),
  created_by_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'answered') = (answered_at IS NOT NULL))
);
CREATE INDEX prayer_requests_org_created ON prayer_requests (org_id, created_at DESC, id DESC);
CREATE INDEX prayer_requests_contact ON prayer_requests (org_id, contact_id);

CREATE TABLE pastoral_visits (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  visit_date date NOT NULL,
  kind text NOT NULL CHECK (kind IN ('home', 'hospital', 'care_home', 'phone', 'video', 'church', 'other')),
  duration_minutes integer CHECK (duration_minutes IS NULL OR duration_minutes BETWEEN 1 AND 1440),
  summary text NOT NULL CHECK (length(summary) BETWEEN 1 AND 4000),
  visitor_name text CHECK (visitor_name IS NULL OR length(visitor_name) <= 200),
  logged_by_user_id uuid,
  ${PRIVACY_COLUMNS_SQL},
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pastoral_visits_org_date ON pastoral_visits (org_id, visit_date DESC, id DESC);
CREATE INDEX pastoral_visits_contact ON pastoral_visits (org_id, contact_id);
${tenantPolicies(TABLES).up}

CREATE VIEW shareable_prayer_requests WITH (security_invoker = true) AS
  SELECT p.id, p.org_id, p.status, p.answered_at
  FROM prayer_requests p JOIN contacts c ON c.id = p.contact_id AND c.org_id = p.org_id AND c.deleted_at IS NULL
  WHERE p.privacy = 'public' AND p.confidentiality_level = 'green';
GRANT SELECT ON shareable_prayer_requests TO steward_app;
COMMENT ON VIEW shareable_prayer_requests IS 'Prayer requests the congregation may see (visibility congregation, confidentiality green) of live contacts. Owned by the people module.';
`,
  down: `
DROP VIEW shareable_prayer_requests;
${tenantPolicies(TABLES).down}
DROP TABLE pastoral_visits;
DROP TABLE prayer_requests;
`,
};
