import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { jose } from '../../kernel/oauth/jose';
import { Harness, type TestOrg } from '../helpers/harness';
import { CallbackServer, CHROMIUM, OutputCapture } from '../helpers/oauth';

/** The MCP SDK's OAuthClientProvider, kept in memory like a real assistant would keep it in its store. */
class MemoryClientProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  lastState?: string;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;

  constructor(readonly redirectUrl: string, private readonly capture: OutputCapture, private readonly scope?: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Assistant', redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...(this.scope ? { scope: this.scope } : {}),
    };
  }

  state(): string {
    this.lastState = randomBytes(12).toString('base64url');
    return this.lastState;
  }

  clientInformation() {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.capture.secret((info as { client_secret?: string }).client_secret);
    this.info = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.capture.secret(tokens.access_token);
    this.capture.secret(tokens.refresh_token);
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = this.capture.secret(verifier);
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }
}

describe('OAuth in a real browser (headless Chromium) with the MCP SDK client', () => {
  const capture = new OutputCapture();
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let callback: CallbackServer;
  let person: { userId: string; email: string; password: string };

  beforeAll(async () => {
    capture.start();
    harness = await Harness.start({ app: { oauthRateLimits: false } });
    org = await harness.createOrg({ name: 'Grace Chapel' });
    capture.secret(org.apiKey);
    person = await harness.createMember(org.orgId, { role: 'staff' });
    capture.secret(person.password);
    callback = await CallbackServer.start();
    browser = await chromium.launch(CHROMIUM);
  });

  afterAll(async () => {
    capture.stop();
    await browser?.close();
    await callback?.close();
    await harness?.close();
  });

  interface ConsentSeen {
    client: string;
    redirectHost: string;
    org: string;
    intent: string;
    granted: string[];
  }

  /** The person's part: sign in and consent on our pages; returns what the consent page showed and where the browser was sent back to. */
  async function signInAndConsent(page: Page, authorizationUrl: URL, options: { chooseIntent?: string } = {}): Promise<{ back: URL; seen: ConsentSeen }> {
    const signIn = await page.goto(authorizationUrl.href);
    expect(page.url()).toContain('/oauth/sign-in?request=');
    expect(signIn?.headers()['x-frame-options']).toBe('DENY');
    expect(signIn?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expect(page.textContent('main')).resolves.toContain('Test Assistant wants to connect');
    await page.fill('#email', person.email);
    await page.fill('#password', person.password);
    await page.click('#sign-in');
    await page.waitForURL(/\/oauth\/consent\?/);
    if (options.chooseIntent) {
      await page.check(`input[name="intent"][value="${options.chooseIntent}"]`);
      await page.click('#continue');
      await page.waitForSelector('#allow');
    }
    const cookies = await page.context().cookies(harness.url);
    const session = cookies.find((c) => c.name === '__Host-steward_session');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    capture.secret(session?.value);
    const seen: ConsentSeen = {
      client: (await page.textContent('#client-name')) ?? '',
      redirectHost: (await page.textContent('#redirect-host')) ?? '',
      org: (await page.textContent('#org-name')) ?? '',
      intent: (await page.textContent('#intent')) ?? '',
      granted: await page.$$eval('#granted li', (items) => items.map((item) => item.getAttribute('data-scope') ?? '')),
    };
    const returned = callback.next();
    await page.click('#allow');
    const back = await returned;
    capture.secret(back.searchParams.get('code') ?? undefined);
    await page.waitForSelector('#done');
    return { back, seen };
  }

  it('runs discovery → registration → authorize (sign-in and consent pages) → token → tools/list → tools/call', async () => {
    const serverUrl = new URL(`${harness.url}/api/mcp`);
    const provider = new MemoryClientProvider(callback.url, capture);
    expect(await auth(provider, { serverUrl, scope: 'intent:people' })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${harness.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl.href);

    const page = await browser.newPage();
    const { back, seen } = await signInAndConsent(page, authorizationUrl);
    expect(seen).toEqual({
      client: 'Test Assistant', redirectHost: new URL(callback.url).host, org: 'Grace Chapel (you are staff)',
      intent: 'people: Contacts, family links, households, custom fields, Welcome Desk, tags, segments',
      granted: ['platform:read', 'platform:write', 'people:read', 'people:write'],
    });
    expect(back.searchParams.get('state')).toBe(provider.lastState);
    expect(back.searchParams.get('iss')).toBe(harness.url);
    await page.close();

    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    const tokens = provider.tokens()!;
    expect(jose.decodeJwt(tokens.access_token)).toMatchObject({ aud: serverUrl.href, intent: 'people', sub: person.userId });

    const mcp = new McpClient({ name: 'browser-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['people_create_contact', 'platform_session_tools']));
    const session = await mcp.callTool({ name: 'platform_session_tools', arguments: {} });
    expect(session.structuredContent).toMatchObject({ credentialKind: 'oauth', intent: 'people', role: 'staff' });
    const created = await mcp.callTool({ name: 'people_create_contact', arguments: { firstName: 'Mary', lastName: 'Seacole' } });
    expect(created.isError).toBeFalsy();
    expect((created.structuredContent as any).contact.firstName).toBe('Mary');
    await mcp.close();

    // The same provider refreshes through auth() when asked again, rotating the refresh token.
    const before = tokens.refresh_token;
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.tokens()!.refresh_token).not.toBe(before);
  });

  it('lets a client that names no intent connect after a 401, with the person choosing the intent', async () => {
    const serverUrl = new URL(`${harness.url}/api/mcp`);
    const provider = new MemoryClientProvider(callback.url, capture);
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    const first = new McpClient({ name: 'browser-test', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    const page = await browser.newPage();
    const { back, seen } = await signInAndConsent(page, provider.authorizationUrl!, { chooseIntent: 'pastoral' });
    expect(seen.intent).toBe('pastoral: Notes, care timeline, follow-ups, community');
    expect(seen.granted).toEqual(['platform:read', 'platform:write', 'people:read', 'people:write', 'community:read', 'community:write']);
    expect(back.searchParams.get('iss')).toBe(harness.url);
    await page.close();

    await transport.finishAuth(back.searchParams.get('code')!);
    const mcp = new McpClient({ name: 'browser-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const session = await mcp.callTool({ name: 'platform_session_tools', arguments: {} });
    expect(session.structuredContent).toMatchObject({ credentialKind: 'oauth', intent: 'pastoral' });
    expect((session.structuredContent as any).scopes).not.toContain('people:safeguarding');
    await mcp.close();
  });

  describe('logs', () => {
    it('never held a secret (tokens, codes, passwords, API keys, cookies)', () => {
      console.info('output capture check');
      expect(capture.text).toContain('output capture check');
      expect(capture.secretCount).toBeGreaterThan(10);
      expect(capture.leaks()).toEqual([]);
    });
  });
});
