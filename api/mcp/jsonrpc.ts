import express, { type NextFunction, type Request, type Response } from 'express';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { MAX_ARGS_BYTES, MAX_BODY_BYTES, describeBytes } from '../../core/payload-limits';
import {
  CallToolRequestSchema, CancelTaskRequestSchema, DEFAULT_NEGOTIATED_PROTOCOL_VERSION, ErrorCode, GetTaskPayloadRequestSchema,
  GetTaskRequestSchema, InitializeRequestSchema, ListTasksRequestSchema, ListToolsRequestSchema, PingRequestSchema, SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC conformance checks the SDK's transport does not make, or makes with
 * the wrong code: it answers every envelope problem with -32700 (parse error)
 * and lets a request whose params fail its schema surface as -32603 with the
 * raw validation dump. These run on the parsed body before the transport sees it.
 */

export interface JsonRpcRefusal {
  status: number;
  body: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };
}

/** `data`, when given, carries Steward's stable error (`{ error: { code } }`), as tool errors do. */
export function refusal(status: number, id: string | number | null, code: number, message: string, data?: unknown): JsonRpcRefusal {
  return { status, body: { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } } };
}

/** Set by the MCP body parser when the body could not be read; answered after authentication. */
const BODY_ERROR = Symbol('mcpBodyError');
type WithBodyError = Request & { [BODY_ERROR]?: JsonRpcRefusal };

const jsonParser = express.json({ limit: MAX_BODY_BYTES });

/**
 * The MCP endpoint's own JSON parser: the app-wide one answers malformed JSON
 * in the REST shape ({ ok: false }), where a JSON-RPC client expects -32700.
 * The failure is kept on the request rather than answered here so that an
 * unauthenticated caller still gets 401 first, as for any other body.
 */
export function mcpBodyParser(req: Request, res: Response, next: NextFunction): void {
  jsonParser(req, res, (error?: unknown) => {
    if (error) {
      const failure = error as { status?: number; type?: string };
      (req as WithBodyError)[BODY_ERROR] = failure.type === 'entity.too.large'
        ? refusal(413, null, ErrorCode.InvalidRequest, `Invalid Request: the body is larger than ${describeBytes(MAX_BODY_BYTES)}; tool arguments may be at most ${describeBytes(MAX_ARGS_BYTES)}`,
          { error: { code: 'payload_too_large', limitBytes: MAX_BODY_BYTES } })
        : failure.type === 'entity.parse.failed'
          ? refusal(400, null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON')
          : refusal(failure.status && failure.status < 500 ? failure.status : 400, null, ErrorCode.InvalidRequest, 'Invalid Request: the body could not be read');
      req.body = undefined;
    }
    next();
  });
}

/**
 * The first refusal of a POST's headers or body, in the transport's own order: what the client
 * accepts, then what it sent, then whether the body could be read.
 */
export function bodyErrorOf(req: Request): JsonRpcRefusal | undefined {
  return acceptRefusal(req) ?? mediaTypeRefusal(req) ?? (req as WithBodyError)[BODY_ERROR];
}

/** A client must accept both answers a POST may get (a JSON body, an event stream), as the transport checks: a list, so a substring test. */
function acceptRefusal(req: Request): JsonRpcRefusal | undefined {
  const accept = req.headers.accept;
  if (accept?.includes('application/json') && accept.includes('text/event-stream')) return undefined;
  return refusal(406, null, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
}

/**
 * A body sent as anything but JSON is left unread by the JSON parser, and would otherwise be
 * refused as a message that is no JSON-RPC object: the transport's own 415 says what to change.
 */
function mediaTypeRefusal(req: Request): JsonRpcRefusal | undefined {
  if (isJsonContentType(req.headers['content-type'])) return undefined;
  return refusal(415, null, -32000, 'Unsupported Media Type: Content-Type must be application/json');
}

/**
 * The params schema of every request method this server answers. Methods not
 * listed go to the SDK, which answers -32601 (method not found).
 */
const REQUEST_SCHEMAS: Record<string, { safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'logging/setLevel': SetLevelRequestSchema,
  'tasks/get': GetTaskRequestSchema,
  'tasks/result': GetTaskPayloadRequestSchema,
  'tasks/list': ListTasksRequestSchema,
  'tasks/cancel': CancelTaskRequestSchema,
};

/** Zod issues as one line a person can act on, e.g. `params.name: expected string, received undefined`. */
function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.slice(0, 5).map((issue) => `${issue.path.map(String).join('.') || '(message)'}: ${issue.message}`).join('; ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** One message's envelope and, for a known request, its params. */
function checkMessage(message: unknown, where: string): JsonRpcRefusal | undefined {
  if (!isObject(message)) return refusal(400, null, ErrorCode.InvalidRequest, `Invalid Request: ${where} is not a JSON-RPC object`);
  const id = isId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0') return refusal(400, id, ErrorCode.InvalidRequest, `Invalid Request: ${where} must have "jsonrpc": "2.0"`);
  // MCP forbids a null id as well as the structured ids JSON-RPC already rules out.
  if ('id' in message && !isId(message.id)) return refusal(400, null, ErrorCode.InvalidRequest, `Invalid Request: ${where} has an id that is neither a string nor a number`);
  const isResponse = 'result' in message || 'error' in message;
  if (!('method' in message)) {
    if (isResponse && 'id' in message) return undefined;
    return refusal(400, id, ErrorCode.InvalidRequest, `Invalid Request: ${where} has no "method"`);
  }
  if (typeof message.method !== 'string' || message.method === '') return refusal(400, id, ErrorCode.InvalidRequest, `Invalid Request: ${where} has a "method" that is not a non-empty string`);
  if ('params' in message && !isObject(message.params)) {
    // A request is answered in its own id with -32602; a notification has no one to answer, so the POST is refused.
    return id === null
      ? refusal(400, null, ErrorCode.InvalidRequest, `Invalid Request: ${where} has "params" that is not an object`)
      : refusal(200, id, ErrorCode.InvalidParams, `Invalid params for ${message.method}: "params" must be an object`);
  }
  const schema = id === null ? undefined : REQUEST_SCHEMAS[message.method];
  if (schema) {
    const parsed = schema.safeParse(message);
    if (!parsed.success) return refusal(200, id, ErrorCode.InvalidParams, `Invalid params for ${message.method}: ${describeIssues(parsed.error.issues)}`);
  }
  return undefined;
}

/** Protocol versions from which JSON-RPC batches are no longer part of MCP (2025-06-18 removed them). */
const BATCHLESS_FROM = '2025-06-18';

/**
 * The first reason to refuse a POST body before the transport handles it, or
 * undefined. A batch is all or nothing here: one bad message refuses the POST,
 * which is simpler for a client to act on than a partial answer.
 */
export function envelopeRefusal(body: unknown, protocolVersionHeader: string | undefined): JsonRpcRefusal | undefined {
  if (!Array.isArray(body)) return checkMessage(body, 'the message');
  if (body.length === 0) return refusal(400, null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
  // Without the header the SDK assumes 2025-03-26, the one version that has batches, so this does too.
  const version = protocolVersionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (version >= BATCHLESS_FROM) return refusal(400, null, ErrorCode.InvalidRequest, `Invalid Request: protocol version ${version} has no JSON-RPC batches; send one message per POST`);
  for (const [index, message] of body.entries()) {
    const problem = checkMessage(message, `batch message ${index}`);
    if (problem) return { status: 400, body: problem.body };
  }
  return undefined;
}
