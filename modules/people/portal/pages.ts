import { escapeHtml } from '../../../core/html';
import { replyAfterCommit } from '../../../core/reply-after-commit';
import { createHash } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { queryOne, withTenantTransaction, type Pool, type Queryable } from '../../../db/pool';
import { hashSecret, newSecret, safeEqual } from '../../../kernel/oauth/secrets';
import { getOrgSettings } from '../../platform/api';
import type { ModuleWebhook, WebhookDeps } from '../../module';
import { createContact, requireContact, updateContact, type ContactWrite } from '../contacts';
import { listHousehold } from '../family';
import { contactFields } from '../schemas';
import { kioskSession, recordKioskSignup } from './capture';
import { memberViewerPass } from './live-pass';
import { PORTAL_TOKEN_SHAPE, portalPublicOrigin } from './invites';
import { MAX_POST_LENGTH, createPost, postsForMember } from './posts';

/**
 * The member-facing portal, served by Steward under /people/portal/<orgId>/: a member signs in with
 * the link from their invitation (the token works once; only its hash is stored), then sees and
 * corrects their own details and consents, sees their own household (names only), and posts to the
 * portal (shown to others once approved). Everything is rendered on the server and escaped; every
 * form carries a CSRF token bound to the member's session (or, before sign-in, to the link's token)
 * and must come from Steward's own origin. The session cookie is HttpOnly, SameSite=Lax, scoped to
 * the organisation's portal path, and stored only as its hash.
 */
const SESSION_DAYS = 30;
const COOKIE = 'steward_portal';
const SESSION_SHAPE = /^pss_[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>`
    + '<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin-top:.8rem}'
    + 'input[type=text],input[type=email],input[type=tel],textarea{width:100%;padding:.4rem;font-size:1rem}button{font-size:1rem;padding:.5rem 1.1rem;margin-top:1rem}'
    + '.alert{background:#fee;padding:.5rem}.ok{background:#efe;padding:.5rem}.muted{color:#555}li{margin:.3rem 0}</style></head>'
    + `<body>${body}</body></html>`;
}

function send(res: Response, status: number, title: string, body: string): void {
  res.status(status).set({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    // same-origin: the link's token never leaves in a Referer, and our own form posts keep a real Origin (no-referrer would make it null).
    'referrer-policy': 'same-origin',
  }).send(page(title, body));
}

const csrfOf = (purpose: string, secret: string) => createHash('sha256').update(`portal-${purpose}\n${secret}`).digest('base64url');

/** Posts must come from our own pages (Fetch Metadata and Origin), and carry the token bound to the session or link. */
function formAllowed(req: Request, purpose: string, secret: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== portalPublicOrigin()) return false;
  const given = formField(req, 'csrf', 200);
  return given.length > 0 && safeEqual(given, csrfOf(purpose, secret));
}

function formField(req: Request, name: string, max: number): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

function cookieOf(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return undefined;
}

const basePath = (orgId: string) => `/people/portal/${orgId}`;

function sessionCookie(orgId: string, value: string, maxAgeSeconds: number): string {
  const secure = portalPublicOrigin().startsWith('https:') ? '; Secure' : '';
  return `${COOKIE}=${value}; Path=${basePath(orgId)}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

interface MemberSession { sessionId: string; contactId: string; token: string }

async function memberSession(db: Queryable, orgId: string, req: Request): Promise<MemberSession | undefined> {
  const token = cookieOf(req);
  if (!token || !SESSION_SHAPE.test(token)) return undefined;
  const row = await queryOne<{ id: string; contact_id: string }>(db, `
    UPDATE portal_sessions s SET last_seen_at = now() FROM portal_invites i, contacts c
    WHERE s.org_id = $1 AND s.token_hash = $2 AND s.ended_at IS NULL AND s.expires_at > now()
      AND i.id = s.invite_id AND i.status = 'joined' AND c.id = s.contact_id AND c.deleted_at IS NULL
    RETURNING s.id, s.contact_id`, [orgId, hashSecret(token)]);
  return row ? { sessionId: row.id, contactId: row.contact_id, token } : undefined;
}

function signedOut(res: Response, orgId: string): void {
  send(res, 401, 'Signed out', `<h1>Please sign in</h1><p id="signed-out">Use the link in your invitation to sign in to the member portal.</p>`
    + `<p class="muted">Ask the church office for a new link if yours has expired.</p>`);
  void orgId;
}

const detailsSchema = z.object({
  phone: z.union([z.literal(''), contactFields.phone]),
  email: z.union([z.literal(''), contactFields.email]),
  addressLine1: z.string().trim().max(200),
  addressCity: z.string().trim().max(100),
  addressPostcode: z.string().trim().max(12),
});

async function renderMe(db: Queryable, orgId: string, session: MemberSession, notice?: { ok: boolean; text: string }): Promise<string> {
  const contact = await requireContact(db, orgId, session.contactId);
  const household = await listHousehold(db, orgId, session.contactId);
  const posts = await postsForMember(db, orgId, session.contactId);
  const org = await getOrgSettings(db, orgId);
  const v = (value: string | null) => escapeHtml(value ?? '');
  const csrf = csrfOf('me', session.token);
  const base = basePath(orgId);
  const others = household.members.filter((member) => member.contactId !== session.contactId);
  return `<h1>${escapeHtml(org.name)} member portal</h1>
<p>Signed in as <strong id="member-name">${escapeHtml(contact.displayName)}</strong></p>
${notice ? `<p class="${notice.ok ? 'ok' : 'alert'}" role="${notice.ok ? 'status' : 'alert'}" id="notice">${escapeHtml(notice.text)}</p>` : ''}
<h2>Your details</h2>
<form method="post" action="${base}/me" id="details">
<input type="hidden" name="csrf" value="${csrf}">
<label for="phone">Phone</label><input id="phone" name="phone" type="tel" maxlength="32" value="${v(contact.phone)}">
<label for="email">Email</label><input id="email" name="email" type="email" maxlength="254" value="${v(contact.email)}">
<label for="addressLine1">Address</label><input id="addressLine1" name="addressLine1" type="text" maxlength="200" value="${v(contact.addressLine1)}">
<label for="addressCity">Town or city</label><input id="addressCity" name="addressCity" type="text" maxlength="100" value="${v(contact.addressCity)}">
<label for="addressPostcode">Postcode</label><input id="addressPostcode" name="addressPostcode" type="text" maxlength="12" value="${v(contact.addressPostcode)}">
<h3>How we may contact you</h3>
<label><input type="checkbox" id="emailNews" name="emailNews" value="yes"${contact.status === 'subscribed' ? ' checked' : ''}> Email me news and updates</label>
<label><input type="checkbox" id="whatsapp" name="whatsapp" value="yes"${contact.whatsappConsent ? ' checked' : ''}> You may message me on WhatsApp</label>
<button type="submit" id="save">Save my details</button>
</form>
<h2>Your household</h2>
${others.length === 0 ? '<p id="household-empty">No one else is recorded in your household.</p>'
    : `<ul id="household">${others.map((member) => `<li>${escapeHtml(member.displayName)}</li>`).join('')}</ul>`}
<h2>Posts</h2>
<form method="post" action="${base}/posts" id="new-post">
<input type="hidden" name="csrf" value="${csrfOf('posts', session.token)}">
<label for="post-body">Share something with the church family (a person checks posts before others see them)</label>
<textarea id="post-body" name="body" maxlength="${MAX_POST_LENGTH}" rows="3" required></textarea>
<button type="submit" id="post">Post</button>
</form>
<ul id="posts">${posts.map((post) => `<li data-post="${post.postId}"><strong>${escapeHtml(post.authorName)}</strong>: ${escapeHtml(post.body)}`
    + (post.contactId === session.contactId && post.status !== 'approved'
      ? ` <em class="muted">(${post.status === 'pending' ? 'waiting for approval' : `not approved: ${escapeHtml(post.rejectionReason ?? '')}`})</em>` : '')
    + '</li>').join('')}</ul>
<form method="post" action="${base}/sign-out"><input type="hidden" name="csrf" value="${csrfOf('sign-out', session.token)}"><button type="submit" id="sign-out">Sign out</button></form>`;
}

type Handler = (req: Request, res: Response, db: Queryable, orgId: string) => Promise<void>;


export function portalPagesRouter(deps: WebhookDeps): Router {
  const router = Router();
  const pool: Pool = deps.pool;
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const inOrg = (handler: Handler) => async (req: Request, res: Response, next: (error?: unknown) => void) => {
    try {
      const orgId = String(req.params.orgId ?? '');
      if (!UUID.test(orgId)) {
        send(res, 404, 'Not found', '<h1>This page is not recognised</h1>');
        return;
      }
      await replyAfterCommit(res, () => withTenantTransaction(pool, orgId, (db) => handler(req, res, db, orgId)));
    } catch (error) {
      next(error);
    }
  };

  const gone = (res: Response) => send(res, 410, 'Link unavailable', '<h1>This link cannot be used</h1>'
    + '<p class="alert" role="alert" id="error" data-error="link_unavailable">It has expired, was already used, or was replaced by a newer one.</p>'
    + '<p class="muted">Ask the church office to send you a new link.</p>');

  const liveInvite = async (db: Queryable, orgId: string, token: string, lock: boolean) => {
    if (!PORTAL_TOKEN_SHAPE.test(token)) return undefined;
    return queryOne<{ id: string; contact_id: string; first_name: string | null }>(db, `
      SELECT i.id, i.contact_id, c.first_name FROM portal_invites i
      JOIN contacts c ON c.id = i.contact_id AND c.deleted_at IS NULL
      WHERE i.org_id = $1 AND i.token_hash = $2 AND i.status IN ('pending', 'joined') AND i.expires_at > now() ${lock ? 'FOR UPDATE OF i' : ''}`,
    [orgId, hashSecret(token)]);
  };

  // The link only shows a button: mail scanners that follow links do not use it up.
  router.get('/people/portal/:orgId/join/:token', inOrg(async (req, res, db, orgId) => {
    const token = String(req.params.token);
    const invite = await liveInvite(db, orgId, token, false);
    if (!invite) return gone(res);
    const orgName = (await getOrgSettings(db, orgId)).name;
    send(res, 200, 'Sign in', `<h1>${escapeHtml(orgName)} member portal</h1>
<p>Welcome${invite.first_name ? `, ${escapeHtml(invite.first_name)}` : ''}. Sign in to see and correct your details.</p>
<form method="post" action="${basePath(orgId)}/join/${escapeHtml(token)}"><input type="hidden" name="csrf" value="${csrfOf('join', token)}">
<button type="submit" id="sign-in">Sign in</button></form>`);
  }));

  router.post('/people/portal/:orgId/join/:token', form, inOrg(async (req, res, db, orgId) => {
    const token = String(req.params.token);
    if (!formAllowed(req, 'join', token)) return send(res, 403, 'Refused', '<h1>This request was refused</h1><p id="error">Open the link from your invitation and try again.</p>');
    const invite = await liveInvite(db, orgId, token, true);
    if (!invite) return gone(res);
    // The link works once: its hash is cleared as the member joins.
    await db.query(`UPDATE portal_invites SET status = 'joined', joined_at = COALESCE(joined_at, now()), token_hash = NULL, updated_at = now()
      WHERE org_id = $1 AND id = $2`, [orgId, invite.id]);
    const session = newSecret('pss_');
    await db.query(`INSERT INTO portal_sessions (id, org_id, contact_id, invite_id, token_hash, expires_at)
      VALUES (gen_random_uuid(), $1, $2, $3, $4, now() + make_interval(days => $5))`, [orgId, invite.contact_id, invite.id, hashSecret(session), SESSION_DAYS]);
    res.set('set-cookie', sessionCookie(orgId, session, SESSION_DAYS * 86_400)).redirect(303, `${basePath(orgId)}/me`);
  }));

  // A signed-in member opening a live stream: the viewer page gets their pass in its fragment (never sent
  // to a server or in a Referer), so the stream counts them as themselves. Signed out: sign in first.
  router.get('/people/portal/:orgId/live/:streamId', inOrg(async (req, res, db, orgId) => {
    const streamId = String(req.params.streamId);
    if (!UUID.test(streamId)) return send(res, 404, 'Not found', '<h1>This stream is not available</h1>');
    const session = await memberSession(db, orgId, req);
    if (!session) return signedOut(res, orgId);
    res.set('cache-control', 'no-store').redirect(303, `/live/watch/${orgId}/${streamId}#member=${memberViewerPass(orgId, session.contactId)}`);
  }));

  router.get('/people/portal/:orgId/me', inOrg(async (req, res, db, orgId) => {
    const session = await memberSession(db, orgId, req);
    if (!session) return signedOut(res, orgId);
    send(res, 200, 'Member portal', await renderMe(db, orgId, session));
  }));

  router.post('/people/portal/:orgId/me', form, inOrg(async (req, res, db, orgId) => {
    const session = await memberSession(db, orgId, req);
    if (!session) return signedOut(res, orgId);
    if (!formAllowed(req, 'me', session.token)) return send(res, 403, 'Refused', '<h1>This request was refused</h1><p id="error">Reload the page and try again.</p>');
    const parsed = detailsSchema.safeParse({
      phone: formField(req, 'phone', 64).trim(), email: formField(req, 'email', 300).trim(), addressLine1: formField(req, 'addressLine1', 300),
      addressCity: formField(req, 'addressCity', 200), addressPostcode: formField(req, 'addressPostcode', 32),
    });
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))].join(', ');
      return send(res, 400, 'Member portal', await renderMe(db, orgId, session, { ok: false, text: `Please check: ${fields}. Nothing was changed.` }));
    }
    const before = await requireContact(db, orgId, session.contactId);
    const wanted: Record<string, string | null | boolean> = {
      phone: parsed.data.phone || null, email: parsed.data.email || null, addressLine1: parsed.data.addressLine1 || null,
      addressCity: parsed.data.addressCity || null, addressPostcode: parsed.data.addressPostcode || null,
    };
    const newsletter = formField(req, 'emailNews', 8) === 'yes';
    if (newsletter && before.status !== 'subscribed') wanted.status = 'subscribed';
    if (!newsletter && before.status === 'subscribed') wanted.status = 'non_subscribed';
    const whatsapp = formField(req, 'whatsapp', 8) === 'yes';
    if (whatsapp !== before.whatsappConsent) wanted.whatsappConsent = whatsapp;
    const current = before as unknown as Record<string, unknown>;
    const changes = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => key === 'status' || key === 'whatsappConsent' || (current[key] ?? null) !== value));
    if (Object.keys(changes).length === 0) return send(res, 200, 'Member portal', await renderMe(db, orgId, session, { ok: true, text: 'Nothing needed changing.' }));
    if (!changes.email && !before.firstName && !before.lastName && 'email' in changes) {
      return send(res, 400, 'Member portal', await renderMe(db, orgId, session, { ok: false, text: 'We need an email address or your name. Nothing was changed.' }));
    }
    await updateContact(db, await getOrgSettings(db, orgId), session.contactId, changes as ContactWrite);
    send(res, 200, 'Member portal', await renderMe(db, orgId, session, { ok: true, text: 'Your details were saved.' }));
  }));

  router.post('/people/portal/:orgId/posts', form, inOrg(async (req, res, db, orgId) => {
    const session = await memberSession(db, orgId, req);
    if (!session) return signedOut(res, orgId);
    if (!formAllowed(req, 'posts', session.token)) return send(res, 403, 'Refused', '<h1>This request was refused</h1><p id="error">Reload the page and try again.</p>');
    const body = formField(req, 'body', MAX_POST_LENGTH + 1).trim();
    if (body.length === 0 || body.length > MAX_POST_LENGTH) {
      return send(res, 400, 'Member portal', await renderMe(db, orgId, session, { ok: false, text: `A post needs 1 to ${MAX_POST_LENGTH} characters.` }));
    }
    await createPost(db, orgId, session.contactId, body);
    send(res, 200, 'Member portal', await renderMe(db, orgId, session, { ok: true, text: 'Thank you: your post will appear once it has been approved.' }));
  }));

  router.post('/people/portal/:orgId/sign-out', form, inOrg(async (req, res, db, orgId) => {
    const session = await memberSession(db, orgId, req);
    if (session && formAllowed(req, 'sign-out', session.token)) {
      await db.query('UPDATE portal_sessions SET ended_at = now() WHERE org_id = $1 AND id = $2', [orgId, session.sessionId]);
    }
    res.set('set-cookie', sessionCookie(orgId, '', 0));
    send(res, 200, 'Signed out', '<h1>You are signed out</h1>');
  }));

  // ---------------------------------------------------------------- the sign-up kiosk
  const kioskForm = (orgId: string, token: string, name: string, notice?: string) => `<h1>${escapeHtml(name)}</h1>
${notice ? `<p class="ok" role="status" id="notice">${escapeHtml(notice)}</p>` : ''}
<form method="post" action="${basePath(orgId)}/kiosk/${escapeHtml(token)}"><input type="hidden" name="csrf" value="${csrfOf('kiosk', token)}">
<label for="firstName">First name</label><input id="firstName" name="firstName" type="text" maxlength="100" required>
<label for="lastName">Last name</label><input id="lastName" name="lastName" type="text" maxlength="100" required>
<label for="email">Email</label><input id="email" name="email" type="email" maxlength="254">
<label><input type="checkbox" id="emailNews" name="emailNews" value="yes"> Email me news and updates</label>
<button type="submit" id="sign-up">Sign up</button></form>`;
  const locked = (res: Response) => send(res, 423, 'Locked', '<h1>This sign-up screen is locked</h1><p id="locked">It was left idle. A staff member must unlock it.</p>');

  router.get('/people/portal/:orgId/kiosk/:token', inOrg(async (req, res, db, orgId) => {
    const token = String(req.params.token);
    const session = await kioskSession(db, orgId, token);
    if (!session || session.state === 'closed') return gone(res);
    if (session.state === 'locked') return locked(res);
    send(res, 200, 'Sign up', kioskForm(orgId, token, session.name));
  }));

  router.post('/people/portal/:orgId/kiosk/:token', form, inOrg(async (req, res, db, orgId) => {
    const token = String(req.params.token);
    const session = await kioskSession(db, orgId, token);
    if (!session || session.state === 'closed') return gone(res);
    if (session.state === 'locked') return locked(res);
    if (!formAllowed(req, 'kiosk', token)) return send(res, 403, 'Refused', '<h1>This request was refused</h1>');
    const fields = z.object({
      firstName: contactFields.firstName, lastName: contactFields.lastName, email: z.union([z.literal(''), contactFields.email]),
    }).safeParse({ firstName: formField(req, 'firstName', 200).trim(), lastName: formField(req, 'lastName', 200).trim(), email: formField(req, 'email', 300).trim() });
    if (!fields.success) return send(res, 400, 'Sign up', kioskForm(orgId, token, session.name, 'Please give your first and last name (and a valid email, if any).'));
    const contact = await createContact(db, await getOrgSettings(db, orgId), {
      firstName: fields.data.firstName, lastName: fields.data.lastName, email: fields.data.email || undefined,
      status: formField(req, 'emailNews', 8) === 'yes' && fields.data.email ? 'subscribed' : 'non_subscribed',
      membershipStatus: 'first_time_visitor',
    });
    // Signing up at the kiosk is their first visit.
    await db.query('UPDATE contacts SET first_visit_date = current_date WHERE org_id = $1 AND id = $2 AND first_visit_date IS NULL', [orgId, contact.id]);
    await recordKioskSignup(db, orgId, session.id);
    send(res, 200, 'Sign up', kioskForm(orgId, token, session.name, 'Thank you, you are signed up. Next person, please!'));
  }));

  return router;
}

/** The portal's pages, mounted by the kernel (ModuleWebhook) under /people/portal/. */
export const portalPages: ModuleWebhook = { paths: ['/people/portal/'], router: portalPagesRouter };
