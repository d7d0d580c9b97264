import type { Migration } from '../../../db/migrate';

/**
 * The OAuth 2.1 authorization server. Every secret (client secret, session
 * cookie, authorization code, refresh token) is kept only as its sha-256; the
 * values carry 256 random bits, so a fast hash is enough and a slow one would
 * only slow every request.
 */
export const oauth: Migration = {
  name: '2026.11.22T01.00.00.oauth',
  up: `
-- Dynamically registered clients (RFC 7591). metadata holds the client's own fields as registered.
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  client_secret_hash text,
  client_secret_expires_at bigint,
  client_id_issued_at bigint NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Access tokens are JWTs signed with these keys; kid names the key in the token header.
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

-- A browser signed in on the authorize pages (cookie __Host-steward_session).
CREATE TABLE oauth_sessions (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- An authorization request waiting while the person signs in and consents.
CREATE TABLE oauth_authorization_requests (
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  redirect_uri_explicit boolean NOT NULL,
  code_challenge text NOT NULL,
  state text,
  intent text,
  requested_scopes text[] NOT NULL,
  resource text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  completed_at timestamptz
);

-- What one person consented to for one client: the family every code, refresh token
-- and access token descends from. Revoking it revokes all of them at once.
CREATE TABLE oauth_grants (
  id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  org_id uuid NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  intent text NOT NULL,
  scopes text[] NOT NULL,
  resource text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX oauth_grants_user_idx ON oauth_grants (org_id, user_id);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  redirect_uri_explicit boolean NOT NULL,
  code_challenge text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id);
`,
  down: `
DROP TABLE oauth_refresh_tokens, oauth_codes, oauth_grants, oauth_authorization_requests, oauth_sessions, oauth_signing_keys, oauth_clients;
`,
};
