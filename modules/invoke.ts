import { z } from 'zod';
import { StewardError } from '../core/errors';
import { OPERATOR_SCOPE, type Scope } from '../core/scopes';
import { holdsPower, powerNotHeld, type Power } from '../core/intents';
import type { ModuleDefinition } from './module';
import { parseRouteRequest, resolveRoute, routeKey, routePower, WRITE_METHODS, type AnyRoute } from './routes';
import { defineTool, type AnyTool, type PrepareDeps, type ToolContext } from './tool';

/**
 * The invoke bridges of spec 4.2, built from the route declarations: for every module with
 * routes, `<module>_invoke_api_read` (GET only, the module's read scope) and
 * `<module>_invoke_api_write` (POST/PUT/PATCH/DELETE, its write scope, with a required
 * `actionSummary`); the platform adds `platform_invoke_dashboard_api_read/_write`, which reach
 * every module's routes, and a pair per route surface: `platform_settings_invoke_api_*` and
 * `platform_portal_invoke_api_*` and `platform_ai_invoke_api_*` (routes declared with `surface: 'settings'` / `'portal'` / `'ai'`). Each is an ordinary tool, so a bridge call is one durable workflow,
 * idempotent, audited and metered like any other; the route's own scope is checked as well.
 */

const SEARCH_HINT = 'platform_search_dashboard_api finds routes by what they do; platform_route_catalog lists them all.';
export const MAX_QUERY_PARAMETERS = 30;
export const MAX_BODY_FIELDS = 100;

const path = z.string().trim().min(5).max(500).regex(/^\/api\//, 'must start with /api/').describe('The route path with its parameters filled in, e.g. /api/giving/funds/3f…');
const query = z.record(z.string().min(1).max(64), z.string().max(500)).refine((value) => Object.keys(value).length <= MAX_QUERY_PARAMETERS, {
  message: `at most ${MAX_QUERY_PARAMETERS} query parameters`,
}).meta({ maxProperties: MAX_QUERY_PARAMETERS }).optional().describe('Query string parameters, as text');
const actionSummary = z.string().trim().min(1).max(500).describe('Plain-English summary of what this call does, shown to the person approving and kept with the call');

const readInput = z.object({
  method: z.literal('GET').default('GET').describe('Only GET: writes go through the _write bridge'),
  path,
  query,
});

const writeInput = z.object({
  method: z.enum(WRITE_METHODS),
  path,
  query,
  // Each route validates its body with its own bounded schema; the whole call is also bounded by the API's size limit.
  body: z.record(z.string().min(1).max(64), z.unknown()).refine((value) => Object.keys(value).length <= MAX_BODY_FIELDS, {
    message: `at most ${MAX_BODY_FIELDS} fields`,
  }).meta({ maxProperties: MAX_BODY_FIELDS }).optional().describe('JSON body of the request'),
  actionSummary,
});

const output = z.object({
  route: z.string().describe('The catalogued route that answered, METHOD /path/{param}'),
  result: z.record(z.string(), z.unknown()).describe("The route's response"),
}).strict();

/** Runs one route inside the bridge tool's call: the route is found, its scope checked, its request and response parsed. */
export async function invokeRoute(ctx: ToolContext, routes: readonly AnyRoute[], request: { method: string; path: string; query?: Record<string, string>; body?: Record<string, unknown> }) {
  const { route, params } = resolveRoute(routes, request.method, request.path, SEARCH_HINT);
  if (route.curatedTool && route.method !== 'GET') {
    throw new StewardError('use_workflow_tool', `${routeKey(route)} is done by the tool ${route.curatedTool}; the invoke bridge is the wrong tool for it. Nothing is waiting for review.`, {
      details: { tool: route.curatedTool }, hint: `Call ${route.curatedTool} instead.`,
    });
  }
  if (!ctx.principal.scopes.includes(route.scope)) {
    throw new StewardError('insufficient_scope', `${routeKey(route)} needs the scope ${route.scope}, which this credential does not hold`, {
      details: { requiredScope: route.scope }, hint: 'platform_session_tools lists what this credential can do.',
    });
  }
  const power = routePower(route);
  if (!holdsPower(ctx.principal, power)) throw powerNotHeld(routeKey(route), ctx.principal.intent, power!);
  const parsed = parseRouteRequest(route, { params, query: request.query, body: request.body });
  // A route without `run` is a GET-less curated write, refused above; the check keeps the type honest.
  if (!route.run) throw new StewardError('use_workflow_tool', `${routeKey(route)} is done by the tool ${route.curatedTool}`, { details: { tool: route.curatedTool } });
  const result = route.response.parse(await route.run(ctx, parsed));
  return { route: routeKey(route), result: result as Record<string, unknown> };
}

/**
 * A route's `prepare` step, run by the bridge before its transaction (an outside call is never made
 * inside one): the route found and its scope checked first, so a caller who may not use it causes
 * no outside call. Anything the route would refuse otherwise is left for `invokeRoute` to answer.
 */
export async function prepareRoute(routes: readonly AnyRoute[], request: { method: string; path: string; query?: Record<string, string>; body?: Record<string, unknown> }, deps: PrepareDeps): Promise<unknown> {
  let found: ReturnType<typeof resolveRoute>;
  try {
    found = resolveRoute(routes, request.method, request.path, SEARCH_HINT);
  } catch {
    return undefined;
  }
  const { route, params } = found;
  if (!route.prepare || !route.run || !deps.principal.scopes.includes(route.scope) || !holdsPower(deps.principal, routePower(route))) return undefined;
  return route.prepare(parseRouteRequest(route, { params, query: request.query, body: request.body }), deps);
}

function bridgePair(options: {
  module: string; prefix: string; scopes: { read: Scope; write: Scope }; routes: () => readonly AnyRoute[]; reach: string; power?: Power;
  /** Words and requests that find this pair in tool search, besides the generic ones. */
  find?: { keywords: string[]; readExamples: string[]; writeExamples: string[] };
}): AnyTool[] {
  const read = defineTool({
    name: `${options.prefix}_read`,
    module: options.module,
    title: `Read ${options.reach} (dashboard API)`,
    description: `Calls a catalogued GET route of ${options.reach} for what no curated tool covers (lists, details, reports). Find routes with platform_search_dashboard_api.`,
    keywords: ['invoke', 'route', 'dashboard', 'api', 'get', ...(options.find?.keywords ?? [])],
    ...(options.find ? { examples: options.find.readExamples } : {}),
    scope: options.scopes.read,
    power: options.power,
    effect: 'read',
    listed: false,
    input: readInput,
    output,
    prepare: async (input, deps) => prepareRoute(options.routes(), input, deps),
    run: async (ctx, input) => invokeRoute(ctx, options.routes(), input),
  });
  const write = defineTool({
    name: `${options.prefix}_write`,
    module: options.module,
    title: `Change ${options.reach} (dashboard API)`,
    description: `Calls a catalogued POST/PUT/PATCH/DELETE route of ${options.reach}. Where a curated tool exists it answers use_workflow_tool naming it: use that tool. Needs actionSummary.`,
    keywords: ['invoke', 'route', 'dashboard', 'api', 'post', 'patch', 'delete', ...(options.find?.keywords ?? [])],
    ...(options.find ? { examples: options.find.writeExamples } : {}),
    scope: options.scopes.write,
    power: options.power,
    effect: 'write',
    listed: false,
    input: writeInput,
    output,
    prepare: async (input, deps) => prepareRoute(options.routes(), input, deps),
    run: async (ctx, input) => invokeRoute(ctx, options.routes(), input),
  });
  return [read, write];
}

/**
 * The bridge tool that calls a route: its module's own pair (every module with a route has one),
 * or for the platform's routes the dashboard pair.
 */
export function bridgeToolNameOf(route: Pick<AnyRoute, 'module' | 'method' | 'surface'>): string {
  const suffix = route.method === 'GET' ? 'read' : 'write';
  if (route.surface === 'operator') return `platform_admin_invoke_api_${suffix}`;
  return route.module === 'platform' ? `platform_invoke_dashboard_api_${suffix}` : `${route.module}_invoke_api_${suffix}`;
}

/**
 * The bridge tools a module brings: its own pair when it declares routes, and for the platform
 * the pair over every module's routes.
 */
export function bridgeToolsOf(module: ModuleDefinition, modules: readonly ModuleDefinition[]): AnyTool[] {
  if (module.name === 'platform') {
    const platformScopes = { read: 'platform:read', write: 'platform:write' } as const;
    const everyRoute = () => modules.flatMap((each) => each.routes);
    return [
      // Operator routes reach across organisations: only their own pair, which only operator keys hold, reaches them.
      ...bridgePair({ module: 'platform', prefix: 'platform_invoke_dashboard_api', scopes: platformScopes, routes: () => everyRoute().filter((route) => route.surface !== 'operator'), reach: 'any module' }),
      ...bridgePair({
        module: 'platform', prefix: 'platform_admin_invoke_api', scopes: { read: OPERATOR_SCOPE, write: OPERATOR_SCOPE },
        routes: () => everyRoute().filter((route) => route.surface === 'operator'), reach: "the installation's operator routes (organisations, users, support, allowances; platform admins only)",
        find: {
          keywords: ['operator', 'platform admin', 'every organisation', 'support view', 'allowance'],
          readExamples: ['which churches are hosted on this installation', 'list every organisation with its plan and usage this month', "support view of St Mark's: owners, allowances and failed calls", 'which organisations is jo@example.org a member of', 'find a user across all organisations by sign-in email', 'operator report of refused calls for one organisation', 'how much has each hosted church used this month', 'look up an organisation for a support ticket'],
          writeExamples: ["raise the SMS allowance for St Mark's to 2000 a month", 'remove the custom email allowance for one hosted church', 'give a hosted organisation extra AI drafts this month', "as operator, set a church's monthly allowance for texts", "reset one organisation's allowance back to its plan", 'operator: lift the WhatsApp limit for a parish', 'set the sends allowance for organisation 42', "change a hosted church's metered allowance"],
        },
      }),
      ...bridgePair({
        module: 'platform', prefix: 'platform_settings_invoke_api', scopes: platformScopes,
        routes: () => modules.flatMap((each) => each.routes).filter((route) => route.surface === 'settings'), reach: 'organisation settings, team, API keys and agents', power: 'organisation',
        find: {
          keywords: ['organisation settings', 'api keys', 'date format', 'rename organisation'],
          readExamples: ['what date format is our organisation set to', 'which API keys do we have and when were they last used', 'what country and plan is our organisation on', 'show our organisation settings', 'what scopes does the website API key have', 'list the API keys without showing secrets', 'when was the rota app key last used', 'what name is the organisation registered under here'],
          writeExamples: ["rename the organisation to St Mark's Parish Church", 'change our date format to day/month/year', 'revoke the old website API key', 'delete the API key the previous treasurer made', 'switch dates to the British format', 'cancel the API key for the old rota app', 'correct the spelling of our church name in settings', 'kill the leaked API key now'],
        },
      }),
      // The AI studio (spec 4.2's platform_ai_invoke_api_*): drafts written by the AI provider, from whichever module declares ai routes.
      ...bridgePair({
        module: 'platform', prefix: 'platform_ai_invoke_api', scopes: platformScopes,
        routes: () => modules.flatMap((each) => each.routes).filter((route) => route.surface === 'ai'), reach: 'the AI studio (email campaigns and forms drafted in the brand voice, a campaign personalised per segment, a sermon\'s transcript turned into an email draft)',
        find: {
          keywords: ['ai studio', 'ai draft', 'write with ai', 'draft email', 'draft form', 'sermon to email', 'personalise campaign'],
          readExamples: ['what can the AI studio do', 'is an AI provider set up for writing drafts', 'can the AI draft emails for us yet', 'which setting switches on AI drafting', 'is AI writing available on our account', 'what kinds of drafts can the AI write for us', 'is the AI studio configured', 'check whether AI drafting is turned on'],
          writeExamples: ['get the AI to draft the Christmas invitation email', 'draft a sign-up form with AI', 'make an email out of the sermon video', 'rewrite the newsletter for the young families', 'AI-write a harvest supper invitation in our usual tone', 'have the AI make a volunteer sign-up form for the summer fete', "turn Sunday's sermon recording into an email to the congregation", 'AI version of the Advent campaign for the over-70s segment'],
        },
      }),
      // The member portal's administration (spec 4.2's platform_portal_invoke_api_*): whichever module declares portal routes.
      ...bridgePair({
        module: 'platform', prefix: 'platform_portal_invoke_api', scopes: platformScopes,
        routes: () => modules.flatMap((each) => each.routes).filter((route) => route.surface === 'portal'), reach: 'the member portal (invites, moderation, capture sessions)',
        find: {
          keywords: ['capture session', 'open kiosk', 'close kiosk', 'one portal invite'],
          readExamples: ['details of portal invite 12 for the Hendersons', 'one capture session and its sign-ups', 'show the foyer kiosk session by id', 'look at a single member portal invite', 'when does capture session 5 lock itself', 'delivery details for one portal invitation', 'how many signed up on kiosk session 3', 'open the record of one sign-up tablet session'],
          writeExamples: ["open a sign-up session on the foyer iPad for the newcomers' lunch", 'start a capture session for the Alpha launch night tablet', 'close the fete kiosk link for good', 'get a kiosk link for the welcome tablet, lock after 5 minutes', 'shut the sign-up tablet session now the event is over', 'set up a tablet to take sign-ups at the carol service', 'end capture session 4 so it takes no more names', 'new kiosk session for the harvest supper sign-ups'],
        },
      }),
    ];
  }
  if (module.routes.length === 0) return [];
  return bridgePair({ module: module.name, prefix: `${module.name}_invoke_api`, scopes: bridgeScopesOf(module), routes: () => module.routes, reach: `the ${module.title} module` });
}

/** A module's read and write scopes: `<module>:read`/`:write` when it has them, else the first of each it declares. */
function bridgeScopesOf(module: ModuleDefinition): { read: Scope; write: Scope } {
  const pick = (suffix: string) => module.scopes.find((scope) => scope === `${module.name}:${suffix}`) ?? module.scopes.find((scope) => scope.endsWith(`:${suffix}`));
  const read = pick('read');
  const write = pick('write');
  if (!read || !write) throw new Error(`Module ${module.name} declares routes but no read and write scopes for its invoke bridge`);
  return { read, write };
}
