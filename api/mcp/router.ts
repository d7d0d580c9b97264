import express, { type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ServerNotification, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalWaitOptions } from '../approvals';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_ROUTES } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import { approvalTaskStore, taskIdFor } from './tasks';
import { hasScope, type Principal } from '../../core/principal';
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

/** Tools whose result can wait on a person: they may run as MCP tasks (tools/call with `task`). */
const TASK_TOOLS = new Set([...Object.entries(APPROVAL_ROUTES).filter(([, route]) => route.kind === 'gated').map(([name]) => name), 'people_create_outreach']);

function withTaskSupport(tools: Tool[]): Tool[] {
  return tools.map((tool) => (TASK_TOOLS.has(tool.name) ? { ...tool, execution: { taskSupport: 'optional' as const } } : tool));
}

/**
 * tools/call with `task`: the call creates the proposal or outreach item and
 * answers at once with a task whose id is the approval workflow's id; the
 * client polls tasks/get and fetches tasks/result once a person has decided.
 */
async function callAsTask(caller: ToolCaller, principal: Principal, name: string, args: unknown, key: string | undefined) {
  if (!TASK_TOOLS.has(name) || !caller.approvals) {
    throw new McpError(ErrorCode.InvalidParams, `${name} does not run as a task; call it without "task"`);
  }
  // The task is followed with tasks/get, which for a message needs people:read: refuse before anything is queued.
  if (name === 'people_create_outreach' && !hasScope(principal, 'people:read')) {
    throw new McpError(ErrorCode.InvalidParams, `${name} runs as a task only for a credential holding people:read; call it without "task"`);
  }
  const store = approvalTaskStore(caller.approvals.pool, principal);
  let details: Record<string, unknown> | undefined;
  try {
    const taskArgs = name === 'people_create_outreach' ? { ...(args as Record<string, unknown>), awaitDecision: true } : args;
    const result = await caller.call(principal, name, taskArgs, { idempotencyKey: key, approvalWaitMs: 0 });
    const item = (result as { item?: { id?: string } }).item;
    details = item?.id ? { outreachId: item.id } : undefined;
  } catch (error) {
    if (!(error instanceof StewardError) || error.code !== 'approval_required') return errorResult(error);
    details = error.details;
  }
  const taskId = taskIdFor(details);
  const task = taskId ? await store.getTask(taskId) : null;
  if (!task) throw new McpError(ErrorCode.InternalError, 'The task could not be created');
  return { task };
}

function buildServer(req: Request, principal: Principal, caller: ToolCaller): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...(caller.approvals ? { tasks: { requests: { tools: { call: {} } } } } : {}) },
    instructions: 'Steward runs a church or nonprofit. Start with platform_overview, find tools with platform_search_tools, and call them directly.',
    ...(caller.approvals ? { taskStore: approvalTaskStore(caller.approvals.pool, principal) } : {}),
  });
  const { toolsets } = parseToolsets(req.query.toolsets);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: withTaskSupport(toolsListFor(principal, toolsets)) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    if (request.params.task) return callAsTask(caller, principal, request.params.name, request.params.arguments ?? {}, idempotencyKeyOf(req, meta));
    try {
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
