import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';

/**
 * The visitor card's preview page over HTTP: a sample token from people_get_card_sample_token opens
 * the card as a visitor sees it (standard and custom fields, every label escaped), marked as a preview
 * that cannot be sent; a wrong, tampered or other organisation's token gets the same 404.
 */
describe('visitor card preview page', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Bride' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    await mcpCall(mcp, 'people_create_custom_field_definition', { key: 'service', label: 'Which service? <script>alert(1)</script>', type: 'select', options: ['8am & "said"', '10:30'] });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  it('shows the card with every field escaped, as a preview that cannot be sent', async () => {
    const sample = await mcpCall(mcp, 'people_get_card_sample_token', {});
    expect(sample.previewPath).toBe(`/people/visitor-card/${org.orgId}?token=${encodeURIComponent(sample.token)}`);
    const response = await fetch(`${harness.url}${sample.previewPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("form-action 'none'");
    const html = await response.text();
    expect(html).toContain('Preview only');
    for (const label of ['First name', 'Last name', 'Email', 'May we contact you?']) expect(html).toContain(label);
    expect(html).toContain('Which service? &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<option>8am &amp; &quot;said&quot;</option>');
    expect(html).not.toMatch(/<script/i);
    expect(html).toMatch(/<button type="submit" disabled>/);
    expect(html).not.toMatch(/action=/);
  });

  it('answers 404 for a missing, tampered or other organisation\'s token, and creates nothing', async () => {
    const before = (await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [org.orgId])).rows[0].n;
    const { token } = await mcpCall(mcp, 'people_get_card_sample_token', {});
    const tampered = `${token.slice(0, -2)}${token.endsWith('aa') ? 'bb' : 'aa'}`;
    for (const path of [
      `/people/visitor-card/${org.orgId}`,
      `/people/visitor-card/${org.orgId}?token=${encodeURIComponent(tampered)}`,
      `/people/visitor-card/${other.orgId}?token=${encodeURIComponent(token)}`,
      `/people/visitor-card/not-a-uuid?token=x`,
    ]) {
      const response = await fetch(`${harness.url}${path}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('not valid, or has expired');
    }
    const posted = await fetch(`${harness.url}/people/visitor-card/${org.orgId}?token=${encodeURIComponent(token)}`, { method: 'POST', body: 'firstName=A&lastName=B' });
    expect(posted.status).toBe(404);
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM contacts WHERE org_id = $1', [org.orgId])).rows[0].n).toBe(before);
  });
});
