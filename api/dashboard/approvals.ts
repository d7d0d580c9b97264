import express, { type NextFunction, type Request, type Response } from 'express';
import { mayDecideOutreach, mayDecideProposals } from '../../core/approvals';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { STAFF_ROLES } from '../../core/roles';
import type { Pool } from '../../db/pool';
import { findTool, permittedToolNames } from '../../modules/catalogue';
import { consequenceOf } from './consequence';
import { listOutreach, type OutreachItem } from '../../modules/people/outreach';
import { checkPassword, createSession, membershipsOf, sessionUser, type OrgMembership, type SignedInUser } from '../../kernel/oauth/sessions';
import { listProposals, type Proposal } from '../../kernel/proposals';
import { toErrorBody } from '../errors';
import { sessionTokenOf, setSessionCookie } from '../oauth/session-cookie';
import { fromOurPages, safeEqual } from '../pages/forms';
import { sendView } from '../pages/render';
import { chromeOf, dashboardCsrfOf, noticeSignatureOf } from './pages';
import { staffPrincipalOf } from './principal';
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

function sendPage(res: Response, status: number, title: string, heading: string, text: string): void {
  sendView(res, { status, title, view: 'message', data: { heading, text } });
}

/** Bound to the browser session: a forged cross-site form cannot know it (the same token every dashboard form carries). */
const csrfOf = dashboardCsrfOf;

/**
 * Messages shown after a decision travel in the redirect's query, signed for
 * this session: a crafted link cannot put words of its own on a staff page.
 */
const noticeSignature = noticeSignatureOf;

function signInPage(res: Response, status: number, input: { email?: string; error?: string }): void {
  sendView(res, { status, title: 'Staff sign-in', view: 'sign-in', data: { email: input.email ?? '', error: input.error ?? '' } });
}

interface Staff {
  user: SignedInUser;
  sessionToken: string;
  membership: OrgMembership;
  memberships: OrgMembership[];
  principal: Principal;
}

export { staffPrincipalOf } from './principal';

const when = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A contact as a person reads it in an approval: name, then what tells two records apart. */
interface ContactPreview { name: string; facts: string[] }

async function contactPreview(caller: ToolCaller, principal: Principal, contactId: string): Promise<ContactPreview> {
  try {
    const { contact } = await caller.call(principal, 'people_get_contact', { contactId }) as { contact: { displayName: string; email: string | null; phone: string | null; createdAt?: string; status?: string } };
    const facts = [contact.email, contact.phone, contact.status?.replace(/_/g, ' '), contact.createdAt ? `added ${contact.createdAt.slice(0, 10)}` : null].filter((fact): fact is string => Boolean(fact));
    return { name: contact.displayName, facts };
  } catch {
    return { name: 'a contact you cannot see (or since removed)', facts: [] };
  }
}

const humanise = (key: string) => key.replace(/Id$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase().replace(/^./, (c) => c.toUpperCase());

/** An argument's value in words: contacts by name, lists and records as lines, never raw JSON. */
async function describeValue(key: string, value: unknown, resolve: (id: string) => Promise<ContactPreview>): Promise<string> {
  if (typeof value === 'string' && UUID.test(value) && /contact/i.test(key)) {
    const contact = await resolve(value);
    return [contact.name, ...contact.facts].join(' · ');
  }
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return (await Promise.all(value.map((item) => describeValue(key, item, resolve)))).join('; ');
  if (typeof value === 'object') {
    const parts = await Promise.all(Object.entries(value as Record<string, unknown>).map(async ([k, v]) => `${humanise(k)}: ${await describeValue(k, v, resolve)}`));
    return parts.join('; ');
  }
  return String(value);
}

/** What a proposal card shows: the summary, what approving does (in words for a person: consequence.ts), and each argument in words. */
async function proposalView(p: Proposal, staff: Staff, caller: ToolCaller) {
  const tool = findTool(p.action.tool);
  const cache = new Map<string, Promise<ContactPreview>>();
  const resolve = (id: string) => {
    if (!cache.has(id)) cache.set(id, contactPreview(caller, staff.principal, id));
    return cache.get(id)!;
  };
  const details = await Promise.all(Object.entries(p.action.arguments).filter(([key]) => key !== 'actionSummary')
    .map(async ([key, value]) => ({ label: humanise(key), value: await describeValue(key, value, resolve) })));
  return {
    id: p.id, summary: p.summary, agent: p.agent, createdAt: when(p.createdAt), expiresAt: when(p.expiresAt),
    action: tool?.title ?? p.action.tool, consequence: tool ? consequenceOf(tool, (name) => findTool(name)?.title) : 'Runs the action with exactly these details.', details,
  };
}

function outreachView(item: OutreachItem) {
  return {
    id: item.id, channel: item.channel === 'email' ? 'Email' : item.channel === 'sms' ? 'SMS' : 'WhatsApp', contactName: item.contactName,
    recipient: item.recipient ?? 'no address', status: item.status.replace('_', ' '), rawStatus: item.status, contentVersion: item.contentVersion,
    reason: item.reason, subject: item.subject, body: item.body, sendError: item.sendError?.message ?? null,
    approve: item.status === 'pending_review' || (item.status === 'approved' && Boolean(item.sendError)),
  };
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
      sendPage(res, 500, 'Error', 'Something went wrong', 'Please try again.');
    }
  };

  /** The signed-in staff member for the chosen organisation, or a redirect / refusal already sent. */
  async function staffOf(req: Request, res: Response, orgParam: unknown): Promise<Staff | undefined> {
    const sessionToken = sessionTokenOf(req);
    const user = sessionToken ? await sessionUser(pool, sessionToken) : undefined;
    if (!user || !sessionToken) {
      if (req.method === 'GET') res.redirect(303, '/dashboard/sign-in');
      else sendPage(res, 401, 'Signed out', 'Your session has ended', 'Sign in again at /dashboard/sign-in.');
      return undefined;
    }
    const all = await membershipsOf(pool, user.userId);
    const memberships = all.filter((m) => STAFF_ROLES.includes(m.role));
    const membership = typeof orgParam === 'string' && orgParam ? memberships.find((m) => m.orgId === orgParam) : memberships[0];
    if (!membership) {
      // A volunteer is signed in all the same, and keeps the pages their role has (home, connected apps).
      const other = all[0];
      const dash = other ? chromeOf({ user, sessionToken, membership: other, memberships: all, principal: staffPrincipalOf(user, other, sessionToken) }, '/dashboard/approvals') : undefined;
      sendView(res, { status: 403, title: 'Staff only', view: 'message', dash, data: { heading: 'Staff only', text: 'Approvals are for the staff of an organisation (owners, admins and staff).' } });
      return undefined;
    }
    return { user, sessionToken, membership, memberships, principal: staffPrincipalOf(user, membership, sessionToken) };
  }

  router.get('/dashboard/sign-in', guarded(async (_req, res) => signInPage(res, 200, {})));

  router.post('/dashboard/sign-in', options.signInLimiter, form, guarded(async (req, res) => {
    if (!fromOurPages(req, origin)) return sendPage(res, 403, 'Refused', 'Refused', 'This form must be sent from the Steward sign-in page.');
    const email = typeof req.body?.email === 'string' && req.body.email.length <= 320 ? req.body.email.trim() : '';
    const password = typeof req.body?.password === 'string' && req.body.password.length <= 1024 ? req.body.password : '';
    if (!email || !password) return signInPage(res, 400, { email, error: 'Enter your email and password' });
    const user = await checkPassword(pool, email, password);
    if (!user) return signInPage(res, 401, { email, error: 'Email or password is incorrect' });
    const session = await createSession(pool, user.userId);
    setSessionCookie(res, session.token, session.maxAgeSeconds);
    res.redirect(303, '/dashboard');
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
    const orgs = staff.memberships.length > 1
      ? staff.memberships.map((m) => ({ name: m.orgName, href: `/dashboard/approvals?org=${encodeURIComponent(m.orgId)}`, current: m.orgId === orgId }))
      : [];
    const member = { user: staff.user, sessionToken: staff.sessionToken, membership: staff.membership, memberships: staff.memberships, principal: staff.principal };
    sendView(res, {
      title: 'Approvals', view: 'dash-approvals', dash: chromeOf(member, '/dashboard/approvals'),
      data: {
        orgName: staff.membership.orgName, orgId, orgs, notice, error, csrf,
        outreach: [...stuck, ...pending].map(outreachView), proposals: await Promise.all(proposals.map((p) => proposalView(p, staff, caller))),
        canDecideOutreach: mayDecideOutreach(staff.principal), canDecideProposals: mayDecideProposals(staff.principal),
      },
    });
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
    if (!tool || !/^[0-9a-f-]{36}$/i.test(id)) return sendPage(res, 404, 'Not found', 'Not found', 'There is no such decision.');
    if (!fromOurPages(req, origin)) return sendPage(res, 403, 'Refused', 'Refused', 'This form must be sent from the approvals page.');
    const staff = await staffOf(req, res, req.body?.org);
    if (!staff) return;
    const csrf = typeof req.body?.csrf === 'string' && req.body.csrf.length <= 100 ? req.body.csrf : '';
    if (!csrf || !safeEqual(csrf, csrfOf(staff.sessionToken))) return sendPage(res, 403, 'Refused', 'Refused', 'The form has expired; reload the page and try again.');
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
