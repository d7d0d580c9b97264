import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../helpers/harness';

function errorOf(result: Record<string, unknown>) {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first.text).error as { code: string; message: string; hint?: string };
}

describe('MCP over streamable HTTP', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('initializes and lists the default tools with annotations and schemas', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['people_create_contact', 'platform_search_tools', 'people_list_care_timeline']));
    const create = tools.find((t) => t.name === 'people_create_contact')!;
    expect(create.inputSchema.type).toBe('object');
    expect(create.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false });
    const get = tools.find((t) => t.name === 'people_get_contact')!;
    expect(get.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(tools.find((t) => t.name === 'people_delete_contact')!.annotations?.destructiveHint).toBe(true);
  });

  it('creates, searches, updates and soft-deletes a contact, with notes on the timeline', async () => {
    const created = await mcp.callTool({ name: 'people_create_contact', arguments: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org', dateOfBirth: '09/12/1986' } });
    expect(created.isError).toBeFalsy();
    const contact = (created.structuredContent as any).contact;
    expect(contact.dateOfBirth).toBe('1986-12-09');
    expect(JSON.parse((created.content as any)[0].text).contact.id).toBe(contact.id);
    // The text copy is the structured result as compact JSON: an agent reads every character of it.
    expect((created.content as any)[0].text).toBe(JSON.stringify(created.structuredContent));

    const found = await mcp.callTool({ name: 'people_search_contacts', arguments: { query: 'hopper' } });
    expect((found.structuredContent as any).contacts.map((c: any) => c.id)).toEqual([contact.id]);

    const updated = await mcp.callTool({ name: 'people_update_contact', arguments: { contactId: contact.id, phone: '+44 7700 900123' } });
    expect((updated.structuredContent as any).contact).toMatchObject({ phone: '+44 7700 900123', email: 'grace@example.org', firstName: 'Grace' });
    expect((updated.structuredContent as any).changedFields).toEqual(['phone']);

    const note = await mcp.callTool({ name: 'people_add_note', arguments: { contactId: contact.id, content: 'Visited Grace after her operation' } });
    expect(note.isError).toBeFalsy();
    const timeline = await mcp.callTool({ name: 'people_list_care_timeline', arguments: { contactId: contact.id } });
    const kinds = (timeline.structuredContent as any).entries.map((e: any) => e.kind);
    expect(kinds).toEqual(['note_added', 'contact_created']);

    const deleted = await mcp.callTool({ name: 'people_delete_contact', arguments: { contactId: contact.id } });
    expect((deleted.structuredContent as any).deleted).toBe('soft');
    const gone = await mcp.callTool({ name: 'people_get_contact', arguments: { contactId: contact.id } });
    expect(gone.isError).toBe(true);
    expect(errorOf(gone).code).toBe('not_found');
  });

  it('returns isError with a stable code for bad arguments, and a protocol error for an unknown tool', async () => {
    const bad = await mcp.callTool({ name: 'people_create_contact', arguments: { firstName: 42 } });
    expect(bad.isError).toBe(true);
    expect(errorOf(bad)).toMatchObject({ code: 'validation_failed' });
    expect(errorOf(bad).message).toContain('firstName');
    await expect(mcp.callTool({ name: 'people_fly_to_moon', arguments: {} })).rejects.toMatchObject({ code: -32602, data: { error: { code: 'unknown_tool' } } });
  });

  it('lists only the tools the credential may use, and more by toolset', async () => {
    const reader = await harness.createKey(org.orgId, ['people:read']);
    const client = await harness.mcpClient(reader.apiKey);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((t) => t.name.startsWith('people_') && (t.annotations?.readOnlyHint ?? false))).toBe(true);
    const refused = await client.callTool({ name: 'people_create_contact', arguments: { email: 'x@example.org' } });
    expect(errorOf(refused)).toMatchObject({ code: 'insufficient_scope' });
    expect(errorOf(refused).message).toContain('people:write');
    await client.close();
  });

  it('refuses a foreign browser Origin with 403', async () => {
    const response = await fetch(`${harness.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, origin: 'https://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(403);
  });
});
