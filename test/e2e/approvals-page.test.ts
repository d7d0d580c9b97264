import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { withTransaction } from '../../db/pool';
import { hashPassword } from '../../kernel/passwords';
import { createMember } from '../../modules/platform/users';
import { Harness, type TestOrg } from '../helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../helpers/message-servers';
import { CHROMIUM } from '../helpers/oauth';

/** Staff approve in a browser: sign in, see the pending message with its content, approve it, and it is sent. */
describe('/dashboard/approvals in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const saved = { ...process.env };
  const password = `pw-${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Page Parish' });
    browser = await chromium.launch(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  async function member(role: 'staff' | 'volunteer'): Promise<string> {
    const email = `${role}-${randomBytes(4).toString('hex')}@page.example`;
    await withTransaction(harness.pool, (db) => createMember(db, { orgId: org.orgId, email, password, role }));
    return email;
  }

  it('signs in, shows the pending message, approves it and it is sent', async () => {
    const contact = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Peggy', lastName: 'Page', email: 'peggy@example.org' })).contact;
    const item = (await harness.call(org.apiKey, 'people_create_outreach', {
      contactId: contact.id, subject: 'A note from Page Parish', body: 'Dear Peggy, <we> are thinking of you.', reason: 'Bereavement',
    })).item;
    const email = await member('staff');

    const page = await browser.newPage();
    try {
      const signIn = await page.goto(`${harness.url}/dashboard/approvals`);
      expect(page.url()).toBe(`${harness.url}/dashboard/sign-in`);
      expect(signIn?.status()).toBe(200);
      await page.fill('#email', email);
      await page.fill('#password', 'wrong password');
      await page.click('button[type=submit]');
      expect(await page.textContent('[role=alert]')).toContain('incorrect');

      await page.fill('#password', password);
      await page.click('button[type=submit]');
      // Signed in, the dashboard's home page; the approvals are one link away.
      await page.waitForURL(`${harness.url}/dashboard`);
      await page.click('nav a[href="/dashboard/approvals"]');
      await page.waitForURL(`${harness.url}/dashboard/approvals`);
      const card = page.locator(`article[data-kind="outreach"][data-id="${item.id}"]`);
      await expect(card.count()).resolves.toBe(1);
      const text = await card.textContent();
      expect(text).toContain('Email to Peggy Page');
      expect(text).toContain('A note from Page Parish');
      expect(text).toContain('Dear Peggy, <we> are thinking of you.');
      expect(text).toContain('Bereavement');

      if (process.env.STEWARD_SCREENSHOTS) await page.screenshot({ path: `${process.env.STEWARD_SCREENSHOTS}/approvals.png`, fullPage: true });
      await card.locator('button', { hasText: 'Approve and send' }).click();
      await page.waitForURL(/notice=/);
      expect(await page.textContent('[role=status]')).toContain('Message to Peggy Page sent');
      expect(await page.locator(`article[data-id="${item.id}"]`).count()).toBe(0);

      // A crafted link cannot put its own words on the page: only notices signed for this session show.
      await page.goto(`${harness.url}/dashboard/approvals?notice=${encodeURIComponent('Call 0800 to confirm')}&error=Fake&sig=x`);
      expect(await page.locator('[role=status]').count()).toBe(0);
      expect(await page.locator('[role=alert]').count()).toBe(0);
    } finally {
      await page.close();
    }

    expect(smtp.delivered).toHaveLength(1);
    expect(smtp.delivered[0].to).toEqual(['peggy@example.org']);
    expect(smtp.delivered[0].raw).toContain('Dear Peggy');
    const stored = await harness.call(org.apiKey, 'people_get_outreach_item', { outreachId: item.id });
    expect(stored.item).toMatchObject({ status: 'sent', approvedVersion: 1 });
  });

  it('lets an owner approve an agent proposal, shows staff the proposal without buttons, and keeps volunteers out', async () => {
    const ids = [0, 1].map(() => crypto.randomUUID());
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
      ($1, $3, 'Quinn', 'Twin', 'quinn@example.org', now() - interval '3 days'), ($2, $3, 'Quinn', 'Twin', 'quinn@example.org', now())`, [ids[0], ids[1], org.orgId]);
    const gated = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: ids[0], mergeContactId: ids[1], actionSummary: 'Merge the two Quinn Twin records' });
    const proposalId = gated.body.error!.details.proposalId;

    const staffContext = await browser.newContext();
    const staffPage = await staffContext.newPage();
    await staffPage.goto(`${harness.url}/dashboard/sign-in`);
    await staffPage.fill('#email', await member('staff'));
    await staffPage.fill('#password', password);
    await staffPage.click('button[type=submit]');
    await staffPage.waitForURL(`${harness.url}/dashboard`);
    await staffPage.goto(`${harness.url}/dashboard/approvals`);
    const staffCard = staffPage.locator(`article[data-kind="proposal"][data-id="${proposalId}"]`);
    expect(await staffCard.textContent()).toContain('Merge the two Quinn Twin records');
    expect(await staffCard.locator('button').count()).toBe(0);
    // The merge is shown in words: both records by name with what tells them apart, what approving does, no ids and no raw JSON.
    const staffText = (await staffCard.textContent())!;
    expect(staffText).toContain('Keep contact');
    expect(staffText.match(/Quinn Twin · quinn@example\.org/g)?.length).toBe(2);
    expect(staffText).toContain('If you approve:');
    for (const id of ids) expect(staffText).not.toContain(id);
    expect(staffText).not.toMatch(/[{}"]/);
    if (process.env.STEWARD_SCREENSHOTS) await staffPage.screenshot({ path: `${process.env.STEWARD_SCREENSHOTS}/approvals-proposal.png`, fullPage: true });
    await staffContext.close();

    const volunteerContext = await browser.newContext();
    const volunteerPage = await volunteerContext.newPage();
    await volunteerPage.goto(`${harness.url}/dashboard/sign-in`);
    await volunteerPage.fill('#email', await member('volunteer'));
    await volunteerPage.fill('#password', password);
    await volunteerPage.click('button[type=submit]');
    await volunteerPage.waitForURL(`${harness.url}/dashboard`);
    // A volunteer is signed in, without the approvals page: its link is not in their menu, and the page says why.
    expect(await volunteerPage.locator('nav a[href="/dashboard/approvals"]').count()).toBe(0);
    const refused = await volunteerPage.goto(`${harness.url}/dashboard/approvals`);
    expect(refused?.status()).toBe(403);
    expect(await volunteerPage.textContent('h1')).toBe('Staff only');
    await volunteerContext.close();

    // The owner gets a password and approves.
    const ownerPassword = `owner-${randomBytes(6).toString('hex')}`;
    await harness.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [org.ownerUserId, await hashPassword(ownerPassword)]);
    const ownerEmail = (await harness.pool.query('SELECT email FROM users WHERE id = $1', [org.ownerUserId])).rows[0].email;
    const ownerContext = await browser.newContext();
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(`${harness.url}/dashboard/sign-in`);
    await ownerPage.fill('#email', ownerEmail);
    await ownerPage.fill('#password', ownerPassword);
    await ownerPage.click('button[type=submit]');
    await ownerPage.waitForURL(`${harness.url}/dashboard`);
    await ownerPage.goto(`${harness.url}/dashboard/approvals`);
    await ownerPage.locator(`article[data-id="${proposalId}"] button`, { hasText: 'Approve' }).click();
    await ownerPage.waitForURL(/notice=/);
    expect(await ownerPage.textContent('[role=status]')).toContain('Proposal approved (action succeeded)');
    await ownerContext.close();
    const { proposal } = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId });
    expect(proposal).toMatchObject({ status: 'approved', decidedByUserId: org.ownerUserId, execution: { status: 'succeeded' } });
    // A person at the dashboard: the decision's audit event names them as a human, with their sign-in's credential.
    const { events } = await harness.call(org.apiKey, 'audit_list_events', { targetType: 'proposal', targetId: proposalId, actionPrefix: 'platform.proposal.approve' });
    expect(events).toEqual([expect.objectContaining({
      action: 'platform.proposal.approve', tool: 'platform_approve_proposal',
      actor: expect.objectContaining({ kind: 'human', userId: org.ownerUserId, onBehalfOfUserId: null, credentialKind: 'dashboard' }),
    })]);
  });

  it('refuses a decision posted from another site', async () => {
    const response = await fetch(`${harness.url}/dashboard/approvals/outreach/00000000-0000-4000-8000-000000000000/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: 'csrf=x&org=y&contentVersion=1',
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
  });

  it('checks a post\'s Origin against the configured public URL, never against the Host header the request names', async () => {
    const post = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
      const request = http.request(`${harness.url}/dashboard/sign-in`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end('email=&password=');
    });
    // A rebinding page on evil.example that resolves to this server sends its own Host and Origin, which agree.
    expect(await post({ host: 'evil.example', origin: 'http://evil.example' })).toBe(403);
    expect(await post({ origin: new URL(harness.url).origin })).toBe(400);
  });

  // Last: it uses up this address's sign-in allowance.
  it('counts dashboard sign-ins against the OAuth sign-in limit and answers too many with an unframeable page', async () => {
    const signIn = (path: string) => fetch(`${harness.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(harness.url).origin },
      body: 'email=nobody%40page.example&password=',
      redirect: 'manual',
    });
    let limited: Response | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const response = await signIn('/dashboard/sign-in');
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(400);
    }
    expect(limited?.status).toBe(429);
    expect(limited!.headers.get('x-frame-options')).toBe('DENY');
    expect(limited!.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await limited!.text()).toContain('Too many');
    // The same allowance covers the OAuth sign-in form.
    expect((await signIn('/oauth/sign-in')).status).toBe(429);
  });
});
