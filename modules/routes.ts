import { z } from 'zod';
import type { Power } from '../core/intents';
import { StewardError, type ErrorIssue } from '../core/errors';
import type { Scope } from '../core/scopes';
import type { AnyObjectSchema, AnyTool, PrepareDeps, ToolContext } from './tool';

/**
 * Dashboard API routes: the long tail of each module's resources (lists, gets, small edits,
 * reports) that has no curated tool. A route is one value declared beside the module's tools;
 * the invoke bridges (`<module>_invoke_api_read/_write`), `POST /api/agent/invoke-dashboard`,
 * the direct `/api/<module>/…` endpoints and `/api/openapi.json` are all built from these values.
 * A route runs inside the invoke tool's call, so it is as durable, audited and scoped as any tool.
 */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly RouteMethod[];

export interface RouteRequest<P extends AnyObjectSchema, Q extends AnyObjectSchema, B extends AnyObjectSchema> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface RouteDefinition<P extends AnyObjectSchema, Q extends AnyObjectSchema, B extends AnyObjectSchema, R extends AnyObjectSchema> {
  module: string;
  method: RouteMethod;
  /** Absolute, OpenAPI style: `/api/giving/funds/{fundId}`. */
  path: string;
  scope: Scope;
  /** One line for the route catalogue and search. */
  summary: string;
  params: P;
  query: Q;
  body: B;
  response: R;
  /** A curated tool covers this write: the invoke bridges refuse it (405 use_workflow_tool) and name the tool. */
  curatedTool?: string;
  /**
   * Which bridge family reaches it besides the module's own pair and the dashboard pair:
   * `settings` routes are also reached by platform_settings_invoke_api_*, `portal` routes (the member
   * portal's administration: invites, moderation, capture sessions) by platform_portal_invoke_api_*;
   * `operator` routes (the installation's operator, across organisations) only by platform_admin_invoke_api_*.
   * `ai` routes (the AI studio: drafts written by the AI provider) also by platform_ai_invoke_api_*.
   */
  surface: RouteSurface;
  /** Absent only on a write a curated tool covers: the route is catalogued so callers learn of the tool, and never runs. */
  run?: (ctx: ToolContext, request: RouteRequest<P, Q, B>) => Promise<z.input<R>>;
  /**
   * Work before the bridge's transaction opens (a call to an outside service, such as the AI
   * provider), after the route's scope is checked; `run` finds its result in `ctx.prepared`.
   */
  prepare?: (request: RouteRequest<P, Q, B>, deps: PrepareDeps) => Promise<unknown>;
}

export const ROUTE_SURFACES = ['dashboard', 'settings', 'portal', 'operator', 'ai'] as const;
export type RouteSurface = (typeof ROUTE_SURFACES)[number];

/** The settings surface (team, API keys, agents, the organisation's settings) is power over the organisation, whichever bridge reaches it. */
export function routePower(route: Pick<AnyRoute, 'surface'>): Power | undefined {
  return route.surface === 'settings' ? 'organisation' : undefined;
}

export type AnyRoute = RouteDefinition<AnyObjectSchema, AnyObjectSchema, AnyObjectSchema, AnyObjectSchema>;

const EMPTY = z.object({}).strict();

type RouteSpec<P extends AnyObjectSchema, Q extends AnyObjectSchema, B extends AnyObjectSchema, R extends AnyObjectSchema> = {
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  scope?: Scope;
  surface?: RouteSurface;
  prepare?: RouteDefinition<P, Q, B, R>['prepare'];
} & ({ curatedTool: string; run?: undefined } | { curatedTool?: undefined; run: NonNullable<RouteDefinition<P, Q, B, R>['run']> });

/**
 * Route declarations for one module: `routes.get('funds/{fundId}', {...})` is
 * `GET /api/<module>/funds/{fundId}`, with the module's read scope for GET and its write scope
 * otherwise, unless the route names another. Every `{name}` in the path must be a key of `params`.
 */
export function routesFor(module: string, scopes: { read: Scope; write: Scope }) {
  const declare = (method: RouteMethod) =>
    <P extends AnyObjectSchema = typeof EMPTY, Q extends AnyObjectSchema = typeof EMPTY, B extends AnyObjectSchema = typeof EMPTY, R extends AnyObjectSchema = AnyObjectSchema>(
      relativePath: string, spec: RouteSpec<P, Q, B, R>): AnyRoute => {
      const route = {
        module, method, path: `/api/${module}/${relativePath}`.replace(/\/$/, ''),
        scope: spec.scope ?? (method === 'GET' ? scopes.read : scopes.write),
        summary: spec.summary,
        params: (spec.params ?? EMPTY) as P, query: (spec.query ?? EMPTY) as Q, body: (spec.body ?? EMPTY) as B,
        response: spec.response, curatedTool: spec.curatedTool, surface: spec.surface ?? 'dashboard', run: spec.run, prepare: spec.prepare,
      } satisfies RouteDefinition<P, Q, B, R>;
      checkRoute(route as unknown as AnyRoute);
      return route as unknown as AnyRoute;
    };
  return { get: declare('GET'), post: declare('POST'), put: declare('PUT'), patch: declare('PATCH'), delete: declare('DELETE') };
}

function checkRoute(route: AnyRoute): void {
  if (!/^\/api\/[a-z_]+(\/([a-z0-9_-]+|\{[a-zA-Z]+\}))*$/.test(route.path)) throw new Error(`Route path ${route.path} is not /api/<module>/<segments>`);
  const named = pathParameters(route.path);
  const declared = Object.keys(route.params.shape);
  if ([...named].sort().join() !== [...declared].sort().join()) {
    throw new Error(`Route ${route.method} ${route.path} names parameters [${named}] but declares [${declared}]`);
  }
  if (route.method === 'GET' && Object.keys(route.body.shape).length > 0) throw new Error(`Route GET ${route.path} cannot take a body`);
  if (route.method === 'GET' && route.curatedTool) throw new Error(`Route GET ${route.path}: only writes are sent to a curated tool`);
}

/**
 * A read route that is a read tool: the tool's answer schema, and the tool run with the route's
 * path and query values as its input, so the route and the tool cannot drift apart (the same input
 * checks and defaults, the same answer).
 */
export function readVia(tool: AnyTool) {
  const inputOf = ({ params, query }: { params?: object; query?: object }) => tool.input.parse({ ...params, ...query });
  return {
    response: tool.output as z.ZodObject,
    run: async (ctx: ToolContext, request: { params?: object; query?: object }) => tool.run(ctx, inputOf(request)) as Promise<never>,
    // A tool that calls an outside service first (a postcode lookup) does so before the bridge's transaction, as it does when called itself.
    ...(tool.prepare ? { prepare: async (request: { params?: object; query?: object }, deps: PrepareDeps) => tool.prepare!(inputOf(request), deps) } : {}),
  };
}

/**
 * A write route that a curated tool does: catalogued (and in the OpenAPI document) with the tool's
 * input as its body, less the values the path carries, and the tool's answer; the invoke bridges
 * refuse it with use_workflow_tool naming the tool, which alone carries its approvals, follow-ups
 * and timeline entries.
 */
export function curatedVia(tool: AnyTool, ...pathKeys: string[]) {
  const input = tool.input as z.ZodObject;
  for (const key of pathKeys) if (!(key in input.shape)) throw new Error(`${tool.name} takes no ${key} for a route path to carry`);
  return {
    body: (pathKeys.length > 0 ? input.omit(Object.fromEntries(pathKeys.map((key) => [key, true])) as Record<string, true> & Record<number, never>) : input) as z.ZodObject,
    response: tool.output as z.ZodObject,
    curatedTool: tool.name,
  };
}

export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([a-zA-Z]+)\}/g)].map((match) => match[1]!);
}

/** `METHOD /path/{param}`: how a route is named in errors, the catalogue and search. */
export const routeKey = (route: Pick<AnyRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

export interface RouteMatch {
  route: AnyRoute;
  params: Record<string, string>;
}

/**
 * The route a concrete path reaches, any method: fixed segments must be equal and each
 * `{param}` takes one non-empty segment. A fixed segment wins over a parameter
 * (`/funds/summary` before `/funds/{fundId}`).
 */
export function routesAt(routes: readonly AnyRoute[], path: string): RouteMatch[] {
  const segments = splitPath(path);
  if (!segments) return [];
  const matches: Array<RouteMatch & { fixed: number }> = [];
  for (const route of routes) {
    const pattern = route.path.split('/').slice(1);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let fixed = 0;
    const same = pattern.every((part, index) => {
      const value = segments[index]!;
      const name = /^\{([a-zA-Z]+)\}$/.exec(part)?.[1];
      if (name) {
        params[name] = value;
        return true;
      }
      fixed += 1;
      return part === value;
    });
    if (same) matches.push({ route, params, fixed });
  }
  const best = Math.max(...matches.map((match) => match.fixed));
  return matches.filter((match) => match.fixed === best).map(({ route, params }) => ({ route, params }));
}

/** Path segments, decoded; undefined for a path no route could have (not under /api, empty or undecodable segments). */
function splitPath(path: string): string[] | undefined {
  const bare = path.split('?')[0]!.replace(/\/$/, '');
  if (!bare.startsWith('/api/')) return undefined;
  try {
    const segments = bare.split('/').slice(1).map((segment) => decodeURIComponent(segment));
    return segments.every((segment) => segment.length > 0 && segment.length <= 200) ? segments : undefined;
  } catch {
    return undefined;
  }
}

/** Finds the route for a method and path, or the stable error a caller can act on. */
export function resolveRoute(routes: readonly AnyRoute[], method: string, path: string, searchHint: string): RouteMatch {
  const candidates = routesAt(routes, path);
  if (candidates.length === 0) {
    throw new StewardError('not_found', `No dashboard API route matches ${quoteSafe(path)}`, { hint: searchHint });
  }
  const match = candidates.find((candidate) => candidate.route.method === method);
  if (!match) {
    throw new StewardError('method_not_allowed', `${quoteSafe(path)} does not answer ${quoteSafe(method)}`, {
      details: { allowed: candidates.map((candidate) => candidate.route.method) },
      hint: `Allowed: ${candidates.map((candidate) => candidate.route.method).join(', ')}.`,
    });
  }
  return match;
}

const quoteSafe = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);

/** Parses the three parts of a request with the route's schemas; issues name `params.x`, `query.x` or `body.x`. */
export function parseRouteRequest(route: AnyRoute, raw: { params: unknown; query: unknown; body: unknown }): RouteRequest<AnyObjectSchema, AnyObjectSchema, AnyObjectSchema> {
  const issues: ErrorIssue[] = [];
  const part = (name: 'params' | 'query' | 'body', schema: AnyObjectSchema, value: unknown) => {
    const parsed = schema.safeParse(value ?? {});
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) issues.push({ path: [name, ...issue.path.map(String)].join('.'), message: issue.message });
    return {};
  };
  const request = {
    params: part('params', route.params, raw.params),
    query: part('query', route.query, raw.query),
    body: part('body', route.body, raw.body),
  };
  if (issues.length > 0) {
    throw new StewardError('validation_failed', `Invalid request for ${routeKey(route)}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
      issues, hint: 'platform_search_dashboard_api shows each route\'s parameters, or see /api/openapi.json.',
    });
  }
  return request;
}

/** Query values arrive as text; these read them as the route's types, bounded like every input. */
export const queryValue = {
  integer: (min: number, max: number) => z.coerce.number().int().min(min).max(max),
  boolean: () => z.enum(['true', 'false']).transform((value) => value === 'true'),
  /** Ids as one comma-separated value (`a,b,c`), each a UUID, at most `max`. */
  uuids: (max: number) => z.string().max(37 * max).transform((value) => value.split(',').map((id) => id.trim()).filter((id) => id.length > 0))
    .pipe(z.array(z.uuid()).min(1).max(max)),
};
