import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';
import { call, inDays } from './stack';

const HOSTILE = HOSTILE_TEXT;

/** The event sales widget rendered in headless Chromium by a minimal MCP Apps host, from the real report. */
describe('ticketing event sales widget in headless Chromium', () => {
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
