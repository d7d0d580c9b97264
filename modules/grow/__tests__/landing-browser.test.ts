import { chromium, type Browser } from 'playwright-core';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { CHROMIUM } from '../../../test/helpers/oauth';

const SCRIPT = '<script>document.title="pwned"</script>';

/**
 * A published landing page and its form in a real browser: a stranger fills it in (a `<script>` in
 * a name is kept and shown as text, never run), a refused answer comes back with their text shown
 * as typed, and a bot filling the hidden field is refused with nothing written.
 */
describe('grow landing page in a browser', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let browser: Browser;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Grace Church' });
    mcp = await harness.mcpClient(org.apiKey);
    browser = await chromium.launch(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await harness?.close();
  });

  it('is filled in by a person, escapes what they type, and refuses a bot', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', {
      name: 'Welcome', creates: ['contact', 'guest_card'], thankYou: 'Thank you, we will be in touch.',
      fields: [
        { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
        { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' },
        { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
        { key: 'news', label: 'Send me the weekly news', type: 'consent' },
      ],
    });
    await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const { page } = await mcpCall(mcp, 'grow_create_landing_page', {
      slug: 'welcome', title: 'New here?', blocks: [{ type: 'text', text: 'We would love to meet you.' }, { type: 'form', formId: form.id }],
    });
    const gated = await mcpRefusal(mcp, 'grow_publish_landing_page', { pageId: page.id }, { approvalWaitMs: 0 });
    const { execution } = await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    const address = `${harness.url}${new URL(execution.result.page.publicUrl).pathname}`;

    const context = await browser.newContext();
    const tab = await context.newPage();
    const dialogs: string[] = [];
    tab.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.dismiss(); });
    await tab.goto(address);
    expect(await tab.title()).toBe('New here?');
    expect(await tab.getByRole('heading', { level: 1 }).textContent()).toBe('New here?');
    // The consent box is there, unticked, labelled for screen readers.
    expect(await tab.getByLabel('Send me the weekly news').isChecked()).toBe(false);

    // A refused answer: the page comes back with the person's text shown as typed, and no script runs.
    await tab.getByLabel('First name').fill(SCRIPT);
    await tab.getByLabel('Last name').fill('Tester');
    await tab.getByLabel('Email').fill('tester@example.org');
    await tab.evaluate(() => { (document.querySelector('input[name=email]') as HTMLInputElement).type = 'text'; });
    await tab.getByLabel('Email').fill('not an email');
    await tab.getByRole('button', { name: 'Send' }).click();
    await tab.waitForSelector('[role=alert]');
    expect(await tab.locator('[role=alert]').textContent()).toContain('Email is not an email address');
    expect(await tab.getByLabel('First name').inputValue()).toBe(SCRIPT);
    expect(await tab.title()).not.toBe('pwned');

    // Corrected and sent: thanked, and the answer kept exactly as typed.
    await tab.getByLabel('Email').fill('tester@example.org');
    await tab.getByLabel('Send me the weekly news').check();
    await tab.getByRole('button', { name: 'Send' }).click();
    await tab.waitForSelector('text=Thank you, we will be in touch.');
    expect(await tab.title()).toBe('Thank you');
    const { submissions } = await mcpCall(mcp, 'grow_list_submissions', { formId: form.id });
    expect(submissions).toHaveLength(1);
    expect(submissions[0]).toMatchObject({ answers: { first_name: SCRIPT, news: true }, contactOutcome: 'created', pageId: page.id });

    // A bot fills the field people never see: refused, nothing written.
    await tab.goto(address);
    await tab.getByLabel('First name').fill('Bot');
    await tab.getByLabel('Last name').fill('Bot');
    await tab.getByLabel('Email').fill('bot@example.org');
    await tab.evaluate(() => { (document.querySelector('input[name=website]') as HTMLInputElement).value = 'http://spam.example'; });
    await tab.getByRole('button', { name: 'Send' }).click();
    await tab.waitForSelector('[data-refusal=bot_check]');
    expect((await mcpCall(mcp, 'grow_list_submissions', { formId: form.id })).total).toBe(1);
    expect(dialogs).toEqual([]);
    expect((await mcpCall(mcp, 'grow_get_page_stats', { pageId: page.id })).submissions).toBe(1);
    await context.close();
  });
});
