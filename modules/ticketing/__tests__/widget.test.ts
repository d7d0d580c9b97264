import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { CHROMIUM } from '../../../test/helpers/oauth';
import { WidgetHost } from '../../../test/helpers/widget-host';
import { call, inDays } from './stack';

/** User text that would become markup, or run, if the widget parsed what it shows as HTML. */
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b> & "quoted"';

/** The event sales widget rendered in headless Chromium by a minimal MCP Apps host, from the real report. */
describe('ticketing event sales widget in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let mcp: McpClient;
  let host: WidgetHost;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Widget Parish' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
    browser = await chromium.launch(CHROMIUM);
    host = await WidgetHost.open(browser, mcp);
  });

  afterAll(async () => {
    await host?.close();
    await browser?.close();
    await mcp?.close();
    await harness?.close();
  });

  it('shows the report\'s figures and each ticket type, user text as text', async () => {
    const { event } = await call(mcp, 'ticketing_create_event', { title: `Concert ${HOSTILE}`, startsAt: inDays(9), timeZone: 'Europe/London', currency: 'GBP', capacity: 20 });
    const adult = (await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: HOSTILE, price: 0, capacity: 12 })).ticketType;
    await call(mcp, 'ticketing_create_ticket_type', { eventId: event.id, name: 'Child', price: 0 });
    await call(mcp, 'ticketing_publish_event', { eventId: event.id });
    await call(mcp, 'ticketing_create_order', { eventId: event.id, items: [{ ticketTypeId: adult.id, quantity: 3 }] });
    await call(mcp, 'ticketing_create_hold', { ticketTypeId: adult.id, quantity: 2, reason: 'Choir' });

    const { frame, result } = await host.callAndShow('ticketing_get_sales_report', { eventId: event.id });
    const report = result.structuredContent;
    await expect(frame.locator('h1').textContent()).resolves.toBe(report.title);
    expect(report.title).toContain(HOSTILE);
    await expect(frame.locator('[data-field=status]').textContent()).resolves.toBe('published');
    const rows = await frame.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual([[HOSTILE, '£0.00', '3', '2', '7'], ['Child', '£0.00', '0', '0', '15']]);
    expect(await frame.locator('dl').textContent()).toContain('Tickets sold3');
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
  });
});
