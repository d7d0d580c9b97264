import express, { type Request, type Response } from 'express';
import { StewardError } from '../../core/errors';
import { bridgeToolsBodyFor } from '../../modules/surfaces';
import { statusOf, toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import type { ToolCaller } from '../tool-caller';

/** The function-calling bridge: OpenAI-format tool list and a plain JSON invoke endpoint. */
export function agentBridgeRouter(caller: ToolCaller, auth: express.RequestHandler[]) {
  const router = express.Router();

  router.get('/api/agent/tools', ...auth, (req: Request, res: Response) => {
    const format = req.query.format ?? 'openai';
    if (format !== 'openai' && format !== 'manifest') {
      res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'format must be openai (default) or manifest' } });
      return;
    }
    // The body depends only on the scopes and the format, so it is serialised once per scope set (bounded cache).
    res.type('application/json').send(bridgeToolsBodyFor(principalOf(req), format));
  });

  router.post('/api/agent/invoke', ...auth, async (req: Request, res: Response) => {
    try {
      const body = req.body as { tool?: unknown; arguments?: unknown } | undefined;
      if (!body || typeof body !== 'object' || typeof body.tool !== 'string') {
        throw new StewardError('validation_failed', 'Body must be JSON: {"tool": "<name>", "arguments": {...}}', {
          issues: [{ path: 'tool', message: 'required string' }],
        });
      }
      const key = req.headers['idempotency-key'];
      const result = await caller.call(principalOf(req), body.tool, body.arguments ?? {}, { idempotencyKey: typeof key === 'string' ? key : undefined });
      res.json({ ok: true, result });
    } catch (error) {
      const body = toErrorBody(error);
      res.status(statusOf(body)).json({ ok: false, error: body });
    }
  });

  return router;
}
