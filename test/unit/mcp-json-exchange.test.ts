import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import { answerJsonPost } from '../../api/mcp/json-exchange';

/**
 * The JSON exchange stands in for the SDK's streamable HTTP transport (stateless, JSON answers):
 * every case here is answered by both, and the two answers must be the same.
 */

const PROTOCOL_VERSION = '2025-11-25';
const HEADERS: IncomingHttpHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': PROTOCOL_VERSION };

/** A server with one tool that answers its arguments back, and one that waits until it is aborted. */
function testServer(onAbort: (reason: unknown) => void = () => undefined): Server {
  const server = new Server({ name: 'exchange-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === 'whoami') {
      return { content: [{ type: 'text', text: JSON.stringify({ clientId: extra.authInfo?.clientId, marker: extra.requestInfo?.headers['x-marker'] }) }] };
    }
    if (request.params.name === 'wait') {
      await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => {
        onAbort(extra.signal.reason);
        resolve();
      }));
      return { content: [] };
    }
    // Answers out of order in a batch: the later request's handler finishes first.
    const delayMs = Number((request.params.arguments as { delayMs?: number } | undefined)?.delayMs ?? 0);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return { content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }] };
  });
  return server;
}

async function viaSdkTransport(body: unknown, headers: IncomingHttpHeaders = HEADERS): Promise<{ status: number; body: unknown }> {
  const server = testServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const response = await transport.handleRequest(new Request('http://localhost/mcp', {
    method: 'POST', headers: headers as Record<string, string>, body: JSON.stringify(body),
  }));
  const text = await response.text();
  await server.close();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function viaExchange(body: unknown, headers: IncomingHttpHeaders = HEADERS): Promise<{ status: number; body: unknown }> {
  const answer = await answerJsonPost(testServer(), { body, headers }, new AbortController().signal);
  if (!answer) throw new Error('the exchange gave no answer');
  return { status: answer.status, body: answer.body === undefined ? undefined : JSON.parse(answer.body) };
}

const call = (id: number | string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: args } });
const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

const CASES: Array<{ name: string; body: unknown; headers?: IncomingHttpHeaders }> = [
  { name: 'one tools/call', body: call(1, { x: 1 }) },
  { name: 'a string id', body: call('abc', { y: 'z' }) },
  { name: 'initialize', body: initialize },
  { name: 'initialize under a protocol version header the server does not know', body: initialize, headers: { ...HEADERS, 'mcp-protocol-version': '1999-01-01' } },
  { name: 'a method the server does not have', body: { jsonrpc: '2.0', id: 7, method: 'resources/list' } },
  { name: 'a batch answered in request order though the first finishes last', body: [call(1, { delayMs: 30 }), call(2, { delayMs: 0 })], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'a batch of a request and a notification', body: [call(3), { jsonrpc: '2.0', method: 'notifications/initialized' }], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'a notification alone', body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { name: 'a response alone', body: { jsonrpc: '2.0', id: 9, result: {} } },
  { name: 'a batch over the size limit', body: Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })), headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'a response whose result is no object', body: { jsonrpc: '2.0', id: 9, result: 5 } },
  { name: 'an error response without a message', body: { jsonrpc: '2.0', id: 9, error: { code: 1 } } },
  { name: 'initialize in a batch', body: [initialize, { jsonrpc: '2.0', id: 1, method: 'ping' }], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'a batch that repeats an id', body: [call(5, { delayMs: 20 }), call(5, { delayMs: 0 })], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'a batch of a request and a response from the client', body: [call(6), { jsonrpc: '2.0', id: 99, result: {} }], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'an initialize without params, sent as a notification, under an unknown protocol version', body: { jsonrpc: '2.0', method: 'initialize' }, headers: { ...HEADERS, 'mcp-protocol-version': '1999-01-01' } },
  { name: 'an initialize without params, as a notification in a batch', body: [{ jsonrpc: '2.0', method: 'initialize' }, { jsonrpc: '2.0', id: 1, method: 'ping' }], headers: { ...HEADERS, 'mcp-protocol-version': '2025-03-26' } },
  { name: 'an unsupported protocol version', body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { ...HEADERS, 'mcp-protocol-version': '1999-01-01' } },
  { name: 'no protocol version header', body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { accept: HEADERS.accept, 'content-type': 'application/json' } },
];

describe('the JSON exchange answers as the SDK transport does', () => {
  it.each(CASES)('$name', async ({ body, headers }) => {
    const expected = await viaSdkTransport(body, headers);
    const actual = await viaExchange(body, headers);
    expect(actual).toEqual(expected);
  });

  it('answers a batch in request order (not the order the handlers finish)', async () => {
    const { body } = await viaExchange([call(1, { delayMs: 30 }), call(2, { delayMs: 0 })], { ...HEADERS, 'mcp-protocol-version': '2025-03-26' });
    expect((body as Array<{ id: number }>).map((response) => response.id)).toEqual([1, 2]);
  });

  it('hands the credential and the request headers to the handlers', async () => {
    const authInfo = { token: 't', clientId: 'client-7', scopes: [] };
    const answer = await answerJsonPost(testServer(), { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } }, headers: { ...HEADERS, 'x-marker': 'm-1' }, authInfo }, new AbortController().signal);
    const text = (JSON.parse(answer!.body!) as { result: { content: Array<{ text: string }> } }).result.content[0].text;
    expect(JSON.parse(text)).toEqual({ clientId: 'client-7', marker: 'm-1' });
  });

  it('answers 202 with no body for notifications alone', async () => {
    expect(await viaExchange({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ status: 202, body: undefined });
  });
});

describe('a client that leaves before its answer', () => {
  it('aborts the request still running and ends the exchange without an answer', async () => {
    const aborted: unknown[] = [];
    const clientGone = new AbortController();
    const answering = answerJsonPost(testServer((reason) => aborted.push(reason)), { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } }, headers: HEADERS }, clientGone.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(aborted).toHaveLength(0);
    clientGone.abort();
    await expect(answering).resolves.toBeUndefined();
    expect(aborted).toHaveLength(1);
  });

  it('starts nothing when it has already gone', async () => {
    const aborted: unknown[] = [];
    const clientGone = new AbortController();
    clientGone.abort();
    const answer = await answerJsonPost(testServer((reason) => aborted.push(reason)), { body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } }, headers: HEADERS }, clientGone.signal);
    expect(answer).toBeUndefined();
    expect(aborted).toHaveLength(0);
  });
});
