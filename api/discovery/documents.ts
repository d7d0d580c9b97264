import { INTENTS } from '../../core/intents';
import { ALL_SCOPES } from '../../core/scopes';
import { allModules, allPlaybooks, allRoutes, allTools, allWidgets } from '../../modules/catalogue';
import { PLAN_CODES } from '../../modules/module';
import { registeredModules } from '../../modules/registry';
import { API_KEY_PREFIX } from '../../core/principal';
import { routeKey } from '../../modules/routes';
import { firstSentence } from '../../modules/tool';
import { catalogueCounts, manifestEntryOf } from '../../modules/surfaces';
import { WIDGET_MIME_TYPE, widgetUri } from '../../modules/widget';

/**
 * The public discovery documents (spec sections 1 and 9), every figure and list computed from
 * the catalogue so they can never disagree with what the server serves. `base` is the public
 * URL without a trailing slash (PUBLIC_URL, or the bound address).
 */

export const SERVICE_NAME = 'Steward';
/** The registry's description: at most 100 characters, whole words. */
export const SERVICE_SUMMARY = 'Church and nonprofit operations for AI agents: people, pastoral care, giving and messaging.';
export const SERVICE_DESCRIPTION = 'Church and nonprofit operations for AI agents: people and pastoral care, giving, messaging and more, every action a durable, audited workflow with human approval where a person must decide.';
export const PROTOCOLS = ['mcp-streamable-http', 'oauth2-pkce', 'openai-functions', 'agent-chat'] as const;
/** Interface description and manifest versions (spec 9); the registry record is 5.0.x. */
export const INTERFACE_VERSION = '5';
export const REGISTRY_VERSION = '5.0.0';
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export function endpointsOf(base: string) {
  return {
    mcp: `${base}/api/mcp`,
    mcpManifest: `${base}/api/mcp/manifest`,
    invoke: `${base}/api/agent/invoke`,
    invokeDashboard: `${base}/api/agent/invoke-dashboard`,
    tools: `${base}/api/agent/tools`,
    chat: `${base}/api/agent/chat`,
    openapi: `${base}/api/openapi.json`,
    discovery: `${base}/api/discovery`,
    oauthProtectedResource: `${base}/.well-known/oauth-protected-resource`,
    oauthAuthorizationServer: `${base}/.well-known/oauth-authorization-server`,
    oauthIntents: `${base}/api/oauth/intents`,
  };
}

export function counts() {
  const tools = catalogueCounts();
  return { tools: tools.tools, listedByDefault: tools.listed, routes: allRoutes().length, playbooks: allPlaybooks().length, modules: allModules().length, toolsByModule: tools.byModule };
}

/** The short index an agent reads first: what Steward is, how to connect, how to find things. */
export function llmsTxt(base: string): string {
  const c = counts();
  const endpoints = endpointsOf(base);
  return [
    `# ${SERVICE_NAME}`,
    '',
    `> ${SERVICE_DESCRIPTION}`,
    '',
    `${c.tools} tools in ${c.modules} modules (${c.listedByDefault} listed by default), ${c.routes} dashboard API routes, ${c.playbooks} playbooks.`,
    '',
    '## Connect',
    `- MCP (streamable HTTP): ${endpoints.mcp}`,
    `- Function calling: ${endpoints.tools} and POST ${endpoints.invoke}`,
    `- Chat bridge: POST ${endpoints.chat}`,
    `- Auth: OAuth 2.1 with PKCE (${endpoints.oauthAuthorizationServer}) or an API key as a Bearer token`,
    '',
    '## Find what to call',
    '1. platform_overview to orient.',
    '2. platform_search_tools for a workflow tool, or platform_search_dashboard_api for a route.',
    '3. Call the tool directly, or <module>_invoke_api_read / _write for a route.',
    '',
    '## More',
    `- Every tool, route and playbook: ${base}/llms-full.txt`,
    `- Discovery hub: ${endpoints.discovery}`,
    `- Agent card: ${base}/.well-known/agent.json`,
    `- Guide for agent builders: ${base}/agents`,
    '',
  ].join('\n');
}

/** Every tool with its scope and one line, every route and every playbook. */
export function llmsFullTxt(base: string): string {
  const lines = [llmsTxt(base), '## Tools', ''];
  for (const module of allModules()) {
    const tools = allTools().filter((tool) => tool.module === module);
    if (tools.length === 0) continue;
    lines.push(`### ${module} (${tools.length})`);
    for (const tool of tools) lines.push(`- ${tool.name} [${tool.scope}, ${tool.effect}]: ${firstSentence(tool.description)}`);
    lines.push('');
  }
  lines.push('## Dashboard API routes', '');
  for (const route of allRoutes()) lines.push(`- ${routeKey(route)} [${route.scope}]: ${route.summary}${route.curatedTool ? ` (use ${route.curatedTool})` : ''}`);
  lines.push('', '## Playbooks (MCP prompts)', '');
  for (const playbook of allPlaybooks()) lines.push(`- ${playbook.name}: ${playbook.description} Tools: ${playbook.tools.join(', ')}.`);
  lines.push('');
  return lines.join('\n');
}

/** An agent card: who this is, where to call it, how to authenticate, which protocols it speaks. */
export function agentCard(base: string) {
  const endpoints = endpointsOf(base);
  return {
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    url: base,
    version: INTERFACE_VERSION,
    protocols: [...PROTOCOLS],
    endpoints: { mcp: endpoints.mcp, functions: endpoints.tools, invoke: endpoints.invoke, chat: endpoints.chat, openapi: endpoints.openapi, discovery: endpoints.discovery },
    authentication: {
      schemes: ['oauth2', 'bearer'],
      oauth2: { authorizationServerMetadata: endpoints.oauthAuthorizationServer, protectedResourceMetadata: endpoints.oauthProtectedResource, pkce: 'S256', intents: endpoints.oauthIntents },
      apiKey: { header: 'Authorization', format: 'Bearer <key>' },
    },
    capabilities: { tools: counts().tools, routes: counts().routes, playbooks: counts().playbooks, humanApproval: true, durableCalls: true },
    documentation: { llms: `${base}/llms.txt`, guide: `${base}/agents`, connect: `${base}/connect` },
  };
}

/** The MCP registry's server.json record (schema 2025-12-11): one remote, streamable HTTP. */
export function mcpServerJson(base: string) {
  const host = new URL(base).hostname;
  return {
    $schema: SERVER_SCHEMA,
    name: `${registryNamespace(host)}/steward`,
    title: SERVICE_NAME,
    description: SERVICE_SUMMARY,
    version: REGISTRY_VERSION,
    websiteUrl: `${base}/agents`,
    remotes: [{
      type: 'streamable-http',
      url: endpointsOf(base).mcp,
      // Every call needs it: an API key, or the access token an OAuth client gets by signing a person in.
      headers: [{
        name: 'Authorization',
        description: `Bearer and a Steward API key (${API_KEY_PREFIX}…, made on the dashboard with only the scopes needed) or an OAuth access token`,
        isRequired: true, isSecret: true, value: 'Bearer {api_key}',
        variables: { api_key: { description: `A Steward API key (${API_KEY_PREFIX}…) or OAuth access token`, isRequired: true, isSecret: true } },
      }],
    }],
    // The registry keeps descriptions to 100 characters; the whole one travels as publisher-provided metadata.
    _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { description: SERVICE_DESCRIPTION, connectGuide: `${base}/connect` } },
  };
}

/**
 * Registry names are the reverse-DNS of a domain the publisher holds. A server reached by an IP
 * address or a single-label host (localhost) has none, so it is named as a local deployment.
 */
function registryNamespace(host: string): string {
  const isDomain = host.includes('.') && !/^[\d.]+$/.test(host) && !host.startsWith('[');
  return isDomain ? host.split('.').reverse().join('.') : 'local.steward';
}

/** What an app directory submission asks for: the server, its auth and what it may do. */
export function chatGptAppSubmission(base: string) {
  const endpoints = endpointsOf(base);
  return {
    schemaVersion: INTERFACE_VERSION,
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    mcp: { url: endpoints.mcp, transport: 'streamable-http' },
    auth: { type: 'oauth', authorizationServerMetadata: endpoints.oauthAuthorizationServer, pkce: 'S256', scopes: [...ALL_SCOPES] },
    tools: { total: counts().tools, readOnly: allTools().filter((tool) => tool.effect === 'read').length, writes: allTools().filter((tool) => tool.effect !== 'read').length },
    safety: 'Messages, money and permission changes wait for a person\'s approval; confidential pastoral records need the people:safeguarding scope.',
    links: { privacy: `${base}/help#privacy`, support: `${base}/help`, connect: `${base}/connect` },
  };
}

/** The hub linking every discovery document. */
export function discoveryHub(base: string) {
  return {
    name: SERVICE_NAME,
    version: INTERFACE_VERSION,
    protocols: [...PROTOCOLS],
    counts: counts(),
    endpoints: endpointsOf(base),
    documents: {
      llms: `${base}/llms.txt`, llmsFull: `${base}/llms-full.txt`, ai: `${base}/ai.txt`,
      agentCard: `${base}/.well-known/agent.json`, mcpServer: `${base}/.well-known/mcp/server.json`,
      chatgptAppSubmission: `${base}/.well-known/mcp/chatgpt-app-submission.json`, mcpManifest: `${base}/api/mcp/manifest`,
      openapi: `${base}/api/openapi.json`, guide: `${base}/agents`, help: `${base}/help`, pricing: `${base}/pricing`,
      connect: `${base}/connect`, embed: `${base}/embed/steward-connect.js`,
    },
    discoveryProcedure: ['platform_overview', 'platform_search_tools | platform_search_dashboard_api', '<tool> | <module>_invoke_api_read/_write'],
  };
}

/** The MCP manifest (version 5): every tool, the toolsets, scopes, intents and counts. */
export function mcpManifest(base: string) {
  const tools = allTools();
  return {
    manifestVersion: INTERFACE_VERSION,
    server: { name: 'steward', url: endpointsOf(base).mcp, transport: 'streamable-http' },
    counts: counts(),
    toolsets: registeredModules().map((module) => ({
      name: module.name, title: module.title, description: module.description,
      tools: tools.filter((tool) => tool.module === module.name).length,
      listedByDefault: tools.filter((tool) => tool.module === module.name && tool.listed).length,
    })),
    scopes: [...ALL_SCOPES],
    intents: INTENTS.map((intent) => ({ id: intent.id, purpose: intent.purpose, scopes: [...intent.scopes] })),
    playbooks: allPlaybooks().map((playbook) => ({ name: playbook.name, title: playbook.title, tools: [...playbook.tools] })),
    // In-chat views (MCP Apps resources) and the tools whose results they show.
    widgets: allWidgets().map((widget) => ({ uri: widgetUri(widget.id), title: widget.title, mimeType: WIDGET_MIME_TYPE, tools: [...widget.tools] })),
    tools: tools.map(manifestEntryOf),
  };
}

/** Plans and their allowances per metered feature, from the modules' meter declarations. */
export function plans() {
  const modules = registeredModules();
  const present = new Set(modules.map((module) => module.name));
  // A feature held for a module still to come is not offered yet.
  const meters = modules.flatMap((module) => (module.meters ?? []).filter((meter) => !meter.forModule || present.has(meter.forModule))
    .map((meter) => ({ module: meter.forModule ?? module.name, ...meter })));
  return PLAN_CODES.map((plan) => ({
    plan,
    allowances: meters.map((meter) => ({ feature: meter.feature, module: meter.module, limit: meter.allowances[plan], standing: Boolean(meter.standingCount) })),
  }));
}
