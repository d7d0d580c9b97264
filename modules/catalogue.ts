import { MODULES } from './index';
import { metricCatalogue, type MetricCatalogue } from './metrics';
import type { Playbook } from './playbooks';
import type { AnyRoute } from './routes';
import type { AnyTool } from './tool';
import { buildCatalogue, type Catalogue, type ToolAccess } from './tool-catalogue';
import type { WidgetDefinition } from './widget';

export { buildCatalogue, type Catalogue } from './tool-catalogue';

// The process's catalogue, built on first use; rebuilt when a module was registered after it (tests of the kit register one).
let built: Catalogue | undefined;
/** The catalogue of every registered module: what the API and the worker hand to tools on their context. */
export function catalogue(): Catalogue {
  if (!built || built.modules.length !== MODULES.length) built = buildCatalogue([...MODULES]);
  return built;
}

/** Every module's playbooks (MCP prompts), in registry order; names are unique. */
export function allPlaybooks(): readonly Playbook[] {
  const playbooks = MODULES.flatMap((module) => module.playbooks ?? []);
  const names = new Set<string>();
  for (const playbook of playbooks) {
    if (names.has(playbook.name)) throw new Error(`Two playbooks are named ${playbook.name}`);
    names.add(playbook.name);
  }
  return playbooks;
}

/** Every module's dashboard API routes, in registry order: the invoke bridges, the route catalogue and /api/openapi.json. */
export function allRoutes(): readonly AnyRoute[] {
  return catalogue().routes;
}

/** The single source for every surface: tools/list, manifests, search, inspect, session tools, counts. */
export function allTools(): readonly AnyTool[] {
  return catalogue().tools;
}

/** Every module's in-chat widgets (MCP Apps), in registry order. */
export function allWidgets(): readonly WidgetDefinition[] {
  return catalogue().widgets;
}

/** The `ui://` URI of the widget that shows this tool's result, if one does. */
export function widgetUriOf(toolName: string): string | undefined {
  return catalogue().widgetUris.get(toolName);
}

export function findTool(name: string): AnyTool | undefined {
  return catalogue().byName.get(name);
}

/** Module names in registry order; they double as MCP toolset names. */
export function allModules(): string[] {
  return catalogue().modules;
}

export function permittedTools(access: ToolAccess): AnyTool[] {
  return catalogue().permittedTools(access);
}

/** Names of the tools a credential with these scopes and intent may call. */
export function permittedToolNames(access: ToolAccess): string[] {
  return permittedTools(access).map((tool) => tool.name);
}

/** Invoke-bridge tools call raw routes; platform_execute_workflow_tool must never run them. */
export function isInvokeApiTool(name: string): boolean {
  return /_invoke_(dashboard_)?api(_|$)/.test(name);
}

/** Every registered metric (platform_analytics_query's), with its module, and the promised ones not built yet. */
export function allMetrics(): MetricCatalogue {
  return metricCatalogue(MODULES);
}
