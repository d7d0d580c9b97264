import { Harness, type TestOrg } from '../helpers/harness';
import { OAuthDriver, type RegisteredClient } from '../helpers/oauth';

const REDIRECT = 'http://127.0.0.1:49152/callback';

/**
 * Issue 23, item 1: every intent carries platform:write, so scopes alone would let an assistant
 * consented for "people" hand out power. Team, API keys, agents' autonomy and settings belong to the
 * team and platform intents; granting owner or admin and raising an agent to auto wait for a person.
 */
describe('intents and power over the organisation', () => {
  let harness: Harness;
  let org: TestOrg;
  let oauth: OAuthDriver;
  let client: RegisteredClient;
  let owner: { userId: string; email: string; password: string };

  beforeAll(async () => {
    harness = await Harness.start({ app: { oauthRateLimits: false } });
    org = await harness.createOrg({ name: 'Power Chapel' });
    oauth = new OAuthDriver(harness.url);
    client = await oauth.registerClient(REDIRECT);
    owner = await harness.createMember(org.orgId, { role: 'owner' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function tokenFor(intent: string): Promise<{ token: string; page: string }> {
    const { code, verifier, page } = await oauth.authorize(client, owner, { intent });
    const { body } = await oauth.exchange(client, code, verifier);
    return { token: body.access_token as string, page };
  }

  async function bearer(token: string, path: string, body?: unknown) {
    const response = await fetch(`${harness.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? text.split('data: ')[1] : text) as any };
  }

  const invoke = (token: string, tool: string, args: unknown) => bearer(token, '/api/agent/invoke', { tool, arguments: args });

  it('a people token neither sees nor calls team, API key, agent autonomy or settings tools', async () => {
    const { token, page } = await tokenFor('people');
    expect(page).toContain('It cannot change who is on your team');
    const listed = await bearer(token, '/api/agent/tools?format=manifest');
    const names = listed.body.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('people_create_contact');
    for (const name of ['platform_invite_team_member', 'platform_list_team_members', 'platform_set_agent_autonomy', 'platform_settings_invoke_api_read']) {
      expect(names).not.toContain(name);
    }
    const mcp = await bearer(token, '/api/mcp?toolsets=all', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(mcp.body.result.tools.map((tool: { name: string }) => tool.name)).not.toContain('platform_invite_team_member');

    const invite = await invoke(token, 'platform_invite_team_member', { email: 'new-admin@power.example', roleId: 'admin' });
    expect(invite.status).toBe(403);
    expect(invite.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredIntent: ['team', 'platform'], intent: 'people' } });
    const keys = await invoke(token, 'platform_settings_invoke_api_read', { path: '/api/platform/api-keys' });
    expect(keys.status).toBe(403);
    // The dashboard bridge reaches every route, the settings ones included: refused there too.
    const viaDashboard = await invoke(token, 'platform_invoke_dashboard_api_read', { path: '/api/platform/api-keys' });
    expect(viaDashboard.body.error?.code).toBe('insufficient_scope');
    const rename = await invoke(token, 'platform_invoke_dashboard_api_write', { method: 'PATCH', path: '/api/platform/settings', body: { name: 'Renamed' }, actionSummary: 'Rename' });
    expect(rename.body.error?.code).toBe('insufficient_scope');
    const autonomy = await invoke(token, 'platform_set_agent_autonomy', { agent: 'people', autonomy: 'auto' });
    expect(autonomy.status).toBe(403);
    const { rows } = await harness.pool.query("SELECT name FROM organisations WHERE id = $1", [org.orgId]);
    expect(rows[0].name).toBe('Power Chapel');
  });

  it('a team token sees the team tools; granting admin waits for a person with another credential', async () => {
    const { token, page } = await tokenFor('team');
    expect(page).toContain('still waits for a person to approve it');
    const staffInvite = await invoke(token, 'platform_invite_team_member', { email: 'new-staff@power.example', roleId: 'staff' });
    expect(staffInvite.status).toBe(200);
    const adminInvite = await invoke(token, 'platform_invite_team_member', { email: 'new-admin@power.example', roleId: 'admin' });
    expect(adminInvite.body.error?.code).toBe('approval_required');
    const proposalId = adminInvite.body.error.details.proposalId;
    // The token that proposed it cannot approve it: that would be an assistant granting power alone.
    const selfApproved = await invoke(token, 'platform_approve_proposal', { proposalId });
    expect(selfApproved.body.error?.code).toBe('forbidden');
    const pending = await harness.pool.query("SELECT count(*)::int AS n FROM team_invites WHERE org_id = $1 AND email = 'new-admin@power.example'", [org.orgId]);
    expect(pending.rows[0].n).toBe(0);
    // A person with another credential approves it.
    const approved = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId });
    expect(approved).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });
  });

  it('raising an agent to auto and promoting to owner or admin are gated whatever the credential; lowering is not', async () => {
    const auto = await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', { agent: 'giving', autonomy: 'auto' });
    expect(auto.body.error?.code).toBe('approval_required');
    expect((await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', { agent: 'giving', autonomy: 'propose' })).status).toBe(200);
    const staff = await harness.createMember(org.orgId, { role: 'staff' });
    const promote = await harness.invoke(org.apiKey, 'platform_update_team_member_role', { userId: staff.userId, roleId: 'admin' });
    expect(promote.body.error?.code).toBe('approval_required');
    const demote = await harness.invoke(org.apiKey, 'platform_update_team_member_role', { userId: staff.userId, roleId: 'volunteer' });
    expect(demote.status).toBe(200);
  });
});
