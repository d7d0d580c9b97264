import express, { type Request, type Response } from 'express';
import { StewardError } from '../../core/errors';
import { permittedTools } from '../../modules/catalogue';
import { catalogueCounts, manifestEntryOf, openAiFunctionOf } from '../../modules/surfaces';
import { statusOf, toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import type { ToolCaller } from '../tool-caller';

/** The function-calling bridge: OpenAI-format tool list and a plain JSON invoke endpoint. */
export function agentBridgeRouter(caller: ToolCaller, auth: express.RequestHandler[]) {
  const router = express.Router();

  router.get('/api/agent/tools', ...auth, (req: Request, res: Response) => {
    const tools = permittedTools(principalOf(req).scopes);
    if (req.query.format === 'manifest') {
      res.json({ schemaVersion: '5', server: 'steward', counts: { permitted: tools.length, catalogue: catalogueCounts().tools }, tools: tools.map(manifestEntryOf) });
      return;
    }
    if (req.query.format !== undefined && req.query.format !== 'openai') {
      res.status(400).json({ ok: false, error: { code: 'validation_failed', message: 'format must be openai (default) or manifest' } });
      return;
    }
    res.json({ tools: tools.map(openAiFunctionOf) });
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
