import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { hashSecret, newSecret } from '../../../kernel/oauth/secrets';
import { memberViewerPass } from '../../people/api';
import type { Page } from 'playwright-core';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';
import { call, eventually, publicPost, refusal, viewerToken } from './stack';

const HOSTILE_NAME = '<b onclick="x()">Ann</b> & "Co"';
const SCRIPT_MESSAGE = '<script>document.title="pwned"</script>Hello from the balcony';

/**
 * The viewer page Steward serves (/live/watch/<org>/<stream>) in headless Chromium: chat shown as
 * text (a <script> message is text, nothing runs), a vote counted once per browser, a private
 * prayer request reaching only the hosts who may see it; moderation reaching the page; the public
 * API refusing what strangers might send. Also the live stream dashboard widget.
 */
describe('live viewer page in headless Chromium', () => {
  let suite: WidgetSuite;
  let mcp: McpClient;
  let host: WidgetHost;
  let page: Page;
  let stream: any;

  beforeAll(async () => {
    suite = await openWidgetSuite('Viewer Parish');
    ({ mcp, host } = suite);
    page = await host.page.context().browser()!.newPage();
    ({ stream } = await call(mcp, 'live_schedule_stream', {
      title: HOSTILE_TEXT, startsAt: new Date(Date.now() - 60_000).toISOString(), durationMinutes: 120, chatBeforeMinutes: 30,
    }));
  });

  afterAll(async () => {
    await page?.close();
    await suite?.close();
  });

  it('shows chat as text, counts one vote per viewer and sends a private prayer request to the hosts', async () => {
    const { poll } = await call(mcp, 'live_create_poll', { streamId: stream.id, question: 'Where are you watching from?', options: ['Home', 'Hospital', 'Holiday'] });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${suite.harness.url}${stream.watchPath}`);
    await expect(page.title()).resolves.toBe(HOSTILE_TEXT);
    await expect(page.locator('#title').textContent()).resolves.toBe(HOSTILE_TEXT);
    await expect(page.locator('#player').textContent()).resolves.toContain('The stream will appear here');

    // Chat: a <script> message appears as its text; nothing ran.
    await page.fill('#chat-name', HOSTILE_NAME);
    await page.fill('#chat-body', SCRIPT_MESSAGE);
    await page.click('#chat-form button');
    await page.locator('#messages li .body', { hasText: 'Hello from the balcony' }).waitFor();
    await expect(page.locator('#messages li .body').first().textContent()).resolves.toBe(SCRIPT_MESSAGE);
    await expect(page.locator('#messages li b').first().textContent()).resolves.toBe(HOSTILE_NAME);
    expect(await page.locator('#messages script, #messages img, #messages b b').count()).toBe(0);
    await expect(page.title()).resolves.toBe(HOSTILE_TEXT);

    // The poll: voted once; the same browser again is not counted.
    await page.locator('#poll-question', { hasText: 'Where are you watching from?' }).waitFor();
    await page.check('input[name=option][value=o2]');
    await page.click('#poll-form button');
    await page.locator('#poll-note', { hasText: 'Thank you for voting.' }).waitFor();
    await page.reload();
    await page.locator('#poll-question', { hasText: 'Where are you watching from?' }).waitFor();
    await page.click('#poll-form button');
    await page.locator('#poll-note', { hasText: 'You have voted already.' }).waitFor();
    const results = (await call(mcp, 'live_get_poll_results', { pollId: poll.id })).polls[0];
    expect(results.totalVotes).toBe(1);
    expect(results.results.find((r: { optionId: string }) => r.optionId === 'o2').votes).toBe(1);

    // A private prayer request, and one for the team.
    await page.fill('#prayer-name', 'Mary');
    await page.fill('#prayer-body', 'Please pray for my mother in hospital');
    await page.check('#prayer-private');
    await page.click('#prayer-form button');
    await page.locator('#prayer-note', { hasText: 'Thank you' }).waitFor();
    await page.uncheck('#prayer-private');
    await page.fill('#prayer-body', 'Thanksgiving for a new job');
    await page.click('#prayer-form button');
    await eventually(async () => (await suite.harness.pool.query('SELECT count(*)::int AS n FROM live_prayer_requests WHERE stream_id = $1', [stream.id])).rows[0].n, (n) => n === 2);
    // Never in the chat.
    expect(await page.locator('#messages').textContent()).not.toContain('hospital');
    expect(errors).toEqual([]);

    // The hosts' queue: pastoral data. A key with community:read sees the team one and how many were withheld;
    // people:safeguarding sees the private one; live scopes alone (the broadcast intent's) reach none.
    const pastoral = await suite.harness.createKey(suite.org.orgId, ['live:read', 'community:read']);
    const pastoralMcp = await suite.harness.mcpClient(pastoral.apiKey);
    const seen = await call(pastoralMcp, 'live_list_prayer_requests', { streamId: stream.id });
    expect(seen.requests.map((r: { body: string }) => r.body)).toEqual(['Thanksgiving for a new job']);
    expect(seen.withheld).toBe(1);
    await pastoralMcp.close();
    const all = await call(mcp, 'live_list_prayer_requests', { streamId: stream.id });
    expect(all.requests.map((r: { body: string; privacy: string; name: string }) => [r.body, r.privacy, r.name])).toEqual([
      ['Thanksgiving for a new job', 'team', 'Mary'], ['Please pray for my mother in hospital', 'private', 'Mary'],
    ]);
    expect(all.withheld).toBe(0);
    const liveOnly = await suite.harness.createKey(suite.org.orgId, ['live:read', 'live:write']);
    const liveMcp = await suite.harness.mcpClient(liveOnly.apiKey);
    expect((await refusal(liveMcp, 'live_list_prayer_requests', { streamId: stream.id })).code).toBe('insufficient_scope');
    await liveMcp.close();
  });

  it('moderation reaches the page: a hidden message goes, a blocked viewer cannot post', async () => {
    const base = `${suite.harness.url}/live/api/${suite.org.orgId}/${stream.id}`;
    expect((await publicPost(base, '/chat', { viewerToken: viewerToken('spam'), name: 'Spammer', body: 'Buy cheap followers' })).status).toBe(200);
    await page.locator('#messages li .body', { hasText: 'Buy cheap followers' }).waitFor();
    const { messages } = await call(mcp, 'live_list_chat', { streamId: stream.id });
    const spam = messages.find((m: { body: string }) => m.body === 'Buy cheap followers');
    expect(spam.viewer).toMatch(/^v_[0-9a-f]{12}$/);
    await call(mcp, 'live_moderate_chat', { streamId: stream.id, messageId: spam.id, action: 'hide' });
    await page.locator('#messages li .body', { hasText: 'Buy cheap followers' }).waitFor({ state: 'detached' });
    const { message } = await call(mcp, 'live_moderate_chat', { streamId: stream.id, messageId: spam.id, action: 'block_viewer', reason: 'spam' });
    expect(message).toMatchObject({ hidden: true, blocked: true });
    const blocked = await publicPost(base, '/chat', { viewerToken: viewerToken('spam'), name: 'Spammer', body: 'Again' });
    expect(blocked).toMatchObject({ status: 403, body: { error: { reason: 'viewer_blocked' } } });
    expect((await call(mcp, 'live_list_chat', { streamId: stream.id })).messages.some((m: { id: string }) => m.id === spam.id)).toBe(false);
    expect((await call(mcp, 'live_list_chat', { streamId: stream.id, includeHidden: true })).messages.some((m: { id: string }) => m.id === spam.id)).toBe(true);
  });

  it('the public API refuses what strangers might send, and a foreign or unknown stream is not found', async () => {
    const base = `${suite.harness.url}/live/api/${suite.org.orgId}/${stream.id}`;
    expect((await publicPost(base, '/chat', { viewerToken: viewerToken('big'), name: 'Big', body: 'x'.repeat(5000) })).status).toBe(413);
    expect((await publicPost(base, '/chat', { viewerToken: viewerToken('long'), name: 'Long', body: 'x'.repeat(501) })).body.error.code).toBe('validation_failed');
    expect((await publicPost(base, '/chat', { name: 'No token', body: 'hi' })).status).toBe(400);
    expect((await publicPost(base, '/chat', '{not json')).status).toBe(400);
    expect((await publicPost(base, '/chat', { viewerToken: viewerToken('extra'), name: 'A', body: 'b', admin: true })).status).toBe(400);
    const other = await suite.harness.createOrg({ name: 'Other Parish' });
    expect((await publicPost(`${suite.harness.url}/live/api/${other.orgId}/${stream.id}`, '/chat', { viewerToken: viewerToken('o'), name: 'A', body: 'b' })).status).toBe(404);
    expect((await fetch(`${suite.harness.url}/live/watch/${other.orgId}/${stream.id}`)).status).toBe(404);
    expect((await fetch(`${suite.harness.url}/live/watch/not-an-org/${stream.id}`)).status).toBe(404);
    const { rows } = await suite.harness.pool.query("SELECT count(*)::int AS n FROM live_chat WHERE stream_id = $1 AND display_name IN ('Big', 'Long', 'No token', 'A')", [stream.id]);
    expect(rows[0].n).toBe(0);
  });

  it('the stream dashboard widget shows its state and why it cannot go live, text as text', async () => {
    const { frame } = await host.callAndShow('live_get_stream_status', { streamId: stream.id });
    await expect(frame.locator('h1').textContent()).resolves.toBe(HOSTILE_TEXT);
    await expect(frame.locator('[data-field=status]').textContent()).resolves.toBe('created');
    await expect(frame.locator('[data-field=ingest]').textContent()).resolves.toBe('no ingest');
    expect(await frame.locator('[data-field=reasons] li').allTextContents()).toContain('no streaming provider is configured');
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
  });

  it('a member signed in to the portal watches as themselves: counted once a day by name, their chat linked to their record', async () => {
    const { harness, org } = suite;
    const { contact } = await call(mcp, 'people_create_contact', { firstName: 'Martha', lastName: 'Member', email: 'martha@viewer.example' });
    // A portal session as the invite link leaves one (the portal's own sign-in is tested in people's portal.test.ts).
    const inviteId = randomUUID();
    await harness.pool.query(`INSERT INTO portal_invites (id, org_id, contact_id, channel, address, purpose, status, send_id, expires_at, joined_at)
      VALUES ($1, $2, $3, 'email', 'martha@viewer.example', 'service', 'joined', $4, now() + interval '7 days', now())`, [inviteId, org.orgId, contact.id, randomUUID()]);
    const cookie = newSecret('pss_');
    await harness.pool.query(`INSERT INTO portal_sessions (id, org_id, contact_id, invite_id, token_hash, expires_at) VALUES ($1, $2, $3, $4, $5, now() + interval '1 day')`,
      [randomUUID(), org.orgId, contact.id, inviteId, hashSecret(cookie)]);
    const memberPath = `/people/portal/${org.orgId}/live/${stream.id}`;

    // Signed out, the portal asks for sign-in and gives no pass.
    const signedOut = await fetch(`${harness.url}${memberPath}`, { redirect: 'manual' });
    expect(signedOut.status).toBe(401);

    const context = await host.page.context().browser()!.newContext();
    await context.addCookies([{ name: 'steward_portal', value: cookie, url: `${harness.url}/people/portal/${org.orgId}/` }]);
    const member = await context.newPage();
    const errors: string[] = [];
    member.on('pageerror', (error) => errors.push(error.message));
    await member.goto(`${harness.url}${memberPath}`);
    expect(new URL(member.url()).pathname).toBe(stream.watchPath);
    await member.waitForSelector('#member:not([hidden])');
    // The pass left the address bar.
    expect(new URL(member.url()).hash).toBe('');
    await member.fill('#chat-name', 'Martha');
    await member.fill('#chat-body', 'Watching from home');
    await member.click('#chat-form button');
    await eventually(() => harness.pool.query('SELECT contact_id, viewer_key FROM live_chat WHERE org_id = $1 AND body = $2', [org.orgId, 'Watching from home']).then((r) => r.rows), (rows) => rows.length === 1)
      .then((rows) => expect(rows[0]).toEqual({ contact_id: contact.id, viewer_key: `c:${contact.id}` }));
    // Reloading (a second session the same day) is still one logged-in viewer.
    await member.reload();
    await member.waitForSelector('#member:not([hidden])');
    const stats = await eventually(() => call(mcp, 'live_get_viewer_stats', { streamId: stream.id }), (value: any) => value.raw.loggedInViewers === 1 && value.raw.sessions >= 2);
    expect(stats.raw.loggedInViewers).toBe(1);
    const sessions = await harness.pool.query('SELECT DISTINCT viewer_key FROM live_viewer_sessions WHERE org_id = $1 AND contact_id = $2', [org.orgId, contact.id]);
    expect(sessions.rows).toEqual([{ viewer_key: `c:${contact.id}` }]);
    // The tools never show the contact id.
    expect(JSON.stringify(await call(mcp, 'live_list_chat', { streamId: stream.id }))).not.toContain(contact.id);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a forged, expired or other organisation\'s member pass counts as anonymous', async () => {
    const { harness, org } = suite;
    const { contact } = await call(mcp, 'people_create_contact', { firstName: 'Fred', lastName: 'Forger' });
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const forged = `lvp.${org.orgId}.${contact.id}.${expires}.${'A'.repeat(32)}`;
    const expired = memberViewerPass(org.orgId, contact.id, Date.now() - 13 * 3_600_000);
    const otherOrg = memberViewerPass(randomUUID(), contact.id);
    for (const memberPass of [forged, expired, otherOrg]) {
      const started = await publicPost(harness.url, `/live/api/${org.orgId}/${stream.id}/session`, { viewerToken: viewerToken(`forged-${memberPass.length}-${Math.random()}`.replace(/[^A-Za-z0-9_-]/g, '')), memberPass });
      expect(started).toMatchObject({ status: 200, body: { ok: true, signedIn: false } });
    }
    const genuine = await publicPost(harness.url, `/live/api/${org.orgId}/${stream.id}/session`, { viewerToken: viewerToken('genuine'), memberPass: memberViewerPass(org.orgId, contact.id) });
    expect(genuine.body).toMatchObject({ ok: true, signedIn: true });
    const keys = await harness.pool.query('SELECT count(*)::int AS n FROM live_viewer_sessions WHERE org_id = $1 AND contact_id = $2', [org.orgId, contact.id]);
    expect(keys.rows[0].n).toBe(1);
  });
});
