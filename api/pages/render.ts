import path from 'node:path';
import { Eta } from 'eta';
import type { Response } from 'express';
import { escapeHtml } from '../../core/html';
import { pageStyle, setPageHeaders } from './html';

/**
 * Server-rendered pages people read (the front page, /connect, the staff dashboard) come from
 * Eta templates in api/pages/views/ (copied beside the compiled code by `npm run build`).
 * `<%= … %>` escapes with the one escaping helper (core/html.ts); `<%~ … %>` inserts markup that
 * the template's own partials made. Templates are cached once compiled, outside development.
 */
const eta = new Eta({
  views: path.join(__dirname, 'views'),
  autoEscape: true,
  escapeFunction: escapeHtml,
  cache: process.env.NODE_ENV === 'production',
  autoTrim: false,
});

/** The HTML of `views/<name>.eta` with `data` as `it`. */
export function renderPage(name: string, data: Record<string, unknown>): string {
  return eta.render(`./${name}`, data);
}

/** A template given as text, rendered by the same configured engine (tests use it). */
export function renderTemplateString(template: string, data: Record<string, unknown>): string {
  return eta.renderString(template, data);
}

/**
 * One style sheet for the pages rendered here: readable on a phone (fluid width, wrapping
 * navigation, tables that scroll), AA contrast (text #1c1917 and #44403c on white), a visible
 * focus ring for keyboard users, and a skip link.
 */
export const SITE_STYLE = pageStyle(`
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f5f4;color:#1c1917;margin:0;line-height:1.5;font-size:1rem}
a{color:#1d4ed8}a:hover{color:#1e3a8a}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}.skip:focus{left:.5rem;z-index:2}
main{max-width:50rem;margin:1.5rem auto;background:#fff;border:1px solid #e7e5e4;border-radius:.75rem;padding:1.25rem 1.5rem}
main.wide{max-width:64rem}
h1{font-size:1.45rem;margin-top:0}h2{font-size:1.15rem;margin:1.6rem 0 .5rem}h3{font-size:1rem;margin:.2rem 0}
pre{background:#1c1917;color:#fafaf9;padding:.75rem;border-radius:.4rem;overflow-x:auto;font-size:.85rem;white-space:pre}
pre code{background:none;color:inherit;padding:0}
code{font-size:.9em;background:#f5f5f4;padding:0 .25rem;border-radius:.25rem;overflow-wrap:anywhere}
.address code{font-size:1.05rem;padding:.3rem .5rem;display:inline-block}
.callout{border:2px solid #b45309;background:#fffbeb;border-radius:.5rem;padding:.25rem 1rem;margin:1rem 0}
.muted{color:#44403c;font-size:.92rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
label.plain{font-weight:normal;display:flex;gap:.5rem;align-items:flex-start;margin:.3rem 0}
input[type=email],input[type=password],input[type=text],select{width:100%;max-width:28rem;padding:.55rem;border:1px solid #78716c;border-radius:.4rem;font-size:1rem}
button{padding:.5rem 1rem;border-radius:.4rem;border:1px solid #1c1917;background:#1c1917;color:#fff;font-size:1rem;cursor:pointer;min-height:2.5rem}
button.secondary{background:#fff;color:#1c1917}
button.danger{background:#fff;color:#991b1b;border-color:#991b1b}
.card{border:1px solid #d6d3d1;border-radius:.5rem;padding:.9rem 1rem;margin:.75rem 0}
.content{white-space:pre-wrap;background:#fafaf9;border-left:3px solid #78716c;padding:.5rem .75rem;margin:.5rem 0}
.consequence{background:#eff6ff;border-left:3px solid #1d4ed8;padding:.5rem .75rem;margin:.5rem 0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.actions form{margin:0}
.notice{background:#f0fdf4;border:1px solid #15803d;padding:.6rem;border-radius:.4rem}
.alert{background:#fef2f2;border:1px solid #b91c1c;padding:.6rem;border-radius:.4rem}
.secret{font-size:1.05rem;background:#fefce8;border:2px dashed #a16207;padding:.6rem;word-break:break-all}
dl.pairs{display:grid;grid-template-columns:minmax(7rem,auto) 1fr;gap:.25rem 1rem;margin:.5rem 0}dl.pairs dt{font-weight:600}dl.pairs dd{margin:0;overflow-wrap:anywhere}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e7e5e4;padding:.4rem .5rem;text-align:left;vertical-align:top}
.meter{display:grid;grid-template-columns:minmax(8rem,12rem) 1fr minmax(6rem,auto);gap:.5rem;align-items:center;margin:.4rem 0}
.bar{background:#e7e5e4;border-radius:.3rem;height:1rem;overflow:hidden;border:1px solid #a8a29e}.bar span{display:block;height:100%;background:#1d4ed8;width:0}
${Array.from({ length: 21 }, (_, i) => `.w${i * 5}{width:${i * 5}%}`).join('')}
.bar.high span{background:#b45309}.bar.full span{background:#b91c1c}
.scopes{columns:2 16rem;margin:.25rem 0}
header.top{background:#1c1917;color:#fafaf9;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header.top a{color:#fafaf9}header.top .brand a{font-weight:700;text-decoration:none}header.top .org{color:#d6d3d1;margin-left:.35rem}
header.top nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .9rem}
header.top nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
header.top .signout{margin:0 0 0 auto;display:flex;gap:.5rem;align-items:center}header.top .who{color:#d6d3d1;font-size:.85rem}
header.top button.secondary{min-height:2.25rem;padding:.3rem .8rem}
@media (max-width:40rem){main{margin:.5rem;padding:1rem}.meter{grid-template-columns:1fr}header.top .signout{margin-left:0}}
`);

export interface DashboardChrome {
  orgName: string;
  email: string;
  role: string;
  csrf: string;
  links: Array<{ href: string; label: string; current: boolean }>;
}

/** Renders `view` inside the layout and sends it with the pages' headers (setPageHeaders). */
export function sendView(res: Response, page: { status?: number; title: string; view: string; data?: Record<string, unknown>; dash?: DashboardChrome; wide?: boolean; cacheControl?: string }): void {
  const body = renderPage(page.view, { ...page.data, title: page.title, dash: page.dash, wide: page.wide, css: SITE_STYLE.css });
  setPageHeaders(res, SITE_STYLE, [], page.cacheControl);
  res.status(page.status ?? 200).type('html').send(body);
}
