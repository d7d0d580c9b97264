import express, { type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ServerNotification, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalWaitOptions } from '../approvals';
import type { Principal } from '../../core/principal';
import { permittedTools } from '../../modules/catalogue';
import { mcpToolOf, parseToolsets, selectTools } from '../../modules/surfaces';
import { toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import type { ToolCaller } from '../tool-caller';

export const SERVER_INFO = { name: 'steward', version: '0.1.0' };

/** tools/list depends only on scopes and toolsets, so it is built once per combination. */
const listCache = new Map<string, Tool[]>();
function toolsListFor(principal: Principal, toolsets: ReturnType<typeof parseToolsets>['toolsets']): Tool[] {
  const key = `${[...principal.scopes].sort().join(' ')}|${Array.isArray(toolsets) ? [...toolsets].sort().join(',') : toolsets}`;
  let tools = listCache.get(key);
  if (!tools) {
    tools = selectTools(permittedTools(principal.scopes), toolsets).map(mcpToolOf) as Tool[];
    listCache.set(key, tools);
  }
  return tools;
}

function successResult(result: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result, null, 2) }],
    structuredContent: result as Record<string, unknown>,
  };
}

/** Errors travel as text JSON with isError; no structuredContent, which would have to match the output schema. */
function errorResult(error: unknown): CallToolResult {
  const body = toErrorBody(error);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: body }) }] };
}

function idempotencyKeyOf(req: Request, meta: Record<string, unknown> | undefined): string | undefined {
  const fromMeta = meta?.idempotencyKey;
  if (typeof fromMeta === 'string') return fromMeta;
  const header = req.headers['idempotency-key'];
  return typeof header === 'string' ? header : undefined;
}

/** Default time a tools/call waits for a human decision before answering approval_required (override: _meta.approvalWaitMs). */
const APPROVAL_WAIT_MS = Number(process.env.STEWARD_MCP_APPROVAL_WAIT_MS ?? 20_000);

/**
 * A call that waits for a person (a gated tool, awaitDecision) waits within the
 * caller's budget and, when the request carries a progressToken, sends
 * notifications/progress meanwhile so the client knows it is not hung.
 */
function approvalWaitOf(meta: Record<string, unknown> | undefined, send: (n: ServerNotification) => Promise<void>): ApprovalWaitOptions {
  const requested = meta?.approvalWaitMs;
  const approvalWaitMs = typeof requested === 'number' && Number.isFinite(requested) && requested >= 0 ? requested : APPROVAL_WAIT_MS;
  const progressToken = meta?.progressToken as string | number | undefined;
  if (progressToken === undefined) return { approvalWaitMs };
  return {
    approvalWaitMs,
    progressIntervalMs: Number(process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS ?? 2000),
    onProgress: (p) => send({ method: 'notifications/progress', params: { progressToken, progress: p.elapsedMs, total: p.budgetMs, message: p.message } })
      .catch(() => undefined),
  };
}

function buildServer(req: Request, principal: Principal, caller: ToolCaller): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: 'Steward runs a church or nonprofit. Start with platform_overview, find tools with platform_search_tools, and call them directly.',
  });
  const { toolsets } = parseToolsets(req.query.toolsets);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsListFor(principal, toolsets) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      const meta = request.params._meta as Record<string, unknown> | undefined;
      const key = idempotencyKeyOf(req, meta);
      return successResult(await caller.call(principal, request.params.name, request.params.arguments ?? {}, {
        idempotencyKey: key, ...approvalWaitOf(meta, extra.sendNotification),
      }));
    } catch (error) {
      return errorResult(error);
    }
  });
  return server;
}

/**
 * Stateless streamable HTTP: every POST gets a fresh server and transport, so
 * any API replica can answer any request and nothing is kept between them.
 */
export function mcpRouter(caller: ToolCaller, auth: express.RequestHandler[]) {
  const router = express.Router();
  router.post('/api/mcp', ...auth, async (req: Request, res: Response) => {
    const { unknown } = parseToolsets(req.query.toolsets);
    if (unknown.length > 0) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32602, message: `Unknown toolsets: ${unknown.join(', ')}` }, id: null });
      return;
    }
    const server = buildServer(req, principalOf(req), caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const methodNotAllowed = (_req: Request, res: Response) => {
    res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC messages' }, id: null });
  };
  router.get('/api/mcp', methodNotAllowed);
  router.delete('/api/mcp', methodNotAllowed);
  return router;
}
