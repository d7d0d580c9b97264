import { randomBytes } from 'node:crypto';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { hiddenInput, OAuthDriver } from '../../../test/helpers/oauth';
import { inviteLinkOf } from '../../../test/helpers/team';

/** Accepts over plain HTTP, as the page's form would post it. */
async function acceptOverHttp(link: string, fields: Record<string, string>): Promise<{ status: number; html: string }> {
  const page = await fetch(link);
  const csrf = hiddenInput(await page.text(), 'csrf') ?? 'none';
  const response = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }) });
  return { status: response.status, html: await response.text() };
}

describe('team: members, roles and invites', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  const saved = { ...process.env };
  const address = () => `person-${randomBytes(4).toString('hex')}@team.example`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    // The worker builds the link when it sends; this API listens on a port chosen at start.
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Team Chapel' });
  });

  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  const mailTo = (email: string) => smtp.delivered.filter((mail) => mail.to.includes(email));

  it('lists members with role labels and the assignable roles', async () => {
    const { members } = await harness.call(org.apiKey, 'platform_list_team_members', {});
    expect(members).toEqual([expect.objectContaining({ userId: org.ownerUserId, role: 'owner', roleLabel: 'Owner' })]);
    const { roles } = await harness.call(org.apiKey, 'platform_list_team_roles', {});
    expect(roles.map((r: { roleId: string }) => r.roleId)).toEqual(['owner', 'admin', 'staff', 'volunteer']);
    expect(roles.every((r: { assignable: boolean }) => r.assignable)).toBe(true);
  });

  it('invites by email: the link arrives once, works once, and the member is listed with the role', async () => {
    const email = address();
    const { invite } = await harness.call(org.apiKey, 'platform_invite_team_member', { email: email.toUpperCase(), roleId: 'staff' });
    expect(invite).toMatchObject({ email, role: 'staff', roleLabel: 'Staff', status: 'pending', sends: 1 });
    expect(mailTo(email)).toHaveLength(1);
    const link = inviteLinkOf(mailTo(email)[0]);
    expect(link.startsWith(`${harness.url}/team/invite/`)).toBe(true);

    // Only the token's hash is stored, and the sent text no longer holds the link.
    const token = link.split('/').pop()!;
    const stored = await harness.pool.query("SELECT count(*)::int AS n FROM team_invites WHERE token_hash = $1 OR token_hash LIKE 'inv_%'", [token]);
    expect(stored.rows[0].n).toBe(0);
    const outbox = await harness.pool.query('SELECT body FROM outbox_messages WHERE source_kind = $1', ['platform.team_invite']);
    expect(outbox.rows.some((row: { body: string }) => row.body.includes(token))).toBe(false);

    const pending = await harness.call(org.apiKey, 'platform_list_pending_team_invites', {});
    expect(pending.invites).toEqual([expect.objectContaining({ inviteId: invite.inviteId, lastSentAt: expect.any(String), sendError: null })]);

    const short = await acceptOverHttp(link, { password: 'short' });
    expect(short.status).toBe(400);
    const accepted = await acceptOverHttp(link, { password: 'a long enough password', displayName: 'New Person' });
    expect(accepted.status).toBe(200);
    expect(accepted.html).toContain('You have joined Team Chapel');
    expect((await fetch(link)).status).toBe(410);

    const { members } = await harness.call(org.apiKey, 'platform_list_team_members', {});
    expect(members).toContainEqual(expect.objectContaining({ email, role: 'staff', roleLabel: 'Staff', displayName: 'New Person' }));
    expect((await harness.call(org.apiKey, 'platform_list_pending_team_invites', {})).invites).toEqual([]);
    // Inviting a member again is refused: their role is changed instead.
    const again = await harness.invoke(org.apiKey, 'platform_invite_team_member', { email, roleId: 'volunteer' });
    expect(again.body.error).toMatchObject({ code: 'conflict' });
  });

  it('replaces a pending invite, resends with a fresh link, and cancels to free the address', async () => {
    const email = address();
    const first = (await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'volunteer' })).invite;
    const second = await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'staff' });
    expect(second.replacedInviteId).toBe(first.inviteId);
    const [oldLink, newLink] = mailTo(email).map(inviteLinkOf);
    expect((await fetch(oldLink)).status).toBe(410);
    expect(await (await fetch(newLink)).text()).toContain('Staff');

    const resent = (await harness.call(org.apiKey, 'platform_resend_team_invite', { email })).invite;
    expect(resent).toMatchObject({ inviteId: second.invite.inviteId, sends: 2 });
    expect(mailTo(email)).toHaveLength(3);
    expect((await fetch(newLink)).status).toBe(410);
    const freshLink = inviteLinkOf(mailTo(email)[2]);
    expect((await fetch(freshLink)).status).toBe(200);

    const cancelled = (await harness.call(org.apiKey, 'platform_cancel_team_invite', { inviteId: resent.inviteId })).invite;
    expect(cancelled.status).toBe('cancelled');
    expect((await fetch(freshLink)).status).toBe(410);
    const gone = await harness.invoke(org.apiKey, 'platform_resend_team_invite', { inviteId: resent.inviteId });
    expect(gone.body.error).toMatchObject({ code: 'not_found' });
    const fresh = await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'staff' });
    expect(fresh.replacedInviteId).toBeNull();
  });

  it('an invite stands when no mail server is configured, says why, and a resend sends it', async () => {
    const email = address();
    const smtpPort = process.env.SMTP_PORT;
    delete process.env.SMTP_HOST;
    delete process.env.SMTP_PORT;
    let invite;
    try {
      invite = (await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'staff' })).invite;
    } finally {
      process.env.SMTP_HOST = '127.0.0.1';
      process.env.SMTP_PORT = smtpPort;
    }
    const listed = (await harness.call(org.apiKey, 'platform_list_pending_team_invites', {})).invites.find((i: { inviteId: string }) => i.inviteId === invite.inviteId);
    expect(listed).toMatchObject({ lastSentAt: null, sendError: { code: 'channel_not_configured' } });
    expect(mailTo(email)).toHaveLength(0);
    await harness.call(org.apiKey, 'platform_resend_team_invite', { inviteId: invite.inviteId });
    expect(mailTo(email)).toHaveLength(1);
    const after = (await harness.call(org.apiKey, 'platform_list_pending_team_invites', {})).invites.find((i: { inviteId: string }) => i.inviteId === invite.inviteId);
    expect(after).toMatchObject({ lastSentAt: expect.any(String), sendError: null, sends: 2 });
  });

  it('refuses bad input and other organisations\' invites, writing nothing', async () => {
    const bad = await harness.invoke(org.apiKey, 'platform_invite_team_member', { email: 'not an email', roleId: 'pope' });
    expect(bad.body.error?.code).toBe('validation_failed');
    expect(bad.body.error?.issues?.map((i) => i.path).sort()).toEqual(['email', 'roleId']);
    const both = await harness.invoke(org.apiKey, 'platform_cancel_team_invite', { inviteId: crypto.randomUUID(), email: address() });
    expect(both.body.error?.code).toBe('validation_failed');

    const other = await harness.createOrg({ name: 'Elsewhere' });
    const theirs = (await harness.call(other.apiKey, 'platform_invite_team_member', { email: address(), roleId: 'staff' })).invite;
    for (const tool of ['platform_resend_team_invite', 'platform_cancel_team_invite']) {
      const response = await harness.invoke(org.apiKey, tool, { inviteId: theirs.inviteId });
      expect(response.body.error).toMatchObject({ code: 'not_found' });
    }
    for (const [tool, args] of [['platform_remove_team_member', { userId: other.ownerUserId }], ['platform_update_team_member_role', { userId: other.ownerUserId, roleId: 'staff' }]] as const) {
      expect((await harness.invoke(org.apiKey, tool, args)).body.error).toMatchObject({ code: 'not_found' });
    }
    const still = await harness.call(other.apiKey, 'platform_list_pending_team_invites', {});
    expect(still.invites).toEqual([expect.objectContaining({ inviteId: theirs.inviteId, status: 'pending' })]);
  });

  it('keeps team management to owners and admins, and owner changes to owners', async () => {
    const staff = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'staff');
    const refused = await harness.invoke(staff.apiKey, 'platform_invite_team_member', { email: address(), roleId: 'volunteer' });
    expect(refused.body.error).toMatchObject({ code: 'forbidden' });
    expect((await harness.invoke(staff.apiKey, 'platform_list_team_members', {})).body.error).toMatchObject({ code: 'forbidden' });

    const admin = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'admin');
    // Inviting an owner is a proposal, and carried out under the approver's role: an admin approving it is refused.
    const ownerInvite = await harness.invoke(admin.apiKey, 'platform_invite_team_member', { email: address(), roleId: 'owner' });
    expect(ownerInvite.body.error).toMatchObject({ code: 'approval_required' });
    const otherAdmin = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'admin');
    expect((await harness.invoke(otherAdmin.apiKey, 'platform_approve_proposal', { proposalId: ownerInvite.body.error!.details.proposalId })).body.error).toMatchObject({ code: 'forbidden' });
    expect((await harness.invoke(admin.apiKey, 'platform_remove_team_member', { userId: org.ownerUserId })).body.error).toMatchObject({ code: 'forbidden' });
    const { roles } = await harness.call(admin.apiKey, 'platform_list_team_roles', {});
    expect(roles.find((r: { roleId: string }) => r.roleId === 'owner').assignable).toBe(false);
  });

  it('never removes yourself or demotes the last owner', async () => {
    const self = await harness.invoke(org.apiKey, 'platform_remove_team_member', { userId: org.ownerUserId });
    expect(self.body.error).toMatchObject({ code: 'conflict' });
    const demote = await harness.invoke(org.apiKey, 'platform_update_team_member_role', { userId: org.ownerUserId, roleId: 'admin' });
    expect(demote.body.error).toMatchObject({ code: 'conflict' });
    expect(demote.body.error?.message).toContain('only owner');

    // With a second owner, one may step down; the other then is the last and stays.
    const second = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'owner');
    await harness.call(second.apiKey, 'platform_update_team_member_role', { userId: org.ownerUserId, roleId: 'admin' });
    const last = await harness.invoke(second.apiKey, 'platform_remove_team_member', { userId: second.userId });
    expect(last.body.error).toMatchObject({ code: 'conflict' });
    const lastDemote = await harness.invoke(org.apiKey, 'platform_update_team_member_role', { userId: second.userId, roleId: 'staff' });
    expect(lastDemote.body.error).toMatchObject({ code: 'forbidden' });
    // Making them owner again grants power: a proposal another owner approves.
    const restore = await harness.invoke(second.apiKey, 'platform_update_team_member_role', { userId: org.ownerUserId, roleId: 'owner' });
    expect(restore.body.error).toMatchObject({ code: 'approval_required' });
    const third = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'owner');
    await harness.call(third.apiKey, 'platform_approve_proposal', { proposalId: restore.body.error!.details.proposalId });
  });

  it('two owners demoting each other at once leave one owner', async () => {
    const other = await harness.createOrg({ name: 'Two Owners' });
    const second = await harness.createKey(other.orgId, ['platform:read', 'platform:write'], 'owner');
    const results = await Promise.all([
      harness.invoke(other.apiKey, 'platform_update_team_member_role', { userId: second.userId, roleId: 'admin' }),
      harness.invoke(second.apiKey, 'platform_update_team_member_role', { userId: other.ownerUserId, roleId: 'admin' }),
    ]);
    const outcomes = results.map((r) => (r.body.ok ? 'ok' : r.body.error!.code)).sort();
    // The one that waited finds its caller no longer an owner, or the target the last owner.
    expect(outcomes[1]).toBe('ok');
    expect(['conflict', 'forbidden']).toContain(outcomes[0]);
    const owners = await harness.pool.query("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND role = 'owner'", [other.orgId]);
    expect(owners.rows[0].n).toBe(1);
  });

  it('removing a member revokes their keys at once', async () => {
    const member = await harness.createKey(org.orgId, ['people:read', 'platform:read'], 'staff');
    expect((await harness.invoke(member.apiKey, 'people_list_contacts', {})).status).toBe(200);
    const removed = await harness.call(org.apiKey, 'platform_remove_team_member', { userId: member.userId });
    expect(removed).toMatchObject({ userId: member.userId, role: 'staff', revokedApiKeys: 1, revokedOAuthGrants: 0 });
    expect((await harness.invoke(member.apiKey, 'people_list_contacts', {})).status).toBe(401);
    const revoked = await harness.pool.query('SELECT revoked_at FROM api_keys WHERE id = $1', [member.keyId]);
    expect(revoked.rows[0].revoked_at).not.toBeNull();
  });

  it('removing a member ends their OAuth access at once', async () => {
    const member = await harness.createMember(org.orgId, { role: 'staff' });
    const oauth = new OAuthDriver(harness.url);
    const client = await oauth.registerClient('http://127.0.0.1:49152/callback');
    const tokens = await oauth.tokensFor(client, member, { intent: 'people' });
    const call = () => fetch(`${harness.url}/api/agent/invoke`, {
      method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'people_list_contacts', arguments: {} }),
    });
    expect((await call()).status).toBe(200);
    const removed = await harness.call(org.apiKey, 'platform_remove_team_member', { userId: member.userId });
    expect(removed).toMatchObject({ revokedApiKeys: 0, revokedOAuthGrants: 1 });
    expect((await call()).status).toBe(401);
    expect((await oauth.refresh(client, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a role change narrows an existing key on its next request', async () => {
    const member = await harness.createKey(org.orgId, ['people:read', 'giving:read'], 'staff');
    expect((await harness.invoke(member.apiKey, 'giving_list_funds', {})).status).toBe(200);
    const changed = await harness.call(org.apiKey, 'platform_update_team_member_role', { userId: member.userId, roleId: 'volunteer' });
    expect(changed).toMatchObject({ previousRole: 'staff', role: 'volunteer', roleLabel: 'Volunteer' });
    expect((await harness.invoke(member.apiKey, 'giving_list_funds', {})).body.error).toMatchObject({ code: 'insufficient_scope' });
    expect((await harness.invoke(member.apiKey, 'people_list_contacts', {})).status).toBe(200);
  });

  it('two invites for one address at once leave one live invite', async () => {
    const email = address();
    const results = await Promise.all([0, 1].map(() => harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'volunteer' })));
    const live = await harness.pool.query("SELECT id FROM team_invites WHERE org_id = $1 AND email = $2 AND status = 'pending'", [org.orgId, email]);
    expect(live.rows).toHaveLength(1);
    expect(results.map((r) => r.invite.inviteId)).toContain(live.rows[0].id);
    // Only the live invite's link works.
    const links = mailTo(email).map(inviteLinkOf);
    const statuses = await Promise.all(links.map(async (link) => (await fetch(link)).status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  });

  it('two acceptances of one link at once make one membership', async () => {
    const email = address();
    await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'staff' });
    const link = inviteLinkOf(mailTo(email)[0]);
    const page = await (await fetch(link)).text();
    const csrf = hiddenInput(page, 'csrf')!;
    const post = () => fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, password: 'a long enough password' }) });
    const statuses = (await Promise.all([post(), post()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 410]);
    const rows = await harness.pool.query('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND u.email = $2', [org.orgId, email]);
    expect(rows.rows).toEqual([{ role: 'staff' }]);
  });

  it('refuses a post without the page\'s token or from another site', async () => {
    const email = address();
    await harness.call(org.apiKey, 'platform_invite_team_member', { email, roleId: 'staff' });
    const link = inviteLinkOf(mailTo(email)[0]);
    const forged = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: 'x', password: 'a long enough password' }) });
    expect(forged.status).toBe(403);
    const csrf = hiddenInput(await (await fetch(link)).text(), 'csrf')!;
    const crossSite = await fetch(link, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ csrf, password: 'a long enough password' }),
    });
    expect(crossSite.status).toBe(403);
    expect((await fetch(link)).status).toBe(200);
    const page = await fetch(link);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
