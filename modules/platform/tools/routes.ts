import { z } from 'zod';
import { StewardError, quoteInput } from '../../../core/errors';
import { mayUseTool, type Catalogue, type ToolAccess } from '../../tool-catalogue';
import { bridgeToolNameOf } from '../../invoke';
import { routeKey, routePower, type AnyRoute } from '../../routes';
import { toolsFor } from '../../kit';
import { RouteSearchIndex } from '../tool-search';

const tools = toolsFor('platform', { read: 'platform:read', write: 'platform:write' });

/** What a caller needs to call a route: how it is named, what it needs, and which bridge tool reaches it. */
const routeSummary = z.object({
  method: z.string(), path: z.string(), module: z.string(), scope: z.string(), summary: z.string(),
  invokeTool: z.string().describe('The bridge tool that calls it'),
  curatedTool: z.string().nullable().describe('For writes a curated tool covers: call that tool, not the bridge'),
}).strict();

function describeRoute(route: AnyRoute) {
  return {
    method: route.method, path: route.path, module: route.module, scope: route.scope, summary: route.summary,
    invokeTool: bridgeToolNameOf(route), curatedTool: route.curatedTool ?? null,
  };
}

/** A route is callable with its scope and, for a settings route, an intent carrying power over the organisation. */
const callable = (route: AnyRoute, access: ToolAccess) => mayUseTool(access, { scope: route.scope, power: routePower(route) });

// One index per catalogue: built on the first search, and again only for a catalogue a module was registered into since.
const searchIndexes = new WeakMap<Catalogue, RouteSearchIndex>();
function routeSearchIndex(catalogue: Catalogue): RouteSearchIndex {
  let index = searchIndexes.get(catalogue);
  if (!index) searchIndexes.set(catalogue, index = new RouteSearchIndex(catalogue.routes));
  return index;
}

export const routeCatalogTool = tools.read('route_catalog', {
  title: 'Dashboard API route catalogue',
  description: 'Counts of the dashboard API routes per module and the invoke tool that reaches each module; with a module named, its routes this credential may call.',
  keywords: ['routes', 'endpoints', 'dashboard api', 'invoke'],
  examples: ['how many dashboard routes does each module have', 'which invoke tool reaches each area', 'how many API routes are there for giving', 'list the dashboard endpoints I can call for people', 'which invoke bridge do I use for the spaces module', 'overview of the raw API routes by area', 'what routes exist under ticketing', 'count of endpoints per module', 'route counts by module', "I'm building an integration and need every dashboard route for the guests area", 'which invoke tool covers ticketing routes?'],
  input: z.object({ module: z.string().trim().min(1).max(40).optional().describe('Module name, to list its routes') }),
  output: z.object({
    total: z.number().int(),
    modules: z.array(z.object({ module: z.string(), routes: z.number().int(), readTool: z.string().nullable(), writeTool: z.string().nullable() }).strict()),
    routes: z.array(routeSummary),
  }).strict(),
  run: async (ctx, input) => {
    const modules = ctx.catalogue.modules;
    if (input.module && !modules.includes(input.module)) {
      throw new StewardError('validation_failed', `Unknown module ${quoteInput(input.module)}`, { hint: `Modules: ${modules.join(', ')}` });
    }
    const routes = ctx.catalogue.routes;
    const toolNames = new Set(ctx.catalogue.byName.keys());
    return {
      total: routes.length,
      modules: modules.map((module) => ({
        module,
        routes: routes.filter((route) => route.module === module).length,
        readTool: toolNames.has(`${module}_invoke_api_read`) ? `${module}_invoke_api_read` : null,
        writeTool: toolNames.has(`${module}_invoke_api_write`) ? `${module}_invoke_api_write` : null,
      })),
      routes: input.module ? routes.filter((route) => route.module === input.module && callable(route, ctx.principal)).map(describeRoute) : [],
    };
  },
});

export const searchDashboardApiTool = tools.read('search_dashboard_api', {
  title: 'Search dashboard API routes',
  description: 'Natural-language search over the dashboard API routes this credential may call; returns each route with the invoke tool that calls it. Prefer a curated tool where one exists.',
  keywords: ['find a route', 'endpoint', 'dashboard api', 'invoke'],
  examples: ['is there a dashboard route for this screen', 'find the API endpoint for a report', 'find the dashboard endpoint that exports the rota', 'is there an API route for the giving settings page', 'search the raw routes for something about room bookings', 'which endpoint does the dashboard use to show the prayer wall', 'no proper tool for this, is there a dashboard route instead', 'look for the API call behind the livestream screen', 'find route for fund settings', "there's no tool for the hall floor plan screen, so find the dashboard API route behind it", 'is there an endpoint that lists streaming schedules?'],
  input: z.object({
    query: z.string().trim().min(1).max(300).describe('What you want to do, in plain words'),
    limit: z.number().int().min(1).max(25).default(10),
  }),
  output: z.object({ routes: z.array(routeSummary) }).strict(),
  run: async (ctx, input) => {
    const byKey = new Map(ctx.catalogue.routes.map((route) => [routeKey(route), route]));
    const allowed = new Set([...byKey.values()].filter((route) => callable(route, ctx.principal)).map(routeKey));
    return { routes: routeSearchIndex(ctx.catalogue).search(input.query, allowed, input.limit).map((key) => describeRoute(byKey.get(key)!)) };
  },
});
