import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpCall } from '../../../test/helpers/mcp-calls';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';

/** The data quality dashboard widget rendered in headless Chromium by a minimal MCP Apps host, from a real scan. */
describe('people data quality dashboard widget in headless Chromium', () => {
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

  it('says no scan has finished, then shows the score, each category with its formula, and the checks', async () => {
    const before = await host.callAndShow('people_fetch_data_quality_dashboard', {});
    await expect(before.frame.locator('p.muted').first().textContent()).resolves.toContain('No scan has finished yet');

    for (const [first, last] of [['MARY', 'JONES'], [HOSTILE_TEXT, 'Smith'], ['Ada', 'Lovelace']]) {
      await suite.harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, status) VALUES ($1, $2, $3, $4, $5, 'subscribed')`,
        [randomUUID(), suite.org.orgId, first, last, `${randomUUID().slice(0, 8)}@example.org`]);
    }
    const { job } = await mcpCall(mcp, 'people_run_data_quality_scan', {});
    for (let i = 0; i < 400; i++) {
      if ((await mcpCall(mcp, 'people_get_data_quality_job', { jobId: job.id })).job.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const { frame, result } = await host.callAndShow('people_fetch_data_quality_dashboard', {});
    const data = result.structuredContent;
    await expect(frame.locator('[data-field=score]').textContent()).resolves.toBe(`${data.summary.score}/100`);
    for (const category of data.summary.categories) {
      const card = frame.locator(`[data-category=${category.category}]`);
      await expect(card.locator('[data-field=category-score]').textContent()).resolves.toBe(`${category.score}/100`);
      await expect(card.locator('[data-field=formula]').textContent()).resolves.toBe(category.formula);
    }
    await expect(frame.locator('body').textContent()).resolves.toContain('Name written all in capitals or all in lower case');
    expect(await frame.locator('img').count()).toBe(0);
    expect(host.errors).toEqual([]);
  });
});
