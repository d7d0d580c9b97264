import express, { type NextFunction, type Request, type Response } from 'express';
import { allRoutes } from '../../modules/catalogue';
import { bridgeToolNameOf } from '../../modules/invoke';
import { openApiDocument } from '../../modules/openapi';
import { routesAt } from '../../modules/routes';
import { statusOf, toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import { bearerOrSession } from '../dashboard/session-auth';
import type { Pool } from '../../db/pool';
import type { ToolCaller } from '../tool-caller';

type Json = Record<string, unknown>;

/**
 * The dashboard API over HTTP. Every request becomes a call of an invoke bridge tool, so it
 * is one durable workflow, idempotent (Idempotency-Key), audited and scope-checked exactly
 * like the same call made by an agent:
 * - `POST /api/agent/invoke-dashboard` `{method, path, query, body, actionSummary}` through
 *   `platform_invoke_dashboard_api_read/_write`;
 * - each catalogued route at its own path (`GET /api/people/tags`) through its module's pair,
 *   answering the route's response body; writes take their summary from `X-Action-Summary`;
 *   a bearer credential or the dashboard's own session (see api/dashboard/session-auth.ts);
 * - `GET /api/openapi.json`, the OpenAPI 3.1 document of every route (public, like discovery).
 */
export function dashboardApiRouter(caller: ToolCaller, auth: express.RequestHandler[], session: { pool: Pool; origin: string }) {
  const router = express.Router();

  router.get('/api/openapi.json', (_req: Request, res: Response) => {
    res.json(openApiDocument(session.origin));
  });

  router.post('/api/agent/invoke-dashboard', ...auth, async (req: Request, res: Response) => {
    try {
      const body = (req.body ?? {}) as Json;
      const method = typeof body.method === 'string' ? body.method.toUpperCase() : 'GET';
      const tool = method === 'GET' ? 'platform_invoke_dashboard_api_read' : 'platform_invoke_dashboard_api_write';
      const args = method === 'GET' ? { method, path: body.path, query: body.query } : { method, path: body.path, query: body.query, body: body.body, actionSummary: body.actionSummary };
      const result = await caller.call(principalOf(req), tool, args, { idempotencyKey: headerOf(req, 'idempotency-key') });
      res.json({ ok: true, result });
    } catch (error) {
      sendError(res, error);
    }
  });

  // Direct paths: only a request some route could answer goes on (next('route') skips the rest); anything else falls through to 404.
  const routeExists = (req: Request, _res: Response, next: NextFunction) => next(routesAt(allRoutes(), req.path).length > 0 ? undefined : 'route');
  // The dashboard itself calls them with its browser session; agents and integrations with a bearer credential.
  router.all('/api/*rest', routeExists, bearerOrSession(auth, session.pool, session.origin), (req: Request, res: Response) => callRoute(caller, req, res, req.path));

  return router;
}

async function callRoute(caller: ToolCaller, req: Request, res: Response, path: string): Promise<void> {
  try {
    const method = req.method.toUpperCase();
    const [match] = routesAt(allRoutes(), path);
    const tool = bridgeToolNameOf({ module: match!.route.module, surface: match!.route.surface, method: method === 'GET' ? 'GET' : 'POST' });
    const query = Object.fromEntries(Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    const args = method === 'GET'
      ? { method, path, query }
      : { method, path, query, body: req.body ?? {}, actionSummary: headerOf(req, 'x-action-summary') ?? `${method} ${path} through the dashboard API` };
    const result = await caller.call(principalOf(req), tool, args, { idempotencyKey: headerOf(req, 'idempotency-key') }) as { result: unknown };
    res.status(method === 'POST' ? 201 : 200).json(result.result);
  } catch (error) {
    sendError(res, error);
  }
}

function headerOf(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function sendError(res: Response, error: unknown): void {
  const body = toErrorBody(error);
  if (body.code === 'method_not_allowed' && Array.isArray(body.details?.allowed)) res.set('Allow', (body.details.allowed as string[]).join(', '));
  res.status(statusOf(body)).json({ ok: false, error: body });
}
