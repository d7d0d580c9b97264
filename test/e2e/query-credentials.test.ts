import { Harness, type TestOrg } from '../helpers/harness';

/**
 * Credentials go in the Authorization header only. Any query parameter that looks like one, by its
 * name or its value, is refused with 400 before anything runs, on the bridge and on MCP alike.
 */
describe('credentials in the query string', () => {
  let harness: Harness;
  let org: TestOrg;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
  });

  afterAll(async () => {
    await harness?.close();
  });

  const contactCount = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [org.orgId])).rows[0].n as number;

  it.each([
    'access_token', 'accessToken', 'Access-Token', 'token', 'api_key', 'apiKey', 'API-KEY', 'key', 'auth', 'authorization',
    'client_secret', 'refresh_token', 'id_token', 'password', 'bearer',
  ])('refuses ?%s= even with a valid key in the header', async (name) => {
    const before = await contactCount();
    const response = await fetch(`${harness.url}/api/agent/invoke?${encodeURIComponent(name)}=${encodeURIComponent(org.apiKey)}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${org.apiKey}` },
      body: JSON.stringify({ tool: 'people_create_contact', arguments: { email: 'query@example.org' } }),
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toBe('invalid_request');
    expect(JSON.stringify(body)).not.toContain(org.apiKey);
    expect(await contactCount()).toBe(before);
  });

  it('refuses a credential-shaped value under any name, on the bridge and MCP', async () => {
    const jwtShaped = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    for (const value of [org.apiKey, jwtShaped, `Bearer ${org.apiKey}`]) {
      const tools = await fetch(`${harness.url}/api/agent/tools?format=openai&x=${encodeURIComponent(value)}`, { headers: { authorization: `Bearer ${org.apiKey}` } });
      expect(tools.status).toBe(400);
      const mcp = await fetch(`${harness.url}/api/mcp?toolsets=people&x=${encodeURIComponent(value)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${org.apiKey}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(mcp.status).toBe(400);
    }
  });

  it('still serves ordinary parameters, and accepts the bearer scheme in any case (RFC 6750)', async () => {
    const tools = await fetch(`${harness.url}/api/agent/tools?format=openai`, { headers: { authorization: `bearer ${org.apiKey}` } });
    expect(tools.status).toBe(200);
  });
});
