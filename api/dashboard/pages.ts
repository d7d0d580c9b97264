import express, { type NextFunction, type Request, type Response } from 'express';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { STAFF_ROLES, isRole, scopesAllowedForRole } from '../../core/roles';
import { isScope, type Scope } from '../../core/scopes';
import { TEMPORAL_NAMESPACE } from '../../db/config';
import type { Pool, Queryable } from '../../db/pool';
import { withTransaction } from '../../db/pool';
import { createApiKey, listApiKeys, revokeApiKey } from '../../kernel/api-keys';
import { recordOutsideChange } from '../../modules/audit/api';
import { findGrant, listConnectedApps, revokeGrant } from '../../kernel/oauth/grants';
import { SCOPE_WORDS } from '../../kernel/oauth/scopes';
import { endSession, membershipsOf, sessionUser, type OrgMembership, type SignedInUser } from '../../kernel/oauth/sessions';
import { listProposals } from '../../kernel/proposals';
import { permittedToolNames } from '../../modules/catalogue';
import { listOutreach } from '../../modules/people/outreach';
import { toErrorBody } from '../errors';
import { clearSessionCookie, sessionTokenOf } from '../oauth/session-cookie';
import { csrfTokenOf, fromOurPages, safeEqual } from '../pages/forms';
import { sendView, type DashboardChrome } from '../pages/render';
import type { ToolCaller } from '../tool-caller';
import { errorFields, log } from '../../core/log';
import { staffPrincipalOf } from './principal';
import { analyticsPageOf, readsAnyMetric } from './analytics';

/**
 * The staff dashboard's pages beside approvals (api/dashboard/approvals.ts): a home page, recent
 * agent activity, usage against the plan's allowance, API keys, the team and its invitations,
 * connected applications, and signing out. Every signed-in member of an organisation may come
 * in; each page shows what their role allows (a volunteer sees their own connected applications).
 * Reads and writes that have a tool go through the ToolCaller, so they are the same scope-checked,
 * audited workflows an agent's calls are; API keys and OAuth grants are the kernel's own records.
 */

export interface Member {
  user: SignedInUser;
  sessionToken: string;
  membership: OrgMembership;
  memberships: OrgMembership[];
  principal: Principal;
}

export const dashboardCsrfOf = (sessionToken: string) => csrfTokenOf('dashboard', sessionToken);
export const noticeSignatureOf = (sessionToken: string, notice: string, error: string) => csrfTokenOf('dashboard-notice', sessionToken, notice, error);

const PAGES = [
  { href: '/dashboard', label: 'Home', allowed: () => true },
  { href: '/dashboard/approvals', label: 'Approvals', allowed: (m: Member) => STAFF_ROLES.includes(m.membership.role) },
  { href: '/dashboard/activity', label: 'Activity', allowed: (m: Member) => m.principal.scopes.includes('audit:read') },
  { href: '/dashboard/usage', label: 'Usage', allowed: (m: Member) => STAFF_ROLES.includes(m.membership.role) },
  // Volunteers too: each sees the metrics their role's scopes reach, and is told which are withheld.
  { href: '/dashboard/analytics', label: 'Analytics', allowed: (m: Member) => readsAnyMetric(m.principal) },
  { href: '/dashboard/keys', label: 'API keys', allowed: (m: Member) => isManager(m) },
  { href: '/dashboard/team', label: 'Team', allowed: (m: Member) => STAFF_ROLES.includes(m.membership.role) },
  { href: '/dashboard/apps', label: 'Connected apps', allowed: () => true },
] as const;

function isManager(member: Member): boolean {
  return member.membership.role === 'owner' || member.membership.role === 'admin';
}

export function chromeOf(member: Member, current: string): DashboardChrome {
  return {
    orgName: member.membership.orgName, email: member.user.email, role: member.membership.role, csrf: dashboardCsrfOf(member.sessionToken),
    links: PAGES.filter((page) => page.allowed(member)).map((page) => ({ href: page.href, label: page.label, current: page.href === current })),
  };
}

/** The Temporal UI page of a workflow run, for operators (TEMPORAL_UI_URL; the dev server's UI by default). */
export function temporalRunUrl(workflowId: string): string {
  const ui = (process.env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${process.env.TEMPORAL_UI_PORT ?? 8233}`).replace(/\/+$/, '');
  return `${ui}/namespaces/${encodeURIComponent(TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * These pages write credentials directly rather than through a tool call, so they record their own
 * audit event, in the same transaction: the person on the page is the actor; no secret is kept.
 */
async function recordCredentialChange(db: Queryable, member: Member, target: { type: 'api_key' | 'oauth_grant'; id: string }, verb: 'create' | 'revoke', fields: Record<string, unknown>): Promise<void> {
  await recordOutsideChange(db, {
    orgId: member.membership.orgId, actorKind: 'human', actorUserId: member.user.userId, channel: 'dashboard', source: `dashboard:${target.type}:${target.id}:${verb}`,
    module: 'platform', noun: target.type, verb, target, fields,
  });
}

const when = (iso: string | null | undefined) => (iso ? `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '');

export interface DashboardPagesOptions {
  pool: Pool;
  caller: ToolCaller;
  origin: string;
}

export function dashboardPagesRouter(options: DashboardPagesOptions) {
  const { pool, caller, origin } = options;
  const router = express.Router();
  const form = express.urlencoded({ extended: true, limit: '16kb' });

  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (error) {
      log('error', 'dashboard request failed', errorFields(error));
      sendView(res, { status: 500, title: 'Error', view: 'message', data: { heading: 'Something went wrong', text: 'Please try again.' } });
    }
  };

  /** The signed-in member in the chosen organisation, or a redirect / refusal already sent. */
  async function memberOf(req: Request, res: Response, orgParam?: unknown): Promise<Member | undefined> {
    const sessionToken = sessionTokenOf(req);
    const user = sessionToken ? await sessionUser(pool, sessionToken) : undefined;
    if (!user || !sessionToken) {
      if (req.method === 'GET') res.redirect(303, '/dashboard/sign-in');
      else sendView(res, { status: 401, title: 'Signed out', view: 'message', data: { heading: 'Your session has ended', text: 'Sign in again.', link: { href: '/dashboard/sign-in', label: 'Sign in' } } });
      return undefined;
    }
    const memberships = await membershipsOf(pool, user.userId);
    const wanted = typeof orgParam === 'string' && orgParam ? orgParam : undefined;
    const membership = wanted ? memberships.find((m) => m.orgId === wanted) : memberships[0];
    if (!membership) {
      sendView(res, { status: 403, title: 'No organisation', view: 'message', data: { heading: 'No organisation', text: 'This account is not a member of that organisation.' } });
      return undefined;
    }
    return { user, sessionToken, membership, memberships, principal: staffPrincipalOf(user, membership, sessionToken) };
  }

  /** A page the member's role does not include: said plainly, with the pages it does. */
  function refuse(res: Response, member: Member, current: string, what: string): void {
    sendView(res, { status: 403, title: 'Not for your role', view: 'message', dash: chromeOf(member, current), data: { heading: `${what} is not part of your role`, text: `You are ${article(member.membership.role)} ${member.membership.role} of ${member.membership.orgName}. An owner or admin can change your role on the Team page.` } });
  }

  /** A POST from our own page, with the session's CSRF token; the member, or undefined with a refusal sent. */
  async function postingMember(req: Request, res: Response): Promise<Member | undefined> {
    if (!fromOurPages(req, origin)) {
      sendView(res, { status: 403, title: 'Refused', view: 'message', data: { heading: 'Refused', text: 'This form must be sent from a Steward page.' } });
      return undefined;
    }
    const member = await memberOf(req, res, req.body?.org);
    if (!member) return undefined;
    const csrf = typeof req.body?.csrf === 'string' && req.body.csrf.length <= 100 ? req.body.csrf : '';
    if (!csrf || !safeEqual(csrf, dashboardCsrfOf(member.sessionToken))) {
      sendView(res, { status: 403, title: 'Refused', view: 'message', data: { heading: 'Refused', text: 'The form has expired; reload the page and try again.' } });
      return undefined;
    }
    return member;
  }

  function notices(req: Request, member: Member): { notice: string; error: string } {
    const given = { notice: typeof req.query.notice === 'string' ? req.query.notice : '', error: typeof req.query.error === 'string' ? req.query.error : '' };
    const signed = typeof req.query.sig === 'string' && safeEqual(req.query.sig, noticeSignatureOf(member.sessionToken, given.notice, given.error));
    return signed ? { notice: given.notice.slice(0, 300), error: given.error.slice(0, 300) } : { notice: '', error: '' };
  }

  function back(res: Response, member: Member, path: string, outcome: { notice?: string; error?: string }): void {
    const query = new URLSearchParams({ org: member.membership.orgId });
    if (outcome.notice) query.set('notice', outcome.notice);
    if (outcome.error) query.set('error', outcome.error);
    query.set('sig', noticeSignatureOf(member.sessionToken, outcome.notice ?? '', outcome.error ?? ''));
    res.redirect(303, `${path}?${query}`);
  }

  const messageOf = (error: unknown) => (error instanceof StewardError ? error.toBody() : toErrorBody(error)).message;

  router.get('/dashboard', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    let waiting: number | null = null;
    if (STAFF_ROLES.includes(member.membership.role)) {
      const orgId = member.membership.orgId;
      const proposals = await listProposals(pool, orgId, { status: 'pending', limit: 100, actionTools: permittedToolNames(member.principal) });
      waiting = proposals.length + (await listOutreach(pool, orgId, { status: 'pending_review', limit: 100 })).length;
    }
    sendView(res, {
      title: 'Dashboard', view: 'dash-home', dash: chromeOf(member, '/dashboard'),
      data: {
        name: member.user.displayName ?? member.user.email, orgName: member.membership.orgName, role: member.membership.role, waiting,
        orgs: member.memberships.length > 1 ? member.memberships.map((m) => ({ name: m.orgName, href: `/dashboard?org=${encodeURIComponent(m.orgId)}`, current: m.orgId === member.membership.orgId })) : [],
        pages: chromeOf(member, '/dashboard').links.filter((link) => link.href !== '/dashboard'),
      },
    });
  }));

  router.post('/dashboard/sign-out', form, guarded(async (req, res) => {
    if (!fromOurPages(req, origin)) return sendView(res, { status: 403, title: 'Refused', view: 'message', data: { heading: 'Refused', text: 'This form must be sent from a Steward page.' } });
    const token = sessionTokenOf(req);
    const csrf = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
    if (token && csrf && safeEqual(csrf, dashboardCsrfOf(token))) await endSession(pool, token);
    else if (token) return sendView(res, { status: 403, title: 'Refused', view: 'message', data: { heading: 'Refused', text: 'The form has expired; reload the page and try again.' } });
    clearSessionCookie(res);
    res.redirect(303, '/?signed-out=1');
  }));

  router.get('/dashboard/activity', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    if (!member.principal.scopes.includes('audit:read')) return refuse(res, member, '/dashboard/activity', 'The activity log');
    const { events } = await caller.call(member.principal, 'audit_list_events', { limit: 50 }) as { events: ActivityEvent[] };
    const orgId = member.membership.orgId;
    const [team, keys, apps] = await Promise.all([
      caller.call(member.principal, 'platform_list_team_members', {}) as Promise<{ members: Array<{ userId: string; email: string; displayName: string | null }> }>,
      listApiKeys(pool, orgId, 500),
      listConnectedApps(pool, orgId),
    ]);
    const people = new Map(team.members.map((m) => [m.userId, m.displayName ?? m.email]));
    const credentials = new Map<string, string>([
      ...keys.map((key): [string, string] => [key.id, `API key “${key.name}”`]),
      ...apps.map((app): [string, string] => [app.grantId, `${app.clientName} (OAuth)`]),
    ]);
    const rows = events.map((event) => ({
      at: when(event.at), action: event.action ?? event.tool, tool: event.tool, summary: event.summary, outcome: event.outcome,
      who: event.actor.userId ? people.get(event.actor.userId) ?? 'a former member' : event.actor.kind === 'system' ? 'Steward (scheduled)' : 'unknown',
      onBehalfOf: event.actor.onBehalfOfUserId ? people.get(event.actor.onBehalfOfUserId) ?? 'a former member' : null,
      credential: event.actor.credentialId ? credentials.get(event.actor.credentialId) ?? credentialKindLabel(event.actor.credentialKind) : credentialKindLabel(event.actor.credentialKind),
      kind: event.actor.kind, runUrl: temporalRunUrl(event.workflowId),
    }));
    sendView(res, { title: 'Agent activity', view: 'dash-activity', wide: true, dash: chromeOf(member, '/dashboard/activity'), data: { rows } });
  }));

  router.get('/dashboard/usage', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    if (!STAFF_ROLES.includes(member.membership.role)) return refuse(res, member, '/dashboard/usage', 'Usage');
    const usage = await caller.call(member.principal, 'platform_usage', {}) as { plan: string; features: Array<{ feature: string; used: number; limit: number | null; remaining: number | null; period: string }> };
    const meters = usage.features.map((f) => {
      const percent = f.limit ? Math.min(100, Math.round((f.used / f.limit) * 100)) : 0;
      return {
        label: f.feature.replace(/_/g, ' '), used: f.used, limit: f.limit, percent, period: f.period,
        level: percent >= 100 ? 'full' : percent >= 80 ? 'high' : 'ok',
        text: f.limit === null ? `${f.used.toLocaleString('en-GB')} used (no limit)` : `${f.used.toLocaleString('en-GB')} of ${f.limit.toLocaleString('en-GB')}${f.period === 'month' ? ' this month' : ''}`,
      };
    });
    sendView(res, { title: 'Usage', view: 'dash-usage', dash: chromeOf(member, '/dashboard/usage'), data: { plan: usage.plan, meters } });
  }));

  router.get('/dashboard/analytics', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    if (!readsAnyMetric(member.principal)) return refuse(res, member, '/dashboard/analytics', 'Analytics');
    const page = await analyticsPageOf(caller, member.principal);
    sendView(res, {
      title: 'Analytics', view: 'dash-analytics', wide: true, dash: chromeOf(member, '/dashboard/analytics'),
      data: { orgName: member.membership.orgName, role: member.membership.role, ...page },
    });
  }));

  router.get('/dashboard/keys', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    if (!isManager(member)) return refuse(res, member, '/dashboard/keys', 'API keys');
    sendKeysPage(res, member, notices(req, member));
  }));

  async function sendKeysPage(res: Response, member: Member, outcome: { notice: string; error: string }, status = 200): Promise<void> {
    const keys = (await listApiKeys(pool, member.membership.orgId)).map((key) => ({ ...key, createdAt: when(key.createdAt), lastUsedAt: when(key.lastUsedAt) || 'never', revokedAt: when(key.revokedAt) }));
    const allowed = scopesAllowedForRole(member.membership.role, member.membership.safeguarding);
    sendView(res, {
      status, title: 'API keys', view: 'dash-keys', wide: true, dash: chromeOf(member, '/dashboard/keys'),
      data: { keys, scopes: allowed.map((scope) => ({ scope, words: SCOPE_WORDS[scope] })), orgId: member.membership.orgId, ...outcome },
    });
  }

  router.post('/dashboard/keys', form, guarded(async (req, res) => {
    const member = await postingMember(req, res);
    if (!member) return;
    if (!isManager(member)) return refuse(res, member, '/dashboard/keys', 'API keys');
    const name = typeof req.body.name === 'string' ? req.body.name.trim().slice(0, 100) : '';
    const chosen = ([] as unknown[]).concat(req.body.scopes ?? []).filter((s): s is Scope => typeof s === 'string' && isScope(s));
    const allowed = new Set(scopesAllowedForRole(member.membership.role, member.membership.safeguarding));
    if (!name) return sendKeysPage(res, member, { notice: '', error: 'Give the key a name, so you know later what uses it' }, 400);
    if (chosen.length === 0) return sendKeysPage(res, member, { notice: '', error: 'Choose at least one permission' }, 400);
    const refused = chosen.filter((scope) => !allowed.has(scope));
    if (refused.length > 0) return sendKeysPage(res, member, { notice: '', error: `Your role cannot grant ${refused.join(', ')}` }, 403);
    const created = await withTransaction(pool, async (db) => {
      const key = await createApiKey(db, { orgId: member.membership.orgId, userId: member.user.userId, name, scopes: chosen });
      await recordCredentialChange(db, member, { type: 'api_key', id: key.id }, 'create', { name, scopes: key.scopes });
      return key;
    });
    // Shown once, on this response only; never stored in a URL, a log or a cache.
    sendView(res, { title: 'API key created', view: 'dash-key-created', dash: chromeOf(member, '/dashboard/keys'), data: { name, apiKey: created.apiKey, scopes: created.scopes } });
  }));

  router.post('/dashboard/keys/:id/revoke', form, guarded(async (req, res) => {
    const member = await postingMember(req, res);
    if (!member) return;
    if (!isManager(member)) return refuse(res, member, '/dashboard/keys', 'API keys');
    const id = String(req.params.id);
    const revoked = /^[0-9a-f-]{36}$/i.test(id) && await withTransaction(pool, async (db) => {
      const done = await revokeApiKey(db, member.membership.orgId, id);
      if (done) await recordCredentialChange(db, member, { type: 'api_key', id }, 'revoke', { revoked: true });
      return done;
    });
    back(res, member, '/dashboard/keys', revoked ? { notice: 'The key was revoked: calls with it are refused from now on.' } : { error: 'No such key, or it was revoked already.' });
  }));

  router.get('/dashboard/team', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    if (!STAFF_ROLES.includes(member.membership.role)) return refuse(res, member, '/dashboard/team', 'The team page');
    const [team, invites, roles] = await Promise.all([
      caller.call(member.principal, 'platform_list_team_members', {}) as Promise<{ members: Array<{ email: string; displayName: string | null; roleLabel: string; safeguarding: boolean; joinedAt: string }> }>,
      caller.call(member.principal, 'platform_list_pending_team_invites', {}) as Promise<{ invites: Array<{ email: string; roleLabel: string; expired: boolean; expiresAt: string }> }>,
      caller.call(member.principal, 'platform_list_team_roles', {}).catch(() => ({ roles: [] })) as Promise<{ roles: Array<{ roleId?: string; id?: string; label: string }> }>,
    ]);
    sendView(res, {
      title: 'Team', view: 'dash-team', dash: chromeOf(member, '/dashboard/team'),
      data: {
        members: team.members.map((m) => ({ ...m, joinedAt: when(m.joinedAt) })), invites: invites.invites.map((i) => ({ ...i, expiresAt: when(i.expiresAt) })),
        roles: roles.roles.map((r) => ({ id: r.roleId ?? r.id ?? '', label: r.label })).filter((r) => isRole(r.id)),
        canInvite: member.principal.scopes.includes('platform:write') && STAFF_ROLES.includes(member.membership.role), orgId: member.membership.orgId, ...notices(req, member),
      },
    });
  }));

  router.post('/dashboard/team/invite', form, guarded(async (req, res) => {
    const member = await postingMember(req, res);
    if (!member) return;
    const email = typeof req.body.email === 'string' ? req.body.email.trim().slice(0, 320) : '';
    const roleId = typeof req.body.roleId === 'string' ? req.body.roleId : '';
    try {
      await caller.call(member.principal, 'platform_invite_team_member', { email, roleId });
      back(res, member, '/dashboard/team', { notice: `Invitation sent to ${email}.` });
    } catch (error) {
      back(res, member, '/dashboard/team', { error: messageOf(error) });
    }
  }));

  router.get('/dashboard/apps', guarded(async (req, res) => {
    const member = await memberOf(req, res, req.query.org);
    if (!member) return;
    const apps = await listConnectedApps(pool, member.membership.orgId, isManager(member) ? undefined : member.user.userId);
    sendView(res, {
      title: 'Connected apps', view: 'dash-apps', dash: chromeOf(member, '/dashboard/apps'),
      data: {
        apps: apps.map((app) => ({ ...app, createdAt: when(app.createdAt), mine: app.userId === member.user.userId, scopeWords: app.scopes.map((s) => SCOPE_WORDS[s]) })),
        everyone: isManager(member), orgId: member.membership.orgId, ...notices(req, member),
      },
    });
  }));

  router.post('/dashboard/apps/:grantId/revoke', form, guarded(async (req, res) => {
    const member = await postingMember(req, res);
    if (!member) return;
    const grantId = String(req.params.grantId);
    const grant = /^[0-9a-f-]{36}$/i.test(grantId) ? await findGrant(pool, grantId) : undefined;
    // Another organisation's grant, or another person's for a non-manager, behaves as a missing one.
    const mayRevoke = grant && grant.orgId === member.membership.orgId && grant.revokedAt === null && (isManager(member) || grant.userId === member.user.userId);
    if (!mayRevoke) return back(res, member, '/dashboard/apps', { error: 'No such connected app, or it was disconnected already.' });
    await withTransaction(pool, async (db) => {
      await revokeGrant(db, grantId, `revoked on the dashboard by ${member.user.userId}`);
      await recordCredentialChange(db, member, { type: 'oauth_grant', id: grantId }, 'revoke', { client: grant.clientId ?? null });
    });
    back(res, member, '/dashboard/apps', { notice: 'Disconnected: its tokens no longer work, and it must ask again to reconnect.' });
  }));

  return router;
}

interface ActivityEvent {
  at: string;
  action: string | null;
  tool: string;
  workflowId: string;
  summary: string | null;
  outcome: string;
  actor: { kind: string; userId: string | null; onBehalfOfUserId: string | null; credentialId: string | null; credentialKind: string | null };
}

function credentialKindLabel(kind: string | null): string {
  return kind === 'api_key' ? 'an API key' : kind === 'oauth' ? 'a connected app' : kind === 'dashboard' ? 'the dashboard' : kind ? kind.replace(/_/g, ' ') : '—';
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
