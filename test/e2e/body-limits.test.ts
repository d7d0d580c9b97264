import { MAX_ARGS_BYTES, MAX_BODY_BYTES } from '../../core/payload-limits';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The same limits and the same strictness on every surface: arguments up to the documented limit
 * reach the tool's validation over both the bridge and MCP, a larger body is payload_too_large
 * naming the limit, and a key the tool does not take is refused wherever it is sent.
 */
describe('request bodies on every surface', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
  });
  afterAll(async () => harness?.close());

  const bridge = (body: string) => fetch(`${harness.url}/api/agent/invoke`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` }, body,
  });
  const mcp = (body: string) => fetch(`${harness.url}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${org.apiKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18',
    },
    body,
  });
  const toolCall = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"platform_search_tools","arguments":${args}}}`;

  it('lets arguments just under the documented limit reach validation on both surfaces', async () => {
    // Over the old 1 MB body limit, under the 1.5 MB arguments limit: the tool's own schema answers (the query is too long).
    const query = 'x'.repeat(MAX_ARGS_BYTES - 1000);
    expect(query.length).toBeGreaterThan(1_048_576);
    const viaBridge = await bridge(JSON.stringify({ tool: 'platform_search_tools', arguments: { query } }));
    expect(viaBridge.status).toBe(400);
    expect(((await viaBridge.json()) as any).error.code).toBe('validation_failed');
    const viaMcp = await mcp(toolCall(JSON.stringify({ query })));
    expect(viaMcp.status).toBe(200);
    const answered = (await viaMcp.json()) as any;
    expect(answered.result.isError).toBe(true);
    expect(answered.result.structuredContent?.error?.code ?? JSON.parse(answered.result.content[0].text).error.code).toBe('validation_failed');
  });

  it('answers a larger body payload_too_large naming the limit, on both surfaces', async () => {
    const query = 'x'.repeat(MAX_BODY_BYTES + 1000);
    const viaBridge = await bridge(JSON.stringify({ tool: 'platform_search_tools', arguments: { query } }));
    expect(viaBridge.status).toBe(413);
    const bridgeError = ((await viaBridge.json()) as any).error;
    expect(bridgeError.code).toBe('payload_too_large');
    expect(bridgeError.message).toContain(MAX_BODY_BYTES.toLocaleString('en-GB'));
    expect(bridgeError.hint).toContain(MAX_ARGS_BYTES.toLocaleString('en-GB'));
    const viaMcp = await mcp(toolCall(JSON.stringify({ query })));
    expect(viaMcp.status).toBe(413);
    const mcpError = ((await viaMcp.json()) as any).error;
    expect(mcpError.data).toEqual({ error: { code: 'payload_too_large', limitBytes: MAX_BODY_BYTES } });
    expect(mcpError.message).toContain(MAX_BODY_BYTES.toLocaleString('en-GB'));
  });

  it('refuses a __proto__ argument over MCP exactly as the bridge does, instead of dropping it', async () => {
    const args = '{"query":"gift aid","__proto__":{"limit":1}}';
    const viaBridge = await bridge(`{"tool":"platform_search_tools","arguments":${args}}`);
    expect(viaBridge.status).toBe(400);
    const bridgeError = ((await viaBridge.json()) as any).error;
    expect(bridgeError.code).toBe('validation_failed');
    expect(bridgeError.message).toContain('__proto__');
    const viaMcp = (await (await mcp(toolCall(args))).json()) as any;
    expect(viaMcp.result.isError).toBe(true);
    const text = viaMcp.result.content.map((part: { text?: string }) => part.text ?? '').join('\n');
    expect(text).toContain('validation_failed');
    expect(text).toContain('__proto__');
  });
});
