import { holdsPower } from '../core/intents';
import type { Principal } from '../core/principal';
import type { Scope } from '../core/scopes';
import { toolsOf, type ModuleDefinition } from './module';
import { bridgeToolsOf } from './invoke';
import type { AnyRoute } from './routes';
import type { AnyTool } from './tool';
import { widgetUri, type WidgetDefinition } from './widget';

/**
 * Everything the registered modules offer, checked once: what tools/list, manifests, search,
 * inspect, session tools and counts read. A tool that needs it gets it on its context
 * (`ctx.catalogue`) rather than importing it, so no module file imports the registry above it.
 */
export interface Catalogue {
  /** The modules it was built from, in registry order. */
  definitions: readonly ModuleDefinition[];
  tools: readonly AnyTool[];
  byName: ReadonlyMap<string, AnyTool>;
  /** Module names in registry order; they double as MCP toolset names. */
  modules: string[];
  routes: readonly AnyRoute[];
  widgets: readonly WidgetDefinition[];
  /** Tool name to the URI of the widget that shows its result. */
  widgetUris: ReadonlyMap<string, string>;
  /** The tools a credential with these scopes and intent may see and call. */
  permittedTools(access: ToolAccess): AnyTool[];
}

/**
 * What decides which tools a credential may see and call: its scopes, and its intent for tools
 * that exercise a power. A bare scope list stands for a credential without an intent (an API key).
 */
export type ToolAccess = Pick<Principal, 'scopes' | 'intent'> | readonly Scope[];

function accessOf(access: ToolAccess): { scopes: readonly Scope[]; intent: string | null } {
  return isScopeList(access) ? { scopes: access, intent: null } : access;
}

function isScopeList(access: ToolAccess): access is readonly Scope[] {
  return Array.isArray(access);
}

/** Whether a credential may see and call a tool: it holds the tool's scope and, for a tool that exercises a power, its intent carries that power. */
export function mayUseTool(access: ToolAccess, tool: Pick<AnyTool, 'scope' | 'power'>): boolean {
  const { scopes, intent } = accessOf(access);
  return scopes.includes(tool.scope) && holdsPower({ intent }, tool.power);
}

/** The same access with its parts named: a bare scope list has no intent. */
export function namedAccess(access: ToolAccess): { scopes: readonly Scope[]; intent: string | null } {
  return accessOf(access);
}

/** Builds and checks the catalogue of these modules: tool, route and widget names are unique and every reference resolves. */
export function buildCatalogue(modules: readonly ModuleDefinition[]): Catalogue {
  const tools = modules.flatMap((module) => [...toolsOf(module, modules), ...bridgeToolsOf(module, modules)]);
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`Two tools are named ${tool.name}`);
    byName.set(tool.name, tool);
  }
  const routes = modules.flatMap((module) => module.routes);
  checkRoutes(routes, byName);
  const widgets = modules.flatMap((module) => module.widgets ?? []);
  return {
    definitions: modules, tools, byName, modules: modules.map((module) => module.name), routes, widgets, widgetUris: widgetUrisOf(widgets, byName),
    permittedTools(access) {
      return tools.filter((tool) => mayUseTool(access, tool));
    },
  };
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
