import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { CHROMIUM } from '../../../test/helpers/oauth';
import { inviteLinkOf } from '../../../test/helpers/team';

/** An invited person opens the emailed link in a browser and joins: a newcomer chooses a password, someone with an account signs in. */
describe('team invite acceptance page in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const saved = { ...process.env };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the worker sends through the SMTP server this suite starts, and the public URL, named in its environment.
    harness = await Harness.start({ own: true });
    process.env.PUBLIC_URL = harness.url;
    org = await harness.createOrg({ name: 'Browser Baptist' });
    browser = await chromium.launch(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  /** Invites; an owner or admin role is a grant of power, so another owner approves the proposal the invite became. */
  async function invite(email: string, roleId: string): Promise<string> {
    const asked = await harness.invoke(org.apiKey, 'platform_invite_team_member', { email, roleId });
    if (asked.body.error?.code === 'approval_required') {
      const approver = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'owner');
      await harness.call(approver.apiKey, 'platform_approve_proposal', { proposalId: asked.body.error.details.proposalId });
    } else {
      expect(asked.body.ok).toBe(true);
    }
    const mail = smtp.delivered.filter((m) => m.to.includes(email));
    expect(mail).toHaveLength(1);
    return inviteLinkOf(mail[0]);
  }

  it('a newcomer chooses a password, joins with the role, and can then sign in', async () => {
    const email = `newcomer-${randomBytes(4).toString('hex')}@browser.example`;
    const link = await invite(email, 'volunteer');
    const page = await browser.newPage();
    // The page's own style must pass its CSP: any refusal shows as a console message.
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refusals.push(message.text());
    });
    try {
      const response = await page.goto(link);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      expect(await page.textContent('h1')).toContain('Join Browser Baptist');
      expect(await page.textContent('#role')).toBe('Volunteer');
      expect(await page.textContent('#email')).toBe(email);
      await page.fill('#displayName', 'Nia Newcomer');
      await page.fill('#password', 'a password long enough');
      await page.click('#accept');
      await page.waitForSelector('#joined');
      expect(await page.textContent('#joined')).toContain('You have joined Browser Baptist');

      // The same link again: used up.
      const again = await page.goto(link);
      expect(again?.status()).toBe(410);
      expect(await page.getAttribute('#error', 'data-error')).toBe('invite_unavailable');

      // The new account signs in with the password it chose.
      await page.goto(`${harness.url}/dashboard/sign-in`);
      await page.fill('#email', email);
      await page.fill('#password', 'a password long enough');
      await page.click('button[type=submit]');
      // Sign-in lands on the dashboard's home page, greeting the new member by name: the sign-in itself worked.
      await page.waitForSelector('h1');
      expect(await page.textContent('h1')).toBe('Welcome, Nia Newcomer');
      // Volunteers are still kept out of the approvals page.
      await page.goto(`${harness.url}/dashboard/approvals`);
      expect(await page.textContent('h1')).toBe('Staff only');
    } finally {
      await page.close();
    }
    expect(refusals).toEqual([]);
    const { members } = await harness.call(org.apiKey, 'platform_list_team_members', {});
    expect(members).toContainEqual(expect.objectContaining({ email, role: 'volunteer', roleLabel: 'Volunteer', displayName: 'Nia Newcomer' }));
  });

  it('someone with an account signs in with their password to accept', async () => {
    const elsewhere = await harness.createOrg({ name: 'Elsewhere Elim' });
    const existing = await harness.createMember(elsewhere.orgId, { role: 'staff' });
    const link = await invite(existing.email, 'admin');
    const page = await browser.newPage();
    try {
      await page.goto(link);
      expect(await page.textContent('main')).toContain('You already have a Steward account');
      expect(await page.locator('#displayName').count()).toBe(0);
      await page.fill('#password', 'not their password');
      await page.click('#accept');
      await page.waitForSelector('#error');
      expect(await page.textContent('#error')).toContain('password is not right');

      await page.fill('#password', existing.password);
      await page.click('#accept');
      await page.waitForSelector('#joined');
      expect(await page.textContent('#role')).toBe('Administrator');
    } finally {
      await page.close();
    }
    const { members } = await harness.call(org.apiKey, 'platform_list_team_members', {});
    expect(members).toContainEqual(expect.objectContaining({ userId: existing.userId, role: 'admin' }));
    // Their other organisation is untouched.
    const theirs = await harness.call(elsewhere.apiKey, 'platform_list_team_members', {});
    expect(theirs.members).toContainEqual(expect.objectContaining({ userId: existing.userId, role: 'staff' }));
  });
});
