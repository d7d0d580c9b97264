import type { Migration } from '../../../../db/migrate';
import { tenantPolicies } from '../../../../db/row-level-security';

const TABLES = ['portal_invites', 'portal_sessions', 'portal_posts', 'capture_sessions'];

/**
 * The member portal: invitations (one live, pending invite per channel address, enforced by a partial
 * unique index so parallel sends cannot make two), members' signed-in sessions, members' posts with
 * their moderation, and capture sessions (a kiosk or tablet taking sign-ups). Every secret — the
 * invite link's token, a session's cookie, a kiosk's link — is stored only as its SHA-256 hash.
 */
export const portal: Migration = {
  name: '2026.11.28T15.00.00.portal',
  up: `
CREATE TABLE portal_invites (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  address text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('service', 'charitable_purpose')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'joined', 'revoked', 'expired')),
  token_hash text UNIQUE,
  send_id uuid NOT NULL,
  sends integer NOT NULL DEFAULT 1,
  delivered_send_id uuid,
  sent_at timestamptz,
  send_error jsonb,
  expires_at timestamptz NOT NULL,
  joined_at timestamptz,
  revoked_at timestamptz,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX portal_invites_live ON portal_invites (org_id, channel, lower(address)) WHERE status = 'pending';
CREATE UNIQUE INDEX portal_invites_send ON portal_invites (org_id, send_id);
CREATE INDEX portal_invites_contact ON portal_invites (org_id, contact_id);
CREATE INDEX portal_invites_created ON portal_invites (org_id, created_at DESC, id DESC);

CREATE TABLE portal_sessions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  invite_id uuid NOT NULL REFERENCES portal_invites(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX portal_sessions_contact ON portal_sessions (org_id, contact_id, last_seen_at DESC);

CREATE TABLE portal_posts (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 2000),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  rejection_reason text,
  moderated_by uuid,
  moderated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'rejected' OR rejection_reason IS NOT NULL)
);
CREATE INDEX portal_posts_status ON portal_posts (org_id, status, created_at DESC, id DESC);

CREATE TABLE capture_sessions (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name text NOT NULL,
  kiosk_token_hash text NOT NULL UNIQUE,
  idle_lock_minutes integer NOT NULL CHECK (idle_lock_minutes BETWEEN 1 AND 240),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  locked_at timestamptz,
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  signups integer NOT NULL DEFAULT 0,
  unlocks integer NOT NULL DEFAULT 0,
  last_unlocked_by uuid,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX capture_sessions_created ON capture_sessions (org_id, created_at DESC, id DESC);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE capture_sessions;
DROP TABLE portal_posts;
DROP TABLE portal_sessions;
DROP TABLE portal_invites;
`,
};
