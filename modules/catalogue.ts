import type { Scope } from '../core/scopes';
import { registeredModules } from './registry';
import { toolsOf } from './module';
import type { AnyTool } from './tool';

interface Catalogue {
  tools: readonly AnyTool[];
  byName: ReadonlyMap<string, AnyTool>;
  modules: string[];
}

// Built on first use: platform tools read the catalogue, and the registry imports them.
let built: Catalogue | undefined;
function catalogue(): Catalogue {
  // Rebuilt when a module was registered after the first build (tests of the kit register one).
  if (!built || built.modules.length !== registeredModules().length) {
    const modules = registeredModules();
    const tools = modules.flatMap((module) => toolsOf(module, modules));
    const byName = new Map<string, AnyTool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`Two tools are named ${tool.name}`);
      byName.set(tool.name, tool);
    }
    built = { tools, byName, modules: modules.map((module) => module.name) };
  }
  return built;
}

/** The single source for every surface: tools/list, manifests, search, inspect, session tools, counts. */
export function allTools(): readonly AnyTool[] {
  return catalogue().tools;
}

export function findTool(name: string): AnyTool | undefined {
  return catalogue().byName.get(name);
}

/** Module names in registry order; they double as MCP toolset names. */
export function allModules(): string[] {
  return catalogue().modules;
}

export function permittedTools(scopes: readonly Scope[]): AnyTool[] {
  const held = new Set(scopes);
  return catalogue().tools.filter((tool) => held.has(tool.scope));
}

/** Names of the tools a credential with these scopes may call. */
export function permittedToolNames(scopes: readonly Scope[]): string[] {
  return permittedTools(scopes).map((tool) => tool.name);
}

/** Invoke-bridge tools call raw routes; platform_execute_workflow_tool must never run them. */
export function isInvokeApiTool(name: string): boolean {
  return /_invoke_(dashboard_)?api_/.test(name);
}
