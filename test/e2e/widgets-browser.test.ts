import { chromium, type Browser, type FrameLocator } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../helpers/harness';
import { startSmtpServer, type TestSmtpServer } from '../helpers/message-servers';
import { CHROMIUM } from '../helpers/oauth';
import { WidgetHost } from '../helpers/widget-host';

/** User text that would become markup, or run, if a widget parsed what it shows as HTML. */
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b> & "quoted"';

/**
 * Every in-chat widget rendered in headless Chromium by a minimal MCP Apps host: the host calls
 * the tool over MCP, reads the widget it links to, and hands it the real result; the widget's
 * buttons call tools back through the host, and the server's own checks decide.
 */
describe('in-chat widgets in headless Chromium', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let mcp: McpClient;
  let host: WidgetHost;
  const saved = { ...process.env };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Widget Parish' });
    // Every toolset, as a host that found the tools by search would have them listed.
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=all');
    browser = await chromium.launch(CHROMIUM);
  });

  beforeEach(async () => {
    host = await WidgetHost.open(browser, mcp);
  });

  afterEach(async () => {
    if (process.env.STEWARD_SCREENSHOTS) {
      const name = (expect.getState().currentTestName ?? 'widget').replace(/^in-chat widgets in headless Chromium /, '').replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await host.page.screenshot({ path: `${process.env.STEWARD_SCREENSHOTS}/${name}.png`, fullPage: true });
    }
    // Nothing a widget rendered ran as script or was blocked by its policy.
    expect(host.errors).toEqual([]);
    expect(await host.page.frameLocator('#widget').locator('img, b').count()).toBe(0);
    await host.close();
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  const texts = (frame: FrameLocator, selector: string) => frame.locator(selector).allTextContents();

  async function contact(firstName: string, lastName: string, extra: Record<string, unknown> = {}) {
    return (await harness.call(org.apiKey, 'people_create_contact', { firstName, lastName, ...extra })).contact;
  }

  it('contact card shows people_get_contact\'s contact, user text as text', async () => {
    const created = await contact('Ada', HOSTILE, { email: 'ada@example.org', phone: '+44 7700 900123', addressCity: 'Leeds' });
    await harness.call(org.apiKey, 'people_add_contact_tags', { contactId: created.id, tags: ['Choir', 'Welcome team'] });

    const { frame, result } = await host.callAndShow('people_get_contact', { contactId: created.id });
    const shown = result.structuredContent.contact;
    expect(shown.displayName).toContain(HOSTILE);
    await expect(frame.locator('h1').textContent()).resolves.toBe(shown.displayName);
    await expect(frame.locator(`article[data-id="${shown.id}"]`).count()).resolves.toBe(1);
    const details = await frame.locator('dl').textContent();
    expect(details).toContain('ada@example.org');
    expect(details).toContain('+44 7700 900123');
    expect(details).toContain('Leeds');
    await expect(frame.locator('[data-field=status]').textContent()).resolves.toBe(shown.status);
    await expect(texts(frame, '.tags li')).resolves.toEqual(shown.tags);
  });

  it('an error result shows the server\'s message instead of a card', async () => {
    const { frame, result } = await host.callAndShow('people_get_contact', { contactId: '00000000-0000-4000-8000-000000000000' });
    expect(result.isError).toBe(true);
    const { error } = JSON.parse(result.content[0].text);
    await expect(frame.locator('#root').getAttribute('data-state')).resolves.toBe('error');
    await expect(frame.locator('[role=alert]').textContent()).resolves.toBe(error.message);
    await expect(frame.locator('[role=alert]').getAttribute('data-code')).resolves.toBe('not_found');
    await expect(frame.locator('article').count()).resolves.toBe(0);
  });

  it('care timeline shows people_list_care_timeline\'s entries in order', async () => {
    const person = await contact('Tim', 'Line');
    await harness.call(org.apiKey, 'people_add_note', { contactId: person.id, content: `Visited after surgery ${HOSTILE}` });

    const { frame, result } = await host.callAndShow('people_list_care_timeline', { contactId: person.id });
    const entries = result.structuredContent.entries as Array<{ id: string; kind: string; summary: string }>;
    expect(entries.map((entry) => entry.kind)).toEqual(['note_added', 'contact_created']);
    await expect(frame.locator('.timeline li').evaluateAll((items) => items.map((item) => item.getAttribute('data-id')))).resolves
      .toEqual(entries.map((entry) => entry.id));
    await expect(texts(frame, '.timeline li p')).resolves.toEqual(entries.map((entry) => entry.summary));
  });

  it('outreach queue approves and declines through the host; a stale approval is refused by the server', async () => {
    const person = await contact('Olive', 'Reach', { email: 'olive@example.org' });
    const create = (body: string) => harness.call(org.apiKey, 'people_create_outreach', { contactId: person.id, subject: 'Thinking of you', body, reason: HOSTILE });
    const toSend = (await create('Dear Olive, we are praying for you.')).item;
    const toDecline = (await create('Dear Olive, a second note.')).item;
    const toEdit = (await create('Dear Olive, a third note.')).item;

    const { frame, result } = await host.callAndShow('people_list_pending_outreach', { contactId: person.id });
    const items = result.structuredContent.items as Array<{ id: string; body: string }>;
    expect(items.map((item) => item.id).sort()).toEqual([toSend.id, toDecline.id, toEdit.id].sort());
    for (const item of items) {
      await expect(frame.locator(`article[data-id="${item.id}"] blockquote`).textContent()).resolves.toBe(item.body);
    }
    await expect(frame.locator(`article[data-id="${toSend.id}"]`).textContent()).resolves.toContain(`Why: ${HOSTILE}`);

    const card = (id: string) => frame.locator(`article[data-id="${id}"]`);
    await card(toSend.id).locator('button[data-action=approve]').click();
    await expect(card(toSend.id).locator('[role=status]').textContent()).resolves.toBe('Sent to Olive Reach');
    await card(toDecline.id).locator('button[data-action=decline]').click();
    await expect(card(toDecline.id).locator('[role=status]').textContent()).resolves.toBe('Declined: it will not be sent');

    // Edited after the widget showed it: the version the widget approves is no longer the content.
    await harness.call(org.apiKey, 'people_edit_outreach', { outreachId: toEdit.id, body: 'Dear Olive, reworded.' });
    await card(toEdit.id).locator('button[data-action=approve]').click();
    await card(toEdit.id).locator('[role=alert]').waitFor();
    await expect(card(toEdit.id).locator('button[data-action=approve]').isEnabled()).resolves.toBe(true);

    expect(host.calls).toEqual([
      { name: 'people_approve_outreach', arguments: { outreachId: toSend.id, contentVersion: toSend.contentVersion } },
      { name: 'people_decline_outreach', arguments: { outreachId: toDecline.id } },
      { name: 'people_approve_outreach', arguments: { outreachId: toEdit.id, contentVersion: toEdit.contentVersion } },
    ]);
    const statusOf = async (id: string) => (await harness.call(org.apiKey, 'people_get_outreach_item', { outreachId: id })).item.status;
    await expect(statusOf(toSend.id)).resolves.toBe('sent');
    await expect(statusOf(toDecline.id)).resolves.toBe('declined');
    await expect(statusOf(toEdit.id)).resolves.toBe('pending_review');
    expect(smtp.delivered.flatMap((mail) => mail.to)).toEqual(['olive@example.org']);
  });

  it('outreach queue shows an approved message whose send was refused as not sent, never as a green approval', async () => {
    const person = await contact('Leo', 'Later', { email: 'leo@example.org' });
    const item = (await harness.call(org.apiKey, 'people_create_outreach', { contactId: person.id, subject: 'Thinking of you', body: 'Dear Leo, thinking of you.' })).item;
    // Unsubscribed after the message was queued: the approval stands, the send is refused.
    await harness.call(org.apiKey, 'people_update_contact', { contactId: person.id, status: 'unsubscribed' });
    const { frame } = await host.callAndShow('people_list_pending_outreach', { contactId: person.id });
    const card = frame.locator(`article[data-id="${item.id}"]`);
    await card.locator('button[data-action=approve]').click();
    await card.locator('[role=alert]').waitFor();
    await expect(card.locator('[role=alert]').textContent()).resolves.toContain('Approved but not sent');
    await expect(card.locator('[role=status]').count()).resolves.toBe(0);
    await expect(card.locator('[data-field=status]').textContent()).resolves.toBe('approved, not sent');
    await expect(card.locator('button[data-action=approve]').isEnabled()).resolves.toBe(true);
  });

  it('usage meters show platform_usage\'s plan and every feature', async () => {
    const { frame, result } = await host.callAndShow('platform_usage', {});
    const { plan, features } = result.structuredContent as { plan: string; features: Array<{ feature: string; used: number; limit: number | null }> };
    await expect(frame.locator('[data-field=plan]').textContent()).resolves.toBe(`Plan: ${plan}`);
    await expect(frame.locator('.meters li').evaluateAll((items) => items.map((item) => item.getAttribute('data-feature')))).resolves
      .toEqual(features.map((feature) => feature.feature));
    const contacts = features.find((feature) => feature.feature === 'contacts')!;
    expect(contacts.used).toBeGreaterThan(0);
    const figures = await frame.locator('li[data-feature=contacts] .figures').textContent();
    expect(figures).toContain(`${contacts.used} of ${contacts.limit}`);
    await expect(frame.locator('li[data-feature=contacts] meter').getAttribute('value')).resolves.toBe(String(contacts.used));
  });

  /** A gated merge of two contacts: a proposal waiting for an owner or admin. */
  async function proposeMerge(summary: string): Promise<string> {
    const keep = await contact('Dee', 'Plicate');
    const merge = await contact('Dee', 'Plicate');
    const response = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep.id, mergeContactId: merge.id, actionSummary: summary });
    expect(response.body.error?.code).toBe('approval_required');
    return response.body.error!.details.proposalId;
  }

  it('proposal review shows platform_get_proposal\'s proposal and rejects it through the host', async () => {
    const proposalId = await proposeMerge(`Merge the duplicate ${HOSTILE}`);
    const { frame, result } = await host.callAndShow('platform_get_proposal', { proposalId });
    const { proposal } = result.structuredContent;
    const card = frame.locator(`article[data-id="${proposalId}"]`);
    await expect(card.locator('h2').textContent()).resolves.toBe(`${proposal.summary} pending`);
    await expect(card.locator('dl').textContent()).resolves.toContain('people_merge_data_quality_contacts');
    await expect(card.locator('pre').textContent()).resolves.toBe(JSON.stringify(proposal.action.arguments, null, 2));

    await card.locator('button[data-action=reject]').click();
    await expect(card.locator('[role=status]').textContent()).resolves.toBe('Rejected: it will not be carried out');
    expect(host.calls).toEqual([{ name: 'platform_reject_proposal', arguments: { proposalId } }]);
    const stored = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId });
    expect(stored.proposal).toMatchObject({ status: 'rejected', execution: null });
  });

  it('proposal queue lists platform_pending_proposals and approves one, which runs its action', async () => {
    const proposalId = await proposeMerge('Merge the second duplicate');
    const { frame, result } = await host.callAndShow('platform_pending_proposals', {});
    const ids = (result.structuredContent.proposals as Array<{ id: string }>).map((proposal) => proposal.id);
    expect(ids).toContain(proposalId);
    await expect(frame.locator('article').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-id')))).resolves.toEqual(ids);

    const card = frame.locator(`article[data-id="${proposalId}"]`);
    await card.locator('button[data-action=approve]').click();
    await expect(card.locator('[role=status]').textContent()).resolves.toBe('Approved and carried out');
    await expect(card.getAttribute('data-status')).resolves.toBe('approved');
    expect(host.calls).toEqual([{ name: 'platform_approve_proposal', arguments: { proposalId } }]);
    const stored = await harness.call(org.apiKey, 'platform_get_proposal', { proposalId });
    expect(stored.proposal).toMatchObject({ status: 'approved', execution: { status: 'succeeded' } });
  });
});
