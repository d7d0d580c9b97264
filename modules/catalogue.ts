import type { Scope } from '../core/scopes';
import { peopleTools } from './people/tools';
import { platformTools } from './platform/tools';
import type { AnyTool } from './tool';

const TOOLS: readonly AnyTool[] = [...platformTools, ...peopleTools];
const BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** The single source for every surface: tools/list, manifests, search, inspect, session tools, counts. */
export function allTools(): readonly AnyTool[] {
  return TOOLS;
}

export function findTool(name: string): AnyTool | undefined {
  return BY_NAME.get(name);
}

/** Module names in catalogue order; they double as MCP toolset names. */
export function allModules(): string[] {
  return [...new Set(TOOLS.map((tool) => tool.module))];
}

export function permittedTools(scopes: readonly Scope[]): AnyTool[] {
  const held = new Set(scopes);
  return TOOLS.filter((tool) => held.has(tool.scope));
}

/** Names of the tools a credential with these scopes may call. */
export function permittedToolNames(scopes: readonly Scope[]): string[] {
  return permittedTools(scopes).map((tool) => tool.name);
}

/** Invoke-bridge tools call raw routes; platform_execute_workflow_tool must never run them. */
export function isInvokeApiTool(name: string): boolean {
  return /_invoke_(dashboard_)?api_/.test(name);
}
