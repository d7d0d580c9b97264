import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { OAuthDriver } from '../../../test/helpers/oauth';
import { call, publicPost, refusal, viewerToken } from './stack';

const REDIRECT = 'http://127.0.0.1:49152/callback';

/**
 * Spec 5.3's broadcast intent (runsheet, live streaming, media hub; no CRM or pastoral data), proved
 * over MCP with a token a person consented to for it: it runs the stream's tools, and can read no
 * contact, no note and no prayer request: people's and community's tools not listed, every one refused when called, and nothing of a
 * logged-in viewer's contact in what the live tools return.
 */
describe('the broadcast intent reads no contact, note or prayer request', () => {
  let harness: Harness;
  let org: TestOrg;
  let admin: McpClient;
  let broadcast: McpClient;
  let token: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Broadcast Chapel' });
    admin = await harness.mcpClient(org.apiKey);
    const oauth = new OAuthDriver(harness.url);
    const client = await oauth.registerClient(REDIRECT);
    const owner = await harness.createMember(org.orgId, { role: 'owner', safeguarding: true });
    const { code, verifier } = await oauth.authorize(client, owner, { intent: 'broadcast' });
    token = (await oauth.exchange(client, code, verifier)).body.access_token as string;
    broadcast = await harness.mcpClient(token, '?toolsets=all');
  });

  afterAll(async () => {
    await broadcast?.close();
    await admin?.close();
    await harness?.close();
  });

  it('runs a stream but neither lists nor reads contacts, notes or prayer requests', async () => {
    const { contact } = await call(admin, 'people_create_contact', { firstName: 'Priscilla', lastName: 'Aquila', email: 'priscilla@example.org' });
    await call(admin, 'people_add_note', { contactId: contact.id, content: 'Pastoral note about Priscilla' });

    const { stream } = await call(broadcast, 'live_schedule_stream', { title: 'Evensong', startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 60 });
    const base = `${harness.url}/live/api/${org.orgId}/${stream.id}`;
    expect((await publicPost(base, '/chat', { viewerToken: viewerToken('p'), name: 'Cilla', body: 'Peace be with you' })).status).toBe(200);
    expect((await publicPost(base, '/prayer', { viewerToken: viewerToken('p'), name: 'Cilla', contact: 'cilla@example.org', body: 'Pray for my exams' })).status).toBe(200);
    // A logged-in viewer's message: the contact id is kept for merge and erasure, never shown.
    await harness.pool.query('UPDATE live_chat SET contact_id = $1 WHERE stream_id = $2', [contact.id, stream.id]);

    const listed = (await broadcast.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain('live_list_chat');
    for (const name of listed) expect(name).not.toMatch(/^(people|community|giving|guests|channels)_/);

    for (const [tool, args] of [
      ['live_list_prayer_requests', { streamId: stream.id }], ['people_list_contacts', {}], ['people_get_contact', { contactId: contact.id }], ['people_list_notes', { contactId: contact.id }],
      ['community_list_prayer_wall', {}], ['live_invoke_api_write', { method: 'PATCH', path: '/api/live/prayer-requests/00000000-0000-4000-8000-000000000000', body: { status: 'prayed' }, actionSummary: 'Mark prayed' }],
    ] as const) {
      expect((await refusal(broadcast, tool, args)).code).toBe('insufficient_scope');
    }

    const chat = await call(broadcast, 'live_list_chat', { streamId: stream.id, includeHidden: true });
    expect(chat.messages.map((m: { body: string }) => m.body)).toEqual(['Peace be with you']);
    const everything = JSON.stringify([chat, await call(broadcast, 'live_get_viewer_stats', { streamId: stream.id }), await call(broadcast, 'live_list_streams', {})]);
    for (const secret of [contact.id, 'priscilla@example.org', 'Aquila', 'Pray for my exams', 'cilla@example.org']) expect(everything).not.toContain(secret);
  });
});
