import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { CHROMIUM } from '../../../test/helpers/oauth';
import { WidgetHost } from '../../../test/helpers/widget-host';

/** Text that would become markup, or run, if a widget parsed what it shows as HTML. */
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b> & "quoted"';

/** The running-order and rota widgets rendered in headless Chromium by a minimal MCP Apps host, with the tools' real results. */
describe('runsheet widgets in headless Chromium', () => {
  jest.setTimeout(120_000);
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let mcp: McpClient;
  let host: WidgetHost;
  let planId: string;
  let serviceTypeId: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Widget Minster', planCode: 'growth' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
    browser = await chromium.launch(CHROMIUM);
    const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
    serviceTypeId = (await call('runsheet_create_service_type', { name: 'Evensong' })).serviceType.id;
    const team = (await call('runsheet_create_team', { name: 'Choir' })).teamId;
    const tenor = (await call('runsheet_add_position', { teamId: team, name: 'Tenor' })).positionId;
    const singer = (await call('people_create_contact', { firstName: 'Tam', lastName: HOSTILE })).contact.id;
    planId = (await call('runsheet_create_plan', { serviceTypeId, date: DateTime.now().plus({ days: 4 }).toISODate(), title: 'Evensong', times: [{ kind: 'service', startTime: '18:00', durationMinutes: 60 }] })).plan.id;
    const header = (await call('runsheet_add_item', { planId, kind: 'header', title: 'Office' })).itemId;
    await call('runsheet_add_item', { planId, kind: 'item', title: `Responses ${HOSTILE}`, lengthSeconds: 240, parentId: header, notes: { choir: 'Smith' } });
    await call('runsheet_add_item', { planId, kind: 'item', title: 'Sermon', lengthSeconds: 900 });
    await call('runsheet_set_needed_positions', { planId, positions: [{ positionId: tenor, quantity: 2 }] });
    await call('runsheet_schedule_person', { planId, positionId: tenor, contactId: singer });
  });

  beforeEach(async () => {
    host = await WidgetHost.open(browser, mcp);
  });

  afterEach(async () => {
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
    await host.close();
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await harness?.close();
  });

  it('running order shows runsheet_get_plan\'s items with lengths and clock times, and who serves, user text as text', async () => {
    const { frame, result } = await host.callAndShow('runsheet_get_plan', { planId });
    const plan = result.structuredContent.plan;
    await expect(frame.locator('h1').textContent()).resolves.toBe('Evensong');
    const rows = await frame.locator('tbody tr').evaluateAll((items) => items.map((item) => item.getAttribute('data-id')));
    expect(rows).toEqual(plan.items.map((item: any) => item.id));
    const responses = frame.locator(`tr[data-id="${plan.items[1].id}"]`);
    await expect(responses.textContent()).resolves.toContain(`Responses ${HOSTILE}`);
    await expect(responses.textContent()).resolves.toContain('4:00');
    await expect(responses.textContent()).resolves.toContain('choir: Smith');
    await expect(frame.locator('li[data-status=unconfirmed]').textContent()).resolves.toContain(`Tenor (Choir): Tam ${HOSTILE}`);
  });

  it('rota shows runsheet_get_rota\'s plans with who serves and the places open', async () => {
    const { frame, result } = await host.callAndShow('runsheet_get_rota', { serviceTypeId, weeks: 2 });
    expect(result.structuredContent.plans).toHaveLength(1);
    await expect(frame.locator(`article[data-id="${planId}"] h2`).textContent()).resolves.toContain('Evensong');
    const position = frame.locator(`article[data-id="${planId}"] li`);
    await expect(position.textContent()).resolves.toContain(`Tam ${HOSTILE} (unconfirmed)`);
    await expect(frame.locator('[data-field=open]').textContent()).resolves.toBe('1 open');
  });
});
