import { POWERS, holdsPower } from '../core/intents';
import { allModules, allTools, permittedTools, widgetUriOf } from './catalogue';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from './schema';
import type { AnyTool } from './tool';
import { namedAccess, type ToolAccess } from './tool-catalogue';
import { LEGACY_RESOURCE_URI_KEY } from './widget';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** MCP hints follow the effect: reads are safe, sends reach the outside world. */
export function annotationsOf(tool: AnyTool): ToolAnnotations {
  return {
    title: tool.title,
    readOnlyHint: tool.effect === 'read',
    destructiveHint: tool.effect === 'read' ? false : tool.destructive ?? false,
    idempotentHint: tool.effect === 'read' ? true : tool.idempotent ?? false,
    openWorldHint: tool.effect === 'send',
  };
}

/**
 * A tool's link to the widget that shows its result (MCP Apps): `ui.resourceUri`, and the
 * same URI under the flat key hosts that predate `ui` read.
 */
function widgetMetaOf(tool: AnyTool): { _meta: Record<string, unknown> } | undefined {
  const resourceUri = widgetUriOf(tool.name);
  return resourceUri ? { _meta: { ui: { resourceUri }, [LEGACY_RESOURCE_URI_KEY]: resourceUri } } : undefined;
}

/**
 * A tools/list entry. It leaves out the output schema: an agent pays for the whole listing in its
 * context on every session, output schemas are about half of it, and a tool's result is still
 * structuredContent. platform_inspect_tools and the manifest give output schemas on demand.
 */
export function mcpToolOf(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool) as { type: 'object'; [key: string]: unknown },
    annotations: annotationsOf(tool),
    ...widgetMetaOf(tool),
  };
}

/** OpenAI function-calling format. */
export function openAiFunctionOf(tool: AnyTool) {
  return { type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: inputSchemaOf(tool) } };
}

export function httpMethodOf(tool: AnyTool): 'GET' | 'POST' {
  return tool.effect === 'read' ? 'GET' : 'POST';
}

export function manifestEntryOf(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    module: tool.module,
    scope: tool.scope,
    effect: tool.effect,
    method: httpMethodOf(tool),
    metered: tool.meter ? { feature: tool.meter.feature, units: tool.meter.units } : null,
    listed: tool.listed,
    inputSchema: inputSchemaOf(tool) as JsonSchema,
    outputSchema: outputSchemaOf(tool) as JsonSchema,
    annotations: annotationsOf(tool),
  };
}

/** Tools a surface shows: the listed ones by default, whole modules on request, or everything. */
export function selectTools(tools: readonly AnyTool[], toolsets: string[] | 'all' | 'default'): AnyTool[] {
  if (toolsets === 'all') return [...tools];
  if (toolsets === 'default') return tools.filter((tool) => tool.listed);
  const wanted = new Set(toolsets);
  return tools.filter((tool) => tool.listed || wanted.has(tool.module));
}

/** Parses `?toolsets=people,giving` / `all`; unknown names are reported, not ignored. */
export function parseToolsets(raw: unknown): { toolsets: string[] | 'all' | 'default'; unknown: string[] } {
  if (typeof raw !== 'string' || raw.trim() === '') return { toolsets: 'default', unknown: [] };
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.includes('all')) return { toolsets: 'all', unknown: [] };
  const modules = new Set(allModules());
  return { toolsets: names.filter((n) => modules.has(n)), unknown: names.filter((n) => !modules.has(n)) };
}

/**
 * A map that keeps at most `limit` entries, dropping the least recently used.
 * Surface caches are keyed by what a caller controls (its scopes), so they must
 * have a bound however many distinct keys callers send.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('BoundedCache limit must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }

  getOrCreate(key: K, make: () => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make();
      this.set(key, value);
    }
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * How many scope sets each surface cache keeps. Real deployments see a handful
 * (a few API-key profiles, the OAuth scope sets clients ask for); the bound only
 * stops a client that mints many distinct sets from growing memory without end.
 */
export const SURFACE_CACHE_LIMIT = 128;

/** A cache key for what a credential may see: its scopes, and the powers its intent carries (not the intent itself, so intents alike share an entry). */
function accessKeyOf(access: ToolAccess): string {
  const { scopes, intent } = namedAccess(access);
  return `${[...scopes].sort().join(' ')}|${POWERS.filter((power) => holdsPower({ intent }, power)).join(' ')}`;
}

/** An MCP tool entry with what toolset filtering needs beside it. */
interface ListedMcpTool {
  module: string;
  listed: boolean;
  tool: ReturnType<typeof mcpToolOf>;
}

const mcpToolsCache = new BoundedCache<string, ListedMcpTool[]>(SURFACE_CACHE_LIMIT);

/**
 * MCP tools/list entries for a credential's scopes and the requested toolsets.
 * Cached per scope set only, with toolsets applied to the cached array, so
 * `?toolsets=` combinations (2^modules of them) never become cache keys.
 */
export function mcpToolsFor(access: ToolAccess, toolsets: string[] | 'all' | 'default'): Array<ReturnType<typeof mcpToolOf>> {
  const entries = mcpToolsCache.getOrCreate(accessKeyOf(access), () => permittedTools(access)
    .map((tool) => ({ module: tool.module, listed: tool.listed, tool: mcpToolOf(tool) })));
  if (toolsets === 'all') return entries.map((entry) => entry.tool);
  if (toolsets === 'default') return entries.filter((entry) => entry.listed).map((entry) => entry.tool);
  const wanted = new Set(toolsets);
  return entries.filter((entry) => entry.listed || wanted.has(entry.module)).map((entry) => entry.tool);
}

/** Serialised `GET /api/agent/tools` bodies, per format and scope set: the same bytes every time, built once. */
const bridgeListCache = new BoundedCache<string, string>(SURFACE_CACHE_LIMIT);

export function bridgeToolsBodyFor(access: ToolAccess, format: 'openai' | 'manifest'): string {
  return bridgeListCache.getOrCreate(`${format}|${accessKeyOf(access)}`, () => {
    const tools = permittedTools(access);
    if (format === 'openai') return JSON.stringify({ tools: tools.map(openAiFunctionOf) });
    return JSON.stringify({ schemaVersion: '5', server: 'steward', counts: { permitted: tools.length, catalogue: catalogueCounts().tools }, tools: tools.map(manifestEntryOf) });
  });
}

/** Entries held by the surface caches; tests use it to show they stay bounded. */
export function surfaceCacheSizes(): { mcpTools: number; bridgeTools: number } {
  return { mcpTools: mcpToolsCache.size, bridgeTools: bridgeListCache.size };
}

/**
 * Converts every tool's schemas to JSON Schema now (about half a millisecond a
 * tool), so the first tools/list or manifest after a start does not pay for all of them.
 */
export function precomputeSchemas(): void {
  for (const tool of allTools()) {
    inputSchemaOf(tool);
    outputSchemaOf(tool);
  }
}

export function catalogueCounts() {
  const tools = allTools();
  return {
    tools: tools.length,
    listed: tools.filter((t) => t.listed).length,
    byModule: Object.fromEntries(allModules().map((m) => [m, tools.filter((t) => t.module === m).length])),
  };
}
