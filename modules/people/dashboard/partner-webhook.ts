import { Router } from 'express';
import { withTenantTransaction } from '../../../db/pool';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { orgIdOfShareToken, readShareByToken } from './shares';

export const PARTNER_SHARE_PATH = '/people/partner-share';

/**
 * Where a partner organisation reads a contact list shared with it: GET with the share's token as
 * the bearer. Read-only; 401 for a missing, wrong, revoked or expired token (the same answer for each,
 * so nothing is learnt by trying). Each read is recorded on the share's audit trail.
 */
function partnerShareRouter(deps: WebhookDeps): Router {
  const router = Router();
  router.get(PARTNER_SHARE_PATH, async (req, res, next) => {
    try {
      const token = /^Bearer\s+(\S{1,300})$/.exec(req.header('authorization') ?? '')?.[1];
      const orgId = token ? orgIdOfShareToken(token) : undefined;
      const shared = token && orgId ? await withTenantTransaction(deps.pool, orgId, (db) => readShareByToken(db, token)) : undefined;
      if (!shared) {
        return void res.status(401).json({ ok: false, error: { code: 'unauthorized', message: 'The share token is missing, wrong, revoked or expired' } });
      }
      res.setHeader('cache-control', 'no-store');
      res.json({ ok: true, readOnly: true, ...shared });
    } catch (error) {
      next(error);
    }
  });
  return router;
}

export const partnerShareWebhook: ModuleWebhook = { paths: [PARTNER_SHARE_PATH], router: partnerShareRouter };
