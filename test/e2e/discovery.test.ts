import { SERVICE_DESCRIPTION } from '../../api/discovery/documents';
import { chromium } from 'playwright-core';
import { z } from 'zod';
import { INTENTS } from '../../core/intents';
import { ALL_SCOPES } from '../../core/scopes';
import { allModules, allPlaybooks, allRoutes, allTools } from '../../modules/catalogue';
import { MODULES } from '../../modules';
import { PLAN_CODES } from '../../modules/module';
import { Harness } from '../helpers/harness';
import { CHROMIUM } from '../helpers/oauth';

/**
 * The MCP registry's server.json rules (schema 2025-12-11) that our record must meet: a
 * reverse-DNS name with one slash, a short description, a version, and remotes with a
 * transport type and URL.
 */
const registryServer = z.object({
  $schema: z.string().regex(/\/schemas\/2025-12-11\/server\.schema\.json$/),
  name: z.string().min(3).max(200).regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  title: z.string().min(1).max(100).optional(),
  description: z.string().min(1).max(100),
  version: z.string().min(1).max(255).regex(/^\d+\.\d+\.\d+$/),
  websiteUrl: z.url().optional(),
  remotes: z.array(z.object({
    type: z.enum(['streamable-http', 'sse']), url: z.url(),
    headers: z.array(z.object({
      name: z.string(), description: z.string(), isRequired: z.boolean(), isSecret: z.boolean(), value: z.string().optional(),
      variables: z.record(z.string(), z.object({ description: z.string(), isRequired: z.boolean(), isSecret: z.boolean() }).strict()).optional(),
    }).strict()).optional(),
  }).strict()).min(1),
  _meta: z.object({ 'io.modelcontextprotocol.registry/publisher-provided': z.record(z.string(), z.unknown()) }).strict().optional(),
}).strict();

/** Public discovery documents: served without a credential, every count and list equal to the catalogue's. */
describe('discovery documents', () => {
  let harness: Harness;
  const get = async (path: string) => {
    const response = await fetch(`${harness.url}${path}`);
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const json = async (path: string) => JSON.parse((await get(path)).text);

  beforeAll(async () => {
    harness = await Harness.start();
  });
  afterAll(async () => harness?.close());

  it('llms.txt, ai.txt and llms-full.txt name every tool with its scope, every route and every playbook', async () => {
    const short = await get('/llms.txt');
    expect(short.status).toBe(200);
    expect(short.type).toContain('text/plain');
    expect(short.text).toContain(`${allTools().length} tools in ${allModules().length} modules`);
    expect(short.text).toContain(`${harness.url}/api/mcp`);
    expect((await get('/ai.txt')).text).toBe(short.text);

    const full = (await get('/llms-full.txt')).text;
    for (const tool of allTools()) expect(full).toContain(`- ${tool.name} [${tool.scope}, ${tool.effect}]`);
    for (const route of allRoutes()) expect(full).toContain(`${route.method} ${route.path} [${route.scope}]`);
    for (const playbook of allPlaybooks()) expect(full).toContain(`- ${playbook.name}:`);
  });

  it('the agent card, server.json and app submission are well formed and point at this server', async () => {
    const card = await json('/.well-known/agent.json');
    expect(card.protocols).toEqual(['mcp-streamable-http', 'oauth2-pkce', 'openai-functions', 'agent-chat']);
    expect(card.endpoints.mcp).toBe(`${harness.url}/api/mcp`);
    expect(card.capabilities.tools).toBe(allTools().length);
    expect(card.authentication.oauth2.authorizationServerMetadata).toBe(`${harness.url}/.well-known/oauth-authorization-server`);
    // The metadata it names is really there.
    expect((await get('/.well-known/oauth-authorization-server')).status).toBe(200);

    const server = await json('/.well-known/mcp/server.json');
    expect(registryServer.safeParse(server).error?.issues ?? []).toEqual([]);
    expect(server.remotes).toEqual([{
      type: 'streamable-http', url: `${harness.url}/api/mcp`,
      headers: [{
        name: 'Authorization', description: expect.stringContaining('sk_live_'), isRequired: true, isSecret: true, value: 'Bearer {api_key}',
        variables: { api_key: { description: expect.stringContaining('API key'), isRequired: true, isSecret: true } },
      }],
    }]);
    // Every {variable} the header's value names is declared.
    for (const name of server.remotes[0].headers[0].value.match(/\{([a-z_]+)\}/g)!.map((v: string) => v.slice(1, -1))) expect(server.remotes[0].headers[0].variables[name]).toBeDefined();
    // The full description, beyond the registry's 100 characters, travels as publisher-provided metadata.
    expect(server._meta['io.modelcontextprotocol.registry/publisher-provided'].description).toBe(SERVICE_DESCRIPTION);
    expect(SERVICE_DESCRIPTION.length).toBeGreaterThan(100);
    // Served on 127.0.0.1 there is no domain to reverse, so it is named as a local deployment, not by its address.
    expect(server.name).toBe('local.steward/steward');
    // The description is whole words within the registry's 100 characters.
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.description).toMatch(/[a-z]\.$/);
    expect(server.version).toMatch(/^5\.0\./);
    // The check above can fail: a record without remotes is refused.
    expect(registryServer.safeParse({ ...server, remotes: [] }).success).toBe(false);

    const submission = await json('/.well-known/mcp/chatgpt-app-submission.json');
    expect(submission.mcp.url).toBe(`${harness.url}/api/mcp`);
    expect(submission.tools.total).toBe(allTools().length);
    expect(submission.tools.readOnly + submission.tools.writes).toBe(allTools().length);
  });

  it('the hub links every document, each of which answers', async () => {
    const hub = await json('/api/discovery');
    expect(hub.counts.tools).toBe(allTools().length);
    expect(hub.counts.routes).toBe(allRoutes().length);
    expect(hub.counts.playbooks).toBe(allPlaybooks().length);
    for (const url of Object.values(hub.documents) as string[]) {
      expect(url.startsWith(harness.url)).toBe(true);
      const answer = await get(url.slice(harness.url.length));
      expect([url, answer.status]).toEqual([url, 200]);
    }
  });

  it('the MCP manifest (version 5) lists every tool, toolset, scope and intent', async () => {
    const manifest = await json('/api/mcp/manifest');
    expect(manifest.manifestVersion).toBe('5');
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(allTools().map((tool) => tool.name));
    expect(manifest.toolsets.map((toolset: { name: string }) => toolset.name)).toEqual(allModules());
    expect(manifest.toolsets.reduce((sum: number, toolset: { tools: number }) => sum + toolset.tools, 0)).toBe(allTools().length);
    expect(manifest.scopes).toEqual([...ALL_SCOPES]);
    expect(manifest.intents.map((intent: { id: string }) => intent.id)).toEqual(INTENTS.map((intent) => intent.id));
  });

  it('the pages for people: guide, help, pricing from the plans, connect with the MCP address', async () => {
    const guide = await get('/agents');
    expect(guide.type).toContain('text/html');
    expect(guide.text).toContain('platform_search_dashboard_api');
    expect((await get('/help')).text).toContain('id="privacy"');

    const pricingPage = await fetch(`${harness.url}/pricing`);
    // Cacheable like every discovery page: the header is set before the page goes, not after (which threw and left no-store).
    expect(pricingPage.headers.get('cache-control')).toBe('public, max-age=300');
    const pricing = await pricingPage.text();
    const registered = new Set(MODULES.map((module) => module.name));
    const meters = MODULES.flatMap((module) => module.meters ?? []);
    const offered = meters.filter((meter) => !meter.forModule || registered.has(meter.forModule));
    const toCome = meters.filter((meter) => meter.forModule && !registered.has(meter.forModule));
    expect(offered.length).toBeGreaterThan(0);
    // Every module of the product is registered now: nothing is held back as "to come".
    expect(toCome.map((meter) => meter.feature)).toEqual([]);
    for (const meter of offered) {
      expect(pricing).toContain(`<th>${meter.feature.replace(/_/g, ' ')}`);
      for (const plan of PLAN_CODES) expect(pricing).toContain(`<td>${meter.allowances[plan].toLocaleString('en-GB')}</td>`);
    }
    // Features of modules not built yet are not offered on the public page.
    for (const meter of toCome) expect(pricing).not.toContain(`<th>${meter.feature.replace(/_/g, ' ')}`);

    const front = await fetch(`${harness.url}/`);
    expect(front.status).toBe(200);
    expect(front.headers.get('content-type')).toContain('text/html');
    const frontText = await front.text();
    for (const link of ['/connect', '/agents', '/dashboard/sign-in', '/llms.txt', '/api/openapi.json', '/.well-known/mcp/server.json']) expect(frontText).toContain(`href="${link}"`);
    expect(frontText).toContain(`${harness.url}/api/mcp`);
    const connect = await get('/connect');
    expect(connect.text).toContain(`<code id="mcp-url">${harness.url}/api/mcp</code>`);
    expect(connect.text).toContain('/embed/steward-connect.js');
  });

  it('the embeddable script puts a working Connect button on a page that includes it', async () => {
    const script = await get('/embed/steward-connect.js');
    expect(script.type).toContain('javascript');
    // The church's page is intercepted (nothing listens there), so Chromium counts it as public and would refuse it a
    // script from the test server's loopback address; a real church site loads it from Steward's public address.
    const browser = await chromium.launch({ ...CHROMIUM, args: [...CHROMIUM.args, '--disable-features=LocalNetworkAccessChecks'] });
    try {
      const page = await browser.newPage();
      await page.route('http://localhost:1/church', (route) => route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html><body><p id="before">Our church</p><script src="${harness.url}/embed/steward-connect.js"></script><p id="after">More</p></body></html>`,
      }));
      await page.goto('http://localhost:1/church');
      const link = page.locator('.steward-connect a');
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(`${harness.url}/connect`);
      expect(await link.textContent()).toBe('Connect to Steward');
      // Inserted right after its own script tag, before the rest of the page.
      expect(await page.evaluate(() => document.querySelector('.steward-connect')?.nextElementSibling?.id)).toBe('after');
    } finally {
      await browser.close();
    }
  });
});
