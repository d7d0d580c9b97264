import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { WidgetDefinition } from './widget';
import { escapeHtml } from '../core/html';

/**
 * Every widget's HTML: its script bundled with all it imports (the view half of the MCP Apps
 * protocol, modules/widget-app.mts)
 * and inlined, so a host renders it from the resource alone, with nothing fetched. Built on
 * the first resources/read rather than at start: it takes about a second, and most
 * processes (workers, tests) never serve a widget.
 */
const STYLE = `
:root { color-scheme: light dark; font: 14px/1.45 system-ui, sans-serif; }
body { margin: 0; padding: 12px; }
h1 { font-size: 1.15rem; margin: 0 0 8px; }
h2 { font-size: 1rem; margin: 0 0 6px; }
.card { border: 1px solid color-mix(in srgb, currentColor 20%, transparent); border-radius: 8px; padding: 10px 12px; margin: 0 0 10px; }
.muted { opacity: .7; margin: 2px 0; }
.badge { display: inline-block; font-size: .8rem; padding: 1px 8px; border-radius: 999px; background: color-mix(in srgb, currentColor 12%, transparent); margin-right: 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
dt { opacity: .7; } dd { margin: 0; overflow-wrap: anywhere; }
.tags { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px; }
.tags li { font-size: .8rem; padding: 1px 8px; border-radius: 4px; background: color-mix(in srgb, currentColor 10%, transparent); }
.timeline { list-style: none; padding: 0 0 0 12px; margin: 0; border-left: 2px solid color-mix(in srgb, currentColor 25%, transparent); }
.timeline li { margin: 0 0 10px; } .timeline time { display: block; font-size: .8rem; opacity: .7; } .timeline p { margin: 2px 0 0; }
blockquote { margin: 6px 0; padding: 6px 10px; border-left: 3px solid color-mix(in srgb, currentColor 25%, transparent); white-space: pre-wrap; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85rem; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 8px; }
button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid color-mix(in srgb, currentColor 30%, transparent); background: transparent; color: inherit; cursor: pointer; }
button.primary { background: #2f6f4f; border-color: #2f6f4f; color: #fff; }
button:disabled { opacity: .5; cursor: progress; }
.ok { color: #2f6f4f; } .error { color: #b3261e; }
.meters { list-style: none; padding: 0; margin: 0; }
.meters li { display: grid; grid-template-columns: 11rem 1fr; gap: 2px 10px; margin: 0 0 8px; }
.meters meter { width: 100%; } .meters .figures { grid-column: 2; font-size: .85rem; opacity: .8; }
figure { margin: 0 0 14px; } figcaption { font-weight: 600; margin: 0 0 4px; }
.chart.scroll { overflow-x: auto; } .chart svg text { font-family: inherit; }
details.numbers { margin: 4px 0 0; } details.numbers summary { cursor: pointer; font-size: .85rem; }
details.numbers table { border-collapse: collapse; font-size: .85rem; margin-top: 4px; }
details.numbers caption { text-align: left; opacity: .7; } details.numbers th, details.numbers td { padding: 2px 8px; text-align: right; }
details.numbers th[scope=row] { text-align: left; font-weight: normal; }
${fs.readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8')}
`;

/** The most a widget's page may weigh (150 KB): hosts load it into every chat that shows the tool. */
export const WIDGET_BUDGET_BYTES = 150_000;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The document's own policy, besides the one the host applies from the resource's `_meta.ui.csp`:
 * only this exact script and style run, and nothing is loaded or sent anywhere.
 */
function contentSecurityPolicy(script: string): string {
  return [
    "default-src 'none'", `script-src ${sha256(script)}`, `style-src ${sha256(STYLE)}`, 'img-src data:',
    "connect-src 'none'", "base-uri 'none'", "form-action 'none'",
  ].join('; ');
}

function pageOf(widget: WidgetDefinition, script: string): string {
  // A script that closed its own tag early would end the bundle there.
  if (/<\/script/i.test(script)) throw new Error(`Widget ${widget.id}: the bundle contains "</script"`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(widget.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="root" aria-live="polite" data-state="waiting"><p class="muted">Waiting for the result…</p></main>
<script>${script}</script>
</body>
</html>
`;
}

async function bundle(widgets: readonly WidgetDefinition[]): Promise<Map<string, string>> {
  const outdir = path.join(__dirname, '.widgets');
  const result = await build({
    entryPoints: Object.fromEntries(widgets.map((widget) => [widget.id, widget.script])),
    bundle: true, write: false, outdir, format: 'iife', platform: 'browser', target: 'es2022',
    minify: true, charset: 'utf8', logLevel: 'silent',
  });
  const pages = new Map<string, string>();
  for (const widget of widgets) {
    const output = result.outputFiles.find((file) => file.path === path.join(outdir, `${widget.id}.js`));
    if (!output) throw new Error(`Widget ${widget.id}: esbuild produced no script`);
    pages.set(widget.id, pageOf(widget, output.text));
  }
  return pages;
}

let built: { key: string; pages: Promise<Map<string, string>> } | undefined;

/** The widget's HTML page; every widget is bundled together on the first call, then kept. */
export async function widgetHtml(widgets: readonly WidgetDefinition[], id: string): Promise<string> {
  const key = widgets.map((widget) => widget.id).join(' ');
  if (!built || built.key !== key) {
    const pages = bundle(widgets);
    built = { key, pages };
    // A failed build is tried again on the next read rather than kept.
    pages.catch(() => { if (built?.pages === pages) built = undefined; });
  }
  const page = (await built.pages).get(id);
  if (page === undefined) throw new Error(`There is no widget ${id}`);
  return page;
}
