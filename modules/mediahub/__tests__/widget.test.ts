import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpCall as call } from '../../../test/helpers/mcp-calls';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';

/** The sermon episode widget rendered in headless Chromium by a minimal MCP Apps host: state, songs and the licence that blocks publishing. */
describe('mediahub episode widget in headless Chromium', () => {
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

  it('shows the episode, its songs and which lacks a licence, user text as text', async () => {
    const { series } = await call(mcp, 'mediahub_create_series', { title: 'Psalms of ascent' });
    const { episode } = await call(mcp, 'mediahub_create_episode', {
      seriesId: series.id, title: HOSTILE_TEXT, speaker: 'Rev Ann Smith', scripture: 'Psalm 121', date: '2026-11-29',
      songs: [{ title: 'Amazing Grace', publicDomain: true }, { title: 'Cornerstone', ccliNumber: '6158927' }],
    });
    const { frame } = await host.callAndShow('mediahub_get_episode', { episodeId: episode.id });
    await expect(frame.locator('h1').textContent()).resolves.toBe(HOSTILE_TEXT);
    await expect(frame.locator('[data-field=state]').textContent()).resolves.toBe('draft');
    const rows = await frame.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual([['Amazing Grace', '', 'Public domain'], ['Cornerstone', '6158927', 'None: publishing is blocked']]);
    expect(await frame.locator('dl').textContent()).toContain('SpeakerRev Ann Smith');
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
  });
});
