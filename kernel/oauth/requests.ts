import type { RowOf } from '../../modules/kit';
import type { OAuthAuthorizationRequest } from '../models/oauth-authorization-requests';
import { randomBytes } from 'node:crypto';
import { isScope, type Scope } from '../../core/scopes';
import { queryOne, type Queryable } from '../../db/pool';
import { LIFETIMES } from './secrets';

/** An authorization request, kept while the person signs in and consents. */
export interface AuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  /** Whether the client named the redirect URI; if so, the token request must repeat it. */
  redirectUriExplicit: boolean;
  codeChallenge: string;
  state: string | null;
  /** null when the client named none: the person picks one on the consent page. */
  intent: string | null;
  requestedScopes: Scope[];
  resource: string;
}

type RequestRow = Pick<RowOf<OAuthAuthorizationRequest>, 'id' | 'client_id' | 'redirect_uri' | 'redirect_uri_explicit' | 'code_challenge' | 'state' | 'intent' | 'requested_scopes' | 'resource'>;

function requestOf(row: RequestRow): AuthorizationRequest {
  return {
    id: row.id, clientId: row.client_id, redirectUri: row.redirect_uri, redirectUriExplicit: row.redirect_uri_explicit,
    codeChallenge: row.code_challenge, state: row.state, intent: row.intent, requestedScopes: row.requested_scopes.filter(isScope), resource: row.resource,
  };
}

const COLUMNS = 'id, client_id, redirect_uri, redirect_uri_explicit, code_challenge, state, intent, requested_scopes, resource';

export async function createAuthorizationRequest(db: Queryable, input: Omit<AuthorizationRequest, 'id'>): Promise<AuthorizationRequest> {
  // Unguessable, because the sign-in and consent pages are addressed by it.
  const id = randomBytes(24).toString('base64url');
  await db.query(`INSERT INTO oauth_authorization_requests
    (id, client_id, redirect_uri, redirect_uri_explicit, code_challenge, state, intent, requested_scopes, resource, expires_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))`, [
    id, input.clientId, input.redirectUri, input.redirectUriExplicit, input.codeChallenge, input.state, input.intent, input.requestedScopes,
    input.resource, LIFETIMES.authorizationRequestSeconds,
  ]);
  return { ...input, id };
}

export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{32}$/.test(value);
}

/** A request still open: not expired and not yet answered. */
export async function findOpenRequest(db: Queryable, id: unknown): Promise<AuthorizationRequest | undefined> {
  if (!isRequestId(id)) return undefined;
  const row = await queryOne<RequestRow>(db,
    `SELECT ${COLUMNS} FROM oauth_authorization_requests WHERE id = $1 AND completed_at IS NULL AND expires_at > now()`, [id]);
  return row && requestOf(row);
}

/** Closes the request; only one answer (allow or deny) can ever win, however often the form is posted. */
export async function completeRequest(db: Queryable, id: string): Promise<AuthorizationRequest | undefined> {
  const row = await queryOne<RequestRow>(db, `UPDATE oauth_authorization_requests SET completed_at = now()
    WHERE id = $1 AND completed_at IS NULL AND expires_at > now() RETURNING ${COLUMNS}`, [id]);
  return row && requestOf(row);
}
