import { Harness, type TestOrg } from '../helpers/harness';

/**
 * JSON-RPC error shapes on /api/mcp, sent as raw POSTs so that nothing in a
 * client library tidies a malformed message before the server sees it.
 */
/** What a streamable HTTP client must accept. */
const ACCEPT_BOTH = 'application/json, text/event-stream';

describe('MCP JSON-RPC error shapes', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** A raw POST as a conforming client sends it; `headers` replace any of its headers. */
  async function post(body: string, protocolVersion = '2025-06-18', headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string }> {
    const response = await fetch(`${harness.url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${org.apiKey}`,
        accept: ACCEPT_BOTH,
        'content-type': 'application/json',
        'mcp-protocol-version': protocolVersion,
        ...headers,
      },
      body,
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : JSON.parse(text), text };
  }

  const send = (message: unknown, protocolVersion?: string) => post(JSON.stringify(message), protocolVersion);

  it('answers malformed JSON with -32700 in JSON-RPC shape, not the REST error body', async () => {
    const { status, json } = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
    expect(status).toBe(400);
    expect(json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/parse error/i) } });
  });

  it('still asks for credentials before reporting a malformed body', async () => {
    const response = await fetch(`${harness.url}/api/mcp`, {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(401);
  });

  it('answers tools/call of an unknown tool with the protocol error -32602 keeping the stable code in data', async () => {
    const { status, json } = await send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'people_fly_to_moon', arguments: {} } });
    expect(status).toBe(200);
    expect(json.result).toBeUndefined();
    expect(json.id).toBe(7);
    expect(json.error).toMatchObject({ code: -32602, message: expect.stringContaining('people_fly_to_moon'), data: { error: { code: 'unknown_tool' } } });
  });

  it('answers initialize without params with -32602 and a readable message', async () => {
    const { json } = await send({ jsonrpc: '2.0', id: 1, method: 'initialize' });
    expect(json.id).toBe(1);
    expect(json.error.code).toBe(-32602);
    expect(json.error.message).toMatch(/^Invalid params for initialize: params/);
    // A raw validation dump is a JSON array of issue objects.
    expect(json.error.message).not.toContain('"code"');
  });

  it('answers tools/call without a name with -32602 naming the missing field', async () => {
    const { json } = await send({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { arguments: {} } });
    expect(json.id).toBe('a');
    expect(json.error.code).toBe(-32602);
    expect(json.error.message).toContain('params.name');
    expect(json.error.message).not.toContain('"code"');
  });

  it('answers "jsonrpc": "1.0" with -32600', async () => {
    const { status, json } = await send({ jsonrpc: '1.0', id: 1, method: 'tools/list' });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32600);
    expect(json.id).toBe(1);
  });

  it('answers a message without a method with -32600', async () => {
    const { status, json } = await send({ jsonrpc: '2.0', id: 2 });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32600, message: expect.stringContaining('method') });
  });

  it('answers an object id with -32600 and a null id', async () => {
    const { status, json } = await send({ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' });
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers tools/list with params "x" with -32602 in the request\'s id', async () => {
    const { json } = await send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: 'x' });
    expect(json).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('answers an empty batch with -32600', async () => {
    const { status, json } = await post('[]', '2025-03-26');
    expect(status).toBe(400);
    expect(json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('empty batch') } });
  });

  it('refuses a batch under protocol version 2025-06-18, which has none, and serves one under 2025-03-26', async () => {
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }];
    const refused = await send(batch, '2025-06-18');
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: -32600, message: expect.stringContaining('2025-06-18') });
    const served = await send(batch, '2025-03-26');
    expect(served.status).toBe(200);
    expect(served.json.map((answer: any) => answer.id).sort()).toEqual([1, 2]);
    expect(served.json.every((answer: any) => answer.error === undefined)).toBe(true);
  });

  const ping = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' });

  it('refuses a client that does not accept both JSON and event streams (406), and a body not sent as JSON (415)', async () => {
    const notAccepting = await post(ping, undefined, { accept: 'application/json' });
    expect(notAccepting.status).toBe(406);
    expect(JSON.parse(notAccepting.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Not Acceptable') } });
    const notJson = await post(ping, undefined, { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expect(JSON.parse(notJson.text).error).toEqual({ code: -32000, message: expect.stringContaining('Content-Type must be application/json') });
    // Both wrong: the transport's order, Accept first.
    const neither = await post(ping, undefined, { accept: 'application/json', 'content-type': 'text/plain' });
    expect(neither.status).toBe(406);
    // Accept is checked before the body is read, as by the transport.
    const unreadable = await post('{"jsonrpc": "2.0",', undefined, { accept: 'text/event-stream' });
    expect(unreadable.status).toBe(406);
    const withCharset = await post(ping, undefined, { 'content-type': 'application/json; charset=utf-8' });
    expect(withCharset.status).toBe(200);
    expect(JSON.parse(withCharset.text)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('asks for credentials before refusing a body not sent as JSON', async () => {
    const response = await fetch(`${harness.url}/api/mcp`, { method: 'POST', headers: { accept: ACCEPT_BOTH, 'content-type': 'text/plain' }, body: ping });
    expect(response.status).toBe(401);
  });

  it('refuses an unsupported protocol version after initialization, and takes any version in initialize itself', async () => {
    const refused = await post(ping, '1999-01-01');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).error).toEqual({ code: -32000, message: expect.stringContaining('Unsupported protocol version: 1999-01-01') });
    const initialize = await send({
      jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }, '1999-01-01');
    expect(initialize.status).toBe(200);
    expect(JSON.parse(initialize.text)).toMatchObject({ id: 4, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'steward' } } });
  });

  it('answers a tools/call as one JSON body, and streams it as events only when the call asks for progress', async () => {
    const plain = await fetch(`${harness.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'plain', method: 'tools/call', params: { name: 'platform_overview', arguments: {} } }),
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    const answer = await plain.json() as { id: string; result: { isError?: boolean; structuredContent?: unknown } };
    expect(answer.id).toBe('plain');
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent).toBeDefined();

    const streamed = await fetch(`${harness.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'streamed', method: 'tools/call', params: { name: 'platform_overview', arguments: {}, _meta: { progressToken: 'p1' } } }),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const events = await streamed.text();
    const data = events.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { id?: string });
    expect(data.find((message) => message.id === 'streamed')).toBeDefined();
  });

  it('answers a POST of notifications only with 202 and no body', async () => {
    const accepted = await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(accepted.status).toBe(202);
    expect(accepted.text).toBe('');
  });

  it('answers a task-mode tools/call whose call fails with a JSON-RPC error keeping the stable code', async () => {
    const { json } = await send({
      jsonrpc: '2.0', id: 9, method: 'tools/call',
      params: { name: 'people_merge_data_quality_contacts', arguments: { keepContactId: 'not-a-uuid' }, task: { ttl: 60_000 } },
    });
    expect(json.id).toBe(9);
    expect(json.result).toBeUndefined();
    expect(json.error).toMatchObject({ code: -32602, data: { error: { code: 'validation_failed' } } });
    expect(json.error.message).not.toMatch(/invalid task creation result/i);
  });
});
