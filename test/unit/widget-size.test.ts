import fs from 'node:fs';
import path from 'node:path';
import { allWidgets } from '../../modules/catalogue';
import { WIDGET_BUDGET_BYTES, widgetHtml } from '../../modules/widget-html';

/**
 * Every widget page a host receives stays within the budget: hosts load it into each chat that
 * shows its tool. `npm run bench:widgets` prints each widget's size.
 */
describe('widget size budget', () => {
  it(`keeps every widget page under ${WIDGET_BUDGET_BYTES} bytes`, async () => {
    const widgets = allWidgets();
    const sizes = Object.fromEntries(await Promise.all(widgets.map(async (widget) => [widget.id, Buffer.byteLength(await widgetHtml(widgets, widget.id), 'utf8')] as const)));
    const over = Object.entries(sizes).filter(([, bytes]) => bytes > WIDGET_BUDGET_BYTES);
    expect(over).toEqual([]);
    // The pages hold real bundles, not empty shells.
    for (const bytes of Object.values(sizes)) expect(bytes).toBeGreaterThan(2_000);
  }, 60_000);

  it('speaks the MCP Apps protocol version of the SDK the hosts use', async () => {
    const sdk = await import('@modelcontextprotocol/ext-apps');
    // widget-app.mts is a browser module Jest does not load; its constant is read from the source.
    const source = fs.readFileSync(path.join(__dirname, '../../modules/widget-app.mts'), 'utf8');
    expect(/export const APPS_PROTOCOL_VERSION = '([^']+)'/.exec(source)?.[1]).toBe(sdk.LATEST_PROTOCOL_VERSION);
  });
});
