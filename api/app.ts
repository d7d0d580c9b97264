import { recordRefusedWrite } from './refusal-trail';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Client } from '@temporalio/client';
import type { Pool } from '../db/pool';
import { agentBridgeRouter } from './bridges/agent';
import { dashboardApiRouter } from './bridges/dashboard-api';
import { chatBridgeRouter } from './bridges/chat';
import { discoveryRouter } from './discovery/router';
import { mcpRouter } from './mcp/router';
import { createOAuthServer, type OAuthRateLimits } from './oauth/router';
import { bearerAuth, invokeScopeChallenge, mcpScopeChallenge } from './middleware/auth';
import { originGuard } from './middleware/origin';
import { ToolCaller } from './tool-caller';
import { ApprovalCaller } from './approvals';
import { dashboardRouter } from './dashboard/approvals';
import { dashboardPagesRouter } from './dashboard/pages';
import { teamInviteRouter } from './pages/team-invite';
import { mediaRouter } from './media/router';
import { CODEC_PATH, temporalCodecRouter } from './codec/router';
import { TOOL_TASK_QUEUE } from '../core/workflow-ids';
import { MAX_ARGS_BYTES, MAX_BODY_BYTES, describeBytes } from '../core/payload-limits';
import { MODULES } from '../modules';
import type { ModuleWebhook, WebhookDeps } from '../modules/module';
import { errorFields, log } from '../core/log';
import { payloadCodec } from '../temporal/client';
import { checkPayloadKey } from '../temporal/payload-key-check';
import { CallProgressFeed } from '../temporal/call-progress-relay';

export interface AppOptions {
  pool: Pool;
  temporal: Client;
  taskQueue?: string;
  /** Set when `temporal` runs on the NativeConnection of a worker in this process (see ToolCaller). */
  eagerStart?: boolean;
  /** Browser origins allowed besides loopback (DNS-rebinding protection). */
  allowedOrigins?: string[];
  /**
   * The public base URL (https://steward.example.org): the OAuth issuer, and with
   * /api/mcp the resource tokens are bound to. listen() fills in the bound URL.
   */
  publicUrl?: string;
  /** OAuth endpoint rate limits per IP; false turns them off (tests). */
  oauthRateLimits?: false | Partial<OAuthRateLimits>;
}

// Only for an app built without listen() and without publicUrl, which then cannot issue usable tokens.
const FALLBACK_PUBLIC_URL = 'http://localhost';

export function buildApp(options: AppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  const caller = new ToolCaller(options.temporal, options.taskQueue, options.eagerStart);
  caller.approvals = new ApprovalCaller(options.temporal, options.pool, options.taskQueue ?? TOOL_TASK_QUEUE);
  caller.progressFeed = new CallProgressFeed(options.pool);
  caller.approvals.progressFeed = caller.progressFeed;
  caller.refusalTrail = (principal, toolName, rawArgs, refusal) => recordRefusedWrite(options.pool, principal, toolName, rawArgs, refusal);
  const oauth = createOAuthServer({ pool: options.pool, publicUrl: options.publicUrl ?? FALLBACK_PUBLIC_URL, rateLimits: options.oauthRateLimits });
  const mcpAuth = [...bearerAuth(options.pool, oauth.mcpResourceMetadataUrl, oauth.provider), mcpScopeChallenge(caller, oauth.mcpResourceMetadataUrl)];
  const bridgeAuth = [...bearerAuth(options.pool, oauth.resourceMetadataUrl, oauth.provider), invokeScopeChallenge(caller, oauth.resourceMetadataUrl)];

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const { reasons, ...checks } = await readiness(options);
    const ready = checks.database && checks.temporal && checks.payloadKey;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks, ...(reasons.length > 0 ? { reasons } : {}) });
  });

  app.use(discoveryRouter(oauth.issuer));
  // Before the JSON parser: uploads PUT raw bytes.
  app.use(mediaRouter({ pool: options.pool }));
  app.use(['/api/mcp', '/api/agent'], originGuard(options.allowedOrigins ?? []));
  // Operators' Temporal codec server; before the 1 MB JSON parser, as it takes up to 4 MB of payloads.
  app.use(CODEC_PATH, temporalCodecRouter({ pool: options.pool, oauth: oauth.provider, publicOrigin: new URL(oauth.issuer).origin }));
  // Before the JSON parser: the OAuth endpoints parse their own bodies and answer parse errors in OAuth's shape.
  app.use(oauth.router);
  // Before the JSON parser: /api/mcp parses its own body and answers parse errors in JSON-RPC's shape.
  app.use(mcpRouter(caller, mcpAuth));
  // Before the JSON parser: provider webhooks are verified against their raw bytes.
  // Modules' signed inbound routes see the raw body they verify, so they come before the JSON parser.
  for (const webhook of MODULES.flatMap((module) => module.webhooks ?? [])) app.use(webhookHandler(webhook, { pool: options.pool, temporal: options.temporal, taskQueue: options.taskQueue ?? TOOL_TASK_QUEUE }));
  app.use(express.json({ limit: MAX_BODY_BYTES }));
  app.use(agentBridgeRouter(caller, bridgeAuth));
  app.use(dashboardApiRouter(caller, bridgeAuth, { pool: options.pool, origin: new URL(oauth.issuer).origin }));
  app.use(chatBridgeRouter(caller, bridgeAuth));
  app.use(dashboardRouter({ pool: options.pool, caller, origin: new URL(oauth.issuer).origin, signInLimiter: oauth.signInLimiter }));
  app.use(dashboardPagesRouter({ pool: options.pool, caller, origin: new URL(oauth.issuer).origin }));
  app.use(teamInviteRouter({ pool: options.pool, origin: new URL(oauth.issuer).origin, signInLimiter: oauth.signInLimiter }));

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ ok: false, error: { code: 'not_found', message: 'No such endpoint' } });
  });
  // Malformed JSON bodies and other request errors: a clear 400, never a stack trace.
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      res.status(413).json({ ok: false, error: { code: 'payload_too_large', message: `The body is larger than ${describeBytes(MAX_BODY_BYTES)}`, hint: `Tool arguments may be at most ${describeBytes(MAX_ARGS_BYTES)} of JSON; split the work into smaller calls.` } });
      return;
    }
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    const message = status === 500 ? 'Something went wrong on our side' : error.type === 'entity.parse.failed' ? 'Body is not valid JSON' : error.message;
    if (status === 500) log('error', 'request failed', errorFields(error));
    res.status(status).json({ ok: false, error: { code: status === 500 ? 'internal_error' : 'invalid_request', message } });
  });
  return { app, caller, oauth };
}

/** A module's webhook router, reached only by requests under the paths it declares, so no module answers another's. */
function webhookHandler(webhook: ModuleWebhook, deps: WebhookDeps): express.RequestHandler {
  const handler = webhook.router(deps);
  return (req, res, next) => (webhook.paths.some((prefix) => req.path.startsWith(prefix)) ? handler(req, res, next) : next());
}

async function readiness(options: AppOptions): Promise<{ database: boolean; temporal: boolean; payloadKey: boolean; reasons: string[] }> {
  const reasons: string[] = [];
  const [database, temporal] = await Promise.all([
    options.pool.query('SELECT 1').then(() => true, () => (reasons.push('The database does not answer'), false)),
    options.temporal.workflowService.getSystemInfo({}).then(() => true, () => (reasons.push('Temporal does not answer'), false)),
  ]);
  // The same key as every worker's, or no call this API starts could run (see temporal/payload-key-check.ts).
  let payloadKey = false;
  if (database) {
    const check = await checkPayloadKey(options.pool, payloadCodec().keyId).catch(() => undefined);
    payloadKey = check?.ok === true;
    if (check && !check.ok) reasons.push(check.reason);
    else if (!check) reasons.push('The payload key could not be checked (are migrations applied?)');
  }
  return { database, temporal, payloadKey, reasons };
}
