import type { Response } from 'express';
import type { Intent } from '../../core/intents';
import type { Scope } from '../../core/scopes';
import { SCOPE_WORDS } from '../../kernel/oauth/scopes';
import type { OrgMembership } from '../../kernel/oauth/sessions';
import { escapeHtml, pageStyle, sendHtmlPage } from '../pages/html';

const STYLE = pageStyle(`
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f5f4;color:#1c1917;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border:1px solid #e7e5e4;border-radius:.75rem;padding:2rem}
h1{font-size:1.35rem;margin-top:0}h2{font-size:1rem;margin-bottom:.25rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #a8a29e;border-radius:.4rem;font-size:1rem}
button{margin-top:1rem;padding:.6rem 1.1rem;border-radius:.4rem;border:1px solid #1c1917;background:#1c1917;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#fff;color:#1c1917;margin-left:.5rem}
.alert{background:#fef2f2;border:1px solid #fca5a5;padding:.6rem;border-radius:.4rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0}
li{margin:.3rem 0}code{font-size:.85em;background:#f5f5f4;padding:0 .25rem;border-radius:.25rem}
.muted{color:#57534e;font-size:.9rem}
.plain{font-weight:normal}.bare{list-style:none;padding:0}
`);

/** A page in the OAuth pages' style (headers: see setPageHeaders). */
export function sendPage(res: Response, status: number, title: string, body: string, formTargets: string[] = []): void {
  sendHtmlPage(res, { status, title, body, style: STYLE, formTargets });
}

/** An error shown in the browser, never redirected: the client or its redirect URI cannot be trusted yet. */
export function sendErrorPage(res: Response, status: number, error: string, message: string): void {
  sendPage(res, status, 'Cannot continue', `<h1>This connection cannot continue</h1>
<p class="alert" role="alert" id="error" data-error="${escapeHtml(error)}">${escapeHtml(message)}</p>
<p class="muted">Error code: <code>${escapeHtml(error)}</code>. Go back to the assistant that sent you here and connect again.</p>`);
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

export function sendSignInPage(res: Response, input: { status?: number; clientName: string; requestId: string; email?: string; error?: string }): void {
  sendPage(res, input.status ?? 200, 'Sign in', `<h1>Sign in to Steward</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to connect to your Steward account.</p>
${input.error ? `<p class="alert" role="alert" id="error">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/oauth/sign-in">
${hidden('request', input.requestId)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button id="sign-in" type="submit">Sign in</button>
</form>`);
}

export function sendOrgChooser(res: Response, input: { requestId: string; memberships: OrgMembership[]; intent?: string }): void {
  const links = input.memberships.map((m) => {
    const query = new URLSearchParams({ request: input.requestId, org: m.orgId, ...(input.intent ? { intent: input.intent } : {}) });
    return `<li><a href="/oauth/consent?${escapeHtml(query.toString())}">${escapeHtml(m.orgName)}</a> <span class="muted">(${escapeHtml(m.role)})</span></li>`;
  }).join('');
  sendPage(res, 200, 'Choose an organisation', `<h1>Which organisation?</h1><p>You belong to more than one. Choose the one the assistant will act for.</p><ul>${links}</ul>`);
}

export function sendIntentChooser(res: Response, input: { requestId: string; orgId: string; clientName: string; intents: Array<{ intent: Intent; granted: Scope[] }> }): void {
  const options = input.intents.map(({ intent, granted }) => `<li><label class="plain"><input type="radio" name="intent" value="${escapeHtml(intent.id)}" required>
<strong>${escapeHtml(intent.id)}</strong>: ${escapeHtml(intent.purpose)} <span class="muted">(${granted.length} permissions)</span>
<br><span class="muted">${escapeHtml(intent.consent)}</span></label></li>`).join('');
  sendPage(res, 200, 'Choose what to allow', `<h1>What should ${escapeHtml(input.clientName)} be able to do?</h1>
<p>The application did not say. Choose one purpose; you will see exactly what it allows before you agree.</p>
<form method="get" action="/oauth/consent">${hidden('request', input.requestId)}${hidden('org', input.orgId)}<ul class="bare">${options}</ul>
<button id="continue" type="submit">Continue</button></form>`);
}

export interface ConsentView {
  clientName: string;
  redirectHost: string;
  redirectOrigin: string;
  orgName: string;
  orgId: string;
  role: string;
  email: string;
  intent: Intent;
  granted: Scope[];
  withheld: Scope[];
  requestId: string;
  csrf: string;
}

function scopeList(scopes: Scope[], kind: string): string {
  return `<ul id="${kind}">${scopes.map((s) => `<li data-scope="${escapeHtml(s)}">${escapeHtml(SCOPE_WORDS[s])} <code>${escapeHtml(s)}</code></li>`).join('')}</ul>`;
}

export function sendConsentPage(res: Response, view: ConsentView): void {
  sendPage(res, 200, 'Allow access', `<h1>Allow ${escapeHtml(view.clientName)} to act for you?</h1>
<dl>
<dt>Application</dt><dd id="client-name">${escapeHtml(view.clientName)}</dd>
<dt>Returns you to</dt><dd id="redirect-host">${escapeHtml(view.redirectHost)}</dd>
<dt>Organisation</dt><dd id="org-name">${escapeHtml(view.orgName)} <span class="muted">(you are ${escapeHtml(view.role)})</span></dd>
<dt>Signed in as</dt><dd>${escapeHtml(view.email)}</dd>
<dt>Intent</dt><dd id="intent"><strong>${escapeHtml(view.intent.id)}</strong>: ${escapeHtml(view.intent.purpose)}</dd>
</dl>
<p id="intent-consent">${escapeHtml(view.intent.consent)}</p>
<h2>It will be able to</h2>${scopeList(view.granted, 'granted')}
${view.withheld.length > 0 ? `<h2>Not included, because your role does not allow it</h2>${scopeList(view.withheld, 'withheld')}` : ''}
<form method="post" action="/oauth/consent">
${hidden('request', view.requestId)}${hidden('org', view.orgId)}${hidden('intent', view.intent.id)}${hidden('csrf', view.csrf)}
<button id="allow" type="submit" name="decision" value="allow">Allow</button><button id="deny" class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="muted">You can revoke this access at any time; the application never sees your password.</p>`, [view.redirectOrigin]);
}
