import express, { type Request, type Response } from 'express';
import { allPlaybooks } from '../../modules/catalogue';
import { escapeHtml, pageStyle, sendHtmlPage } from '../pages/html';
import { sendView } from '../pages/render';
import { connectPageData } from './connect';
import {
  SERVICE_DESCRIPTION, agentCard, chatGptAppSubmission, counts, discoveryHub, endpointsOf, llmsFullTxt, llmsTxt, mcpManifest, mcpServerJson, plans,
} from './documents';

/**
 * Public discovery: text and JSON documents for agents, and pages for the people connecting
 * them. Nothing here needs a credential or reveals anything of an organisation. Documents are
 * built once per process (the catalogue does not change while it runs).
 */
const STYLE = pageStyle(`
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f5f4;color:#1c1917;margin:0;line-height:1.5}
main{max-width:46rem;margin:2.5rem auto;background:#fff;border:1px solid #e7e5e4;border-radius:.75rem;padding:2rem}
h1{font-size:1.5rem;margin-top:0}h2{font-size:1.1rem;margin-top:1.6rem}
code{font-size:.9em;background:#f5f5f4;padding:0 .25rem;border-radius:.25rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e7e5e4;padding:.35rem .5rem;text-align:left}
.muted{color:#57534e}
`);

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

function page(res: Response, title: string, body: string): void {
  // Discovery pages are the same for everyone: cacheable, unlike the sign-in and approval pages.
  sendHtmlPage(res, { status: 200, title, body, style: STYLE, cacheControl: 'public, max-age=300' });
}

export function discoveryRouter(publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  const router = express.Router();
  const text = (make: () => string) => {
    const body = once(make);
    return (_req: Request, res: Response) => {
      res.type('text/plain; charset=utf-8').set('Cache-Control', 'public, max-age=300').send(body());
    };
  };
  const json = (make: () => unknown) => {
    const body = once(() => JSON.stringify(make()));
    return (_req: Request, res: Response) => {
      res.type('application/json').set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }).send(body());
    };
  };

  router.get('/llms.txt', text(() => llmsTxt(base)));
  router.get('/ai.txt', text(() => llmsTxt(base)));
  router.get('/llms-full.txt', text(() => llmsFullTxt(base)));
  router.get('/.well-known/agent.json', json(() => agentCard(base)));
  router.get('/.well-known/mcp/server.json', json(() => mcpServerJson(base)));
  router.get('/.well-known/mcp/chatgpt-app-submission.json', json(() => chatGptAppSubmission(base)));
  router.get('/api/discovery', json(() => discoveryHub(base)));
  router.get('/api/mcp/manifest', json(() => mcpManifest(base)));
  router.get('/', (req, res) => {
    const c = counts();
    sendView(res, {
      title: 'Steward', view: 'front', cacheControl: req.query['signed-out'] ? 'no-store' : 'public, max-age=300',
      data: { description: SERVICE_DESCRIPTION, tools: c.tools, modules: c.modules, mcp: endpointsOf(base).mcp, signedOut: req.query['signed-out'] === '1' },
    });
  });
  router.get('/agents', (_req, res) => page(res, 'For agent builders', agentsGuide(base)));
  router.get('/help', (_req, res) => page(res, 'Help', helpPage(base)));
  router.get('/pricing', (_req, res) => page(res, 'Plans', pricingPage()));
  // The same for everyone: cacheable, unlike the sign-in and dashboard pages.
  router.get('/connect', (_req, res) => sendView(res, { title: 'Connect an assistant', view: 'connect', data: connectPageData(base), cacheControl: 'public, max-age=300' }));
  const script = once(() => connectScript(base));
  router.get('/embed/steward-connect.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }).send(script());
  });
  return router;
}

function agentsGuide(base: string): string {
  const c = counts();
  const endpoints = endpointsOf(base);
  return `<h1>Building an agent on Steward</h1>
<p>${escapeHtml(SERVICE_DESCRIPTION)}</p>
<p>${c.tools} tools in ${c.modules} modules, ${c.routes} dashboard API routes and ${c.playbooks} playbooks.</p>
<h2>Discover in layers</h2>
<ol><li>Call <code>platform_overview</code> to orient: the organisation, its plan and what needs attention.</li>
<li>Find what to call with <code>platform_search_tools</code> (workflow tools) or <code>platform_search_dashboard_api</code> (routes).</li>
<li>Call the tool directly; for a route, <code>&lt;module&gt;_invoke_api_read</code> or <code>_write</code> with an <code>actionSummary</code>.</li></ol>
<h2>Endpoints</h2>
<table><tr><th>MCP (streamable HTTP)</th><td><code>${escapeHtml(endpoints.mcp)}</code></td></tr>
<tr><th>Function calling</th><td><code>${escapeHtml(endpoints.tools)}</code>, <code>POST ${escapeHtml(endpoints.invoke)}</code></td></tr>
<tr><th>Chat bridge</th><td><code>POST ${escapeHtml(endpoints.chat)}</code></td></tr>
<tr><th>Dashboard API</th><td><code>${escapeHtml(endpoints.openapi)}</code></td></tr>
<tr><th>Everything</th><td><code>${escapeHtml(endpoints.discovery)}</code>, <code>${escapeHtml(base)}/llms-full.txt</code></td></tr></table>
<h2>Rules every agent meets</h2>
<ul><li>Every call is a durable workflow: send an <code>Idempotency-Key</code> and a retried call never runs twice.</li>
<li>Some calls wait for a person: the answer is <code>approval_required</code> with the item to follow; never work around it.</li>
<li>Errors carry a stable <code>code</code>, a <code>message</code> and often a <code>hint</code> naming the next tool.</li></ul>
<h2>Playbooks</h2><ul>${allPlaybooks().map((playbook) => `<li><code>${escapeHtml(playbook.name)}</code>: ${escapeHtml(playbook.description)}</li>`).join('')}</ul>`;
}

function helpPage(base: string): string {
  return `<h1>Help</h1>
<h2>Connecting an assistant</h2><p>See <a href="/connect">Connect an assistant</a>: the MCP address, OAuth sign-in, or an API key.</p>
<h2>Access and approval</h2><p>An assistant acts with the access a person grants it, never more than that person's role. Messages, money and permission changes wait for an owner's or admin's approval on the dashboard.</p>
<h2 id="privacy">Privacy</h2><p>Confidential pastoral notes are only visible to people and keys holding the safeguarding permission. Secrets are stored hashed; personal data is never written to logs. Each organisation's records are separated by the database itself.</p>
<h2>For developers</h2><p>The <a href="/agents">agent builders' guide</a>, <a href="/llms.txt">llms.txt</a> and <a href="/api/openapi.json">the OpenAPI document</a>.</p>
<p class="muted">${escapeHtml(base)}</p>`;
}

function pricingPage(): string {
  const all = plans();
  const features = all[0]?.allowances ?? [];
  const header = all.map((plan) => `<th>${escapeHtml(plan.plan)}</th>`).join('');
  const rows = features.map((feature, index) => `<tr><th>${escapeHtml(feature.feature.replace(/_/g, ' '))}${feature.standing ? '' : ' <span class="muted">per month</span>'}</th>${all.map((plan) => `<td>${plan.allowances[index]!.limit.toLocaleString('en-GB')}</td>`).join('')}</tr>`).join('');
  return `<h1>Plans</h1><p>Every plan has every tool; plans differ in how much of each metered feature they include.</p>
<table id="allowances"><tr><th>Feature</th>${header}</tr>${rows}</table>`;
}

/**
 * The embeddable button: plain DOM, no dependencies, nothing fetched. It inserts a link to
 * /connect and a copy-the-address control after its own script tag.
 */
function connectScript(base: string): string {
  return `(function () {
  'use strict';
  var base = ${JSON.stringify(base)};
  var script = document.currentScript;
  var box = document.createElement('span');
  box.className = 'steward-connect';
  var link = document.createElement('a');
  link.href = base + '/connect';
  link.rel = 'noopener';
  link.target = '_blank';
  link.textContent = 'Connect to Steward';
  link.setAttribute('style', 'display:inline-block;padding:.5em 1em;border-radius:.4em;background:#1c1917;color:#fff;text-decoration:none;font:600 1em system-ui,sans-serif');
  var copy = document.createElement('button');
  copy.type = 'button';
  copy.textContent = 'Copy MCP address';
  copy.setAttribute('style', 'margin-left:.5em;padding:.5em 1em;border-radius:.4em;border:1px solid #1c1917;background:#fff;font:1em system-ui,sans-serif;cursor:pointer');
  copy.addEventListener('click', function () {
    var url = base + '/api/mcp';
    if (navigator.clipboard) navigator.clipboard.writeText(url).then(function () { copy.textContent = 'Copied'; });
    else copy.textContent = url;
  });
  box.appendChild(link);
  box.appendChild(copy);
  if (script && script.parentNode) script.parentNode.insertBefore(box, script.nextSibling);
  else document.body.appendChild(box);
})();
`;
}
