import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpCall } from '../../../test/helpers/mcp-calls';
import { openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';

/** The plan status widget rendered in headless Chromium by a minimal MCP Apps host, from the real status. */
describe('billing plan status widget in headless Chromium', () => {
  let suite: WidgetSuite;
  let mcp: McpClient;
  let host: WidgetHost;

  beforeAll(async () => {
    suite = await openWidgetSuite();
    ({ mcp, host } = suite);
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('shows the plan, its state and usage against allowance and cap', async () => {
    await mcpCall(mcp, 'billing_set_spend_cap', { feature: 'messaging_credits', capUnits: 40 });
    const { frame, result } = await host.callAndShow('billing_get_plan_status', {});
    const status = result.structuredContent;
    await expect(frame.locator('h1').textContent()).resolves.toBe('starter plan');
    await expect(frame.locator('[data-field=status]').textContent()).resolves.toBe('active');
    await expect(frame.locator('[data-field=reason]').textContent()).resolves.toBe(status.entitlements.reason);
    const row = await frame.locator('tr[data-id=messaging_credits] td').allTextContents();
    const credits = status.usage.find((entry: any) => entry.feature === 'messaging_credits');
    expect(row).toEqual(['messaging credits', '0', String(credits.limit), '40 (0%)']);
    expect(host.errors).toEqual([]);
  });
});
