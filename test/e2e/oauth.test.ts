import { SA_ORG, SA_TOOL } from '../../core/search-attributes';
import { scopesAllowedForRole } from '../../core/roles';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { INTENTS } from '../../core/intents';
import { ALL_SCOPES } from '../../core/scopes';
import { ACCESS_TOKEN_ERRORS, AccessTokens } from '../../kernel/oauth/access-tokens';
import { CODE_ERRORS } from '../../kernel/oauth/codes';
import { jose } from '../../kernel/oauth/jose';
import { SigningKeys } from '../../kernel/oauth/keys';
import { REFRESH_ERRORS } from '../../kernel/oauth/refresh-tokens';
import { hashSecret } from '../../kernel/oauth/secrets';
import { GRANT_ERRORS } from '../../kernel/oauth/token-service';
import { listen } from '../../api/server';
import { Harness, type TestOrg } from '../helpers/harness';
import { errorCodeOf, OAuthDriver, OutputCapture, pkcePair, type RegisteredClient } from '../helpers/oauth';

const REDIRECT = 'http://127.0.0.1:49152/callback';

describe('OAuth 2.1 authorization server', () => {
  const capture = new OutputCapture();
  let harness: Harness;
  let org: TestOrg;
  let oauth: OAuthDriver;
  let client: RegisteredClient;
  let staff: { userId: string; email: string; password: string };

  beforeAll(async () => {
    capture.start();
    harness = await Harness.start({ app: { oauthRateLimits: false } });
    org = await harness.createOrg({ name: 'St Aidan\'s' });
    capture.secret(org.apiKey);
    oauth = new OAuthDriver(harness.url, capture);
    client = await oauth.registerClient(REDIRECT);
    staff = await harness.createMember(org.orgId, { role: 'staff' });
  });

  afterAll(async () => {
    capture.stop();
    await harness?.close();
  });

  async function bearerCall(token: string, tool: string, args: unknown = {}) {
    const response = await fetch(`${harness.url}/api/agent/invoke`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool, arguments: args }),
    });
    return { status: response.status, headers: response.headers, body: await response.json() as any };
  }

  describe('discovery', () => {
    it('serves protected-resource metadata at the root and the /api/mcp path', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
        const response = await fetch(`${harness.url}${path}`);
        expect(response.status).toBe(200);
        const body = await response.json() as any;
        expect(body.resource).toBe(`${harness.url}/api/mcp`);
        expect(body.authorization_servers).toEqual([harness.url]);
        expect(body.scopes_supported).toEqual([...ALL_SCOPES]);
      }
    });

    it('advertises only what the authorization server supports', async () => {
      const body = await (await fetch(`${harness.url}/.well-known/oauth-authorization-server`)).json() as any;
      expect(body).toMatchObject({
        issuer: harness.url,
        authorization_endpoint: `${harness.url}/oauth/authorize`,
        token_endpoint: `${harness.url}/api/oauth/token`,
        registration_endpoint: `${harness.url}/api/oauth/register`,
        revocation_endpoint: `${harness.url}/api/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        authorization_response_iss_parameter_supported: true,
      });
      expect(body.scopes_supported).toEqual(expect.arrayContaining([...ALL_SCOPES, 'intent:pastoral', 'intent:platform']));
      const jwks = await (await fetch(body.jwks_uri)).json() as any;
      expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwks.keys[0].d).toBeUndefined();
    });

    it('answers every 401 on /api/mcp and the bridges with WWW-Authenticate resource_metadata', async () => {
      const cases: Array<[string, RequestInit, string]> = [
        ['/api/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' }, '/.well-known/oauth-protected-resource/api/mcp'],
        ['/api/agent/invoke', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, '/.well-known/oauth-protected-resource'],
        ['/api/agent/tools', {}, '/.well-known/oauth-protected-resource'],
      ];
      for (const [path, init, metadataPath] of cases) {
        for (const authorization of [undefined, 'Bearer not-a-token', 'Bearer a.b.c']) {
          const response = await fetch(`${harness.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), ...(authorization ? { authorization } : {}) } });
          expect(response.status).toBe(401);
          expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${harness.url}${metadataPath}"`);
          expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
        }
      }
    });

    it('lists the 16 intents with their scopes from core', async () => {
      const body = await (await fetch(`${harness.url}/api/oauth/intents`)).json() as any;
      expect(body.intents).toHaveLength(16);
      expect(body.intents).toEqual(INTENTS.map((i) => ({ id: i.id, purpose: i.purpose, scopes: [...i.scopes] })));
      expect(body.scopes).toHaveLength(ALL_SCOPES.length);
      expect(body.scopes.every((s: any) => typeof s.description === 'string' && s.description.length > 0)).toBe(true);
    });
  });

  describe('registration', () => {
    it('registers public clients without a secret and confidential ones with a hashed secret', async () => {
      const pub = await oauth.register({ client_name: 'Public', redirect_uris: ['https://assistant.example/cb'], token_endpoint_auth_method: 'none' });
      expect(pub.status).toBe(201);
      expect(pub.body.client_secret).toBeUndefined();
      expect(pub.headers.get('cache-control')).toBe('no-store');

      const conf = await oauth.register({ client_name: 'Confidential', redirect_uris: ['https://assistant.example/cb'] });
      expect(conf.status).toBe(201);
      expect(conf.body.client_secret).toEqual(expect.any(String));
      expect(conf.body.token_endpoint_auth_method).toBe('client_secret_basic');
      const { rows } = await harness.pool.query('SELECT client_secret_hash, metadata FROM oauth_clients WHERE client_id = $1', [conf.body.client_id]);
      expect(rows[0].client_secret_hash).toBe(hashSecret(conf.body.client_secret));
      expect(JSON.stringify(rows[0])).not.toContain(conf.body.client_secret);
    });

    it.each([
      ['an http redirect off loopback', { redirect_uris: ['http://assistant.example/cb'] }, 'invalid_redirect_uri'],
      ['a redirect with a fragment', { redirect_uris: ['https://assistant.example/cb#x'] }, 'invalid_redirect_uri'],
      ['a custom scheme', { redirect_uris: ['myapp://cb'] }, 'invalid_redirect_uri'],
      ['no redirect URIs', { redirect_uris: [] }, 'invalid_redirect_uri'],
      ['a missing redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri'],
      ['the password grant', { redirect_uris: [REDIRECT], grant_types: ['password'] }, 'invalid_client_metadata'],
      ['the implicit response type', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
      ['an unsupported auth method', { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      ['an unknown scope', { redirect_uris: [REDIRECT], scope: 'people:fly' }, 'invalid_client_metadata'],
      ['a body that is not an object', '[1,2]', 'invalid_client_metadata'],
      ['a body that is not JSON', '{nope', 'invalid_client_metadata'],
    ])('refuses %s with %s', async (_what, metadata, error) => {
      const result = await oauth.register(metadata);
      expect(result.status).toBe(400);
      expect(result.body.error).toBe(error);
      expect(result.body.error_description).toEqual(expect.any(String));
    });
  });

  describe('authorize', () => {
    async function errorPage(url: string) {
      const page = await oauth.get(url);
      expect(page.location).toBeNull();
      expect(page.headers.get('content-type')).toContain('text/html');
      return { status: page.status, error: errorCodeOf(page.html), html: page.html };
    }

    it('is an error page, never a redirect, for an unknown intent', async () => {
      const { challenge } = pkcePair();
      for (const url of [oauth.authorizeUrl(client, challenge, { intent: 'teleport' }), oauth.authorizeUrl(client, challenge, { scope: 'intent:teleport' })]) {
        const page = await errorPage(url);
        expect(page).toMatchObject({ status: 400, error: 'invalid_scope' });
        expect(page.html).toContain('Unknown intent &quot;teleport&quot;');
      }
    });

    it('is an error page for plain or missing PKCE', async () => {
      const { challenge } = pkcePair();
      const plain = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', params: { code_challenge_method: 'plain' } }));
      expect(plain).toMatchObject({ status: 400, error: 'invalid_request' });
      expect(plain.html).toContain('PKCE method plain is not allowed');
      const missing = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', params: { code_challenge: null } }));
      expect(missing.html).toContain('PKCE is required');
      const noMethod = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', params: { code_challenge_method: null } }));
      expect(noMethod.html).toContain('code_challenge_method must be S256');
    });

    it.each([
      ['a trailing slash', `${REDIRECT}/`],
      ['a letter in another case', REDIRECT.replace('callback', 'Callback')],
      ['an added query', `${REDIRECT}?x=1`],
      ['another host', 'https://evil.example/callback'],
    ])('is an error page for a redirect URI differing by %s', async (_what, redirectUri) => {
      const { challenge } = pkcePair();
      const page = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', redirectUri }));
      expect(page).toMatchObject({ status: 400, error: 'invalid_request' });
      expect(page.html).toContain('redirect_uri is not registered');
    });

    it('accepts another port on a loopback redirect URI (RFC 8252)', async () => {
      const { challenge } = pkcePair();
      const page = await oauth.get(oauth.authorizeUrl(client, challenge, { intent: 'people', redirectUri: REDIRECT.replace('49152', '50000') }));
      expect(page.status).toBe(303);
    });

    it('refuses response_type=token, an unknown client, another resource and a repeated parameter', async () => {
      const { challenge } = pkcePair();
      const implicit = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', params: { response_type: 'token' } }));
      expect(implicit).toMatchObject({ status: 400, error: 'unsupported_response_type' });
      const unknown = await errorPage(oauth.authorizeUrl({ ...client, client_id: 'nobody' }, challenge, { intent: 'people' }));
      expect(unknown).toMatchObject({ status: 400, error: 'invalid_client' });
      const resource = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', params: { resource: 'https://other.example/mcp' } }));
      expect(resource).toMatchObject({ status: 400, error: 'invalid_target' });
      const twice = await errorPage(`${oauth.authorizeUrl(client, challenge, { intent: 'people' })}&intent=giving`);
      expect(twice.html).toContain('was given more than once');
      const twoIntents = await errorPage(oauth.authorizeUrl(client, challenge, { intent: 'people', scope: 'intent:giving' }));
      expect(twoIntents.html).toContain('Only one intent');
    });

    it('serves pages that cannot be framed, with a __Host- HttpOnly SameSite session cookie', async () => {
      const { challenge } = pkcePair();
      const start = await oauth.get(oauth.authorizeUrl(client, challenge, { intent: 'people' }));
      const signInPage = await oauth.get(start.location!);
      expect(signInPage.status).toBe(200);
      expect(signInPage.headers.get('x-frame-options')).toBe('DENY');
      expect(signInPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(signInPage.headers.get('cache-control')).toBe('no-store');
      const requestId = new URL(start.location!, harness.url).searchParams.get('request')!;
      const signIn = await oauth.postForm('/oauth/sign-in', { request: requestId, email: staff.email, password: capture.secret(staff.password) });
      const cookie = signIn.headers.get('set-cookie')!;
      capture.secret(cookie.split(';')[0].split('=')[1]);
      expect(cookie).toMatch(/^__Host-steward_session=[A-Za-z0-9_-]+; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    });

    it('refuses a wrong password without saying which part was wrong, and a foreign form post', async () => {
      const { challenge } = pkcePair();
      const start = await oauth.get(oauth.authorizeUrl(client, challenge, { intent: 'people' }));
      const requestId = new URL(start.location!, harness.url).searchParams.get('request')!;
      const wrong = await oauth.postForm('/oauth/sign-in', { request: requestId, email: staff.email, password: capture.secret('not-the-password') });
      expect(wrong.status).toBe(401);
      expect(wrong.html).toContain('Email or password is incorrect');
      expect(wrong.html).not.toContain('not-the-password');
      const nobody = await oauth.postForm('/oauth/sign-in', { request: requestId, email: 'nobody@test.local', password: 'whatever-password' });
      expect(nobody.status).toBe(401);
      expect(nobody.html).toContain('Email or password is incorrect');
      const foreign = await oauth.postForm('/oauth/sign-in', { request: requestId, email: staff.email, password: staff.password }, { origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('set-cookie')).toBeNull();
    });

    it('refuses a consent post without the session-bound CSRF token', async () => {
      const { challenge } = pkcePair();
      const { cookie, requestId } = await oauth.signIn(oauth.authorizeUrl(client, challenge, { intent: 'people' }), staff);
      const page = await oauth.get(`/oauth/consent?request=${requestId}`, cookie);
      expect(page.status).toBe(200);
      const forged = await oauth.postForm('/oauth/consent', { request: requestId, org: org.orgId, intent: 'people', csrf: 'forged', decision: 'allow' }, { cookie });
      expect(forged.status).toBe(403);
      expect(forged.location).toBeNull();
    });

    it('shows the client, redirect host, organisation and intent, and redirects back with code, state and iss', async () => {
      const result = await oauth.authorize(client, staff, { intent: 'people', state: 'state-123' });
      expect(result.page).toContain('Test Assistant');
      expect(result.page).toContain('127.0.0.1:49152');
      expect(result.page).toContain('St Aidan&#39;s');
      expect(result.page).toContain('Contacts, family links');
      expect(result.page).toContain('data-scope="people:write"');
      expect(`${result.location.origin}${result.location.pathname}`).toBe(REDIRECT);
      expect(result.location.searchParams.get('state')).toBe('state-123');
      expect(result.location.searchParams.get('iss')).toBe(harness.url);
      expect(result.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('sends access_denied back with state and iss when the person declines', async () => {
      const result = await oauth.authorize(client, staff, { intent: 'people', state: 'declined', decision: 'deny' });
      expect(Object.fromEntries(result.location.searchParams)).toMatchObject({ error: 'access_denied', state: 'declined', iss: harness.url });
      expect(result.location.searchParams.get('code')).toBeNull();
    });

    it('lets the person choose the intent when the client names none', async () => {
      const { challenge } = pkcePair();
      const { cookie, requestId } = await oauth.signIn(oauth.authorizeUrl(client, challenge, { scope: ALL_SCOPES.join(' ') }), staff);
      const chooser = await oauth.get(`/oauth/consent?request=${requestId}`, cookie);
      expect(chooser.html).toContain('name="intent" value="pastoral"');
      const { location } = await oauth.consent(requestId, cookie, { chooseIntent: 'giving' });
      expect(location.searchParams.get('code')).toBeTruthy();
    });
  });

  describe('token', () => {
    it('issues a short-lived ES256 JWT bound to the MCP resource, as JSON that is never cached', async () => {
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const result = await oauth.exchange(client, code, verifier);
      expect(result.status).toBe(200);
      expect(result.headers.get('content-type')).toContain('application/json');
      expect(result.headers.get('cache-control')).toBe('no-store');
      expect(result.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'platform:read platform:write people:read people:write' });
      const header = jose.decodeProtectedHeader(result.body.access_token);
      expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
      const claims = jose.decodeJwt(result.body.access_token);
      expect(claims).toMatchObject({ iss: harness.url, aud: `${harness.url}/api/mcp`, sub: staff.userId, client_id: client.client_id, intent: 'people', org_id: org.orgId });
      expect(claims.exp! - claims.iat!).toBe(900);
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM oauth_refresh_tokens WHERE token_hash = $1', [hashSecret(result.body.refresh_token)]);
      expect(rows[0].n).toBe(1);
    });

    it('gives the same principal as an API key: tools/list, tools/call and session tools over MCP', async () => {
      const tokens = await oauth.tokensFor(client, staff, { intent: 'people' });
      const transport = new StreamableHTTPClientTransport(new URL(`${harness.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } });
      const mcp = new McpClient({ name: 'oauth-test', version: '1.0.0' });
      await mcp.connect(transport);
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toContain('people_create_contact');
      expect(tools.every((t) => t.name.startsWith('people_') || t.name.startsWith('platform_'))).toBe(true);
      const session = await mcp.callTool({ name: 'platform_session_tools', arguments: {} });
      expect(session.structuredContent).toMatchObject({ credentialKind: 'oauth', intent: 'people', role: 'staff', scopes: ['platform:read', 'platform:write', 'people:read', 'people:write'] });
      const created = await mcp.callTool({ name: 'people_create_contact', arguments: { firstName: 'Ada', lastName: 'Lovelace' } });
      expect(created.isError).toBeFalsy();
      await mcp.close();

      const grantId = jose.decodeJwt(tokens.access_token).grant_id as string;
      const { rows } = await harness.pool.query('SELECT credential_kind, credential_id, workflow_id FROM audit_events WHERE tool = $1', ['people_create_contact']);
      expect(rows).toEqual([expect.objectContaining({ credential_kind: 'oauth', credential_id: grantId })]);
      // Operators find the run by its search attributes; a call without an idempotency key or actionSummary carries no memo.
      const run = await harness.temporal.workflow.getHandle(rows[0].workflow_id).describe();
      expect([run.typedSearchAttributes.get(SA_TOOL), run.typedSearchAttributes.get(SA_ORG)]).toEqual(['people_create_contact', expect.any(String)]);
      expect(run.memo ?? {}).toEqual({});
    });

    it('refuses a wrong verifier', async () => {
      const { code } = await oauth.authorize(client, staff, { intent: 'people' });
      const result = await oauth.exchange(client, code, pkcePair().verifier);
      expect(result.status).toBe(400);
      expect(result.body).toEqual({ error: 'invalid_grant', error_description: 'code_verifier does not match the challenge' });
      expect(result.headers.get('cache-control')).toBe('no-store');
    });

    it('refuses a reused code and revokes what the first exchange issued', async () => {
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const first = await oauth.exchange(client, code, verifier);
      expect(first.status).toBe(200);
      expect((await bearerCall(first.body.access_token, 'platform_session_tools')).status).toBe(200);
      const second = await oauth.exchange(client, code, verifier);
      expect(second.body).toEqual({ error: 'invalid_grant', error_description: CODE_ERRORS.reused });
      const rejected = await bearerCall(first.body.access_token, 'platform_session_tools');
      expect(rejected.status).toBe(401);
      expect(rejected.body).toEqual({ error: 'invalid_token', error_description: GRANT_ERRORS.revokedToken });
      expect(rejected.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const refresh = await oauth.refresh(client, first.body.refresh_token);
      expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: REFRESH_ERRORS.revoked });
    });

    it('refuses an expired code', async () => {
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      await harness.pool.query("UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1", [hashSecret(code)]);
      const result = await oauth.exchange(client, code, verifier);
      expect(result.body).toEqual({ error: 'invalid_grant', error_description: CODE_ERRORS.expired });
    });

    it.each([
      ['a trailing slash', `${REDIRECT}/`],
      ['a letter in another case', REDIRECT.replace('callback', 'Callback')],
      ['an added query', `${REDIRECT}?x=1`],
      ['its absence', null],
    ])('refuses a token request whose redirect_uri differs by %s', async (_what, redirectUri) => {
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const result = await oauth.exchange(client, code, verifier, redirectUri);
      expect(result.body).toEqual({ error: 'invalid_grant', error_description: CODE_ERRORS.redirectMismatch });
    });

    it('refuses a code presented by another client', async () => {
      const other = await oauth.registerClient(REDIRECT);
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const result = await oauth.exchange(other, code, verifier);
      expect(result.body).toEqual({ error: 'invalid_grant', error_description: CODE_ERRORS.otherClient });
      expect((await oauth.exchange(client, code, verifier)).status).toBe(200);
    });

    it('a used code presented by another client is refused as not its own, and the owner keeps its grant', async () => {
      const other = await oauth.registerClient(REDIRECT);
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const owned = await oauth.exchange(client, code, verifier);
      expect(owned.status).toBe(200);
      const replayed = await oauth.exchange(other, code, verifier);
      expect(replayed.body).toEqual({ error: 'invalid_grant', error_description: CODE_ERRORS.otherClient });
      // Only the client the code was issued to can trigger the reuse revocation.
      expect((await bearerCall(owned.body.access_token, 'platform_session_tools')).status).toBe(200);
      expect((await oauth.refresh(client, owned.body.refresh_token)).status).toBe(200);
    });

    it('rotates refresh tokens and revokes the family when a used one is replayed', async () => {
      const tokens = await oauth.tokensFor(client, staff, { intent: 'people' });
      const rotated = await oauth.refresh(client, tokens.refresh_token);
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token);
      expect((await bearerCall(rotated.body.access_token, 'platform_session_tools')).status).toBe(200);

      const replay = await oauth.refresh(client, tokens.refresh_token);
      expect(replay.body).toEqual({ error: 'invalid_grant', error_description: REFRESH_ERRORS.replayed });
      const next = await oauth.refresh(client, rotated.body.refresh_token);
      expect(next.body).toEqual({ error: 'invalid_grant', error_description: REFRESH_ERRORS.revoked });
      for (const access of [tokens.access_token, rotated.body.access_token]) {
        expect((await bearerCall(access, 'platform_session_tools')).body.error_description).toBe(GRANT_ERRORS.revokedToken);
      }
    });

    it('refuses an unknown refresh token, a narrowing beyond the grant and another resource', async () => {
      expect((await oauth.refresh(client, 'srt_not-a-real-token-at-all')).body).toEqual({ error: 'invalid_grant', error_description: REFRESH_ERRORS.unknown });
      const tokens = await oauth.tokensFor(client, staff, { intent: 'people' });
      const wider = await oauth.token({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token, scope: 'giving:read' });
      expect(wider.body.error).toBe('invalid_scope');
      const narrower = await oauth.token({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token, scope: 'people:read' });
      expect(narrower.body.scope).toBe('people:read');
      const target = await oauth.token({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: narrower.body.refresh_token, resource: 'https://other.example/mcp' });
      expect(target.body.error).toBe('invalid_target');
    });

    it('refuses grant_type=password and client_credentials', async () => {
      for (const grant of ['password', 'client_credentials']) {
        const result = await oauth.token({ grant_type: grant, client_id: client.client_id, username: staff.email, password: staff.password });
        expect(result.status).toBe(400);
        expect(result.body.error).toBe('unsupported_grant_type');
      }
    });

    it('authenticates confidential clients by client_secret_basic and client_secret_post', async () => {
      const registered = await oauth.register({ client_name: 'Confidential', redirect_uris: [REDIRECT] });
      const confidential = registered.body as RegisteredClient;
      const basic = await oauth.authorize(confidential, staff, { intent: 'people' });
      const viaBasic = await oauth.token({ grant_type: 'authorization_code', code: basic.code, code_verifier: basic.verifier, redirect_uri: REDIRECT }, { id: confidential.client_id, secret: confidential.client_secret! });
      expect(viaBasic.status).toBe(200);
      const post = await oauth.authorize(confidential, staff, { intent: 'people' });
      expect((await oauth.exchange(confidential, post.code, post.verifier)).status).toBe(200);
      const wrong = await oauth.authorize(confidential, staff, { intent: 'people' });
      const refused = await oauth.exchange({ ...confidential, client_secret: 'wrong-secret' }, wrong.code, wrong.verifier);
      expect(refused.body).toMatchObject({ error: 'invalid_client' });
      const missing = await oauth.exchange({ ...confidential, client_secret: undefined }, wrong.code, wrong.verifier);
      expect(missing.body).toMatchObject({ error: 'invalid_client' });
    });

    it('answers a client that failed Basic authentication 401 with a Basic challenge (RFC 6749 5.2), one that used the body 400', async () => {
      const confidential = (await oauth.register({ client_name: 'Basic failures', redirect_uris: [REDIRECT] })).body as RegisteredClient;
      const form = { grant_type: 'authorization_code', code: 'not-a-code', code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT };
      const wrongSecret = await oauth.token(form, { id: confidential.client_id, secret: 'wrong-secret' });
      const unknownClient = await oauth.token(form, { id: 'nobody-registered-this', secret: 'any-secret' });
      for (const refused of [wrongSecret, unknownClient]) {
        expect(refused.status).toBe(401);
        expect(refused.body.error).toBe('invalid_client');
        expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
      }
      const revoke = await fetch(`${harness.url}/api/oauth/revoke`, {
        method: 'POST', body: new URLSearchParams({ token: 'anything' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${confidential.client_id}:wrong-secret`).toString('base64')}` },
      });
      expect(revoke.status).toBe(401);
      expect(revoke.headers.get('www-authenticate')).toMatch(/^Basic /);
      // Credentials in the body were not sent through the header, so no challenge: 400 as before.
      const inBody = await oauth.token({ ...form, client_id: confidential.client_id, client_secret: 'wrong-secret' });
      expect(inBody.status).toBe(400);
      expect(inBody.body.error).toBe('invalid_client');
      expect(inBody.headers.get('www-authenticate')).toBeNull();
    });

    it('lets exactly one of 50 parallel exchanges of one code succeed', async () => {
      const { code, verifier } = await oauth.authorize(client, staff, { intent: 'people' });
      const results = await Promise.all(Array.from({ length: 50 }, () => oauth.exchange(client, code, verifier)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const failures = results.filter((r) => r.status !== 200);
      expect(failures).toHaveLength(49);
      expect(failures.every((r) => r.body.error === 'invalid_grant' && r.body.error_description === CODE_ERRORS.reused)).toBe(true);
    });

    it('revokes a grant through the revocation endpoint', async () => {
      const tokens = await oauth.tokensFor(client, staff, { intent: 'people' });
      const response = await fetch(`${harness.url}/api/oauth/revoke`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: client.client_id, token: tokens.refresh_token, token_type_hint: 'refresh_token' }),
      });
      expect(response.status).toBe(200);
      expect((await bearerCall(tokens.access_token, 'platform_session_tools')).body.error_description).toBe(GRANT_ERRORS.revokedToken);
    });
  });

  describe('access tokens', () => {
    let tokens: AccessTokens;
    let claims: { grantId: string; userId: string; orgId: string; clientId: string; intent: string; scopes: any[] };

    beforeAll(async () => {
      const issued = await oauth.tokensFor(client, staff, { intent: 'people' });
      const payload = jose.decodeJwt(issued.access_token);
      claims = { grantId: payload.grant_id as string, userId: staff.userId, orgId: org.orgId, clientId: client.client_id, intent: 'people', scopes: ['people:read'] };
      // The same keys the API signs with, read from the same database.
      tokens = new AccessTokens(new SigningKeys(harness.pool), harness.url, `${harness.url}/api/mcp`);
    });

    async function refusal(token: string) {
      capture.secret(token);
      const result = await bearerCall(token, 'platform_session_tools');
      expect(result.status).toBe(401);
      expect(result.headers.get('www-authenticate')).toContain('resource_metadata=');
      return result.body.error_description;
    }

    it('accepts a token it signed itself (control)', async () => {
      const { token } = await tokens.sign({ ...claims, scopes: ['platform:read'] });
      capture.secret(token);
      expect((await bearerCall(token, 'platform_session_tools')).status).toBe(200);
    });

    it('refuses a token for another audience', async () => {
      const { token } = await tokens.sign(claims, { audience: 'https://other.example/api/mcp' });
      expect(await refusal(token)).toBe(ACCESS_TOKEN_ERRORS.otherAudience);
    });

    it('refuses an expired token', async () => {
      const { token } = await tokens.sign(claims, { issuedAt: Math.floor(Date.now() / 1000) - 3600 });
      expect(await refusal(token)).toBe(ACCESS_TOKEN_ERRORS.expired);
    });

    it('refuses a tampered signature and a tampered payload', async () => {
      const { token } = await tokens.sign(claims);
      const [header, payload, signature] = token.split('.');
      const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
      expect(await refusal(`${header}.${payload}.${flipped}`)).toBe(ACCESS_TOKEN_ERRORS.badSignature);
      const widened = Buffer.from(JSON.stringify({ ...jose.decodeJwt(token), scope: ALL_SCOPES.join(' ') })).toString('base64url');
      expect(await refusal(`${header}.${widened}.${signature}`)).toBe(ACCESS_TOKEN_ERRORS.badSignature);
    });

    it('refuses a token signed by a key it does not know', async () => {
      const { privateKey } = await jose.generateKeyPair('ES256');
      const forged = await new jose.SignJWT({ scope: 'people:read' }).setProtectedHeader({ alg: 'ES256', kid: 'made-up', typ: 'at+jwt' })
        .setIssuer(harness.url).setAudience(`${harness.url}/api/mcp`).setExpirationTime('5m').sign(privateKey);
      expect(await refusal(forged)).toBe(ACCESS_TOKEN_ERRORS.unknownKey);
    });
  });

  describe('scopes', () => {
    it('never grants people:safeguarding to a volunteer asking for pastoral, even one flagged for safeguarding', async () => {
      const volunteer = await harness.createMember(org.orgId, { role: 'volunteer', safeguarding: true });
      const { code, verifier, page } = await oauth.authorize(client, volunteer, { intent: 'pastoral' });
      expect(page).toMatch(/<ul id="withheld"><li data-scope="people:safeguarding">/);
      const result = await oauth.exchange(client, code, verifier);
      expect(result.body.scope.split(' ')).toEqual(['platform:read', 'platform:write', 'people:read', 'people:write', 'community:read', 'community:write']);
      const session = await bearerCall(result.body.access_token, 'platform_session_tools');
      expect(session.body.result).toMatchObject({ credentialKind: 'oauth', intent: 'pastoral', role: 'volunteer' });
      expect(session.body.result.scopes).not.toContain('people:safeguarding');
    });

    it('grants people:safeguarding on pastoral only to a role holding safeguarding', async () => {
      const carer = await harness.createMember(org.orgId, { role: 'staff', safeguarding: true });
      expect((await oauth.tokensFor(client, carer, { intent: 'pastoral' })).scope.split(' ')).toContain('people:safeguarding');
      expect((await oauth.tokensFor(client, staff, { intent: 'pastoral' })).scope.split(' ')).not.toContain('people:safeguarding');
    });

    it('grants every scope the role allows for the platform intent', async () => {
      const volunteer = await harness.createMember(org.orgId, { role: 'volunteer' });
      const granted = (await oauth.tokensFor(client, volunteer, { intent: 'platform' })).scope.split(' ');
      expect(granted.sort()).toEqual(scopesAllowedForRole('volunteer', false).sort());
      expect(granted).not.toEqual(expect.arrayContaining(['billing:read']));
      expect(granted).not.toEqual(expect.arrayContaining(['giving:read']));
      const owner = await harness.createMember(org.orgId, { role: 'owner', safeguarding: true });
      expect((await oauth.tokensFor(client, owner, { intent: 'platform' })).scope.split(' ')).toEqual([...ALL_SCOPES]);
    });

    it('answers a tool outside the token\'s scopes with 403 insufficient_scope and the needed scope, on the bridge and on MCP', async () => {
      const tokens = await oauth.tokensFor(client, staff, { intent: 'team' });
      const invoke = await bearerCall(tokens.access_token, 'people_create_contact', { firstName: 'Ada', lastName: 'Lovelace' });
      expect(invoke.status).toBe(403);
      expect(invoke.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'people:write' } });
      expect(invoke.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="people:write", resource_metadata="[^"]+"/);

      const mcp = await fetch(`${harness.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'people_create_contact', arguments: { firstName: 'Ada' } } }),
      });
      expect(mcp.status).toBe(403);
      expect(mcp.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="people:write"');
      expect(await mcp.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { code: 'insufficient_scope' } } });

      const apiKey = await harness.createKey(org.orgId, ['people:read']);
      capture.secret(apiKey.apiKey);
      const keyed = await bearerCall(apiKey.apiKey, 'people_create_contact', { firstName: 'Ada' });
      expect(keyed.status).toBe(403);
      expect(keyed.headers.get('www-authenticate')).toContain('scope="people:write"');
    });
  });

  describe('rate limits', () => {
    it('limits sign-in attempts per address by default, with a page for people', async () => {
      // A second API on the same database, with the production defaults.
      const { server, url } = await listen({ pool: harness.pool, temporal: harness.temporal, taskQueue: harness.taskQueue }, 0);
      try {
        const statuses: number[] = [];
        let last = '';
        for (let i = 0; i < 31; i++) {
          const response = await fetch(`${url}/oauth/sign-in`, {
            method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ request: 'x'.repeat(32), email: staff.email, password: 'guess-number-' + i }),
          });
          statuses.push(response.status);
          last = await response.text();
        }
        expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
        expect(statuses[30]).toBe(429);
        expect(errorCodeOf(last)).toBe('too_many_requests');
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  // Declared last, so it runs after everything above has handled its secrets.
  describe('logs', () => {
    it('never held a secret (tokens, codes, passwords, API keys, client secrets, cookies)', () => {
      console.info('output capture check');
      expect(capture.text).toContain('output capture check');
      expect(capture.secretCount).toBeGreaterThan(50);
      expect(capture.leaks()).toEqual([]);
    });
  });
});
