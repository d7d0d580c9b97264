import express, { type NextFunction, type Request, type Response } from 'express';
import { mayDecideOutreach, mayDecideProposals } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { STAFF_ROLES, scopesAllowedForRole } from '../../core/roles';
import type { Pool } from '../../db/pool';
import { permittedToolNames } from '../../modules/catalogue';
import { listOutreach, type OutreachItem } from '../../modules/people/outreach';
import { checkPassword, createSession, membershipsOf, sessionUser, type OrgMembership, type SignedInUser } from '../../kernel/oauth/sessions';
import { listProposals, stableUuid, type Proposal } from '../../kernel/proposals';
import { toErrorBody } from '../errors';
import { sessionTokenOf, setSessionCookie } from '../oauth/session-cookie';
import { csrfTokenOf, fromOurPages, safeEqual } from '../pages/forms';
import { escapeHtml, pageStyle, sendHtmlPage } from '../pages/html';
import type { ToolCaller } from '../tool-caller';
import { errorFields, log } from '../../core/log';

/**
 * /dashboard/approvals: a small server-rendered page where signed-in staff see
 * pending proposals and outreach with their exact content, and approve or
 * decline them. The buttons go through the same ToolCaller path, and so the
 * same workflow updates, as platform_approve_proposal and people_approve_outreach.
 * Sign-in shares the OAuth server's browser session (`__Host-` cookie), its
 * per-IP sign-in limit, its page headers and its same-origin check.
 */

const STYLE = pageStyle(`
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f5f4;color:#1c1917;margin:0}
main{max-width:52rem;margin:2rem auto;background:#fff;border:1px solid #e7e5e4;border-radius:.75rem;padding:1.5rem 2rem}
h1{font-size:1.35rem;margin-top:0}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #a8a29e;border-radius:.4rem;font-size:1rem}
button{padding:.45rem .9rem;border-radius:.4rem;border:1px solid #1c1917;background:#1c1917;color:#fff;font-size:.95rem;cursor:pointer}
button.secondary{background:#fff;color:#1c1917}
.card{border:1px solid #e7e5e4;border-radius:.5rem;padding:.9rem 1rem;margin:.75rem 0}
.content{white-space:pre-wrap;background:#fafaf9;border-left:3px solid #a8a29e;padding:.5rem .75rem;margin:.5rem 0}
.actions{display:flex;gap:.5rem;align-items:center}.actions form{margin:0}
.notice{background:#f0fdf4;border:1px solid #86efac;padding:.6rem;border-radius:.4rem}
.alert{background:#fef2f2;border:1px solid #fca5a5;padding:.6rem;border-radius:.4rem}
.muted{color:#57534e;font-size:.9rem}code{font-size:.85em;background:#f5f5f4;padding:0 .25rem;border-radius:.25rem}
nav{display:flex;justify-content:space-between;align-items:center}nav form{margin:0}
`);

function sendPage(res: Response, status: number, title: string, body: string): void {
  sendHtmlPage(res, { status, title, body, style: STYLE });
}

/** Bound to the browser session: a forged cross-site form cannot know it. */
function csrfOf(sessionToken: string): string {
  return csrfTokenOf('dashboard', sessionToken);
}

/**
 * Messages shown after a decision travel in the redirect's query, signed for
 * this session: a crafted link cannot put words of its own on a staff page.
 */
function noticeSignature(sessionToken: string, notice: string, error: string): string {
  return csrfTokenOf('dashboard-notice', sessionToken, notice, error);
}

function signInPage(res: Response, status: number, input: { email?: string; error?: string }): void {
  sendPage(res, status, 'Staff sign-in', `
<h1>Steward staff sign-in</h1>
${input.error ? `<p class="alert" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/dashboard/sign-in">
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
  <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <p><button type="submit">Sign in</button></p>
</form>`);
}

interface Staff {
  user: SignedInUser;
  sessionToken: string;
  membership: OrgMembership;
  memberships: OrgMembership[];
  principal: Principal;
}

/** A signed-in staff member acting in one organisation, as a principal: the scopes their role allows, nothing more. */
export function staffPrincipalOf(user: SignedInUser, membership: OrgMembership, sessionToken: string): Principal {
  return {
    orgId: membership.orgId, userId: user.userId, role: membership.role,
    scopes: scopesAllowedForRole(membership.role, membership.safeguarding), intent: null,
    // A stable, non-secret id for this browser session, for the audit trail.
    credentialId: stableUuid(`session\n${sessionToken}`),
    credentialKind: 'dashboard',
  };
}

const when = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

function proposalCard(p: Proposal, staff: Staff, csrf: string): string {
  const canDecide = mayDecideProposals(staff.principal);
  const args = JSON.stringify(p.action.arguments, null, 2);
  return `<article class="card" data-kind="proposal" data-id="${escapeHtml(p.id)}">
  <strong>${escapeHtml(p.summary)}</strong>
  <div class="muted">${p.agent ? `Proposed by the ${escapeHtml(p.agent)} agent` : 'Needs approval'} · ${when(p.createdAt)} · expires ${when(p.expiresAt)}</div>
  <div class="content">Action: <code>${escapeHtml(p.action.tool)}</code>
${escapeHtml(args)}</div>
  ${canDecide ? `<div class="actions">
    <form method="post" action="/dashboard/approvals/proposals/${escapeHtml(p.id)}/approve"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="org" value="${escapeHtml(staff.membership.orgId)}"><button type="submit">Approve</button></form>
    <form method="post" action="/dashboard/approvals/proposals/${escapeHtml(p.id)}/reject"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="org" value="${escapeHtml(staff.membership.orgId)}"><button type="submit" class="secondary">Reject</button></form>
  </div>` : '<p class="muted">An owner or admin decides proposals.</p>'}
</article>`;
}

function outreachCard(item: OutreachItem, staff: Staff, csrf: string): string {
  const canDecide = mayDecideOutreach(staff.principal);
  const hidden = `<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="org" value="${escapeHtml(staff.membership.orgId)}">`;
  const approve = item.status === 'pending_review' || (item.status === 'approved' && item.sendError);
  return `<article class="card" data-kind="outreach" data-id="${escapeHtml(item.id)}">
  <strong>${escapeHtml(item.channel === 'email' ? 'Email' : item.channel === 'sms' ? 'SMS' : 'WhatsApp')} to ${escapeHtml(item.contactName)}</strong>
  <span class="muted">${escapeHtml(item.recipient ?? 'no address')} · ${escapeHtml(item.status.replace('_', ' '))} · version ${item.contentVersion}</span>
  ${item.reason ? `<div class="muted">${escapeHtml(item.reason)}</div>` : ''}
  <div class="content">${item.subject ? `<strong>${escapeHtml(item.subject)}</strong>\n\n` : ''}${escapeHtml(item.body)}</div>
  ${item.sendError ? `<p class="alert">Not sent: ${escapeHtml(item.sendError.message)}</p>` : ''}
  ${canDecide ? `<div class="actions">
    ${approve ? `<form method="post" action="/dashboard/approvals/outreach/${escapeHtml(item.id)}/approve">${hidden}<input type="hidden" name="contentVersion" value="${item.contentVersion}"><button type="submit">${item.status === 'approved' ? 'Retry send' : 'Approve and send'}</button></form>` : ''}
    ${item.status === 'pending_review' ? `<form method="post" action="/dashboard/approvals/outreach/${escapeHtml(item.id)}/decline">${hidden}<button type="submit" class="secondary">Decline</button></form>` : ''}
    ${item.status === 'approved' ? `<form method="post" action="/dashboard/approvals/outreach/${escapeHtml(item.id)}/cancel">${hidden}<button type="submit" class="secondary">Cancel</button></form>` : ''}
  </div>` : ''}
</article>`;
}

export interface DashboardOptions {
  pool: Pool;
  caller: ToolCaller;
  /** The configured public origin (the OAuth issuer's); form posts must come from it. */
  origin: string;
  /** The OAuth server's sign-in limiter, shared so password guesses count together. */
  signInLimiter: express.RequestHandler;
}

export function dashboardRouter(options: DashboardOptions) {
  const { pool, caller, origin } = options;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      log('error', 'dashboard request failed', errorFields(error));
      sendPage(res, 500, 'Error', '<h1>Something went wrong</h1><p>Please try again.</p>');
    }
  };

  /** The signed-in staff member for the chosen organisation, or a redirect / refusal already sent. */
  async function staffOf(req: Request, res: Response, orgParam: unknown): Promise<Staff | undefined> {
    const sessionToken = sessionTokenOf(req);
    const user = sessionToken ? await sessionUser(pool, sessionToken) : undefined;
    if (!user || !sessionToken) {
      if (req.method === 'GET') res.redirect(303, '/dashboard/sign-in');
      else sendPage(res, 401, 'Signed out', '<h1>Your session has ended</h1><p><a href="/dashboard/sign-in">Sign in again</a>.</p>');
      return undefined;
    }
    const memberships = (await membershipsOf(pool, user.userId)).filter((m) => STAFF_ROLES.includes(m.role));
    const membership = typeof orgParam === 'string' && orgParam ? memberships.find((m) => m.orgId === orgParam) : memberships[0];
    if (!membership) {
      sendPage(res, 403, 'Staff only', '<h1>Staff only</h1><p>This page is for the staff of an organisation (owners, admins and staff).</p>');
      return undefined;
    }
    return { user, sessionToken, membership, memberships, principal: staffPrincipalOf(user, membership, sessionToken) };
  }

  router.get('/dashboard', (_req, res) => res.redirect(303, '/dashboard/approvals'));

  router.get('/dashboard/sign-in', guarded(async (_req, res) => signInPage(res, 200, {})));

  router.post('/dashboard/sign-in', options.signInLimiter, form, guarded(async (req, res) => {
    if (!fromOurPages(req, origin)) return sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>This form must be sent from the Steward sign-in page.</p>');
    const email = typeof req.body?.email === 'string' && req.body.email.length <= 320 ? req.body.email.trim() : '';
    const password = typeof req.body?.password === 'string' && req.body.password.length <= 1024 ? req.body.password : '';
    if (!email || !password) return signInPage(res, 400, { email, error: 'Enter your email and password' });
    const user = await checkPassword(pool, email, password);
    if (!user) return signInPage(res, 401, { email, error: 'Email or password is incorrect' });
    const session = await createSession(pool, user.userId);
    setSessionCookie(res, session.token, session.maxAgeSeconds);
    res.redirect(303, '/dashboard/approvals');
  }));

  router.get('/dashboard/approvals', guarded(async (req, res) => {
    const staff = await staffOf(req, res, req.query.org);
    if (!staff) return;
    const orgId = staff.membership.orgId;
    const csrf = csrfOf(staff.sessionToken);
    const proposals = await listProposals(pool, orgId, { status: 'pending', limit: 100, actionTools: permittedToolNames(staff.principal) });
    const pending = await listOutreach(pool, orgId, { status: 'pending_review', limit: 100 });
    const stuck = (await listOutreach(pool, orgId, { status: 'approved', limit: 100 })).filter((item) => item.sendError);
    const given = { notice: typeof req.query.notice === 'string' ? req.query.notice : '', error: typeof req.query.error === 'string' ? req.query.error : '' };
    const signed = typeof req.query.sig === 'string' && safeEqual(req.query.sig, noticeSignature(staff.sessionToken, given.notice, given.error));
    const notice = signed ? given.notice.slice(0, 300) : '';
    const error = signed ? given.error.slice(0, 300) : '';
    const orgSwitch = staff.memberships.length > 1
      ? `<p class="muted">Organisation: ${staff.memberships.map((m) => m.orgId === orgId ? `<strong>${escapeHtml(m.orgName)}</strong>` : `<a href="/dashboard/approvals?org=${encodeURIComponent(m.orgId)}">${escapeHtml(m.orgName)}</a>`).join(' · ')}</p>`
      : '';
    sendPage(res, 200, 'Approvals', `
<nav><h1>Approvals · ${escapeHtml(staff.membership.orgName)}</h1><span class="muted">${escapeHtml(staff.user.email)} (${escapeHtml(staff.membership.role)})</span></nav>
${orgSwitch}
${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ''}${error ? `<p class="alert" role="alert">${escapeHtml(error)}</p>` : ''}
<h2>Pastoral messages awaiting review (${pending.length + stuck.length})</h2>
${pending.length + stuck.length === 0 ? '<p class="muted">Nothing waiting.</p>' : [...stuck, ...pending].map((item) => outreachCard(item, staff, csrf)).join('\n')}
<h2>Agent proposals (${proposals.length})</h2>
${proposals.length === 0 ? '<p class="muted">Nothing waiting.</p>' : proposals.map((p) => proposalCard(p, staff, csrf)).join('\n')}`);
  }));

  const DECISIONS: Record<string, Record<string, string>> = {
    proposals: { approve: 'platform_approve_proposal', reject: 'platform_reject_proposal' },
    outreach: { approve: 'people_approve_outreach', decline: 'people_decline_outreach', cancel: 'people_cancel_outreach' },
  };

  router.post('/dashboard/approvals/:kind/:id/:decision', form, guarded(async (req, res) => {
    const kind = String(req.params.kind);
    const decision = String(req.params.decision);
    const id = String(req.params.id);
    const tool = DECISIONS[kind]?.[decision];
    if (!tool || !/^[0-9a-f-]{36}$/i.test(id)) return sendPage(res, 404, 'Not found', '<h1>Not found</h1>');
    if (!fromOurPages(req, origin)) return sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>This form must be sent from the approvals page.</p>');
    const staff = await staffOf(req, res, req.body?.org);
    if (!staff) return;
    const csrf = typeof req.body?.csrf === 'string' && req.body.csrf.length <= 100 ? req.body.csrf : '';
    if (!csrf || !safeEqual(csrf, csrfOf(staff.sessionToken))) return sendPage(res, 403, 'Refused', '<h1>Refused</h1><p>The form has expired; reload the page and try again.</p>');
    const args: Record<string, unknown> = kind === 'proposals' ? { proposalId: id } : { outreachId: id };
    if (kind === 'outreach' && decision === 'approve') args.contentVersion = Number(req.body?.contentVersion);
    const back = new URLSearchParams({ org: staff.membership.orgId });
    try {
      const result = await caller.call(staff.principal, tool, args) as { status?: string; execution?: { status: string }; item?: OutreachItem };
      if (result.item) {
        back.set('notice', result.item.sendError
          ? `Approved, but not sent: ${result.item.sendError.message}`
          : `Message to ${result.item.contactName} ${result.item.status === 'sent' ? 'sent' : result.item.status.replace('_', ' ')}.`);
      } else {
        back.set('notice', `Proposal ${result.status}${result.execution ? ` (action ${result.execution.status})` : ''}.`);
      }
    } catch (error) {
      const body = error instanceof StewardError ? error.toBody() : toErrorBody(error);
      back.set('error', body.message);
    }
    back.set('sig', noticeSignature(staff.sessionToken, back.get('notice') ?? '', back.get('error') ?? ''));
    res.redirect(303, `/dashboard/approvals?${back}`);
  }));

  return router;
}
