import { allPlaybooks } from '../../modules/catalogue';
import { Harness, type TestOrg } from '../helpers/harness';

/** Playbooks reach agents as MCP prompts, only for credentials that can follow them. */
describe('playbooks as MCP prompts', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
  });
  afterAll(async () => harness?.close());

  it('lists every playbook to a credential holding their scopes, and none to one that holds none of them', async () => {
    const client = await harness.mcpClient(org.apiKey);
    try {
      const { prompts } = await client.listPrompts();
      const names = prompts.map((prompt) => prompt.name);
      // The organisation's owner key holds every scope.
      expect(names.sort()).toEqual(allPlaybooks().map((playbook) => playbook.name).sort());
      expect(names).toContain('welcome-first-time-visitor');
      const welcome = prompts.find((prompt) => prompt.name === 'welcome-first-time-visitor')!;
      expect(welcome.arguments).toContainEqual({ name: 'visitor', description: expect.any(String), required: true });
    } finally {
      await client.close();
    }
    const narrow = await harness.createKey(org.orgId, ['platform:read']);
    const narrowClient = await harness.mcpClient(narrow.apiKey);
    try {
      expect((await narrowClient.listPrompts()).prompts).toEqual([]);
      await expect(narrowClient.getPrompt({ name: 'welcome-first-time-visitor', arguments: { visitor: 'Ann' } })).rejects.toThrow(/no playbook named/);
    } finally {
      await narrowClient.close();
    }
  });

  it('gives the steps with the arguments filled in, and refuses missing, unknown or oversized arguments', async () => {
    const client = await harness.mcpClient(org.apiKey);
    try {
      const prompt = await client.getPrompt({ name: 'welcome-first-time-visitor', arguments: { visitor: 'Grace Adeyemi, grace@example.org' } });
      const text = (prompt.messages[0]!.content as { text: string }).text;
      expect(text).toContain('Grace Adeyemi, grace@example.org');
      expect(text).toContain('people_search_contacts');
      expect(text).toContain('approval');
      await expect(client.getPrompt({ name: 'welcome-first-time-visitor', arguments: {} })).rejects.toThrow(/needs the argument visitor/);
      await expect(client.getPrompt({ name: 'welcome-first-time-visitor', arguments: { visitor: 'Ann', mood: 'x' } })).rejects.toThrow(/Unknown arguments/);
      await expect(client.getPrompt({ name: 'welcome-first-time-visitor', arguments: { visitor: 'x'.repeat(501) } })).rejects.toThrow(/longer than 500/);
      await expect(client.getPrompt({ name: 'no-such-playbook' })).rejects.toThrow(/no playbook named/);
    } finally {
      await client.close();
    }
  });
});
