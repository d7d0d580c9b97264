import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { queryOne, type Queryable } from '../../db/pool';
import { hashSecret } from './secrets';
import { parseScopeRequest } from './scopes';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 100;

/** RFC 7591's error for a bad redirect URI; the SDK has no class of its own for it. */
export function invalidRedirectUri(message: string): CustomOAuthError {
  return new CustomOAuthError('invalid_redirect_uri', message);
}

/** Why a redirect URI may not be registered, or null when it may: https, or http on a loopback host. */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string' || uri.length === 0) return 'redirect URIs must be non-empty strings';
  if (uri.length > MAX_URI_LENGTH) return `redirect URIs are at most ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (url.username || url.password) return `${uri} must not contain credentials`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `${uri} must use https, or http on a loopback address (127.0.0.1, [::1], localhost)`;
}

/** Everything before the path, with the port dropped: loopback redirects may use any port (RFC 8252 7.3). */
function withoutLoopbackPort(uri: string): string | null {
  const match = /^(http:\/\/)(localhost|127\.0\.0\.1|\[::1\])(:\d+)?([/?].*|)$/.exec(uri);
  return match ? `${match[1]}${match[2]}${match[4]}` : null;
}

/**
 * Exact string comparison, as OAuth 2.1 demands: a trailing slash, a letter's
 * case or a query parameter makes a different URI. Only a loopback port may differ.
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  const a = withoutLoopbackPort(requested);
  const b = withoutLoopbackPort(registered);
  return a !== null && a === b;
}

type ClientInput = Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'> & Partial<Pick<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>>;

function checkList(values: string[] | undefined, allowed: Set<string>, field: string): void {
  const bad = (values ?? []).filter((v) => !allowed.has(v));
  if (bad.length > 0) throw new InvalidClientMetadataError(`${field} may only contain ${[...allowed].join(', ')}; got ${bad.join(', ')}`);
}

/** Registration rules beyond the SDK's schema; throws the RFC 7591 error codes. */
export function validateClientMetadata(client: ClientInput): void {
  if (!Array.isArray(client.redirect_uris) || client.redirect_uris.length === 0) throw invalidRedirectUri('redirect_uris must list at least one URI');
  if (client.redirect_uris.length > MAX_REDIRECT_URIS) throw invalidRedirectUri(`At most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  for (const uri of client.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidRedirectUri(problem);
  }
  const method = client.token_endpoint_auth_method;
  if (method !== undefined && !(TOKEN_AUTH_METHODS as readonly string[]).includes(method)) {
    throw new InvalidClientMetadataError(`token_endpoint_auth_method must be one of ${TOKEN_AUTH_METHODS.join(', ')}`);
  }
  checkList(client.grant_types, GRANT_TYPES, 'grant_types');
  if (client.grant_types && !client.grant_types.includes('authorization_code')) {
    throw new InvalidClientMetadataError('grant_types must include authorization_code');
  }
  checkList(client.response_types, new Set(['code']), 'response_types');
  if (client.client_name !== undefined && (client.client_name.trim().length === 0 || client.client_name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(client.client_name))) {
    throw new InvalidClientMetadataError(`client_name must be 1-${MAX_NAME_LENGTH} printable characters`);
  }
  if (client.scope !== undefined) {
    const parsed = parseScopeRequest(client.scope.split(' ').filter(Boolean), undefined);
    if (!parsed.ok) throw new InvalidClientMetadataError(`scope: ${parsed.message}`);
  }
  if (client.jwks !== undefined || client.jwks_uri !== undefined || client.software_statement !== undefined) {
    throw new InvalidClientMetadataError('jwks, jwks_uri and software_statement are not supported; use client_secret_basic, client_secret_post or none');
  }
}

/** The metadata we keep: the client's registered fields, never its secret. */
function storedMetadata(client: ClientInput): Record<string, unknown> {
  const { client_id: _id, client_id_issued_at: _issued, client_secret: _secret, client_secret_expires_at: _expires, ...metadata } = client;
  return {
    ...metadata,
    client_name: metadata.client_name?.trim(),
    // RFC 7591 defaults, written out so every reader sees the same values.
    token_endpoint_auth_method: metadata.token_endpoint_auth_method ?? 'client_secret_basic',
    grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: metadata.response_types ?? ['code'],
  };
}

/**
 * Registered clients in Postgres. The client secret is returned once, at
 * registration; afterwards only its sha-256 exists, and getClient reports that
 * hash as `client_secret`. The token and revocation endpoints hash the presented
 * secret before the SDK compares them (api/oauth/client-auth.ts).
 */
export class PostgresClientsStore implements OAuthRegisteredClientsStore {
  constructor(private readonly db: Queryable) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 200) return undefined;
    const row = await queryOne<{ client_id: string; client_secret_hash: string | null; client_secret_expires_at: number | null; client_id_issued_at: number; metadata: Record<string, unknown> }>(
      this.db, 'SELECT client_id, client_secret_hash, client_secret_expires_at, client_id_issued_at, metadata FROM oauth_clients WHERE client_id = $1', [clientId],
    );
    if (!row) return undefined;
    return {
      ...(row.metadata as Omit<OAuthClientInformationFull, 'client_id'>),
      client_id: row.client_id,
      client_id_issued_at: Number(row.client_id_issued_at),
      ...(row.client_secret_hash ? { client_secret: row.client_secret_hash } : {}),
      ...(row.client_secret_expires_at ? { client_secret_expires_at: Number(row.client_secret_expires_at) } : {}),
    };
  }

  async registerClient(client: ClientInput): Promise<OAuthClientInformationFull> {
    validateClientMetadata(client);
    if (!client.client_id) throw new Error('The SDK generates client ids; clientIdGeneration must stay on');
    const publicClient = client.token_endpoint_auth_method === 'none';
    const metadata = storedMetadata(client);
    const issuedAt = client.client_id_issued_at ?? Math.floor(Date.now() / 1000);
    await this.db.query(
      'INSERT INTO oauth_clients (client_id, client_secret_hash, client_secret_expires_at, client_id_issued_at, metadata) VALUES ($1, $2, $3, $4, $5)',
      [client.client_id, publicClient || !client.client_secret ? null : hashSecret(client.client_secret), publicClient ? null : client.client_secret_expires_at ?? null, issuedAt, JSON.stringify(metadata)],
    );
    return {
      ...(metadata as Omit<OAuthClientInformationFull, 'client_id'>),
      client_id: client.client_id,
      client_id_issued_at: issuedAt,
      ...(publicClient ? {} : { client_secret: client.client_secret, client_secret_expires_at: client.client_secret_expires_at ?? 0 }),
    };
  }
}

/** A client's name for people, falling back to its id. */
export function clientDisplayName(client: OAuthClientInformationFull): string {
  return client.client_name?.trim() || `Unnamed application (${client.client_id.slice(0, 8)})`;
}
