import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import type { TestSmtpServer } from '../../../test/helpers/message-servers';
import { type GrowMailStack, decoded, eventually, growMailStack, subjectOf } from './mail-text';
import { stewardEventSignature } from '../../channels/delivery/signatures';
import { TEST_SENDS_PER_CAMPAIGN_PER_HOUR } from '../test-email';
import { postForm } from './forms-http';

jest.setTimeout(300_000);

/**
 * Over MCP, HTTP and a real SMTP server: a campaign's test email (marked, untracked, never in the
 * report, rate-limited under concurrent calls), a form whose submission sends its follow-up email
 * (not to a suppressed address), opens a prayer request and asks to join a small group, and a
 * campaign report counting the mail provider's hard and soft bounces and complaints.
 */
describe('grow: test emails, submission follow-ups, bounces in the report', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let smtp: TestSmtpServer;
  let stack: GrowMailStack;
  const local = (publicUrl: string) => `${harness.url}${new URL(publicUrl).pathname}`;

  beforeAll(async () => {
    stack = await growMailStack({ EMAIL_EVENTS_SECRET: 'grow-events-secret' });
    ({ harness, smtp, org, other, mcp, otherMcp } = stack);
  });

  afterAll(async () => {
    await stack?.close();
  });

  async function taggedPeople(count: number, tag: string, consent: boolean[]): Promise<{ tagId: string; people: string[] }> {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, tag]);
    const people: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { contact } = await mcpCall(mcp, 'people_create_contact', { firstName: `${tag.replace(/\W/g, '')}${i}`, lastName: 'Reader', email: `${tag.replace(/\W/g, '').toLowerCase()}${i}@example.org` });
      people.push(contact.id);
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, contact.id, tagId]);
      if (consent[i]) await mcpCall(mcp, 'channels_record_consent', { contactId: contact.id, channel: 'email', purpose: 'marketing', source: 'website form', wording: 'Send me church news' });
    }
    return { tagId, people };
  }

  it('sends a marked, untracked test that the report never counts, and limits tests under concurrent calls', async () => {
    const { tagId } = await taggedPeople(2, 'Newsletter', [true, true]);
    const { contact: staff } = await mcpCall(mcp, 'people_create_contact', { firstName: 'Vicar', lastName: 'Jones', email: 'vicar@stanne.example.org' });
    const { contact: noConsent } = await mcpCall(mcp, 'people_create_contact', { firstName: 'Never', lastName: 'Asked', email: 'never@example.org' });
    await mcpCall(mcp, 'channels_record_consent', { contactId: staff.id, channel: 'email', purpose: 'marketing', source: 'staff', wording: 'Send me church news' });
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', {
      name: 'Advent news', audience: { kind: 'tag', id: tagId }, subject: 'Advent at St Anne', body: 'Four Sundays of candles.\n\nSee https://example.org/advent for times.',
    });

    const sent = await mcpCall(mcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: staff.id });
    expect(sent).toMatchObject({ campaignId: campaign.id, contactId: staff.id, variant: 0, subject: '[Test] Advent at St Anne', created: true });
    const [mail] = await eventually(() => smtp.delivered.slice(), (d) => d.length >= 1);
    expect(mail!.to).toEqual(['vicar@stanne.example.org']);
    expect(subjectOf(mail!.raw)).toBe('[Test] Advent at St Anne');
    const text = decoded(mail!.raw);
    expect(text).toContain('This is a test of the campaign "Advent news"');
    expect(text).toContain('https://example.org/advent');
    expect(text).not.toContain('/grow/c/');
    expect(text).not.toContain('/grow/o/');
    const message = await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id });
    expect(message.message).toMatchObject({ subject: '[Test] Advent at St Anne' });

    // Never in the report: no recipient, nothing handed.
    const report = await mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id });
    expect(report.totals).toMatchObject({ recipients: 0, handed: 0 });

    // Refusals change nothing: no consent, a variant the campaign lacks, another organisation's campaign.
    expect((await mcpRefusal(mcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: noConsent.id })).details.reason).toBe('no_consent');
    expect((await mcpRefusal(mcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: staff.id, variant: 2 })).code).toBe('validation_failed');
    expect((await mcpRefusal(otherMcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: staff.id })).code).toBe('not_found');
    const { rows: [{ n: afterRefusals }] } = await harness.pool.query('SELECT count(*)::int AS n FROM grow_campaign_test_sends WHERE campaign_id = $1', [campaign.id]);
    expect(afterRefusals).toBe(1);

    // Concurrent tests: exactly the hour's limit is sent, the rest refused.
    const calls = await Promise.allSettled(Array.from({ length: TEST_SENDS_PER_CAMPAIGN_PER_HOUR }, () => mcpCall(mcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: staff.id })));
    expect(calls.filter((c) => c.status === 'fulfilled')).toHaveLength(TEST_SENDS_PER_CAMPAIGN_PER_HOUR - 1);
    const limited = await mcpRefusal(mcp, 'grow_send_test_email', { campaignId: campaign.id, contactId: staff.id });
    expect(limited.details.reason).toBe('test_limit_campaign');
    const { rows: [{ n }] } = await harness.pool.query('SELECT count(*)::int AS n FROM grow_campaign_test_sends WHERE campaign_id = $1', [campaign.id]);
    expect(n).toBe(TEST_SENDS_PER_CAMPAIGN_PER_HOUR);
    await eventually(() => smtp.delivered.length, (count) => count >= TEST_SENDS_PER_CAMPAIGN_PER_HOUR);
  });

  it('a submission sends its follow-up email, opens a prayer request and asks to join a small group', async () => {
    const { group } = await mcpCall(mcp, 'groups_create', { name: 'Wednesday home group', enrolment: 'request_to_join' });
    const { group: foreignGroup } = await mcpCall(otherMcp, 'groups_create', { name: 'Their group', enrolment: 'open' });
    const fields = [
      { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
      { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' },
      { key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' },
      { key: 'prayer', label: 'How can we pray for you?', type: 'text', required: false },
    ];
    const base = { fields, followUp: { subject: 'Thank you for getting in touch', body: 'We will pray for you this week.' } };
    // A form that creates a prayer request needs the field it comes from; a group of another organisation is missing.
    expect((await mcpRefusal(mcp, 'grow_create_form', { name: 'Bad', ...base, creates: ['contact', 'prayer_request'] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'grow_create_form', { name: 'Bad', ...base, creates: ['contact', 'group_join_request'], joinGroupId: foreignGroup.id })).code).toBe('not_found');

    const { form } = await mcpCall(mcp, 'grow_create_form', {
      name: 'Prayer and groups', ...base, creates: ['contact', 'prayer_request', 'group_join_request'], prayerField: 'prayer', joinGroupId: group.id,
    });
    expect(form).toMatchObject({ prayerField: 'prayer', joinGroupId: group.id, creates: ['contact', 'prayer_request', 'group_join_request'] });
    const { form: published } = await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const before = smtp.delivered.length;

    const posted = await postForm(local(published.publicUrl), { first_name: 'Ruth', last_name: 'Baker', email: 'ruth@example.org', prayer: 'For my mother in hospital' });
    expect(posted.status).toBe(200);
    const { submission } = await mcpCall(mcp, 'grow_get_submission', { submissionId: posted.submissionId });
    expect(submission).toMatchObject({ contactOutcome: 'created', joinOutcome: 'pending' });
    expect(submission.prayerRequestId).toEqual(expect.any(String));
    expect(submission.joinRequestId).toEqual(expect.any(String));
    expect(submission.followUpMessageId).toEqual(expect.any(String));
    const { rows: prayers } = await harness.pool.query('SELECT contact_id, request, privacy FROM prayer_requests WHERE id = $1', [submission.prayerRequestId]);
    expect(prayers).toEqual([{ contact_id: submission.contactId, request: 'For my mother in hospital', privacy: 'team' }]);
    const { rows: joins } = await harness.pool.query('SELECT group_id, contact_id, status, requested_by_user_id FROM groups_join_requests WHERE id = $1', [submission.joinRequestId]);
    expect(joins).toEqual([{ group_id: group.id, contact_id: submission.contactId, status: 'pending', requested_by_user_id: null }]);
    const followUp = (await eventually(() => smtp.delivered.slice(before), (d) => d.length >= 1))[0]!;
    expect(followUp.to).toEqual(['ruth@example.org']);
    expect(subjectOf(followUp.raw)).toBe('Thank you for getting in touch');

    // The same person again: the pending join request is reported, not doubled, and no second follow-up the same day. A suppressed address gets none.
    await mcpCall(mcp, 'channels_add_suppression', { channel: 'email', address: 'sam@example.org' });
    const again = await postForm(local(published.publicUrl), { first_name: 'Ruth', last_name: 'Baker', email: 'ruth@example.org', prayer: '' });
    const { submission: second } = await mcpCall(mcp, 'grow_get_submission', { submissionId: again.submissionId });
    expect(second).toMatchObject({ contactOutcome: 'matched', joinOutcome: 'already_pending', prayerRequestId: null, followUpMessageId: null });
    const suppressed = await postForm(local(published.publicUrl), { first_name: 'Sam', last_name: 'Hill', email: 'sam@example.org', prayer: 'Peace' });
    const { submission: third } = await mcpCall(mcp, 'grow_get_submission', { submissionId: suppressed.submissionId });
    expect(third.followUpMessageId).toBeNull();
    expect(third.prayerRequestId).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(smtp.delivered.slice(before).map((m) => m.to[0])).toEqual(['ruth@example.org']);

    // Dropping what the form creates clears its settings with it; a prayer field that is not a text question is refused.
    const { form: trimmed } = await mcpCall(mcp, 'grow_update_form', { formId: form.id, creates: ['contact'] });
    expect(trimmed).toMatchObject({ creates: ['contact'], prayerField: null, joinGroupId: null });
    expect((await mcpRefusal(mcp, 'grow_update_form', { formId: form.id, creates: ['contact', 'prayer_request'], prayerField: 'email' })).code).toBe('validation_failed');
  });

  it('dashboard routes through grow_invoke_api_read/_write and the OpenAPI document; curated writes name their tool', async () => {
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Routes form', fields: [{ key: 'email', label: 'Email', type: 'email', required: true, contactField: 'email' }] });
    const detail = await harness.call(org.apiKey, 'grow_invoke_api_read', { path: `/api/grow/forms/${form.id}` });
    expect(detail.result.form).toMatchObject({ id: form.id, name: 'Routes form', status: 'draft' });
    const listed = await harness.call(org.apiKey, 'grow_invoke_api_read', { path: '/api/grow/forms', query: { status: 'draft', limit: '5' } });
    expect(listed.result.forms.map((f: any) => f.id)).toContain(form.id);
    const submissions = await harness.call(org.apiKey, 'grow_invoke_api_read', { path: `/api/grow/forms/${form.id}/submissions` });
    expect(submissions.result).toEqual({ submissions: [], total: 0 });
    const campaigns = await harness.call(org.apiKey, 'grow_invoke_api_read', { path: '/api/grow/campaigns' });
    const advent = campaigns.result.campaigns.find((c: any) => c.name === 'Advent news');
    const tests = await harness.call(org.apiKey, 'grow_invoke_api_read', { path: `/api/grow/campaigns/${advent.id}/test-emails`, query: { limit: '3' } });
    expect(tests.result.testEmails).toHaveLength(3);
    expect(tests.result.testEmails[0]).toMatchObject({ variant: 0, messageId: expect.any(String) });

    const curatedWrite = await harness.invoke(org.apiKey, 'grow_invoke_api_write', { method: 'POST', path: `/api/grow/forms/${form.id}/publish`, body: { formId: form.id }, actionSummary: 'Publish it' });
    expect(curatedWrite.status).toBe(405);
    expect(curatedWrite.body.error?.details?.tool).toBe('grow_publish_form');
    const foreign = await harness.invoke(other.apiKey, 'grow_invoke_api_read', { path: `/api/grow/forms/${form.id}` });
    expect(foreign.body.error?.code).toBe('not_found');
    const badQuery = await harness.invoke(org.apiKey, 'grow_invoke_api_read', { path: '/api/grow/forms', query: { limit: '500' } });
    expect(badQuery.body.error?.code).toBe('validation_failed');

    const openapi = await (await fetch(`${harness.url}/api/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/api/grow/forms/{formId}'] ?? {})).toContain('get');
    expect(Object.keys(openapi.paths['/api/grow/campaigns/{campaignId}/report'] ?? {})).toContain('get');
  });

  it('counts deliveries, hard and soft bounces and complaints per campaign from the mail provider\'s events', async () => {
    const { tagId, people } = await taggedPeople(4, 'Bounce list', [true, true, true, true]);
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', { name: 'Harvest', audience: { kind: 'tag', id: tagId }, subject: 'Harvest supper', body: 'Join us on Saturday.' });
    const previewed = await mcpCall(mcp, 'grow_preview_campaign', { campaignId: campaign.id });
    const gated = await mcpRefusal(mcp, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash: previewed.previewHash }, { approvalWaitMs: 0 });
    await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    await eventually(() => mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id }), (r) => r.campaign.status === 'sent');
    const { rows } = await harness.pool.query('SELECT contact_id, message_id FROM grow_campaign_recipients WHERE campaign_id = $1', [campaign.id]);
    const messageOf = (contactId: string) => rows.find((r: { contact_id: string }) => r.contact_id === contactId)!.message_id as string;

    const post = async (event: Record<string, string>) => {
      const body = JSON.stringify(event);
      const response = await fetch(`${harness.url}/webhooks/channels/email/events`, {
        method: 'POST', body, headers: { 'content-type': 'application/json', 'x-steward-signature': stewardEventSignature('grow-events-secret', body, Math.floor(Date.now() / 1000)) },
      });
      expect(response.status).toBe(200);
    };
    // All four went through the SMTP server; handed over, none is delivered until the provider says so.
    expect(smtp.delivered.filter((m) => /^bouncelist\d@example\.org$/.test(m.to[0]!))).toHaveLength(4);
    const before = await mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id });
    expect(before.totals).toMatchObject({ handed: 4, delivered: 0 });
    expect((await mcpCall(mcp, 'channels_get_message', { messageId: messageOf(people[3]!) })).message.status).toBe('sent');
    // Delivered: the second after its soft bounce (retried), the third before its complaint, the fourth; the first bounces hard after a delivery.
    await post({ id: 'evt-delivered-0', type: 'delivery', address: 'bouncelist0@example.org', messageId: messageOf(people[0]!) });
    await post({ id: 'evt-delivered-2', type: 'delivery', address: 'bouncelist2@example.org', messageId: messageOf(people[2]!) });
    await post({ id: 'evt-delivered-3', type: 'delivery', address: 'bouncelist3@example.org', messageId: messageOf(people[3]!) });
    await post({ id: 'evt-delivered-3', type: 'delivery', address: 'bouncelist3@example.org', messageId: messageOf(people[3]!) });
    expect((await mcpCall(mcp, 'channels_get_message', { messageId: messageOf(people[3]!) })).message).toMatchObject({ status: 'delivered', deliveredAt: expect.any(String) });
    await post({ id: 'evt-hard', type: 'bounce', bounceType: 'hard', address: 'bouncelist0@example.org', messageId: messageOf(people[0]!) });
    await post({ id: 'evt-soft', type: 'bounce', bounceType: 'soft', address: 'bouncelist1@example.org', messageId: messageOf(people[1]!) });
    await post({ id: 'evt-delivered-1', type: 'delivery', address: 'bouncelist1@example.org', messageId: messageOf(people[1]!) });
    await post({ id: 'evt-complaint', type: 'complaint', address: 'bouncelist2@example.org', messageId: messageOf(people[2]!) });
    await post({ id: 'evt-complaint', type: 'complaint', address: 'bouncelist2@example.org', messageId: messageOf(people[2]!) });

    const report = await mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id });
    expect(report.totals).toMatchObject({ handed: 4, delivered: 3, hardBounced: 1, softBounced: 1, complained: 1 });
    const metric = await mcpCall(mcp, 'platform_analytics_query', { metric: 'campaign_performance' });
    expect(metric.data.campaigns).toEqual([expect.objectContaining({ campaignId: campaign.id, name: 'Harvest', sent: 4, openedUnique: 0, clickedUnique: 0, delivered: 3, bounced: 2, complained: 1 })]);
    const theirs = await mcpCall(otherMcp, 'platform_analytics_query', { metric: 'campaign_performance' });
    expect(theirs.data.campaigns).toEqual([]);
    // Other organisations' events never reach this report, and its numbers never reach theirs.
    expect((await mcpRefusal(otherMcp, 'grow_get_campaign_report', { campaignId: campaign.id })).code).toBe('not_found');
  });
});
