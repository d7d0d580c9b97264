import { randomUUID } from 'node:crypto';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../../../test/helpers/widget-host';
import { postForm } from './forms-http';

jest.setTimeout(180_000);

/** Grow's in-chat widgets in headless Chromium, fed the real tool results over MCP; what people typed shows as text. */
describe('grow widgets in headless Chromium', () => {
  let suite: WidgetSuite;
  let harness: Harness;
  let org: TestOrg;
  let host: WidgetHost;

  beforeAll(async () => {
    suite = await openWidgetSuite('Grow Parish');
    ({ harness, org, host } = suite);
  });

  afterEach(async () => {
    expect(host.errors).toEqual([]);
    await expect(host.page.frameLocator('#widget').locator('img, b').count()).resolves.toBe(0);
  });

  afterAll(async () => {
    await suite?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);

  it('campaign report: a funnel of recipients, sent, opened and clicked, and the people left out by reason', async () => {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'News']);
    for (const [i, consent] of [true, true, false].entries()) {
      const { contact } = await call('people_create_contact', { firstName: `Reader${i}`, lastName: 'News', email: `reader${i}@example.org` });
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, contact.id, tagId]);
      if (consent) await call('channels_record_consent', { contactId: contact.id, channel: 'email', purpose: 'marketing', source: 'form', wording: 'News please' });
    }
    const { campaign } = await call('grow_create_campaign', { name: `Easter ${HOSTILE_TEXT}`, audience: { kind: 'tag', id: tagId }, subject: 'Easter at St Anne', body: 'Come at https://example.org/easter' });
    await call('grow_preview_campaign', { campaignId: campaign.id });

    const { frame, result } = await host.callAndShow('grow_get_campaign_report', { campaignId: campaign.id });
    const shown = result.structuredContent;
    expect(shown.totals).toMatchObject({ recipients: 3, handed: 0, skipped: 1 });
    await expect(frame.locator('h1').textContent()).resolves.toBe(`Easter ${HOSTILE_TEXT}`);
    await expect(frame.locator('[data-field=status]').textContent()).resolves.toBe('previewed');
    const bars = frame.locator('figure[data-chart="campaign-funnel"] svg rect');
    await expect(bars.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))))).resolves.toEqual([3, 0, 0, 0]);
    const details = await frame.locator('dl').textContent();
    expect(details).toContain('Left out: no consent');
    await expect(frame.locator('ul.links li').allTextContents()).resolves.toEqual(['https://example.org/easter: 0']);
  });

  it('form submissions: each answer under its question, the contact outcome, hostile text as text', async () => {
    const { form } = await call('grow_create_form', {
      name: 'Widget connect card', fields: [
        { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
        { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
        { key: 'note', label: `Anything else? ${HOSTILE_TEXT}`, type: 'text', required: false },
        { key: 'news', label: 'Send me news', type: 'consent', required: false },
      ],
    });
    const { form: published } = await call('grow_publish_form', { formId: form.id });
    const url = `${harness.url}${new URL(published.publicUrl).pathname}`;
    expect((await postForm(url, { first_name: 'Ada', email: 'ada@example.org', note: HOSTILE_TEXT, news: 'yes' })).status).toBe(200);
    expect((await postForm(url, { first_name: 'Ada', email: 'ada@example.org' })).status).toBe(200);

    const { frame, result } = await host.callAndShow('grow_list_submissions', { formId: form.id });
    expect(result.structuredContent.total).toBe(2);
    await expect(frame.locator('h1').textContent()).resolves.toBe('Form submissions (2)');
    await expect(frame.locator('[data-field=outcome]').allTextContents()).resolves.toEqual(['Matched (email)', 'New contact']);
    const first = frame.locator('ol.submissions > li').nth(1);
    await expect(first.locator('dt').allTextContents()).resolves.toEqual(['First name', 'Email', `Anything else? ${HOSTILE_TEXT}`, 'Send me news']);
    await expect(first.locator('dd').allTextContents()).resolves.toEqual(['Ada', 'ada@example.org', HOSTILE_TEXT, 'Yes']);
  });
});
