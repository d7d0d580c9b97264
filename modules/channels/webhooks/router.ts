import express, { Router } from 'express';
import type { Client } from '@temporalio/client';
import type { Pool } from '../../../db/pool';
import type { ModuleWebhook } from '../../module';
import { WEBHOOK_PATHS } from '../delivery/links';
import { emailEventRoutes } from './email-events';
import { smsRoutes } from './sms';
import { unsubscribeRoutes } from './unsubscribe';
import { whatsappRoutes } from './whatsapp';

/**
 * Provider webhooks for the channels module, and the one-click unsubscribe page.
 *
 * Every webhook is verified before anything is read from it: Twilio-style `X-Twilio-Signature`
 * (SMS_AUTH_TOKEN) over the URL Steward published plus the sorted form parameters; Meta-style
 * `X-Hub-Signature-256` (WHATSAPP_APP_SECRET) over the raw body; Steward's email events
 * `X-Steward-Signature` (EMAIL_EVENTS_SECRET, timestamp within 5 minutes). A missing or wrong
 * signature is answered 401 and changes nothing; a secret that is not configured, 503.
 *
 * Replays: every accepted event is remembered (`channel_webhook_events`: provider + event id, e.g. a
 * message sid with its status). The same event again is answered 200 `{ ignored: 'replay' }` and
 * changes nothing: 200, because providers redeliver anything else. A status never moves a message
 * backwards (delivered stays delivered).
 */

export function channelsWebhookRouter(options: { pool: Pool; temporal?: Client }): Router {
  const router = Router();
  const context = { pool: options.pool, raw: express.raw({ type: () => true, limit: '256kb' }) };
  smsRoutes(router, context);
  whatsappRoutes(router, { ...context, temporal: options.temporal });
  emailEventRoutes(router, context);
  unsubscribeRoutes(router, context);
  return router;
}

/** The channels module's inbound routes, mounted by the kernel before the JSON parser (ModuleWebhook). */
export const channelsWebhooks: ModuleWebhook = {
  paths: ['/webhooks/channels/', `${WEBHOOK_PATHS.unsubscribe}/`],
  router: channelsWebhookRouter,
};
