import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../helpers/harness';

const WIDGETS: Record<string, string> = {
  'people-contact-card': 'people_get_contact',
  'people-care-timeline': 'people_list_care_timeline',
  'people-outreach-queue': 'people_list_pending_outreach',
  'people-data-quality': 'people_fetch_data_quality_dashboard',
  'platform-usage-meters': 'platform_usage',
  'platform-proposal-review': 'platform_get_proposal',
  'platform-proposal-queue': 'platform_pending_proposals',
  'groups-group-card': 'groups_get',
  'ticketing-event-sales': 'ticketing_get_sales_report',
  'store-order': 'store_get_order',
  'billing-plan-status': 'billing_get_plan_status',
  'spaces-room-week': 'spaces_get_room_schedule',
  'runsheet-running-order': 'runsheet_get_plan',
  'runsheet-rota': 'runsheet_get_rota',
  'people-contact-profile': 'people_get_contact_profile',
  'people-crm-chart': 'people_get_crm_analytics_chart',
  'mediahub-episode': 'mediahub_get_episode',
  'giving-summary': 'giving_summary',
  'attendance-trend': 'attendance_get_summary',
  'guests-arrivals-heatmap': 'guests_get_analytics_heatmap',
  'people-prayer-analytics': 'people_get_prayer_analytics',
  'people-visit-analytics': 'people_get_visit_analytics',
  'channels-broadcast-funnel': 'channels_get_broadcast',
  'live-stream': 'live_get_stream_status',
  'grow-campaign-report': 'grow_get_campaign_report',
  'grow-form-submissions': 'grow_list_submissions',
};
const MIME = 'text/html;profile=mcp-app';
const NO_OUTSIDE_ORIGINS = { connectDomains: [], resourceDomains: [], frameDomains: [] };

/** The in-chat widgets as MCP resources (MCP Apps), and the tools/list links to them. */
describe('MCP widgets: resources and tool links', () => {
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

  it('declares the resources capability', () => {
    expect(mcp.getServerCapabilities()?.resources).toEqual({ listChanged: false });
  });

  it('lists every widget with the MCP Apps mimeType and a policy that allows no outside origin', async () => {
    const { resources } = await mcp.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(Object.keys(WIDGETS).map((id) => `ui://steward/w/${id}`).sort());
    for (const resource of resources) {
      expect(resource).toMatchObject({ mimeType: MIME, _meta: { ui: { csp: NO_OUTSIDE_ORIGINS, prefersBorder: true } } });
      expect(resource.title).toEqual(expect.any(String));
      expect(resource.description).toEqual(expect.any(String));
    }
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'ui://steward/w/{widgetId}', mimeType: MIME })]);
  });

  it('reads each widget as one self-contained HTML page: inline script only, under its own content security policy', async () => {
    for (const id of Object.keys(WIDGETS)) {
      const uri = `ui://steward/w/${id}`;
      const { contents } = await mcp.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [page] = contents as Array<{ uri: string; mimeType: string; text: string; _meta: unknown }>;
      expect(page).toMatchObject({ uri, mimeType: MIME, _meta: { ui: { csp: NO_OUTSIDE_ORIGINS } } });
      expect(page.text.startsWith('<!doctype html>')).toBe(true);
      // No remote script, stylesheet, frame or image: everything the page needs is in it.
      expect(page.text).not.toMatch(/<script[^>]*\ssrc=|<link\b|<iframe\b|<img\b/i);
      expect(page.text.match(/<script>/g)).toHaveLength(1);
      const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page.text)?.[1];
      expect(policy).toContain('default-src &#39;none&#39;');
      expect(policy).toMatch(/script-src &#39;sha256-[A-Za-z0-9+/=]+&#39;;/);
      expect(policy).toContain('connect-src &#39;none&#39;');
    }
  });

  it('links each widget\'s tool from its tools/list entry with _meta.ui.resourceUri', async () => {
    // Every toolset: a linked tool need not be in the default listing (an agent finds it with tool search).
    const all = await harness.mcpClient(org.apiKey, '?toolsets=all');
    const { tools } = await all.listTools().finally(() => all.close());
    for (const [id, name] of Object.entries(WIDGETS)) {
      const entry = tools.find((tool) => tool.name === name);
      expect(entry?._meta).toEqual({ ui: { resourceUri: `ui://steward/w/${id}` }, 'ui/resourceUri': `ui://steward/w/${id}` });
    }
    const linked = tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name);
    expect(linked.sort()).toEqual(Object.values(WIDGETS).sort());
  });

  it('offers a credential only the widgets of tools it may call', async () => {
    const { apiKey } = await harness.createKey(org.orgId, ['people:read']);
    const narrow = await harness.mcpClient(apiKey);
    try {
      const { resources } = await narrow.listResources();
      expect(resources.map((resource) => resource.name).sort()).toEqual(['people-care-timeline', 'people-contact-card', 'people-contact-profile', 'people-crm-chart', 'people-data-quality', 'people-outreach-queue', 'people-prayer-analytics', 'people-visit-analytics']);
      await expect(narrow.readResource({ uri: 'ui://steward/w/platform-usage-meters' })).rejects.toMatchObject({ code: -32002 });
      expect((await narrow.readResource({ uri: 'ui://steward/w/people-contact-card' })).contents).toHaveLength(1);
    } finally {
      await narrow.close();
    }
  });

  it('lists the widgets in the MCP manifest', async () => {
    const manifest = await (await fetch(`${harness.url}/api/mcp/manifest`)).json() as { widgets: Array<{ uri: string; mimeType: string; tools: string[] }> };
    expect(Object.fromEntries(manifest.widgets.map((widget) => [widget.uri, widget.tools]))).toEqual(
      Object.fromEntries(Object.entries(WIDGETS).map(([id, tool]) => [`ui://steward/w/${id}`, [tool]])));
    expect(manifest.widgets.every((widget) => widget.mimeType === MIME)).toBe(true);
  });

  it('answers an unknown resource with resource not found', async () => {
    await expect(mcp.readResource({ uri: 'ui://steward/w/no-such-widget' })).rejects.toMatchObject({ code: -32002 });
    await expect(mcp.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32002 });
  });
});
