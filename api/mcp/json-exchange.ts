import type { IncomingHttpHeaders } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import {
  ErrorCode, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest, type JSONRPCMessage, type MessageExtraInfo, type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { refusal, type JsonRpcRefusal } from './jsonrpc';

/** The transport's code for a refused header (JSON-RPC's range for server errors). */
const HEADER_REFUSED = -32000;

/**
 * One stateless POST answered with one JSON body, as the SDK's streamable HTTP transport answers
 * it with `enableJsonResponse`, but without that transport's round trip through a Web Request,
 * a Response and their streams (converted back and forth by @hono/node-server on every POST):
 * that round trip was a quarter to a third of the API's CPU for an MCP call apart from the call itself
 * (bench/README.md, "The MCP surface apart"). The messages go to the server as the SDK's transport
 * hands them over, parsed by the SDK's own schema; the answer goes out once every request in the
 * POST has its response, in the order the requests came. A POST that asks for progress is streamed
 * as events and still goes through the SDK's transport (router.ts).
 */
export class JsonExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** The POST's request ids in order, each once: a batch may repeat an id, and the SDK answers it once. */
  private requestIds: RequestId[] = [];
  private readonly responses = new Map<RequestId, JSONRPCMessage>();
  private answer?: (responses: JSONRPCMessage[] | undefined) => void;
  private closed = false;

  async start(): Promise<void> {}

  /**
   * Only a response to one of the POST's requests has a place in a JSON answer. A notification
   * (progress, a log line) would need an event stream, which this client did not ask for: the
   * SDK's transport drops those too in JSON mode.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message) || !this.requestIds.includes(message.id)) return;
    this.responses.set(message.id, message);
    if (this.responses.size === this.requestIds.length) this.answer?.(this.requestIds.map((id) => this.responses.get(id)!));
  }

  /**
   * The client has gone: the server's close handler aborts the requests still running, which
   * then answer nothing, and the exchange ends without an answer.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    this.answer?.(undefined);
  }

  /**
   * Hands the POST's messages to the server; resolves with the responses once all are in (none
   * for a POST without requests), or with undefined if the exchange was closed first.
   */
  exchange(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[] | undefined> {
    this.requestIds = [...new Set(messages.filter(isRequest).map((message) => message.id))];
    const answered = this.requestIds.length === 0
      ? Promise.resolve([])
      : new Promise<JSONRPCMessage[] | undefined>((resolve) => {
        this.answer = resolve;
      });
    for (const message of messages) this.onmessage?.(message, extra);
    return answered;
  }
}

type JsonRpcResponse = Extract<JSONRPCMessage, { id: RequestId }> & ({ result: unknown } | { error: unknown });

// These two tell the kinds of an already parsed message apart by their fields: the SDK's own
// guards (isJSONRPCRequest, ...) would parse each message with its schema once more.
function isResponse(message: JSONRPCMessage): message is JsonRpcResponse {
  return 'id' in message && message.id !== undefined && ('result' in message || 'error' in message);
}

function isRequest(message: JSONRPCMessage): message is Extract<JSONRPCMessage, { id: RequestId; method: string }> {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

/**
 * The POST's messages as the SDK's transport would pass them on, or its refusal, with the same
 * status, code and message: the checks the transport makes that the envelope checks before it
 * (jsonrpc.ts) do not. Run after those, so only the transport's own cases remain.
 */
export function exchangeMessagesOf(body: unknown, headers: IncomingHttpHeaders): { messages: JSONRPCMessage[] } | { refused: JsonRpcRefusal } {
  const raw = Array.isArray(body) ? body : [body];
  if (raw.length > MAX_BATCH_SIZE) return { refused: refusal(400, null, ErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`) };
  const messages: JSONRPCMessage[] = [];
  for (const candidate of raw) {
    const parsed = JSONRPCMessageSchema.safeParse(candidate);
    if (!parsed.success) return { refused: refusal(400, null, ErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message') };
    messages.push(parsed.data);
  }
  // The transport's own test (an initialize with valid params, id or not), asked only of the rare message named so.
  const initializes = messages.some((message) => 'method' in message && message.method === 'initialize' && isInitializeRequest(message));
  if (initializes && messages.length > 1) return { refused: refusal(400, null, ErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed') };
  const version = headers['mcp-protocol-version'];
  if (!initializes && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return { refused: refusal(400, null, HEADER_REFUSED, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`) };
  }
  return { messages };
}

/** What a JSON POST is answered with: a status and, unless 202, a JSON body. */
export interface JsonAnswer {
  status: number;
  body?: string;
}

export interface JsonPost {
  body: unknown;
  headers: IncomingHttpHeaders;
  authInfo?: AuthInfo;
}

/**
 * Answers one POST through `server` (connected here, used once): the transport's refusal, 202 for
 * notifications and responses alone, or the requests' responses as one JSON body. Resolves with
 * undefined when `clientGone` fires first, after aborting what the POST asked for.
 */
export async function answerJsonPost(server: Pick<Protocol<never, never, never>, 'connect'>, post: JsonPost, clientGone: AbortSignal): Promise<JsonAnswer | undefined> {
  const checked = exchangeMessagesOf(post.body, post.headers);
  if ('refused' in checked) return { status: checked.refused.status, body: JSON.stringify(checked.refused.body) };
  const exchange = new JsonExchange();
  await server.connect(exchange);
  if (clientGone.aborted) return undefined;
  clientGone.addEventListener('abort', () => void exchange.close(), { once: true });
  try {
    const responses = await exchange.exchange(checked.messages, { authInfo: post.authInfo, requestInfo: { headers: post.headers } });
    if (responses === undefined) return undefined;
    if (responses.length === 0) return { status: 202 };
    return { status: 200, body: JSON.stringify(responses.length === 1 ? responses[0] : responses) };
  } finally {
    // Whatever still runs once the POST is answered (the second handler of a repeated id) has no one left to answer.
    void exchange.close();
  }
}
