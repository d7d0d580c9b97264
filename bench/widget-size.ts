// Each in-chat widget's HTML page as a host receives it (script, style and markup together), in bytes.
// Run: npm run bench:widgets. The budget (WIDGET_BUDGET_BYTES) is held by test/unit/widget-size.test.ts.
import { allWidgets } from '../modules/catalogue';
import { WIDGET_BUDGET_BYTES, widgetHtml } from '../modules/widget-html';

async function main(): Promise<void> {
  const widgets = allWidgets();
  const rows: Array<[string, number]> = [];
  for (const widget of widgets) rows.push([widget.id, Buffer.byteLength(await widgetHtml(widgets, widget.id), 'utf8')]);
  const width = Math.max(...rows.map(([id]) => id.length));
  for (const [id, bytes] of rows) console.log(`${id.padEnd(width)}  ${String(bytes).padStart(8)} B  ${(bytes / 1024).toFixed(1).padStart(6)} KiB`);
  const largest = Math.max(...rows.map(([, bytes]) => bytes));
  console.log(`${rows.length} widgets; largest ${largest} B; budget ${WIDGET_BUDGET_BYTES} B`);
}

void main();
