import { permittedTools } from '../../modules/catalogue';
import { Harness, type TestOrg } from '../helpers/harness';

/**
 * The chat bridge, driven with literal payloads in both conversation formats: the tool calls of
 * the last assistant turn run as ordinary durable calls and come back as messages to append.
 */
describe('chat bridge /api/agent/chat', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    // Its own stack: the API reads the approval wait and progress interval this suite sets in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg();
  });
  afterAll(async () => harness?.close());

  const chat = async (body: unknown, headers: Record<string, string> = {}, apiKey = org.apiKey) => {
    const response = await fetch(`${harness.url}/api/agent/chat`, {
      method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const contactsNamed = async (lastName: string) => (await harness.call(org.apiKey, 'people_search_contacts', { query: lastName })).contacts
    .filter((contact: { displayName: string }) => contact.displayName.endsWith(` ${lastName}`)).length;

  it('runs OpenAI tool_calls and answers role "tool" messages; a resent conversation never repeats the write', async () => {
    const conversation = {
      messages: [
        { role: 'system', content: 'You help a church office.' },
        { role: 'user', content: 'Add Martha Okafor and tell me how we are doing.' },
        {
          role: 'assistant', content: null,
          tool_calls: [
            { id: 'call_add_martha_1', type: 'function', function: { name: 'people_create_contact', arguments: '{"firstName":"Martha","lastName":"Okafor"}' } },
            { id: 'call_overview_1', type: 'function', function: { name: 'platform_overview', arguments: '{}' } },
          ],
        },
      ],
    };
    const first = await chat(conversation);
    expect(first.status).toBe(200);
    const answer = JSON.parse(first.text);
    expect(answer.format).toBe('openai');
    expect(answer.messages.map((m: { role: string; tool_call_id: string }) => [m.role, m.tool_call_id])).toEqual([['tool', 'call_add_martha_1'], ['tool', 'call_overview_1']]);
    const created = JSON.parse(answer.messages[0].content);
    expect(created.contact).toMatchObject({ firstName: 'Martha', lastName: 'Okafor' });
    expect(JSON.parse(answer.messages[1].content).organisation).toBeDefined();

    const again = JSON.parse((await chat(conversation)).text);
    expect(JSON.parse(again.messages[0].content).contact.id).toBe(created.contact.id);
    expect(await contactsNamed('Okafor')).toBe(1);

    // Once the results are in the conversation, nothing is left to run.
    const answered = await chat({ messages: [...conversation.messages, ...answer.messages, { role: 'assistant', content: 'Done.' }] });
    expect(JSON.parse(answered.text).messages).toEqual([]);
  });

  it('a call id reused by another conversation runs afresh instead of replaying the first conversation\'s outcome', async () => {
    // Some models number their calls (call_0, call_1…), so the same id turns up in unrelated conversations.
    const conversationAsking = (who: string) => ({
      messages: [
        { role: 'user', content: `Add ${who} Adeyemi, please.` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'people_create_contact', arguments: JSON.stringify({ firstName: who, lastName: 'Adeyemi' }) } }] },
      ],
    });
    const first = JSON.parse(JSON.parse((await chat(conversationAsking('Tola'))).text).messages[0].content);
    const second = JSON.parse(JSON.parse((await chat(conversationAsking('Bisi'))).text).messages[0].content);
    expect(first.contact.firstName).toBe('Tola');
    expect(second.contact).toMatchObject({ firstName: 'Bisi', lastName: 'Adeyemi' });
    expect(second.contact.id).not.toBe(first.contact.id);
    // The same conversation resent still replays: one Tola, one Bisi.
    const resent = JSON.parse(JSON.parse((await chat(conversationAsking('Tola'))).text).messages[0].content);
    expect(resent.contact.id).toBe(first.contact.id);
    expect(await contactsNamed('Adeyemi')).toBe(2);
  });

  it('runs Anthropic tool_use blocks and answers tool_result blocks, with errors marked is_error', async () => {
    const answer = await chat({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Add Peter Nwosu, then something odd.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding him.' },
            { type: 'tool_use', id: 'toolu_01peter', name: 'people_create_contact', input: { firstName: 'Peter', lastName: 'Nwosu' } },
            { type: 'tool_use', id: 'toolu_02nothing', name: 'people_teleport_contact', input: {} },
            { type: 'tool_use', id: 'toolu_03bad', name: 'people_create_contact', input: { firstName: 42 } },
          ],
        },
      ],
    });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body.format).toBe('anthropic');
    expect(body.messages).toHaveLength(1);
    const [message] = body.messages;
    expect(message.role).toBe('user');
    expect(message.content.map((block: { tool_use_id: string; is_error?: boolean }) => [block.tool_use_id, block.is_error ?? false]))
      .toEqual([['toolu_01peter', false], ['toolu_02nothing', true], ['toolu_03bad', true]]);
    expect(JSON.parse(message.content[0].content).contact.lastName).toBe('Nwosu');
    expect(JSON.parse(message.content[1].content).error.code).toBe('unknown_tool');
    expect(JSON.parse(message.content[2].content).error.code).toBe('validation_failed');
    expect(await contactsNamed('Nwosu')).toBe(1);
  });

  it('refuses malformed conversations clearly, and unreadable arguments per call', async () => {
    const noMessages = await chat({ prompt: 'hi' });
    expect(noMessages.status).toBe(400);
    expect(JSON.parse(noMessages.text).error.code).toBe('validation_failed');
    const noAssistant = await chat({ messages: [{ role: 'user', content: 'hi' }] });
    expect(JSON.parse(noAssistant.text).error.message).toContain('no assistant message');
    const badFormat = await chat({ format: 'gemini', messages: [{ role: 'assistant', content: 'x' }] });
    expect(JSON.parse(badFormat.text).error.issues[0].path).toBe('format');
    const tooMany = await chat({ messages: [{ role: 'assistant', tool_calls: Array.from({ length: 17 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'platform_overview', arguments: '{}' } })) }] });
    expect(JSON.parse(tooMany.text).error.message).toContain('At most 16');

    const badJson = JSON.parse((await chat({ messages: [{ role: 'assistant', tool_calls: [{ id: 'call_bad_json', type: 'function', function: { name: 'people_create_contact', arguments: '{"firstName": "Ann"' } }] }] })).text);
    expect(JSON.parse(badJson.messages[0].content).error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('not valid JSON') });
  });

  it('a call the credential may not make answers insufficient_scope inside its result', async () => {
    const reader = await harness.createKey(org.orgId, ['people:read', 'platform:read']);
    const answer = JSON.parse((await chat({
      messages: [{ role: 'assistant', tool_calls: [{ id: 'call_scope_1', type: 'function', function: { name: 'people_create_contact', arguments: '{"firstName":"No","lastName":"Scope"}' } }] }],
    }, {}, reader.apiKey)).text);
    expect(JSON.parse(answer.messages[0].content).error.code).toBe('insufficient_scope');
    expect(await contactsNamed('Scope')).toBe(0);
  });

  it('a call that waits for a person streams progress and answers approval_required with the proposal to follow', async () => {
    process.env.STEWARD_CHAT_APPROVAL_WAIT_MS = '1500';
    process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS = '300';
    try {
      const keep = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ruth', lastName: 'Mensah', email: 'ruth@example.org' })).contact.id;
      const merge = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ruth', lastName: 'Mensah' })).contact.id;
      const streamed = await chat({
        messages: [{ role: 'assistant', tool_calls: [{ id: 'call_merge_ruth', type: 'function', function: { name: 'people_merge_data_quality_contacts', arguments: JSON.stringify({ keepContactId: keep, mergeContactId: merge }) } }] }],
      }, { accept: 'text/event-stream' });
      expect(streamed.type).toContain('text/event-stream');
      const events = streamed.text.trim().split('\n\n').map((chunk) => ({
        event: /^event: (.+)$/m.exec(chunk)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(chunk)?.[1] ?? 'null'),
      }));
      expect(events.filter((e) => e.event === 'progress').length).toBeGreaterThan(0);
      expect(events.at(-1)!.event).toBe('result');
      const result = JSON.parse(events.at(-1)!.data.messages[0].content);
      expect(result.error.code).toBe('approval_required');
      expect(result.error.details.proposalId).toEqual(expect.any(String));
      // Nothing merged while the proposal waits.
      expect(await contactsNamed('Mensah')).toBe(2);
    } finally {
      delete process.env.STEWARD_CHAT_APPROVAL_WAIT_MS;
      delete process.env.STEWARD_MCP_PROGRESS_INTERVAL_MS;
    }
  });

  it('a long call streamed over the chat bridge sends work_progress events, each further on, ending at the total', async () => {
    const csv = ['First Name,Last Name,Email', ...Array.from({ length: 300 }, (_, i) => `Row${i},Streamer,row${i}@example.org`)].join('\n');
    const streamed = await chat({
      messages: [{ role: 'assistant', tool_calls: [{ id: 'call_import_rows', type: 'function', function: { name: 'people_import_contacts', arguments: JSON.stringify({ csv, mode: 'commit' }) } }] }],
    }, { accept: 'text/event-stream' });
    const events = streamed.text.trim().split('\n\n').map((chunk) => ({
      event: /^event: (.+)$/m.exec(chunk)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(chunk)?.[1] ?? 'null'),
    }));
    const work = events.filter((e) => e.event === 'work_progress').map((e) => e.data);
    expect(work.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < work.length; i += 1) expect(work[i].done).toBeGreaterThan(work[i - 1].done);
    expect(work.every((w) => w.toolCallId === 'call_import_rows' && w.tool === 'people_import_contacts' && w.total === 300)).toBe(true);
    expect(work.at(-1)).toMatchObject({ done: 300, total: 300, message: 'Imported 300 of 300 rows' });
    expect(events.at(-1)!.event).toBe('result');
    expect(JSON.parse(events.at(-1)!.data.messages[0].content)).toMatchObject({ committed: true, rows: 300 });
    const count = await harness.pool.query("SELECT count(*)::int AS n FROM contacts WHERE org_id = $1 AND last_name = 'Streamer' AND deleted_at IS NULL", [org.orgId]);
    expect(count.rows[0].n).toBe(300);
  });

  it('gives the permitted tools in OpenAI and Anthropic shapes', async () => {
    const reader = await harness.createKey(org.orgId, ['people:read']);
    const get = async (format: string) => {
      const response = await fetch(`${harness.url}/api/agent/chat/tools?format=${format}`, { headers: { authorization: `Bearer ${reader.apiKey}` } });
      return { status: response.status, body: await response.json() as any };
    };
    const expected = permittedTools(['people:read']).map((tool) => tool.name);
    const openai = await get('openai');
    expect(openai.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(expected);
    expect(openai.body.tools[0].type).toBe('function');
    const anthropic = await get('anthropic');
    expect(anthropic.body.tools.map((tool: { name: string }) => tool.name)).toEqual(expected);
    expect(anthropic.body.tools[0].input_schema.type).toBe('object');
    expect((await get('yaml')).status).toBe(400);
  });
});
