import { createHash } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { StewardError, type ErrorBody } from '../../core/errors';
import { permittedTools } from '../../modules/catalogue';
import { inputSchemaOf } from '../../modules/schema';
import { openAiFunctionOf } from '../../modules/surfaces';
import type { ApprovalProgress } from '../approvals';
import { statusOf, toErrorBody } from '../errors';
import { principalOf } from '../middleware/auth';
import type { ToolCaller } from '../tool-caller';
import { forwardOnly, type CallProgress } from '../../temporal/call-progress';

/**
 * The chat bridge (protocol label agent-chat). An agent that already holds a conversation in
 * OpenAI Chat Completions or Anthropic Messages form hands it over as it is; Steward runs the
 * tool calls of the last assistant turn that have no result yet, and answers with the results
 * in the same form. No model runs here. Each call's id, within its conversation, is its idempotency
 * key, so a resent conversation replays earlier outcomes instead of repeating a write. A call waiting on a
 * person waits within the caller's budget and then answers approval_required with what to follow.
 * Streamed (server-sent events, when asked), a call waiting on a person sends `progress` events and
 * long work (an import, an export) sends `work_progress` events, each further on than the last.
 */

export const MAX_CHAT_TOOL_CALLS = 16;
/** How long a call waits for a person before answering approval_required (read per call, so operators and tests can tune it). */
const chatApprovalWaitMs = () => Number(process.env.STEWARD_CHAT_APPROVAL_WAIT_MS ?? 20_000);

type Format = 'openai' | 'anthropic';

export interface PendingCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Why the arguments could not be read (the call then answers validation_failed, and nothing runs). */
  argsError?: string;
  /**
   * The idempotency key: the call id bound to the conversation up to the assistant turn that made it.
   * A resent conversation gives the same key (its outcome is replayed); another conversation that
   * happens to reuse the id (some models number calls call_0, call_1…) gives a new one.
   */
  idempotencyKey: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(message: string, path = 'messages'): StewardError {
  return new StewardError('validation_failed', message, { issues: [{ path, message }], hint: 'Send {"messages": [...]} in OpenAI Chat Completions or Anthropic Messages form; GET /api/agent/chat/tools gives the tools in either shape.' });
}

/** OpenAI form if any message carries tool_calls or role "tool"; Anthropic form if any content block is tool_use. */
export function detectFormat(messages: unknown[], requested: unknown): Format {
  if (requested === 'openai' || requested === 'anthropic') return requested;
  if (requested !== undefined) throw invalid('format must be openai or anthropic', 'format');
  const blocks = messages.flatMap((message) => (isObject(message) && Array.isArray(message.content) ? message.content : []));
  if (blocks.some((block) => isObject(block) && (block.type === 'tool_use' || block.type === 'tool_result'))) return 'anthropic';
  return 'openai';
}

function parseArguments(raw: unknown): Pick<PendingCall, 'args' | 'argsError'> {
  if (isObject(raw)) return { args: raw };
  if (typeof raw !== 'string') return { args: {}, argsError: 'arguments must be a JSON object or a string holding one' };
  try {
    const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
    return isObject(parsed) ? { args: parsed } : { args: {}, argsError: 'arguments must be a JSON object' };
  } catch {
    return { args: {}, argsError: 'arguments are not valid JSON' };
  }
}

/** The tool calls of the last assistant message that no later message answers. */
export function pendingCalls(messages: unknown[], format: Format): PendingCall[] {
  const lastAssistant = messages.map((message, index) => ({ message, index })).filter(({ message }) => isObject(message) && message.role === 'assistant').pop();
  if (!lastAssistant) throw invalid('The conversation has no assistant message with tool calls');
  const message = lastAssistant.message as Json;
  const later = messages.slice(lastAssistant.index + 1);
  const calls = format === 'openai' ? openAiCalls(message) : anthropicCalls(message);
  const answered = new Set(format === 'openai'
    ? later.filter((m): m is Json => isObject(m) && m.role === 'tool' && typeof m.tool_call_id === 'string').map((m) => m.tool_call_id as string)
    : later.flatMap((m) => (isObject(m) && Array.isArray(m.content) ? m.content : [])).filter((b): b is Json => isObject(b) && b.type === 'tool_result').map((b) => String(b.tool_use_id)));
  const pending = calls.filter((call) => !answered.has(call.id));
  if (pending.length > MAX_CHAT_TOOL_CALLS) throw invalid(`At most ${MAX_CHAT_TOOL_CALLS} tool calls are run per request`);
  const turn = conversationDigest(messages.slice(0, lastAssistant.index + 1));
  return pending.map((call) => ({ ...call, idempotencyKey: idempotencyKeyOfCall(call.id, turn) }));
}

type ParsedCall = Omit<PendingCall, 'idempotencyKey'>;

function openAiCalls(message: Json): ParsedCall[] {
  if (message.tool_calls === undefined) return [];
  if (!Array.isArray(message.tool_calls)) throw invalid('tool_calls must be an array', 'messages.tool_calls');
  return message.tool_calls.map((call, index) => {
    const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
    if (!isObject(call) || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') {
      throw invalid(`tool_calls[${index}] needs an id and function.name`, `messages.tool_calls[${index}]`);
    }
    return { id: call.id, name: fn.name, ...parseArguments(fn.arguments) };
  });
}

function anthropicCalls(message: Json): ParsedCall[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.filter((block): block is Json => isObject(block) && block.type === 'tool_use').map((block, index) => {
    if (typeof block.id !== 'string' || typeof block.name !== 'string') throw invalid(`tool_use block ${index} needs an id and a name`, `messages.content[${index}]`);
    return { id: block.id, name: block.name, ...parseArguments(block.input ?? {}) };
  });
}

/** A digest of the messages up to the turn that made the calls: what makes a call id unique to its conversation. */
function conversationDigest(messages: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(messages)).digest('hex');
}

/** A call id within its conversation as an idempotency key (same conversation and id, same key). */
export function idempotencyKeyOfCall(id: string, conversation: string): string {
  return `chat-${createHash('sha256').update(`${conversation}\n${id}`).digest('hex').slice(0, 40)}`;
}

type Outcome = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

/** What a streamed call reports while it runs: the wait for a person, and how far long work has come. */
interface CallListeners {
  onProgress: (progress: ApprovalProgress) => Promise<void>;
  onWorkProgress: (progress: CallProgress) => void;
}

async function runCall(caller: ToolCaller, req: Request, call: PendingCall, listeners?: CallListeners): Promise<Outcome> {
  if (call.argsError) return { ok: false, error: invalid(`Arguments of ${call.name}: ${call.argsError}`, 'arguments').toBody() };
  try {
    const result = await caller.call(principalOf(req), call.name, call.args, {
      idempotencyKey: call.idempotencyKey, approvalWaitMs: chatApprovalWaitMs(),
      ...(listeners ? { ...listeners, progressIntervalMs: Number(process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS ?? 2000) } : {}),
    });
    return { ok: true, result };
  } catch (error) {
    return { ok: false, error: toErrorBody(error) };
  }
}

function contentOf(outcome: Outcome): string {
  return JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error });
}

/** The results, as the messages the caller appends to its conversation. */
function resultMessages(format: Format, calls: PendingCall[], outcomes: Outcome[]): Json[] {
  if (format === 'openai') {
    return calls.map((call, index) => ({ role: 'tool', tool_call_id: call.id, content: contentOf(outcomes[index]!) }));
  }
  return [{
    role: 'user',
    content: calls.map((call, index) => ({
      type: 'tool_result', tool_use_id: call.id, content: contentOf(outcomes[index]!), ...(outcomes[index]!.ok ? {} : { is_error: true }),
    })),
  }];
}

function anthropicToolOf(tool: ReturnType<typeof permittedTools>[number]) {
  return { name: tool.name, description: tool.description, input_schema: inputSchemaOf(tool) };
}

export function chatBridgeRouter(caller: ToolCaller, auth: express.RequestHandler[]) {
  const router = express.Router();

  router.get('/api/agent/chat/tools', ...auth, (req: Request, res: Response) => {
    const format = req.query.format ?? 'openai';
    if (format !== 'openai' && format !== 'anthropic') {
      res.status(400).json({ ok: false, error: invalid('format must be openai (default) or anthropic', 'format').toBody() });
      return;
    }
    const tools = permittedTools(principalOf(req));
    res.json({ format, tools: format === 'openai' ? tools.map(openAiFunctionOf) : tools.map(anthropicToolOf) });
  });

  router.post('/api/agent/chat', ...auth, async (req: Request, res: Response) => {
    let format: Format;
    let calls: PendingCall[];
    try {
      const body = req.body as Json | undefined;
      if (!isObject(body) || !Array.isArray(body.messages)) throw invalid('Body must be JSON with a messages array');
      format = detectFormat(body.messages, body.format ?? req.query.format);
      calls = pendingCalls(body.messages, format);
    } catch (error) {
      const body = toErrorBody(error);
      res.status(statusOf(body)).json({ ok: false, error: body });
      return;
    }
    const streaming = (req.headers.accept ?? '').includes('text/event-stream') || (isObject(req.body) && req.body.stream === true);
    if (!streaming) {
      const outcomes: Outcome[] = [];
      for (const call of calls) outcomes.push(await runCall(caller, req, call));
      res.json({ format, messages: resultMessages(format, calls, outcomes) });
      return;
    }
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.flushHeaders();
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const outcomes: Outcome[] = [];
    for (const call of calls) {
      outcomes.push(await runCall(caller, req, call, {
        onProgress: async (progress) => {
          send('progress', { toolCallId: call.id, tool: call.name, message: progress.message, elapsedMs: progress.elapsedMs, budgetMs: progress.budgetMs });
        },
        onWorkProgress: forwardOnly((progress) => send('work_progress', { toolCallId: call.id, tool: call.name, ...progress })),
      }));
      send('tool_result', { toolCallId: call.id, ok: outcomes.at(-1)!.ok });
    }
    send('result', { format, messages: resultMessages(format, calls, outcomes) });
    res.end();
  });

  return router;
}
