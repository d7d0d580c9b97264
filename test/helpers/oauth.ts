import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { format } from 'node:util';

/** A PKCE pair: the verifier stays with the client, the S256 challenge goes to /oauth/authorize. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Everything the process prints while a suite runs (console, stdout, stderr),
 * plus every secret the suite handled, so the last test can prove that no
 * secret was ever logged.
 */
export class OutputCapture {
  private chunks: string[] = [];
  private readonly secrets = new Set<string>();
  private restorers: Array<() => void> = [];

  start(): this {
    const record = (text: string) => this.chunks.push(text);
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        record(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      this.restorers.push(() => { stream.write = original as typeof stream.write; });
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      const original = console[method];
      console[method] = (...args: unknown[]) => {
        record(format(...args));
        original.apply(console, args);
      };
      this.restorers.push(() => { console[method] = original; });
    }
    return this;
  }

  stop(): void {
    for (const restore of this.restorers.reverse()) restore();
    this.restorers = [];
  }

  /** Remembers a secret (and returns it) so leaks() can look for it. */
  secret<T extends string | undefined>(value: T): T {
    if (value && value.length >= 8) this.secrets.add(value);
    return value;
  }

  get text(): string {
    return this.chunks.join('');
  }

  get secretCount(): number {
    return this.secrets.size;
  }

  /** The secrets that appear in the captured output, shortened so a failure does not print them whole. */
  leaks(): string[] {
    const text = this.text;
    return [...this.secrets].filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 6)}…`);
  }
}

/** A loopback redirect target that records what the authorization server sends back. */
export class CallbackServer {
  readonly hits: URL[] = [];
  private waiters: Array<(url: URL) => void> = [];

  private constructor(private readonly server: http.Server, readonly url: string) {}

  static async start(path = '/callback'): Promise<CallbackServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const callback = new CallbackServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', callback.url);
      if (url.pathname === path) {
        callback.hits.push(url);
        for (const waiter of callback.waiters.splice(0)) waiter(url);
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Connected</title><p id="done">You can close this window.</p>');
    });
    return callback;
  }

  next(): Promise<URL> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Reads a hidden input's value from one of our pages. */
export function hiddenInput(html: string, name: string): string | undefined {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return match?.[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export function errorCodeOf(html: string): string | undefined {
  return /data-error="([^"]+)"/.exec(html)?.[1];
}

/** The Chromium this machine has (installed by `npm run setup`), with flags that keep it quiet and offline. */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface AuthorizeOptions {
  intent?: string;
  scope?: string;
  state?: string;
  redirectUri?: string | null;
  org?: string;
  /** Chosen on the intent chooser when the request names none. */
  chooseIntent?: string;
  decision?: 'allow' | 'deny';
}

/**
 * Drives the authorization server over plain HTTP, through the same sign-in and
 * consent pages a browser sees (the browser test drives them in Chromium).
 */
export class OAuthDriver {
  constructor(readonly baseUrl: string, private readonly capture?: OutputCapture) {}

  private keep<T extends string | undefined>(value: T): T {
    return this.capture ? this.capture.secret(value) : value;
  }

  async register(metadata: unknown): Promise<HttpResult> {
    const response = await fetch(`${this.baseUrl}/api/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
    });
    const body = await response.json();
    this.keep(body.client_secret);
    return { status: response.status, headers: response.headers, body };
  }

  async registerClient(redirectUri: string, extra: Record<string, unknown> = {}): Promise<RegisteredClient> {
    const { status, body } = await this.register({
      client_name: 'Test Assistant', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...extra,
    });
    if (status !== 201) throw new Error(`registration failed: ${JSON.stringify(body)}`);
    return body as RegisteredClient;
  }

  authorizeUrl(client: RegisteredClient, challenge: string, options: AuthorizeOptions & { params?: Record<string, string | null> } = {}): string {
    const params = new URLSearchParams({ response_type: 'code', client_id: client.client_id, code_challenge: challenge, code_challenge_method: 'S256' });
    const redirect = options.redirectUri === undefined ? client.redirect_uris[0] : options.redirectUri;
    if (redirect !== null) params.set('redirect_uri', redirect);
    if (options.intent) params.set('intent', options.intent);
    if (options.scope) params.set('scope', options.scope);
    params.set('state', options.state ?? randomBytes(8).toString('hex'));
    for (const [key, value] of Object.entries(options.params ?? {})) {
      if (value === null) params.delete(key);
      else params.set(key, value);
    }
    return `${this.baseUrl}/oauth/authorize?${params}`;
  }

  async get(url: string, cookie?: string): Promise<{ status: number; headers: Headers; html: string; location: string | null }> {
    const response = await fetch(url.startsWith('http') ? url : `${this.baseUrl}${url}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
  }

  async postForm(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; html: string; location: string | null }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams(form),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(this.baseUrl).origin, ...headers },
    });
    return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
  }

  /** Follows /oauth/authorize to the sign-in page and signs in; returns the session cookie and request id. */
  async signIn(authorizeUrl: string, user: { email: string; password: string }): Promise<{ cookie: string; requestId: string }> {
    this.keep(user.password);
    const start = await this.get(authorizeUrl);
    if (start.status !== 303 || !start.location?.startsWith('/oauth/sign-in?')) throw new Error(`authorize did not lead to sign-in: ${start.status} ${start.html.slice(0, 300)}`);
    const requestId = new URL(start.location, this.baseUrl).searchParams.get('request')!;
    const signIn = await this.postForm('/oauth/sign-in', { request: requestId, email: user.email, password: user.password });
    if (signIn.status !== 303) throw new Error(`sign-in failed: ${signIn.status} ${signIn.html.slice(0, 500)}`);
    const cookie = this.keep(signIn.headers.get('set-cookie')?.split(';')[0]);
    if (!cookie) throw new Error('sign-in set no cookie');
    return { cookie, requestId };
  }

  /** Shows the consent page (choosing an intent if asked) and answers it; returns where the browser is sent. */
  async consent(requestId: string, cookie: string, options: AuthorizeOptions = {}): Promise<{ location: URL; page: string }> {
    const query = new URLSearchParams({ request: requestId, ...(options.org ? { org: options.org } : {}), ...(options.chooseIntent ? { intent: options.chooseIntent } : {}) });
    const page = await this.get(`/oauth/consent?${query}`, cookie);
    if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.html.slice(0, 500)}`);
    const csrf = hiddenInput(page.html, 'csrf');
    if (!csrf) throw new Error(`not a consent page: ${page.html.slice(0, 500)}`);
    const answer = await this.postForm('/oauth/consent', {
      request: requestId, org: hiddenInput(page.html, 'org')!, intent: hiddenInput(page.html, 'intent')!, csrf, decision: options.decision ?? 'allow',
    }, { cookie });
    if (answer.status !== 303 || !answer.location) throw new Error(`consent failed: ${answer.status} ${answer.html.slice(0, 500)}`);
    const location = new URL(answer.location);
    this.keep(location.searchParams.get('code') ?? undefined);
    return { location, page: page.html };
  }

  /** The whole browser part: authorize → sign in → consent; returns the code and what came with it. */
  async authorize(client: RegisteredClient, user: { email: string; password: string }, options: AuthorizeOptions = {}) {
    const { verifier, challenge } = pkcePair();
    this.keep(verifier);
    const state = options.state ?? randomBytes(8).toString('hex');
    const { cookie, requestId } = await this.signIn(this.authorizeUrl(client, challenge, { ...options, state }), user);
    const { location, page } = await this.consent(requestId, cookie, options);
    return { code: location.searchParams.get('code') ?? '', state, location, verifier, cookie, page };
  }

  async token(form: Record<string, string>, basic?: { id: string; secret: string }): Promise<HttpResult> {
    const response = await fetch(`${this.baseUrl}/api/oauth/token`, {
      method: 'POST', body: new URLSearchParams(form),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(basic ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}` } : {}),
      },
    });
    const body = await response.json();
    this.keep(body.access_token);
    this.keep(body.refresh_token);
    return { status: response.status, headers: response.headers, body };
  }

  exchange(client: RegisteredClient, code: string, verifier: string, redirectUri: string | null = client.redirect_uris[0]): Promise<HttpResult> {
    return this.token({
      grant_type: 'authorization_code', client_id: client.client_id, code, code_verifier: verifier,
      ...(redirectUri !== null ? { redirect_uri: redirectUri } : {}),
      ...(client.client_secret ? { client_secret: client.client_secret } : {}),
    });
  }

  refresh(client: RegisteredClient, refreshToken: string): Promise<HttpResult> {
    return this.token({ grant_type: 'refresh_token', client_id: client.client_id, refresh_token: refreshToken, ...(client.client_secret ? { client_secret: client.client_secret } : {}) });
  }

  /** Signs in, consents and exchanges the code: a ready token set. */
  async tokensFor(client: RegisteredClient, user: { email: string; password: string }, options: AuthorizeOptions = {}) {
    const { code, verifier } = await this.authorize(client, user, options);
    const result = await this.exchange(client, code, verifier);
    if (result.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(result.body)}`);
    return result.body as { access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
  }
}
