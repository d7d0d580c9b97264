import express, { type NextFunction, type Request, type Response } from 'express';
import rateLimit from 'express-rate-limit';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { StewardError } from '../../core/errors';
import type { Pool } from '../../db/pool';
import type { EncryptionCodec } from '../../temporal/payload-codec';
import { payloadCodec } from '../../temporal/client';
import { statusOf, toErrorBody } from '../errors';
import { codecCallerResolver, type CodecCaller } from './caller';
import { payloadsFromBody, payloadsToBody } from './wire';

/**
 * A Temporal remote codec server (`POST …/decode`, `POST …/encode`) for
 * operators: the Temporal UI and CLI send it the encrypted payloads they show,
 * and it decodes those of the caller's own organisation (named in each
 * payload's sealed clear metadata) for owners and admins. Everything else comes
 * back unchanged, still encrypted: un-attributed payloads, another
 * organisation's, and anything that is not ours. /encode seals for the caller's
 * organisation as an operator's payload, which Steward's workers refuse (see
 * EncryptionCodec), so the UI can show it back but cannot feed workflows with it.
 */

export const CODEC_PATH = '/api/temporal-codec';
const BODY_LIMIT = '4mb';
const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/**
 * STEWARD_CODEC_CORS_ORIGINS (comma-separated), else the origin of
 * TEMPORAL_UI_URL, else the dev server's UI on TEMPORAL_UI_PORT (8233) under
 * both loopback names.
 */
export function codecCorsOrigins(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = env.STEWARD_CODEC_CORS_ORIGINS?.split(',').map((o) => o.trim()).filter(Boolean);
  if (listed?.length) return listed.map((o) => new URL(o).origin);
  if (env.TEMPORAL_UI_URL) return [new URL(env.TEMPORAL_UI_URL).origin];
  const port = env.TEMPORAL_UI_PORT ?? '8233';
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** The endpoint to give the Temporal UI (`--ui-codec-endpoint`) or CLI (`--codec-endpoint`). */
export function codecEndpointUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}${CODEC_PATH}`;
}

export interface CodecRouterOptions {
  pool: Pool;
  /** Verifies OAuth access tokens (API keys are verified against the pool). */
  oauth?: OAuthTokenVerifier;
  /** Browser origins allowed by CORS; codecCorsOrigins() when omitted. */
  corsOrigins?: string[];
  /** The API's own public origin: a cookie-authenticated request may also come from it. */
  publicOrigin?: string;
  codec?: EncryptionCodec;
  /** Requests per IP per minute; false turns the limit off. */
  rateLimitPerMinute?: number | false;
}

function sendError(res: Response, error: unknown): void {
  const body = toErrorBody(error);
  if (body.code === 'unauthorized') res.set('WWW-Authenticate', 'Bearer');
  res.status(statusOf(body)).json({ ok: false, error: body });
}

/** CORS for the configured UI origins only: credentials allowed, so never a wildcard. */
function cors(origins: ReadonlySet<string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    const allowed = typeof origin === 'string' && origins.has(origin);
    if (allowed) {
      res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    }
    res.vary('Origin');
    if (req.method !== 'OPTIONS') return next();
    if (!allowed) {
      res.status(403).json({ ok: false, error: { code: 'forbidden', message: `Origin ${origin ?? '(none)'} may not use the codec endpoint` } });
      return;
    }
    res.set({
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'content-type, x-namespace, authorization',
      'Access-Control-Max-Age': '600',
    });
    // Chrome's private network access preflight, for a UI served from a public address.
    if (req.headers['access-control-request-private-network'] === 'true') res.set('Access-Control-Allow-Private-Network', 'true');
    res.status(204).end();
  };
}

function limiter(perMinute: number | false): express.RequestHandler {
  if (perMinute === false) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000, limit: perMinute, standardHeaders: 'draft-7', legacyHeaders: false,
    handler: (_req, res) => {
      res.status(429).json({ ok: false, error: { code: 'invalid_request', message: 'Too many codec requests; wait a minute and try again' } });
    },
  });
}

export function temporalCodecRouter(options: CodecRouterOptions): express.Router {
  const origins = new Set(options.corsOrigins ?? codecCorsOrigins());
  const cookieOrigins = new Set([...origins, ...(options.publicOrigin ? [options.publicOrigin] : [])]);
  const resolveCaller = codecCallerResolver({ pool: options.pool, oauth: options.oauth, cookieOrigins });
  const codec = () => options.codec ?? payloadCodec();
  const router = express.Router();

  router.use(cors(origins));
  router.use(limiter(options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE));

  /** Before the body is read, so an anonymous caller costs no parsing and learns nothing from validation errors. */
  const authenticate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      res.locals.codecCaller = await resolveCaller(req);
      next();
    } catch (error) {
      sendError(res, error);
    }
  };
  const handle = (work: (caller: CodecCaller, body: unknown) => ReturnType<typeof payloadsToBody>) => (req: Request, res: Response): void => {
    try {
      if (!req.is('application/json')) throw new StewardError('invalid_request', 'Send the payloads as application/json');
      res.json(work(res.locals.codecCaller as CodecCaller, req.body));
    } catch (error) {
      sendError(res, error);
    }
  };

  const json = express.json({ limit: BODY_LIMIT });
  router.post('/decode', authenticate, json, handle((caller, body) => payloadsToBody(
    payloadsFromBody(body).map((payload) => codec().openForOperator(payload, (orgId) => caller.readableOrgs.has(orgId)) ?? payload),
  )));
  router.post('/encode', authenticate, json, handle((caller, body) => payloadsToBody(
    payloadsFromBody(body).map((payload) => codec().sealForOperator(payload, caller.encodeOrg)),
  )));
  router.all(['/decode', '/encode'], (_req, res) => {
    res.set('Allow', 'POST, OPTIONS').status(405).json({ ok: false, error: { code: 'invalid_request', message: 'Use POST' } });
  });
  // Body too large or not JSON: the project's error shape, with the CORS headers already set.
  router.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!error.status || error.status >= 500) return next(error);
    const message = error.type === 'entity.too.large' ? `The body is larger than ${BODY_LIMIT}` : error.type === 'entity.parse.failed' ? 'Body is not valid JSON' : error.message;
    res.status(error.status).json({ ok: false, error: { code: 'invalid_request', message } });
  });
  return router;
}
