import { chromium, type Browser } from 'playwright-core';
import sharp from 'sharp';
import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { CHROMIUM } from '../../../test/helpers/oauth';

const SCRIPT = '<script>document.title="pwned"</script>';
const ALT = 'The church door, "open" <b>wide</b> & welcoming';

/**
 * A published landing page and its form in a real browser: a stranger fills it in (a `<script>` in
 * a name is kept and shown as text, never run), a refused answer comes back with their text shown
 * as typed, and a bot filling the hidden field is refused with nothing written. Its image, from the
 * Media Library, loads in the browser from Steward with its alt text escaped; a private, missing or
 * other organisation's file is refused, and a file made private later leaves the page.
 */
describe('grow landing page in a browser', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let browser: Browser;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Grace Church' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient((await harness.createOrg({ name: 'Other Church' })).apiKey);
    browser = await chromium.launch(CHROMIUM);
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close();
    await otherMcp?.close();
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
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();
    const upload = async (client: McpClient, fileName: string, isPublic: boolean) =>
      (await mcpCall(client, 'platform_upload_media_library_file', { base64Content: png.toString('base64'), fileName, isPublic })).file.id as string;
    const image = await upload(mcp, 'church-front.png', true);
    const privateImage = await upload(mcp, 'vestry.png', false);
    const theirs = await upload(otherMcp, 'their-hall.png', true);
    // Only a public image of this organisation's library: a private one, another's or none at all is refused, and nothing is made.
    const imageBlock = (mediaId: string) => ({ slug: 'refused', title: 'Refused', blocks: [{ type: 'image', mediaId, alt: 'A picture' }] });
    const privateRefusal = await mcpRefusal(mcp, 'grow_create_landing_page', imageBlock(privateImage));
    expect(privateRefusal).toMatchObject({ code: 'validation_failed' });
    expect(privateRefusal.hint).toMatch(/platform_update_media_library_file/);
    expect((await mcpRefusal(mcp, 'grow_create_landing_page', imageBlock(theirs))).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'grow_create_landing_page', imageBlock(randomUUID()))).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'grow_create_landing_page', { ...imageBlock(image), blocks: [{ type: 'image', mediaId: image, alt: ' ' }] })).code).toBe('validation_failed');
    expect((await mcpCall(mcp, 'grow_list_landing_pages', {})).pages).toHaveLength(0);

    const { page } = await mcpCall(mcp, 'grow_create_landing_page', {
      slug: 'welcome', title: 'New here?', blocks: [{ type: 'text', text: 'We would love to meet you.' }, { type: 'image', mediaId: image, alt: ALT }, { type: 'form', formId: form.id }],
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
    // The image is there for everyone: loaded from Steward's own address, its alt text escaped, never markup.
    const picture = tab.getByRole('img', { name: ALT });
    await picture.waitFor();
    await tab.waitForFunction(() => Array.from(document.images).every((img) => img.complete));
    expect(await picture.evaluate((img: HTMLImageElement) => ({ width: img.naturalWidth, src: new URL(img.src).pathname })))
      .toEqual({ width: 24, src: `/media/files/${org.orgId}/${image}` });
    expect(await tab.locator('b').count()).toBe(0);
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

    // Made private after publishing: the page leaves it out rather than link a file strangers may no longer load.
    await mcpCall(mcp, 'platform_update_media_library_file', { mediaId: image, isPublic: false });
    await tab.goto(address);
    expect(await tab.getByRole('img').count()).toBe(0);
    expect(await tab.getByRole('heading', { level: 1 }).textContent()).toBe('New here?');
    await context.close();
  });
});
