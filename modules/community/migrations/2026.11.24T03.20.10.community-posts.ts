import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

/**
 * The congregation-facing board: prayer requests shared to the prayer wall and life events shared as
 * celebrations. Nothing is shown before a person approves it (status pending → approved | rejected;
 * approved → answered for prayer; any → removed). A post copies what the congregation will read
 * (display name, text) at submission, so a moderator approves exactly what appears.
 *
 * The source record's row going (a request or life event deleted, a contact erased) takes its post
 * with it; the foreign keys into people's tables are the one place this module names them.
 * At most one open post per source record.
 */
export const communityPosts: Migration = {
  name: '2026.11.24T03.20.10.community-posts',
  up: `
CREATE TABLE community_posts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('prayer', 'celebration')),
  prayer_request_id uuid REFERENCES prayer_requests(id) ON DELETE CASCADE,
  life_event_id uuid REFERENCES pastoral_life_events(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
  event_type text,
  event_date date,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'answered', 'removed')),
  submitted_by_user_id uuid,
  submitted_at timestamptz NOT NULL DEFAULT now(),
  decided_by_user_id uuid,
  decided_at timestamptz,
  rejection_reason text CHECK (rejection_reason IS NULL OR length(rejection_reason) <= 1000),
  answered_at timestamptz,
  answer_note text CHECK (answer_note IS NULL OR length(answer_note) <= 2000),
  removed_at timestamptz,
  removal_reason text CHECK (removal_reason IS NULL OR length(removal_reason) <= 1000),
  prayed_count integer NOT NULL DEFAULT 0 CHECK (prayed_count >= 0),
  CHECK ((kind = 'prayer') = (prayer_request_id IS NOT NULL)),
  CHECK ((kind = 'celebration') = (life_event_id IS NOT NULL AND event_type IS NOT NULL)),
  CHECK (status <> 'answered' OR kind = 'prayer'),
  CHECK (status <> 'rejected' OR rejection_reason IS NOT NULL)
);
CREATE UNIQUE INDEX community_posts_one_open_prayer ON community_posts (org_id, prayer_request_id)
  WHERE prayer_request_id IS NOT NULL AND status IN ('pending', 'approved', 'answered');
CREATE UNIQUE INDEX community_posts_one_open_celebration ON community_posts (org_id, life_event_id)
  WHERE life_event_id IS NOT NULL AND status IN ('pending', 'approved');
CREATE INDEX community_posts_board ON community_posts (org_id, kind, status, decided_at DESC);
${tenantPolicies(['community_posts']).up}
`,
  down: `
${tenantPolicies(['community_posts']).down}
DROP TABLE community_posts;
`,
};
