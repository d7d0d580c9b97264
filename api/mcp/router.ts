import express, { type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, GetPromptRequestSchema, GetTaskPayloadRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema, type CallToolResult, type ServerNotification, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { gatedProposalIdOf, type ApprovalWaitOptions } from '../approvals';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { StewardError, httpStatusFor, quoteInput } from '../../core/errors';
import { approvalTaskStore, boundedTaskResult, taskIdFor } from './tasks';
import { toolErrorResult, toolResult } from './results';
import { forwardOnly } from '../../temporal/call-progress';
import { proposalProgressOf } from './proposal-progress';
import { bodyErrorOf, envelopeRefusal, mcpBodyParser } from './jsonrpc';
import { answerJsonPost } from './json-exchange';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { hasScope, type Principal } from '../../core/principal';
import { findTool } from '../../modules/catalogue';
import { playbookPrompt, promptsFor } from './prompts';
import { serveWidgets } from './resources';
import { mcpToolsFor, parseToolsets, precomputeSchemas } from '../../modules/surfaces';
import { taskOf } from '../../modules/tool';
import { toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import type { CallOptions, ToolCaller } from '../tool-caller';

export const SERVER_INFO = { name: 'steward', version: '0.1.0' };

/**
 * A Server otherwise builds its own Ajv instance (all formats, about half a millisecond)
 * for every POST, though it only validates elicitation answers, which Steward never asks for.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

type Toolsets = ReturnType<typeof parseToolsets>['toolsets'];

/** tools/list depends only on scopes and toolsets; entries are cached per scope set (bounded), see mcpToolsFor. */
function toolsListFor(principal: Principal, toolsets: Toolsets): Tool[] {
  return mcpToolsFor(principal, toolsets) as Tool[];
}

/** A thrown refusal or fault as a tool result (see toolErrorResult). */
function errorResult(error: unknown): CallToolResult {
  return toolErrorResult(toErrorBody(error));
}

/**
 * A task-mode call that fails before any task exists has no task to carry its
 * error, and the SDK refuses any other result for a task call: it becomes a
 * JSON-RPC error whose data keeps Steward's error body (code, message, hint),
 * -32602 when the caller can correct the call and -32603 when the fault is ours.
 */
function taskCallError(error: unknown): McpError {
  const body = toErrorBody(error);
  const code = httpStatusFor(body.code) >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(code, body.message, { error: body });
}

/** A tool that does not exist is a protocol error (the request names nothing callable), not a tool result. */
function unknownToolError(name: string): McpError {
  const error = new StewardError('unknown_tool', `There is no tool named ${quoteInput(name)}`, { hint: 'Find tools with platform_search_tools or platform_list_tools.' });
  return new McpError(ErrorCode.InvalidParams, error.message, { error: error.toBody() });
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
 * How long a call waits for a person unless it asks: a gated tool's call becomes a proposal an
 * owner or admin decides, seldom within seconds, so it answers approval_required (with the
 * proposal) at once; a call that asked to wait on a decision (awaitDecision) waits the default.
 */
function defaultWaitFor(toolName: string): number {
  return findTool(toolName)?.approval?.kind === 'gated' ? 0 : APPROVAL_WAIT_MS;
}

/**
 * A call that waits for a person (a gated tool, awaitDecision) waits within the
 * caller's budget and, when the request carries a progressToken, sends
 * notifications/progress meanwhile so the client knows it is not hung; a gated
 * tool's call goes on to say what was decided and how its action runs (./proposal-progress.ts).
 */
function approvalWaitOf(meta: Record<string, unknown> | undefined, send: (n: ServerNotification) => Promise<void>, toolName: string): ApprovalWaitOptions {
  const requested = meta?.approvalWaitMs;
  const approvalWaitMs = typeof requested === 'number' && Number.isFinite(requested) && requested >= 0 ? requested : defaultWaitFor(toolName);
  const progressToken = meta?.progressToken as string | number | undefined;
  if (progressToken === undefined) return { approvalWaitMs };
  const progressIntervalMs = Number(process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS ?? 2000);
  if (findTool(toolName)?.approval?.kind === 'gated') return { approvalWaitMs, progressIntervalMs, ...proposalProgressOf(progressToken, send) };
  return {
    approvalWaitMs,
    progressIntervalMs,
    // The same wait also goes out as a log message, for clients that show the logging capability's messages rather than progress.
    onProgress: (p) => Promise.all([
      send({ method: 'notifications/progress', params: { progressToken, progress: p.elapsedMs, total: p.budgetMs, message: p.message } }),
      send({ method: 'notifications/message', params: { level: 'info', logger: 'steward.approvals', data: { message: p.message, elapsedMs: p.elapsedMs, budgetMs: p.budgetMs } } }),
    ]).then(() => undefined, () => undefined),
  };
}

/**
 * A long call (an import, an export, a scan) says how far it has come: with a progressToken, each
 * report goes to the client as notifications/progress (progress in the tool's units, total when
 * known, and a line to show), in order and only ever increasing, as the protocol asks.
 */
function workProgressOf(meta: Record<string, unknown> | undefined, send: (n: ServerNotification) => Promise<void>): Pick<CallOptions, 'onWorkProgress'> {
  const progressToken = meta?.progressToken as string | number | undefined;
  if (progressToken === undefined) return {};
  let queue = Promise.resolve();
  return {
    onWorkProgress: forwardOnly((p) => {
      const params = { progressToken, progress: p.done, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message === undefined ? {} : { message: p.message }) };
      // One after another, so the client receives them in the order they were made.
      queue = queue.then(() => send({ method: 'notifications/progress', params })).catch(() => undefined);
    }),
  };
}

/** How a tool runs as an MCP task (tools/call with `task`), if its result can wait on a person: declared on the tool value. */
function taskOfName(name: string) {
  const tool = findTool(name);
  return tool && taskOf(tool);
}

function withTaskSupport(tools: Tool[]): Tool[] {
  return tools.map((tool) => (taskOfName(tool.name) ? { ...tool, execution: { taskSupport: 'optional' as const } } : tool));
}

/**
 * The proposal a gated call finds again with a key used before: an answer at once that is no
 * approval_required (the proposal was decided, and its action run) still has a task to follow.
 */
function replayedProposalOf(principal: Principal, name: string, key: string | undefined): { proposalId: string } | undefined {
  const tool = findTool(name);
  if (!key || tool?.approval?.kind !== 'gated') return undefined;
  return { proposalId: gatedProposalIdOf(principal.orgId, name, key) };
}

/**
 * tools/call with `task`: the call creates the proposal or outreach item and
 * answers at once with a task whose id is the approval workflow's id; the
 * client polls tasks/get and fetches tasks/result once a person has decided.
 */
async function callAsTask(caller: ToolCaller, store: TaskStore | undefined, principal: Principal, name: string, args: unknown, key: string | undefined) {
  const taskSpec = taskOfName(name);
  if (!taskSpec || !caller.approvals || !store) {
    throw new McpError(ErrorCode.InvalidParams, `${name} does not run as a task; call it without "task"`);
  }
  // The task is followed with tasks/get, which may need a scope of its own: refuse before anything is queued.
  if (taskSpec.followScope && !hasScope(principal, taskSpec.followScope)) {
    throw new McpError(ErrorCode.InvalidParams, `${name} runs as a task only for a credential holding ${taskSpec.followScope}; call it without "task"`);
  }
  let details: Record<string, unknown> | undefined;
  try {
    const taskArgs = taskSpec.argsForTask ? taskSpec.argsForTask(args as Record<string, unknown>) : args;
    const result = await caller.call(principal, name, taskArgs, { idempotencyKey: key, approvalWaitMs: 0 });
    details = taskSpec.pendingOf?.(result) ?? replayedProposalOf(principal, name, key);
  } catch (error) {
    if (!(error instanceof StewardError)) throw taskCallError(error);
    // A key used again may find its proposal already decided: the call then answers the outcome, which its task holds too.
    const replayed = replayedProposalOf(principal, name, key);
    const decidedBefore = replayed !== undefined && error.details?.proposalId === replayed.proposalId;
    if (error.code !== 'approval_required' && !decidedBefore) throw taskCallError(error);
    details = error.details;
  }
  const taskId = taskIdFor(details);
  const task = taskId ? await store.getTask(taskId) : null;
  if (!task) throw new McpError(ErrorCode.InternalError, 'The task could not be created');
  return { task };
}

function buildServer(req: Request, principal: Principal, caller: ToolCaller, toolsets: Toolsets): Server {
  // One task store per request, shared by the SDK's tasks/* handlers and by tools/call with `task`.
  const taskStore = caller.approvals ? approvalTaskStore(caller.approvals.pool, principal) : undefined;
  const server = new Server(SERVER_INFO, {
    // logging: the SDK answers logging/setLevel; as every POST gets a fresh server, a level lasts only for its own request.
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false }, logging: {}, ...(caller.approvals ? { tasks: { requests: { tools: { call: {} } } } } : {}) },
    instructions: 'Steward runs a church or nonprofit. Start with platform_overview, find tools with platform_search_tools, and call them directly.',
    ...(taskStore ? { taskStore } : {}),
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: withTaskSupport(toolsListFor(principal, toolsets)) }));
  // Replaces the SDK's tasks/result, which holds the request until the task ends: a task waiting on a person answers its status within seconds.
  if (caller.approvals) {
    const pool = caller.approvals.pool;
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => boundedTaskResult(pool, principal, request.params.taskId, extra.signal));
  }
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: promptsFor(principal) }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => playbookPrompt(principal, request.params.name, request.params.arguments ?? {}));
  // The in-chat widgets (MCP Apps) linked from tools/list entries.
  serveWidgets(server, principal);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    if (!findTool(request.params.name)) throw unknownToolError(request.params.name);
    const args = argumentsAsSent(req.body, extra.requestId) ?? request.params.arguments ?? {};
    if (request.params.task) return callAsTask(caller, taskStore, principal, request.params.name, args, idempotencyKeyOf(req, meta));
    try {
      const key = idempotencyKeyOf(req, meta);
      return toolResult(await caller.call(principal, request.params.name, args, {
        idempotencyKey: key, ...approvalWaitOf(meta, extra.sendNotification, request.params.name), ...workProgressOf(meta, extra.sendNotification),
      }));
    } catch (error) {
      return errorResult(error);
    }
  });
  return server;
}

/**
 * A tools/call's arguments exactly as the client sent them. The SDK's request schema copies them
 * into a new object, and a key named `__proto__` is lost in the copy (it sets the copy's prototype),
 * so a call the bridge refuses as an unknown key would run here without it. The tool's own strict
 * schema must see every key the client sent, on every surface.
 */
function argumentsAsSent(body: unknown, requestId: string | number): unknown {
  const messages = Array.isArray(body) ? body : [body];
  const message = messages.find((candidate) => {
    const sent = candidate as { id?: unknown; method?: unknown } | null;
    return sent?.method === 'tools/call' && sent.id === requestId;
  }) as { params?: { arguments?: unknown } } | undefined;
  return message?.params?.arguments;
}

/** Whether any message of a POST carries a progressToken (then progress notifications are streamed as SSE). */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta !== undefined && meta !== null && typeof meta === 'object' && meta.progressToken !== undefined;
  });
}

/** The SDK's streamable HTTP transport, for a POST whose progress is streamed as server-sent events. */
async function answerAsEventStream(req: Request, res: Response, server: Server): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/** Every other POST: one JSON answer (or 202 for notifications alone), through ./json-exchange.ts. */
async function answerAsJson(req: Request & { auth?: AuthInfo }, res: Response, server: Server): Promise<void> {
  const clientGone = new AbortController();
  // A client that leaves before its answer aborts what it asked for; once answered, the exchange is closed and this does nothing.
  res.on('close', () => clientGone.abort());
  const answer = await answerJsonPost(server, { body: req.body, headers: req.headers, authInfo: req.auth }, clientGone.signal);
  if (!answer) return;
  res.status(answer.status);
  if (answer.body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.end(answer.body);
}

/**
 * Stateless streamable HTTP: every POST gets a fresh server and transport, so
 * any API replica can answer any request and nothing is kept between them.
 */
export function mcpRouter(caller: ToolCaller, auth: express.RequestHandler[]) {
  // Now rather than on the first tools/list: converting every tool's schemas takes about half a millisecond a tool.
  precomputeSchemas();
  const router = express.Router();
  router.post('/api/mcp', mcpBodyParser, ...auth, async (req: Request, res: Response) => {
    const protocolVersion = req.headers['mcp-protocol-version'];
    const refused = bodyErrorOf(req) ?? envelopeRefusal(req.body, typeof protocolVersion === 'string' ? protocolVersion : undefined);
    if (refused) {
      res.status(refused.status).json(refused.body);
      return;
    }
    const { toolsets, unknown } = parseToolsets(req.query.toolsets);
    if (unknown.length > 0) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32602, message: `Unknown toolsets: ${unknown.join(', ')}` }, id: null });
      return;
    }
    const server = buildServer(req, principalOf(req), caller, toolsets);
    // A plain JSON answer unless the client asked for progress, the only thing this server
    // streams during a request: the event-stream machinery costs more than the call's own HTTP work.
    if (asksForProgress(req.body)) await answerAsEventStream(req, res, server);
    else await answerAsJson(req, res, server);
  });
  const methodNotAllowed = (_req: Request, res: Response) => {
    res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC messages' }, id: null });
  };
  router.get('/api/mcp', methodNotAllowed);
  router.delete('/api/mcp', methodNotAllowed);
  return router;
}
