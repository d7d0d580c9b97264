import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The people dashboard's AI tools over MCP against a local server speaking the OpenAI-compatible API
 * (the media tools' provider setting, MEDIA_AI_API_URL): insights are asked from aggregate figures
 * only and kept; similar contacts are ranked by the provider's embeddings of traits, never names or
 * contact details; a provider failure answers `unavailable` and keeps nothing.
 */

/** Embeddings as counts of trait words, so "alike" has a right answer. */
function traitVector(text: string): number[] {
  return ['member', 'first_time_visitor', 'york', 'leeds', 'choir', 'youth', 'age 30s', 'age 70s'].map((word) => (text.includes(word) ? 1 : 0) + 0.01);
}

interface Received { path: string; body: any; authorization?: string }

describe('people dashboard AI tools with an OpenAI-compatible provider', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let provider: http.Server;
  const received: Received[] = [];
  let failNext = false;
  const saved = { ...process.env };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    provider = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => { raw += chunk; });
      req.on('end', () => {
        const body = JSON.parse(raw || '{}');
        received.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
        const json = (value: unknown, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(value)); };
        if (failNext) { failNext = false; return json({ error: { message: 'overloaded' } }, 503); }
        if (req.url === '/v1/chat/completions') {
          const insights = Array.from({ length: 6 }, (_v, i) => ({ title: `Insight ${i + 1}`, detail: `Figure-based detail ${i + 1}`, tool: i === 0 ? 'people_get_smart_discoveries' : 'people_delete_contact' }));
          // Some providers wrap JSON in a code fence.
          return json({ choices: [{ message: { role: 'assistant', content: `\`\`\`json\n${JSON.stringify({ insights })}\n\`\`\`` } }] });
        }
        if (req.url === '/v1/embeddings') {
          return json({ data: (body.input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: traitVector(text) })).reverse() });
        }
        json({ error: 'unknown' }, 404);
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    process.env.MEDIA_AI_API_URL = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    process.env.MEDIA_AI_API_KEY = 'test-provider-key';
    process.env.PEOPLE_AI_MODEL = 'people-test-model';
    // Its own stack: the provider is set in this suite's environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Insight Minster' });
    mcp = await harness.mcpClient(org.apiKey);
    const add = async (key: string, fields: Record<string, unknown>) => { ids[key] = (await mcpCall(mcp, 'people_create_contact', fields)).contact.id; };
    await add('ruth', { firstName: 'Ruth', lastName: 'Reference', email: 'ruth@ai.example', membershipStatus: 'member', addressCity: 'York', dateOfBirth: '1990-03-01' });
    await add('alike', { firstName: 'Alice', lastName: 'Alike', email: 'alice@ai.example', membershipStatus: 'member', addressCity: 'York', dateOfBirth: '1991-06-01' });
    await add('unlike', { firstName: 'Victor', lastName: 'Visitor', email: 'victor@ai.example', membershipStatus: 'first_time_visitor', addressCity: 'Leeds', dateOfBirth: '1950-01-01' });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await new Promise<void>((resolve) => provider?.close(() => resolve()));
    process.env = saved;
  });

  const leaked = (body: unknown) => ['Ruth', 'Alice', 'Victor', 'ai.example', 'Reference'].filter((word) => JSON.stringify(body).includes(word));

  it('generates insights from aggregate figures only, keeps at most five, and lists them', async () => {
    const before = received.length;
    const { insightSet } = await mcpCall(mcp, 'people_generate_dashboard_ai_insights', {});
    expect(insightSet.model).toBe('people-test-model');
    expect(insightSet.insights).toHaveLength(5);
    expect(insightSet.insights[0]).toEqual({ title: 'Insight 1', detail: 'Figure-based detail 1', tool: 'people_get_smart_discoveries' });
    // A tool the provider names that is not one of the allowed read tools is dropped.
    expect(insightSet.insights[1].tool).toBeNull();
    const asked = received.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer test-provider-key', body: { model: 'people-test-model', response_format: { type: 'json_object' } } });
    expect(leaked(asked[0]!.body)).toEqual([]);
    const figures = JSON.parse(asked[0]!.body.messages[1].content);
    expect(figures.engagement).toBeDefined();
    const { insightSets } = await mcpCall(mcp, 'people_list_dashboard_ai_insights', {});
    expect(insightSets.map((set: any) => set.id)).toEqual([insightSet.id]);
  });

  it('ranks similar contacts by the provider\'s embeddings of traits, sending no names or contact details', async () => {
    const before = received.length;
    const answer = await mcpCall(mcp, 'people_find_similar_contacts_ai', { contactId: ids.ruth, limit: 5 });
    expect(answer).toMatchObject({ contactId: ids.ruth, compared: 2 });
    expect(answer.similar.map((s: any) => s.contactId)).toEqual([ids.alike, ids.unlike]);
    expect(answer.similar[0]).toMatchObject({ displayName: 'Alice Alike', shared: expect.arrayContaining(['stage member', 'town York']) });
    expect(answer.similar[0].similarity).toBeGreaterThan(answer.similar[1].similarity);
    const asked = received.slice(before);
    expect(asked).toEqual([expect.objectContaining({ path: '/v1/embeddings' })]);
    expect(asked[0]!.body.input).toHaveLength(3);
    expect(asked[0]!.body.input[0]).toContain('stage: member');
    expect(leaked(asked[0]!.body)).toEqual([]);
  });

  it('answers unavailable when the provider fails, and keeps nothing', async () => {
    const stored = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM people_dashboard_insights WHERE org_id = $1', [org.orgId])).rows[0].n;
    const before = await stored();
    failNext = true;
    const error = await mcpRefusal(mcp, 'people_generate_dashboard_ai_insights', {});
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('HTTP 503') });
    expect(await stored()).toBe(before);
    failNext = true;
    expect((await mcpRefusal(mcp, 'people_find_similar_contacts_ai', { contactId: ids.ruth })).code).toBe('unavailable');
  });
});
