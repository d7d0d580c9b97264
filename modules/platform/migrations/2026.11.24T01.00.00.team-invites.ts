import type { Migration } from '../../../db/migrate';
import { tenantPolicies } from '../../../db/row-level-security';

const TABLES = ['team_invites'];

/**
 * Invitations to join an organisation's team. Only the hash of the emailed token is kept.
 * `send_id` names the current send: it is the outbox source id, so each (re)send is its own
 * outbox row, counted once, and a superseded send can never go out after a newer one.
 * At most one pending invite per address and organisation (a partial unique index).
 */
export const teamInvites: Migration = {
  name: '2026.11.24T01.00.00.team-invites',
  up: `
CREATE TABLE team_invites (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'staff', 'volunteer')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'cancelled', 'replaced')),
  send_id uuid NOT NULL UNIQUE,
  sends integer NOT NULL DEFAULT 1,
  token_hash text UNIQUE,
  expires_at timestamptz NOT NULL,
  delivered_send_id uuid,
  sent_at timestamptz,
  send_error jsonb,
  invited_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  accepted_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX team_invites_live_email_key ON team_invites (org_id, email) WHERE status = 'pending';
CREATE INDEX team_invites_org_created_idx ON team_invites (org_id, created_at DESC, id DESC);
${tenantPolicies(TABLES).up}
`,
  down: `
${tenantPolicies(TABLES).down}
DROP TABLE team_invites;
`,
};
