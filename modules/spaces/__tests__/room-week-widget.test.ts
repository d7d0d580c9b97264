import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { CHROMIUM } from '../../../test/helpers/oauth';
import { WidgetHost } from '../../../test/helpers/widget-host';

const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b>';

/** The room-week widget in headless Chromium, given spaces_get_room_schedule's real result by a minimal MCP Apps host. */
describe('spaces room week widget', () => {
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let mcp: McpClient;
  let host: WidgetHost;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Widget Chapel' });
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

  it('shows each day of the week with its bookings, set-up times and layout, user text as text', async () => {
    const building = (await harness.call(org.apiKey, 'spaces_create_building', { name: 'Centre' })).building;
    const room = (await harness.call(org.apiKey, 'spaces_create_room', { buildingId: building.id, name: 'Hall', capacity: 100, layouts: [{ name: 'Cabaret', capacity: 60 }] })).room;
    const from = DateTime.now().setZone('Europe/London').plus({ days: 3 }).toISODate()!;
    await harness.call(org.apiKey, 'spaces_create_booking', { title: `Quiz ${HOSTILE}`, roomId: room.id, localDate: from, startTime: '19:00', durationMinutes: 120, setupMinutes: 30, layout: 'Cabaret', expectedAttendance: 50 });
    const { frame, result } = await host.callAndShow('spaces_get_room_schedule', { roomId: room.id, localDate: from, days: 7 });
    const shown = result.structuredContent;
    expect(shown.entries).toHaveLength(1);
    await expect(frame.locator('h1').textContent()).resolves.toBe('Hall');
    await expect(frame.locator('.days > li').count()).resolves.toBe(7);
    const day = frame.locator(`.days > li[data-date="${from}"]`);
    await expect(day.locator('strong').textContent()).resolves.toBe(`Quiz ${HOSTILE}`);
    await expect(day.locator('.time').textContent()).resolves.toBe('19:00–21:00');
    await expect(day.locator('.muted').textContent()).resolves.toContain('set up from 18:30');
    await expect(day.locator('p').textContent()).resolves.toContain('Cabaret (60 seats)');
    await expect(frame.locator('img, b').count()).resolves.toBe(0);
    expect(host.errors).toEqual([]);
  });
});
