import { allModules, allTools } from './catalogue';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from './schema';
import type { AnyTool } from './tool';

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

export function mcpToolOf(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool) as { type: 'object'; [key: string]: unknown },
    outputSchema: outputSchemaOf(tool) as { type: 'object'; [key: string]: unknown },
    annotations: annotationsOf(tool),
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

export function catalogueCounts() {
  const tools = allTools();
  return {
    tools: tools.length,
    listed: tools.filter((t) => t.listed).length,
    byModule: Object.fromEntries(allModules().map((m) => [m, tools.filter((t) => t.module === m).length])),
  };
}
