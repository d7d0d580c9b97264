import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { CHROMIUM } from '../../../test/helpers/oauth';

/**
 * The member portal end to end: invites over MCP (consent-checked by channels, one live invite per
 * address under parallel calls, resend and revoke), the emailed link opened in a real Chromium, the
 * member correcting their phone number and seeing only their own household, posts moderated (a
 * member never sees another's hidden post), the portal's routes through platform_portal_invoke_api_*,
 * and a capture session that locks when idle and needs a staff credential to unlock.
 */
function portalLinkOf(mail: ReceivedMail): string {
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const link = /(https?:\/\/\S+\/people\/portal\/[0-9a-f-]{36}\/join\/pin_[A-Za-z0-9_-]{43})/.exec(text)?.[1];
  if (!link) throw new Error(`No portal link in:\n${mail.raw}`);
  return link;
}

describe('member portal', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  let mcp: McpClient;
  let browser: Browser;
  const saved = { ...process.env };
  const address = (name: string) => `${name}-${randomBytes(4).toString('hex')}@portal.example`;
  const mailTo = (email: string) => smtp.delivered.filter((mail) => mail.to.includes(email));
  const contacts: Record<string, { id: string; email: string }> = {};

  async function contact(key: string, fields: Record<string, unknown>): Promise<string> {
    const email = address(key);
    const made = await mcpCall(mcp, 'people_create_contact', { email, ...fields });
    contacts[key] = { id: made.contact.id, email };
    return made.contact.id;
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the worker sends through this suite's SMTP server, and links use the API's own origin.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Portal Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
    browser = await chromium.launch(CHROMIUM);
    await contact('ann', { firstName: 'Ann', lastName: 'Adams', status: 'subscribed', phone: '07700 900111' });
    await contact('bob', { firstName: 'Bob', lastName: 'Adams', status: 'subscribed' });
    await contact('cara', { firstName: 'Cara', lastName: 'Brown', status: 'subscribed' });
    await contact('dave', { firstName: 'Dave', lastName: 'Brown', status: 'subscribed' });
    await contact('eve', { firstName: 'Eve', lastName: 'Unsubscribed', status: 'unsubscribed' });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: contacts.ann!.id, relatedContactId: contacts.bob!.id, relationship: 'spouse' });
    await mcpCall(mcp, 'people_add_family_relationship', { contactId: contacts.cara!.id, relatedContactId: contacts.dave!.id, relationship: 'spouse' });
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  it('invites are consent-checked, one live invite per address holds under parallel calls, and the link is hashed at rest', async () => {
    const calls = await Promise.all(Array.from({ length: 4 }, () => mcpCall(mcp, 'people_send_portal_invites', { contactIds: [contacts.ann!.id] })));
    const outcomes = calls.map((call) => call.results[0].outcome).sort();
    expect(outcomes).toEqual(['already_invited', 'already_invited', 'already_invited', 'invited']);
    const inviteIds = new Set(calls.map((call) => call.results[0].invite.inviteId));
    expect(inviteIds.size).toBe(1);
    expect(mailTo(contacts.ann!.email)).toHaveLength(1);

    const mixed = await mcpCall(mcp, 'people_send_portal_invites', { contactIds: [contacts.cara!.id, contacts.eve!.id] });
    expect(mixed.results.find((r: any) => r.contactId === contacts.eve!.id)).toMatchObject({ outcome: 'skipped', reason: 'suppressed', invite: null });
    expect(mixed.results.find((r: any) => r.contactId === contacts.cara!.id)).toMatchObject({ outcome: 'invited' });
    expect(mailTo(contacts.eve!.email)).toHaveLength(0);

    const token = portalLinkOf(mailTo(contacts.ann!.email)[0]!).split('/').pop()!;
    const stored = await harness.pool.query('SELECT count(*)::int AS n FROM portal_invites WHERE token_hash = $1', [token]);
    expect(stored.rows[0].n).toBe(0);
    const outbox = await harness.pool.query("SELECT body FROM outbox_messages WHERE source_kind = 'people.portal_invite'");
    expect(outbox.rows.some((row: { body: string }) => row.body.includes(token))).toBe(false);
    const listed = await mcpCall(mcp, 'people_list_portal_invites', { status: 'pending' });
    expect(listed.invites.map((i: any) => i.contactId).sort()).toEqual([contacts.ann!.id, contacts.cara!.id].sort());
  });

  it('a member invited signs in in a real browser, corrects their phone number, and sees only their own household', async () => {
    const link = portalLinkOf(mailTo(contacts.ann!.email)[0]!);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link);
    await page.click('#sign-in');
    await page.waitForSelector('#member-name', { timeout: 5000 }).catch(async () => { throw new Error(await page.content()); });
    expect(await page.textContent('#member-name')).toBe('Ann Adams');
    expect(await page.inputValue('#phone')).toBe('07700 900111');
    const household = await page.textContent('#household');
    expect(household).toContain('Bob Adams');
    expect(household).not.toContain('Cara');
    expect(household).not.toContain('Dave');
    await page.fill('#phone', '07700 900222');
    await page.click('#save');
    await page.waitForSelector('#notice');
    expect(await page.textContent('#notice')).toBe('Your details were saved.');
    const after = await mcpCall(mcp, 'people_get_contact', { contactId: contacts.ann!.id });
    expect(after.contact.phone).toBe('07700 900222');

    // Consents: the member unticks email news and ticks WhatsApp; the contact's record follows, and ticking back re-subscribes.
    const consents = async () => (await mcpCall(mcp, 'people_get_contact', { contactId: contacts.ann!.id })).contact;
    expect(await consents()).toMatchObject({ status: 'subscribed', whatsappConsent: false });
    expect(await page.isChecked('#emailNews')).toBe(true);
    expect(await page.isChecked('#whatsapp')).toBe(false);
    const save = async () => {
      await Promise.all([page.waitForNavigation(), page.click('#save')]);
      expect(await page.textContent('#notice')).toBe('Your details were saved.');
    };
    await page.uncheck('#emailNews');
    await page.check('#whatsapp');
    await save();
    expect(await consents()).toMatchObject({ status: 'non_subscribed', whatsappConsent: true, phone: '07700 900222' });
    expect(await page.isChecked('#emailNews')).toBe(false);
    expect(await page.isChecked('#whatsapp')).toBe(true);
    await page.check('#emailNews');
    await page.uncheck('#whatsapp');
    await save();
    expect(await consents()).toMatchObject({ status: 'subscribed', whatsappConsent: false });
    expect(await page.isChecked('#emailNews')).toBe(true);
    expect(await page.isChecked('#whatsapp')).toBe(false);

    // The link worked once; a second use is refused.
    const again = await (await context.newPage()).goto(link);
    expect(again!.status()).toBe(410);
    const analytics = await mcpCall(mcp, 'people_get_portal_analytics', {});
    expect(analytics).toMatchObject({ invited: 2, joined: 1, active: 1, pending: 1 });
    await context.close();
  });

  it('refuses a post without the CSRF token, or from another site, and changes nothing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await mcpCall(mcp, 'people_manage_portal_invite', { inviteId: (await mcpCall(mcp, 'people_list_portal_invites', { contactId: contacts.ann!.id })).invites[0].inviteId, action: 'resend' });
    const mails = mailTo(contacts.ann!.email);
    expect(mails).toHaveLength(2);
    await page.goto(portalLinkOf(mails[1]!));
    await page.click('#sign-in');
    await page.waitForSelector('#member-name', { timeout: 5000 }).catch(async () => { throw new Error(await page.content()); });
    const cookies = await context.cookies();
    const cookie = cookies.find((c) => c.name === 'steward_portal')!;
    expect(cookie.httpOnly).toBe(true);
    const url = `${harness.url}/people/portal/${org.orgId}/me`;
    const forged = await fetch(url, {
      method: 'POST', headers: { cookie: `steward_portal=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ phone: '000000', csrf: 'x' }),
    });
    expect(forged.status).toBe(403);
    const noToken = await fetch(url, { method: 'POST', headers: { cookie: `steward_portal=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'phone=011111' });
    expect(noToken.status).toBe(403);
    expect((await mcpCall(mcp, 'people_get_contact', { contactId: contacts.ann!.id })).contact.phone).toBe('07700 900222');
    // Escaped: a hostile post is shown as text.
    await page.fill('#post-body', '<img src=x onerror=alert(1)> hello from Ann');
    await page.click('#post');
    await page.waitForSelector('#notice');
    expect(await page.$('#posts img')).toBeNull();
    expect(await page.textContent('#posts')).toContain('<img src=x onerror=alert(1)> hello from Ann');
    await context.close();
  });

  it('moderation: pending → approved or rejected with a reason; another member never sees a hidden post', async () => {
    const caraLink = portalLinkOf(mailTo(contacts.cara!.email)[0]!);
    const cara = await (await browser.newContext()).newPage();
    await cara.goto(caraLink);
    await cara.click('#sign-in');
    await cara.waitForSelector('#member-name');
    await cara.fill('#post-body', 'Cara: lift share to the retreat?');
    await cara.click('#post');
    await cara.waitForSelector('#notice');
    await cara.fill('#post-body', 'Cara: selling raffle tickets, call 0770');
    await cara.click('#post');
    await cara.waitForSelector('#notice');
    // Ann's hostile post is pending: Cara does not see it; Cara sees her own pending posts.
    expect(await cara.textContent('#posts')).not.toContain('hello from Ann');
    const queue = await mcpCall(mcp, 'people_list_portal_moderation', {});
    expect(queue.pendingCount).toBe(3);
    const byBody = (text: string) => queue.posts.find((p: any) => p.body.includes(text));
    const refusal = await mcpRefusal(mcp, 'people_moderate_portal_post', { postId: byBody('raffle').postId, decision: 'reject' });
    expect(refusal.code).toBe('validation_failed');
    await mcpCall(mcp, 'people_moderate_portal_post', { postId: byBody('raffle').postId, decision: 'reject', reason: 'No selling on the portal' });
    await mcpCall(mcp, 'people_moderate_portal_post', { postId: byBody('lift share').postId, decision: 'approve' });
    const twice = await mcpRefusal(mcp, 'people_moderate_portal_post', { postId: byBody('lift share').postId, decision: 'reject', reason: 'changed my mind' });
    expect(twice.code).toBe('conflict');
    await mcpCall(mcp, 'people_moderate_portal_post', { postId: byBody('hello from Ann').postId, decision: 'reject', reason: 'Looks like a script' });

    await cara.reload();
    const caraPosts = await cara.textContent('#posts');
    expect(caraPosts).toContain('lift share');
    expect(caraPosts).toContain('not approved: No selling on the portal');
    expect(caraPosts).not.toContain('hello from Ann');
    // Bob was never invited: Ann's own view shows her rejected post with its reason, and Cara's approved one, not Cara's rejected one.
    const annView = await harness.pool.query("SELECT count(*)::int AS n FROM portal_posts WHERE org_id = $1 AND status = 'rejected'", [org.orgId]);
    expect(annView.rows[0].n).toBe(2);
  });

  it('revoking ends the member\'s sessions; the portal routes answer through platform_portal_invoke_api_*', async () => {
    const read = await mcpCall(mcp, 'platform_portal_invoke_api_read', { path: '/api/people/portal/analytics' });
    expect(read.route).toBe('GET /api/people/portal/analytics');
    expect(read.result).toMatchObject({ invited: 2, joined: 2 });
    const curated = await mcpRefusal(mcp, 'platform_portal_invoke_api_write', {
      method: 'POST', path: '/api/people/portal/invites', body: { contactIds: [contacts.dave!.id] }, actionSummary: 'invite Dave',
    });
    expect(curated).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'people_send_portal_invites' } });
    const notPortal = await mcpRefusal(mcp, 'platform_portal_invoke_api_read', { path: '/api/people/tags' });
    expect(notPortal.code).toBe('not_found');

    const caraInvite = (await mcpCall(mcp, 'people_list_portal_invites', { contactId: contacts.cara!.id })).invites[0];
    const revoked = await mcpCall(mcp, 'people_manage_portal_invite', { inviteId: caraInvite.inviteId, action: 'revoke' });
    expect(revoked).toMatchObject({ changed: true, invite: { status: 'revoked' } });
    const live = await harness.pool.query('SELECT count(*)::int AS n FROM portal_sessions WHERE invite_id = $1 AND ended_at IS NULL', [caraInvite.inviteId]);
    expect(live.rows[0].n).toBe(0);
    const resend = await mcpRefusal(mcp, 'people_manage_portal_invite', { inviteId: caraInvite.inviteId, action: 'resend' });
    expect(resend.code).toBe('conflict');
    const foreign = await harness.createOrg({ name: 'Other Chapel' });
    const other = await harness.mcpClient(foreign.apiKey);
    expect((await mcpRefusal(other, 'people_manage_portal_invite', { inviteId: caraInvite.inviteId, action: 'revoke' })).code).toBe('not_found');
    await other.close();
  });

  it('a capture session takes sign-ups, locks after its idle minutes, and only a staff credential unlocks it', async () => {
    const opened = await mcpCall(mcp, 'platform_portal_invoke_api_write', {
      method: 'POST', path: '/api/people/portal/capture-sessions', body: { name: 'Foyer tablet', idleLockMinutes: 5 }, actionSummary: 'Open the foyer sign-up tablet',
    });
    const { kioskUrl, session } = opened.result;
    const page = await (await browser.newContext()).newPage();
    await page.goto(kioskUrl);
    await page.fill('#firstName', 'Kiosk');
    await page.fill('#lastName', 'Visitor');
    await page.click('#sign-up');
    await page.waitForSelector('#notice');
    const found = await mcpCall(mcp, 'people_search_contacts', { query: 'Kiosk Visitor' });
    expect(found.contacts).toHaveLength(1);
    // Idle for longer than its minutes: the kiosk locks itself and takes nothing.
    await harness.pool.query("UPDATE capture_sessions SET last_activity_at = now() - interval '6 minutes' WHERE id = $1", [session.captureSessionId]);
    const lockedPage = await page.goto(kioskUrl);
    expect(lockedPage!.status()).toBe(423);
    expect((await mcpCall(mcp, 'people_list_capture_sessions', {})).sessions[0]).toMatchObject({ state: 'locked', signups: 1 });
    const volunteer = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'volunteer');
    const refused = await harness.invoke(volunteer.apiKey, 'people_unlock_capture_session', { captureSessionId: session.captureSessionId });
    expect(refused.body.error?.code).toBe('forbidden');
    const unlocked = await mcpCall(mcp, 'people_unlock_capture_session', { captureSessionId: session.captureSessionId });
    expect(unlocked).toMatchObject({ wasLocked: true, session: { state: 'open', unlocks: 1 } });
    expect((await page.goto(kioskUrl))!.status()).toBe(200);
  });
});
