import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';

/** What an assistant does when asked "add Jane Doe, Tom's wife, to the welcome team". */
describe('an agent-like sequence over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as any;
  };

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('search → create → add spouse → tag → add to group → list household', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['people_list_crm_group_members', 'people_import_contacts']));

    const tom = (await call('people_create_contact', { firstName: 'Tom', lastName: 'Doe', email: 'tom@example.org', gender: 'male' })).contact;
    const search = await call('people_search_contacts', { query: 'Jane Doe' });
    expect(search.contacts).toEqual([]);
    const jane = (await call('people_create_contact', { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.org', gender: 'female' })).contact;

    const link = await call('people_add_family_relationship', { contactId: tom.id, relatedContactId: jane.id, relationship: 'wife' });
    expect(link.inverse).toEqual({ contactId: jane.id, relatedContactId: tom.id, relationship: 'husband' });
    const again = await call('people_add_family_relationship', { contactId: tom.id, relatedContactId: jane.id, relationship: 'wife' });
    expect(again.familyId).toBe(link.familyId);

    expect(await call('people_add_contact_tags', { contactId: jane.id, tags: ['Welcome Team'] })).toEqual({ added: ['Welcome Team'], created: ['Welcome Team'] });
    await call('people_create_crm_group', { name: 'Welcome Team' });
    const member = await call('people_add_crm_group_member', { groupName: 'Welcome Team', email: 'jane@example.org' });
    expect(member.contactId).toBe(jane.id);

    const household = await call('people_list_household', { contactId: jane.id });
    expect(household.members.map((m: any) => m.displayName).sort()).toEqual(['Jane Doe', 'Tom Doe']);
    const family = await call('people_list_family', { contactId: jane.id });
    expect(family.family).toEqual([{ contactId: tom.id, displayName: 'Tom Doe', relationship: 'husband' }]);
    const members = await call('people_list_crm_group_members', { groupName: 'Welcome Team' });
    expect(members.members.map((m: any) => m.displayName)).toEqual(['Jane Doe']);
  });
});
