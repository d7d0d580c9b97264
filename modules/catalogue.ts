import type { Scope } from '../core/scopes';
import { registeredModules } from './registry';
import { toolsOf } from './module';
import { bridgeToolsOf } from './invoke';
import type { AnyRoute } from './routes';
import type { Playbook } from './playbooks';
import type { AnyTool } from './tool';
import { widgetUri, type WidgetDefinition } from './widget';

interface Catalogue {
  tools: readonly AnyTool[];
  byName: ReadonlyMap<string, AnyTool>;
  modules: string[];
  routes: readonly AnyRoute[];
  widgets: readonly WidgetDefinition[];
  /** Tool name to the URI of the widget that shows its result. */
  widgetUris: ReadonlyMap<string, string>;
}

// Built on first use: platform tools read the catalogue, and the registry imports them.
let built: Catalogue | undefined;
function catalogue(): Catalogue {
  // Rebuilt when a module was registered after the first build (tests of the kit register one).
  if (!built || built.modules.length !== registeredModules().length) {
    const modules = registeredModules();
    const tools = modules.flatMap((module) => [...toolsOf(module, modules), ...bridgeToolsOf(module, modules)]);
    const byName = new Map<string, AnyTool>();
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new Error(`Two tools are named ${tool.name}`);
      byName.set(tool.name, tool);
    }
    const routes = modules.flatMap((module) => module.routes);
    checkRoutes(routes, byName);
    const widgets = modules.flatMap((module) => module.widgets ?? []);
    built = { tools, byName, modules: modules.map((module) => module.name), routes, widgets, widgetUris: widgetUrisOf(widgets, byName) };
  }
  return built;
}

function checkRoutes(routes: readonly AnyRoute[], tools: ReadonlyMap<string, AnyTool>): void {
  const seen = new Set<string>();
  for (const route of routes) {
    // Two routes differing only in a parameter's name would be one route to a caller.
    const shape = `${route.method} ${route.path.replace(/\{[a-zA-Z]+\}/g, '{}')}`;
    if (seen.has(shape)) throw new Error(`Two routes are ${shape}`);
    seen.add(shape);
    if (route.curatedTool && !tools.has(route.curatedTool)) throw new Error(`Route ${route.method} ${route.path} names curated tool ${route.curatedTool}, which does not exist`);
  }
}

/** Checks every widget's tools exist and are shown by no other widget; maps each tool to its widget's URI. */
function widgetUrisOf(widgets: readonly WidgetDefinition[], tools: ReadonlyMap<string, AnyTool>): Map<string, string> {
  const ids = new Set<string>();
  const uris = new Map<string, string>();
  for (const widget of widgets) {
    if (ids.has(widget.id)) throw new Error(`Two widgets are named ${widget.id}`);
    ids.add(widget.id);
    for (const tool of widget.tools) {
      if (!tools.has(tool)) throw new Error(`Widget ${widget.id} names tool ${tool}, which does not exist`);
      // A tool's entry links one view: a host shows one.
      if (uris.has(tool)) throw new Error(`Tool ${tool} is shown by two widgets`);
      uris.set(tool, widgetUri(widget.id));
    }
  }
  return uris;
}

/** Every module's playbooks (MCP prompts), in registry order; names are unique. */
export function allPlaybooks(): readonly Playbook[] {
  const playbooks = registeredModules().flatMap((module) => module.playbooks ?? []);
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
  return /_invoke_(dashboard_)?api(_|$)/.test(name);
}
