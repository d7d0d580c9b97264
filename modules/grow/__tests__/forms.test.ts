import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { formToken, postForm } from './forms-http';

/**
 * Forms and landing pages end to end: tools over MCP, the public pages and POSTs over HTTP. A
 * suite of its own stack, so it can move the per-address submission limit (read per request).
 */
describe('grow forms and landing pages', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  const before = process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE;

  beforeAll(async () => {
    process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE = '1000';
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    if (before === undefined) delete process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE;
    else process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE = before;
    await otherMcp?.close();
    await mcp?.close();
    await harness?.close();
  });

  const connectFields = [
    { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
    { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' },
    { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
    { key: 'heard', label: 'How did you hear of us?', type: 'choice', options: ['Friend', 'Online', 'Passing by'] },
    { key: 'news', label: 'Yes, email me the church news', type: 'consent' },
  ];
  const local = (publicUrl: string) => `${harness.url}${new URL(publicUrl).pathname}`;
  const count = async (formId: string) => (await mcpCall(mcp, 'grow_list_submissions', { formId, limit: 1 })).total as number;

  it('refuses forms that break the rules, with the field named', async () => {
    const child = await mcpRefusal(mcp, 'grow_create_form', { name: 'Kids club', fields: [...connectFields, { key: 'child_name', label: 'Child\'s name', type: 'text', aboutChild: true }] });
    expect(child.code).toBe('validation_failed');
    expect(child.message).toMatch(/guardian_consent/);
    const anonymous = await mcpRefusal(mcp, 'grow_create_form', { name: 'Survey', fields: [{ key: 'q', label: 'Question', type: 'text' }] });
    expect(anonymous.message).toMatch(/needs a field filling email/);
    const options = await mcpRefusal(mcp, 'grow_create_form', { name: 'Opts', fields: [{ key: 'e', label: 'E', type: 'email', contactField: 'email', options: ['a', 'b'] }] });
    expect(options.issues[0].path).toBe('fields.0.options');
    expect((await mcpCall(mcp, 'grow_list_forms', {})).forms).toEqual([]);
  });

  it('takes a submission, matches the person next time, never duplicates them, opens their guest card', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Connect card', fields: connectFields, creates: ['contact', 'guest_card'], thankYou: 'Thanks <b>friend</b>' });
    expect(form).toMatchObject({ status: 'draft', revision: 1, publicUrl: null });
    const { form: published } = await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    expect(published.publicUrl).toContain(`/grow/f/${org.orgId}/${form.id}`);
    const url = local(published.publicUrl);

    const page = await (await fetch(url)).text();
    expect(page).toContain('How did you hear of us?');
    // The consent box is never ticked for the person.
    expect(page).toMatch(/<input type="checkbox" id="f-news" name="news" value="yes">/);

    const first = await postForm(url, { first_name: 'Ruth', last_name: 'Okafor', email: 'Ruth@Example.org', heard: 'Friend', news: 'yes' });
    expect(first.status).toBe(200);
    expect(first.html).toContain('Thanks &lt;b&gt;friend&lt;/b&gt;');
    const { submission } = await mcpCall(mcp, 'grow_get_submission', { submissionId: first.submissionId });
    expect(submission).toMatchObject({ contactOutcome: 'created', answers: { email: 'ruth@example.org', news: true, heard: 'Friend' }, revision: 1 });
    expect(submission.guestCardId).toEqual(expect.any(String));

    const again = await postForm(url, { first_name: 'Ruth', last_name: 'Okafor', email: 'ruth@example.org' });
    const second = (await mcpCall(mcp, 'grow_get_submission', { submissionId: again.submissionId })).submission;
    expect(second).toMatchObject({ contactOutcome: 'matched', contactId: submission.contactId, guestCardId: submission.guestCardId });
    expect(second.matchedOn).toContain('email');
    const journeys = await mcpCall(mcp, 'guests_list_guest_journeys', { contactId: submission.contactId });
    expect(JSON.stringify(journeys)).toContain(submission.guestCardId);

    // Eight at once from one new person: one contact.
    const results = await Promise.all(Array.from({ length: 8 }, () => postForm(url, { first_name: 'Sam', last_name: 'Lee', email: 'sam.lee@example.org' })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const contacts = await mcpCall(mcp, 'people_search_contacts', { query: 'sam.lee@example.org' });
    expect(contacts.contacts).toHaveLength(1);
    const outcomes = await Promise.all(results.map(async (r) => (await mcpCall(mcp, 'grow_get_submission', { submissionId: r.submissionId })).submission.contactOutcome));
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);

    // Another organisation sees none of it.
    expect((await mcpRefusal(otherMcp, 'grow_get_submission', { submissionId: first.submissionId })).code).toBe('not_found');
    expect((await mcpRefusal(otherMcp, 'grow_list_submissions', { formId: form.id })).code).toBe('not_found');
    // And its address does not take another organisation's id.
    expect((await fetch(url.replace(org.orgId, other.orgId))).status).toBe(404);
  });

  it('refuses bad submissions and writes nothing', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Interest', fields: connectFields.slice(0, 3) });
    await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const url = `${harness.url}/grow/f/${org.orgId}/${form.id}`;
    const good = { first_name: 'Ann', last_name: 'Bee', email: 'ann@example.org' };

    const invalid = await postForm(url, { first_name: '<script>alert(1)</script>', last_name: 'X', email: 'not-an-email' });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(invalid.html).not.toContain('<script>');
    expect((await postForm(url, { ...good, website: 'http://spam.example' })).refusal).toBe('bot_check');
    expect((await postForm(url, good, { token: '123.abc' })).refusal).toBe('bad_token');
    const otherFormToken = await formToken(`${harness.url}/grow/f/${org.orgId}/${(await mcpCall(mcp, 'grow_list_forms', { status: 'published' })).forms.find((f: any) => f.id !== form.id).id}`);
    expect((await postForm(url, good, { token: otherFormToken })).refusal).toBe('bad_token');
    expect((await postForm(url, good, { origin: 'https://evil.example' })).refusal).toBe('cross_site');
    expect((await postForm(url, good, { headers: { 'sec-fetch-site': 'cross-site' } })).refusal).toBe('cross_site');
    const big = await postForm(url, good, { body: `first_name=${'a'.repeat(20_000)}` });
    expect(big.status).toBe(413);
    expect(big.refusal).toBe('too_large');
    expect((await postForm(url, good, { headers: { 'content-type': 'application/json' } })).status).toBe(415);
    expect(await count(form.id)).toBe(0);

    // Too many from one address: refused before anything is read.
    const token = await formToken(url);
    process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE = '1';
    try {
      const limited = await postForm(url, good, { token });
      expect(limited.status).toBe(429);
      expect(limited.refusal).toBe('rate_limited');
    } finally {
      process.env.GROW_PUBLIC_SUBMISSIONS_PER_MINUTE = '1000';
    }
    expect(await count(form.id)).toBe(0);

    // Closed: no more answers.
    await mcpCall(mcp, 'grow_close_form', { formId: form.id });
    expect((await postForm(url, good, { token })).status).toBe(410);
    expect((await fetch(url)).status).toBe(410);
    expect(await count(form.id)).toBe(0);
  });

  it('keeps answers under the revision they answered, and exports CSV safely', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Prayer', fields: connectFields.slice(0, 3) });
    await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const url = `${harness.url}/grow/f/${org.orgId}/${form.id}`;
    await postForm(url, { first_name: '=HYPERLINK("x")', last_name: 'Doe', email: 'jo@example.org' });
    const updated = await mcpCall(mcp, 'grow_update_form', { formId: form.id, fields: [...connectFields.slice(0, 3), { key: 'request', label: 'Your prayer request', type: 'text' }] });
    expect(updated).toMatchObject({ newRevision: true, form: { revision: 2 } });
    await postForm(url, { first_name: 'Kim', last_name: 'Doe', email: 'kim@example.org', request: 'For my "mum"' });
    const { submissions } = await mcpCall(mcp, 'grow_list_submissions', { formId: form.id });
    expect(submissions.map((s: any) => [s.revision, s.questions.length])).toEqual([[2, 4], [1, 3]]);
    const { csv, rows } = await mcpCall(mcp, 'grow_export_submissions', { formId: form.id });
    expect(rows).toBe(2);
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('"submitted_at","submission_id","revision","first_name","last_name","email","request","contact_id","contact_outcome","guest_card_id"');
    expect(lines[1]).toContain('"\'=HYPERLINK(""x"")"');
    expect(lines[2]).toContain('"For my ""mum"""');
    const metric = await mcpCall(mcp, 'platform_analytics_query', { metric: 'form_submissions' });
    expect(metric.data.forms.find((f: any) => f.formId === form.id)).toMatchObject({ name: 'Prayer', submissions: 2, newContacts: 2, matchedContacts: 0 });
  });

  it('serves a landing page only once a person approves publishing it, counting views and conversions', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Christmas', fields: connectFields.slice(0, 3) });
    await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const { page } = await mcpCall(mcp, 'grow_create_landing_page', {
      slug: 'christmas', title: 'Christmas at St Anne <3',
      blocks: [{ type: 'heading', text: 'Carols & candles' }, { type: 'text', text: 'Join us.\n\nAll welcome.' }, { type: 'form', formId: form.id }, { type: 'button', label: 'Directions', href: 'https://maps.example.org/st-anne' }],
    });
    expect((await mcpRefusal(mcp, 'grow_create_landing_page', { slug: 'christmas', title: 'Again', blocks: [{ type: 'text', text: 'x' }] })).details.reason).toBe('slug_taken');
    expect((await mcpRefusal(mcp, 'grow_create_landing_page', { slug: 'bad', title: 'Bad', blocks: [{ type: 'button', label: 'Go', href: 'javascript:alert(1)' }] })).code).toBe('validation_failed');
    const address = `${harness.url}/grow/p/${org.orgId}/christmas`;
    expect((await fetch(address)).status).toBe(404);

    const gated = await mcpRefusal(mcp, 'grow_publish_landing_page', { pageId: page.id }, { approvalWaitMs: 0 });
    expect(gated.code).toBe('approval_required');
    expect((await fetch(address)).status).toBe(404);
    const decided = await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided.execution.result.page.status).toBe('published');

    const served = await fetch(address);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(served.headers.get('set-cookie')).toBeNull();
    const html = await served.text();
    expect(html).toContain('<h1>Christmas at St Anne &lt;3</h1>');
    expect(html).toContain('Carols &amp; candles');
    expect(html).toContain(`name="_page" value="${page.id}"`);
    await fetch(address);
    const token = /name="_token" value="([^"]+)"/.exec(html)![1]!;
    const sent = await postForm(`${harness.url}/grow/f/${org.orgId}/${form.id}`, { first_name: 'Lia', last_name: 'Ng', email: 'lia@example.org', _page: page.id }, { token });
    expect(sent.status).toBe(200);
    const stats = await mcpCall(mcp, 'grow_get_page_stats', { pageId: page.id });
    expect(stats).toMatchObject({ views: 2, submissions: 1, conversionRate: 0.5 });

    const overview = await mcpCall(mcp, 'platform_overview', {});
    expect(overview.grow).toEqual({ publishedForms: expect.any(Number), publishedLandingPages: 1 });
    expect((await mcpRefusal(otherMcp, 'grow_get_page_stats', { pageId: page.id })).code).toBe('not_found');
    expect((await fetch(address.replace(org.orgId, other.orgId))).status).toBe(404);

    await mcpCall(mcp, 'grow_unpublish_landing_page', { pageId: page.id });
    expect((await fetch(address)).status).toBe(404);
  });
});
