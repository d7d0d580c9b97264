import { randomBytes, randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { withTransaction } from '../../db/pool';
import { createGrant } from '../../kernel/oauth/grants';
import { hashPassword } from '../../kernel/passwords';
import { allMetrics } from '../../modules/catalogue';
import { createMember } from '../../modules/platform/users';
import { Harness, type TestOrg } from '../helpers/harness';
import { CHROMIUM } from '../helpers/oauth';

/**
 * The pages people read, in headless Chromium: the front page, /connect, and every dashboard page
 * (home, approvals, activity, usage, API keys, team, connected apps, sign-out), on a desktop and on
 * a phone-sized screen, by keyboard and with labels. STEWARD_SCREENSHOTS=<folder> saves screenshots
 * (docs/screenshots/ holds the README's).
 */
describe('pages for people in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let browser: Browser;
  let ownerEmail: string;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const shots = process.env.STEWARD_SCREENSHOTS;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Pages Parish' });
    await harness.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [org.ownerUserId, await hashPassword(password)]);
    ownerEmail = (await harness.pool.query('SELECT email FROM users WHERE id = $1', [org.ownerUserId])).rows[0].email;
    browser = await chromium.launch(CHROMIUM);
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  async function member(role: 'staff' | 'volunteer'): Promise<{ email: string; userId: string }> {
    const email = `${role}-${randomBytes(4).toString('hex')}@pages.example`;
    const created = await withTransaction(harness.pool, (db) => createMember(db, { orgId: org.orgId, email, password, role }));
    return { email, userId: created.userId };
  }

  async function signIn(context: BrowserContext, email: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${harness.url}/dashboard/sign-in`);
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${harness.url}/dashboard`);
    return page;
  }

  /** Every visible form control has a label, and the page does not scroll sideways. */
  async function accessible(page: Page): Promise<void> {
    const unlabelled = await page.evaluate(() => Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'))
      .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label')).map((el) => el.outerHTML));
    expect(unlabelled).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  }

  const shoot = async (page: Page, name: string) => {
    if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  };

  it('the front page says what Steward is and links to sign-in, connect, the documentation and discovery documents', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${harness.url}/`);
    expect(response?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Steward');
    for (const href of ['/dashboard/sign-in', '/connect', '/agents', '/llms.txt', '/.well-known/mcp/server.json', '/.well-known/oauth-authorization-server', '/api/openapi.json']) {
      expect([href, await page.locator(`a[href="${href}"]`).count()]).toEqual([href, 1]);
    }
    // The first Tab reaches the skip link, then the page's links.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await accessible(page);
    await shoot(page, 'front');
    await page.close();
  });

  it('/connect gives copy-paste set-up with this address and says cloud assistants need a public HTTPS address', async () => {
    const page = await browser.newPage();
    await page.goto(`${harness.url}/connect`);
    const text = (await page.textContent('main'))!;
    expect(text).toContain(`claude mcp add --transport http steward ${harness.url}/api/mcp`);
    expect(text).toContain('--header "Authorization: Bearer $STEWARD_API_KEY"');
    expect(text).toContain(`"url": "${harness.url}/api/mcp"`);
    expect(text).toContain('"type": "http"');
    expect(text).toContain('mcp-remote');
    expect(text).toContain(`${harness.url}/api/agent/tools`);
    expect(await page.locator('#public-url-needed').isVisible()).toBe(true);
    expect(await page.textContent('#public-url-needed')).toContain('PUBLIC_URL');
    await accessible(page);
    await shoot(page, 'connect');
    await page.close();
  });

  it('an owner signs in, sees every page of the dashboard, and signs out', async () => {
    // Something to see: a call by an API key, and a proposal.
    await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ada', lastName: 'Activity' });
    const ids = [randomUUID(), randomUUID()];
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, created_at) VALUES
      ($1, $3, 'Rhoda', 'Double', 'rhoda@example.org', now() - interval '3 days'), ($2, $3, 'Rhoda', 'Double', 'rhoda@example.org', now())`, [ids[0], ids[1], org.orgId]);
    await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: ids[0], mergeContactId: ids[1], actionSummary: 'Merge the two Rhoda Double records' });

    const context = await browser.newContext();
    const page = await signIn(context, ownerEmail);
    const nav = await page.locator('header nav a').allTextContents();
    expect(nav).toEqual(['Home', 'Approvals', 'Activity', 'Usage', 'Analytics', 'API keys', 'Team', 'Connected apps']);
    expect(await page.textContent('#waiting')).toContain('1 item waits');
    await accessible(page);
    await shoot(page, 'dashboard-home');

    await page.click('nav a[href="/dashboard/approvals"]');
    const card = page.locator('article[data-kind="proposal"]', { hasText: 'Merge the two Rhoda Double records' });
    const cardText = (await card.textContent())!;
    expect(cardText).toContain('Rhoda Double · rhoda@example.org');
    expect(cardText).toContain('If you approve:');
    expect(cardText).not.toContain(ids[0]);
    expect(cardText).not.toMatch(/[{}]/);
    await accessible(page);
    await shoot(page, 'dashboard-approvals');

    await page.click('nav a[href="/dashboard/activity"]');
    const row = page.locator('#activity tr[data-tool="people_create_contact"]').first();
    const rowText = (await row.textContent())!;
    expect(rowText).toContain('API key');
    expect(await row.locator('a', { hasText: 'Temporal run' }).getAttribute('href')).toMatch(/\/namespaces\/default\/workflows\/call-/);
    await accessible(page);
    await shoot(page, 'dashboard-activity');

    await page.click('nav a[href="/dashboard/usage"]');
    expect(await page.locator('#meters [role=meter]').count()).toBeGreaterThan(3);
    const contacts = page.locator('.meter[data-feature="contacts"] [role=meter]');
    expect(Number(await contacts.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(3);
    expect(await page.locator('main a[href="/dashboard/analytics"]').count()).toBe(1);
    await accessible(page);
    await shoot(page, 'dashboard-usage');

    // Analytics: every metric the owner may read, asked as an assistant asks it; charts drawn on the server.
    await page.click('nav a[href="/dashboard/analytics"]');
    expect(await page.textContent('h1')).toBe('Analytics');
    expect(await page.locator('#failed').count()).toBe(0);
    expect(await page.locator('figure.chart[data-chart="membership-stages"] svg[role=img]').count()).toBe(1);
    expect(Number(await page.locator('figure.chart[data-chart="membership-stages"]').getAttribute('data-points'))).toBeGreaterThan(0);
    expect(await page.locator('#figures li').count()).toBeGreaterThan(0);
    expect(await page.locator('script').count()).toBe(0);
    await accessible(page);
    await shoot(page, 'dashboard-analytics');
    await page.goto(`${harness.url}/dashboard/usage`);

    // API keys: made with chosen scopes, shown once, works, revoked, refused.
    await page.click('nav a[href="/dashboard/keys"]');
    await page.fill('#key-name', 'Rota assistant');
    await page.check('input[name=scopes][value="people:read"]');
    await page.click('#create-key button[type=submit]');
    const key = (await page.textContent('#new-key'))!.trim();
    expect(key).toMatch(/^sk_live_/);
    expect(await page.textContent('main')).toContain('people:read');
    const tools = await fetch(`${harness.url}/api/agent/tools`, { headers: { authorization: `Bearer ${key}` } });
    expect(tools.status).toBe(200);
    await page.goto(`${harness.url}/dashboard/keys`);
    expect(await page.textContent('main')).not.toContain(key);
    const keyRow = page.locator('#keys tr', { hasText: 'Rota assistant' });
    expect(await keyRow.textContent()).toContain(key.slice(0, 12));
    await accessible(page);
    await shoot(page, 'dashboard-keys');
    await keyRow.locator('button', { hasText: 'Revoke' }).click();
    await page.waitForURL(/notice=/);
    expect(await page.textContent('[role=status]')).toContain('revoked');
    expect((await fetch(`${harness.url}/api/agent/tools`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    // Both changes are in the audit trail with the owner as actor, the key by id only.
    const trail = (await harness.call(org.apiKey, 'audit_list_events', { actionPrefix: 'platform.api_key.', actorKind: 'human' })).events;
    expect(trail.map((event: any) => event.action).sort()).toEqual(['platform.api_key.create', 'platform.api_key.revoke']);
    expect(trail.every((event: any) => event.actor.userId === org.ownerUserId && event.tool === 'dashboard')).toBe(true);
    expect(JSON.stringify(trail)).not.toContain(key);

    // Team: members and an invitation.
    await page.click('nav a[href="/dashboard/team"]');
    expect(await page.textContent('#members')).toContain(ownerEmail);
    await page.fill('#invite-email', 'new.volunteer@pages.example');
    await page.selectOption('#invite-role', 'volunteer');
    await page.click('#invite button[type=submit]');
    await page.waitForURL(/notice=|error=/);
    expect(await page.textContent('[role=status]')).toContain('Invitation sent to new.volunteer@pages.example');
    expect(await page.textContent('#invites')).toContain('new.volunteer@pages.example');
    await accessible(page);
    await shoot(page, 'dashboard-team');

    // Connected apps: an assistant the owner allowed, disconnected here.
    const clientId = `client-${randomBytes(6).toString('hex')}`;
    await harness.pool.query(`INSERT INTO oauth_clients (client_id, client_id_issued_at, metadata) VALUES ($1, 0, $2)`, [clientId, JSON.stringify({ client_name: 'Parish Assistant', redirect_uris: ['http://127.0.0.1/cb'] })]);
    const grant = await createGrant(harness.pool, { clientId, orgId: org.orgId, userId: org.ownerUserId, intent: 'pastoral', scopes: ['people:read'], resource: `${harness.url}/api/mcp` });
    await page.click('nav a[href="/dashboard/apps"]');
    const app = page.locator(`article[data-grant-id="${grant.id}"]`);
    expect(await app.textContent()).toContain('Parish Assistant');
    await accessible(page);
    await shoot(page, 'dashboard-apps');
    await app.locator('button', { hasText: 'Disconnect' }).click();
    await page.waitForURL(/notice=/);
    expect((await harness.pool.query('SELECT revoked_at FROM oauth_grants WHERE id = $1', [grant.id])).rows[0].revoked_at).not.toBeNull();

    // On a phone: the same pages, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/dashboard', '/dashboard/approvals', '/dashboard/activity', '/dashboard/usage', '/dashboard/analytics', '/dashboard/keys', '/dashboard/team']) {
      await page.goto(`${harness.url}${path}`);
      await accessible(page);
    }
    await page.goto(`${harness.url}/dashboard/approvals`);
    await shoot(page, 'dashboard-approvals-phone');

    // Sign out: back to the front page, and the dashboard asks to sign in again.
    await page.click('#sign-out');
    await page.waitForURL(`${harness.url}/?signed-out=1`);
    expect(await page.textContent('[role=status]')).toContain('signed out');
    await page.goto(`${harness.url}/dashboard/keys`);
    expect(page.url()).toBe(`${harness.url}/dashboard/sign-in`);
    await context.close();
  });

  it('a volunteer sees what their role allows; staff do not manage keys; forged posts are refused', async () => {
    const volunteer = await member('volunteer');
    const volunteerContext = await browser.newContext();
    const page = await signIn(volunteerContext, volunteer.email);
    expect(await page.locator('header nav a').allTextContents()).toEqual(['Home', 'Analytics', 'Connected apps']);
    for (const path of ['/dashboard/keys', '/dashboard/activity', '/dashboard/usage', '/dashboard/team']) {
      const response = await page.goto(`${harness.url}${path}`);
      expect([path, response?.status()]).toEqual([path, 403]);
    }
    // Analytics: the metrics a volunteer's role reaches; giving's are named as withheld and never computed.
    const givingMetrics = [...allMetrics().available].filter(([, { metric }]) => metric.scope === 'giving:read');
    expect(givingMetrics.length).toBeGreaterThan(0);
    expect((await page.goto(`${harness.url}/dashboard/analytics`))?.status()).toBe(200);
    expect(await page.locator('#failed').count()).toBe(0);
    expect(await page.locator('li[data-metric="total_contacts"]').count()).toBe(1);
    const withheld = (await page.textContent('#withheld'))!;
    for (const [name, { metric }] of givingMetrics) {
      expect(withheld).toContain(metric.description);
      expect(await page.locator(`[data-metric="${name}"]`).count()).toBe(0);
    }
    await accessible(page);
    await volunteerContext.close();

    const staff = await member('staff');
    const staffContext = await browser.newContext();
    const staffPage = await signIn(staffContext, staff.email);
    expect(await staffPage.locator('header nav a').allTextContents()).toEqual(['Home', 'Approvals', 'Usage', 'Analytics', 'Team', 'Connected apps']);
    expect((await staffPage.goto(`${harness.url}/dashboard/keys`))?.status()).toBe(403);
    await staffContext.close();

    const forged = await fetch(`${harness.url}/dashboard/keys`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: 'csrf=x&name=evil&scopes=people:read',
    });
    expect(forged.status).toBe(403);
  });

  it("each organisation's analytics page shows its own figures, never another's", async () => {
    const other = await harness.createOrg({ name: 'Other Parish' });
    await harness.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [other.ownerUserId, await hashPassword(password)]);
    const otherEmail = (await harness.pool.query('SELECT email FROM users WHERE id = $1', [other.ownerUserId])).rows[0].email as string;
    for (const firstName of ['Una', 'Vic', 'Wyn', 'Xan', 'Yves']) await harness.call(other.apiKey, 'people_create_contact', { firstName, lastName: 'Elsewhere' });
    const figureOf = async (email: string) => {
      const context = await browser.newContext();
      const page = await signIn(context, email);
      await page.goto(`${harness.url}/dashboard/analytics`);
      const sentence = (await page.textContent('li[data-metric="total_contacts"]'))!;
      await context.close();
      return sentence;
    };
    const askedBy = async (apiKey: string) => (await harness.call(apiKey, 'platform_analytics_query', { metric: 'total_contacts' })).speakToUser as string;
    const [ours, theirs] = [await figureOf(ownerEmail), await figureOf(otherEmail)];
    expect(ours).toBe(await askedBy(org.apiKey));
    expect(theirs).toBe(await askedBy(other.apiKey));
    expect(ours).not.toBe(theirs);
    expect(theirs).toContain('5');
  });
});
