import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import { renderForSend } from '../services';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { seedTaggedContacts } from '../../channels/__tests__/broadcast-seed';

/**
 * Templates end to end over MCP: create → preview → validate → activate; a new version while one
 * is active (the old one stays active until the new one is activated); diff; archive. Placeholders
 * never reach a recipient unfilled, merge data is escaped in HTML, concurrent activations leave
 * exactly one active version, and another organisation's ids behave as missing.
 */
describe('templates: versions, preview, validation, activation', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let otherMcp: McpClient;
  let margaret: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    margaret = (await mcpCall(owner, 'people_create_contact', { firstName: 'Margaret', lastName: '<b>Hill</b>' })).contact.id;
  });

  afterAll(async () => {
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  const render = (input: Parameters<typeof renderForSend>[2], orgId = org.orgId) =>
    withTenantTransaction(harness.pool, orgId, (db) => renderForSend(db, orgId, input));

  describe('an SMS template from draft to active, and a second version', () => {
    let templateId: string;
    let v1: string;
    let v2: string;

    it('creates a template with its first version as a draft', async () => {
      const created = await mcpCall(owner, 'templates_create_template', {
        name: 'Rota reminder', channel: 'sms', purpose: 'service',
        body: 'Hi {{first_name}}, you are on the {{rota}} rota this Sunday at {{ time }}. {{organisation_name}}',
        variables: [{ name: 'rota', example: 'welcome' }, { name: 'time', example: '10:30' }],
      });
      templateId = created.template.id;
      v1 = created.version.id;
      expect(created.template).toMatchObject({ name: 'Rota reminder', channel: 'sms', purpose: 'service', locale: 'en-GB', activeVersion: null, latestVersionNumber: 1 });
      expect(created.version).toMatchObject({ number: 1, status: 'draft', whatsapp: null });
    });

    it('refuses a second live template with the same name (any case)', async () => {
      const refusal = await mcpRefusal(owner, 'templates_create_template', { name: 'ROTA REMINDER', channel: 'sms', purpose: 'service', body: 'Hello' });
      expect(refusal.code).toBe('conflict');
    });

    it('previews with the contact, the given values and the examples, counting SMS segments', async () => {
      const preview = await mcpCall(owner, 'templates_render_preview', { versionId: v1, contactId: margaret, variables: { time: '9:15' } });
      expect(preview.ready).toBe(true);
      expect(preview.rendered.text).toBe('Hi Margaret, you are on the welcome rota this Sunday at 9:15. St Anne');
      expect(preview.rendered.sms).toEqual({ encoding: 'GSM-7', characters: 69, units: 69, segments: 1, perSegment: 160 });
      expect(preview.status).toBe('draft');
      const unfilled = await mcpCall(owner, 'templates_render_preview', { versionId: v1, useExamples: false, variables: { rota: 'tea' } });
      expect(unfilled).toMatchObject({ ready: false, rendered: null, missingVariables: ['first_name', 'time', 'organisation_name'] });
    });

    it('cannot be sent before a version is active', async () => {
      await expect(render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: 'tea', time: '9' } })).rejects.toMatchObject({ code: 'conflict' });
    });

    it('validates a clean draft into approved, then activates it', async () => {
      const validated = await mcpCall(owner, 'templates_validate_version', { versionId: v1 });
      expect(validated).toMatchObject({ valid: true, errors: [], version: { status: 'approved' } });
      const activated = await mcpCall(owner, 'templates_activate_version', { versionId: v1 });
      expect(activated).toMatchObject({ changed: true, previous: null, version: { status: 'active' } });
      const again = await mcpCall(owner, 'templates_activate_version', { versionId: v1 });
      expect(again.changed).toBe(false);
    });

    it('renders the active version for a send, and refuses when a variable is missing (never "Hi {{first_name}}")', async () => {
      const rendered = await render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: 'tea', time: '11:00' } });
      expect(rendered).toMatchObject({ versionId: v1, templateId, purpose: 'service', subject: null, html: null, sms: { segments: 1 } });
      expect(rendered.text).toBe('Hi Margaret, you are on the tea rota this Sunday at 11:00. St Anne');
      await expect(render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: 'tea' } }))
        .rejects.toMatchObject({ code: 'validation_failed', details: { missing: ['time'] } });
      await expect(render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: '  ', time: '9' } }))
        .rejects.toMatchObject({ details: { missing: ['rota'] } });
      await expect(render({ templateId, contactId: margaret, channel: 'email', variables: { rota: 'tea', time: '9' } }))
        .rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('a new version leaves the active one active (and unchanged) until it is activated', async () => {
      const created = await mcpCall(owner, 'templates_create_version', { templateId, body: 'Hi {{first_name}}, you are on the {{rota}} rota this Sunday at {{time}}.\nPlease arrive 15 minutes early. 😊' });
      v2 = created.version.id;
      expect(created).toMatchObject({ basedOn: { id: v1, number: 1 }, version: { number: 2, status: 'draft' } });
      expect(created.version.variables.map((variable: { name: string }) => variable.name)).toEqual(['rota', 'time']);
      const { template } = await mcpCall(owner, 'templates_get_template', { templateId });
      expect(template.activeVersion).toEqual({ id: v1, number: 1 });
      expect((await render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: 'tea', time: '9' } })).versionId).toBe(v1);

      const preview = await mcpCall(owner, 'templates_render_preview', { versionId: v2 });
      expect(preview.rendered.sms).toMatchObject({ encoding: 'UCS-2', segments: 2, perSegment: 67 });
      expect(preview.warnings.map((warning: { code: string }) => warning.code)).toContain('sms_unicode');

      const activated = await mcpCall(owner, 'templates_activate_version', { versionId: v2 });
      expect(activated).toMatchObject({ changed: true, previous: { id: v1, number: 1 }, version: { status: 'active', number: 2 } });
      const { versions } = await mcpCall(owner, 'templates_get_template', { templateId });
      expect(versions.map((version: { number: number; status: string }) => [version.number, version.status])).toEqual([[2, 'active'], [1, 'archived']]);
      expect((await mcpRefusal(owner, 'templates_activate_version', { versionId: v1 })).code).toBe('conflict');
    });

    it('an approved or active version is never edited in place: the database refuses it', async () => {
      await expect(withTenantTransaction(harness.pool, org.orgId, (db) => db.query("UPDATE template_versions SET body = 'changed' WHERE id = $1", [v2])))
        .rejects.toThrow(/never changes/);
    });

    it('diffs two versions line by line', async () => {
      const diff = await mcpCall(owner, 'templates_diff_versions', { fromVersionId: v1, toVersionId: v2 });
      expect(diff.changed).toBe(true);
      expect(diff.body).toEqual([
        { kind: 'removed', lines: ['Hi {{first_name}}, you are on the {{rota}} rota this Sunday at {{ time }}. {{organisation_name}}'] },
        { kind: 'added', lines: ['Hi {{first_name}}, you are on the {{rota}} rota this Sunday at {{time}}.', 'Please arrive 15 minutes early. 😊'] },
      ]);
      expect(diff.variables).toEqual({ added: [], removed: [], changed: [] });
      const same = await mcpCall(owner, 'templates_diff_versions', { fromVersionId: v2, toVersionId: v2 });
      expect(same.changed).toBe(false);
    });

    it('lists templates with their active version', async () => {
      const list = await mcpCall(owner, 'templates_list_templates', { channel: 'sms' });
      expect(list.templates).toEqual([expect.objectContaining({ id: templateId, activeVersion: { id: v2, number: 2 }, latestVersionNumber: 2 })]);
      expect((await mcpCall(owner, 'templates_list_templates', { channel: 'email', nameContains: 'rota' })).templates).toEqual([]);
    });

    it('archives the template: nothing renders from it any more and its name is free', async () => {
      const archived = await mcpCall(owner, 'templates_archive_template', { templateId });
      expect(archived.template.archived).toBe(true);
      await expect(render({ templateId, contactId: margaret, channel: 'sms', variables: { rota: 'tea', time: '9' } })).rejects.toMatchObject({ code: 'not_found' });
      expect((await mcpCall(owner, 'templates_archive_template', { templateId })).template.archived).toBe(true);
      expect((await mcpCall(owner, 'templates_list_templates', {})).templates.map((t: { id: string }) => t.id)).not.toContain(templateId);
      await mcpCall(owner, 'templates_create_template', { name: 'Rota reminder', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}' });
    });
  });

  describe('email: escaping, lint and syntax', () => {
    it('HTML-escapes merge data in the HTML part only', async () => {
      const created = await mcpCall(owner, 'templates_create_template', {
        name: 'Welcome email', channel: 'email', purpose: 'service', subject: 'Welcome, {{full_name}}',
        body: 'Dear {{first_name}} {{last_name}},\nWelcome to {{organisation_name}}.', html: '<p>Dear {{first_name}} {{last_name}},</p><p>{{note}}</p>',
        variables: [{ name: 'note', example: 'See you Sunday' }],
      });
      await mcpCall(owner, 'templates_activate_version', { versionId: created.version.id });
      const rendered = await render({ templateId: created.template.id, contactId: margaret, channel: 'email', variables: { note: 'Tea & cake <after>' } });
      expect(rendered.subject).toBe('Welcome, Margaret <b>Hill</b>');
      expect(rendered.text).toBe('Dear Margaret <b>Hill</b>,\nWelcome to St Anne.');
      expect(rendered.html).toBe('<p>Dear Margaret &lt;b&gt;Hill&lt;/b&gt;,</p><p>Tea &amp; cake &lt;after&gt;</p>');
    });

    it('lints a marketing email: unsubscribe wording, link shorteners, variables without examples, unused ones', async () => {
      const created = await mcpCall(owner, 'templates_create_template', {
        name: 'Harvest appeal', channel: 'email', purpose: 'marketing', subject: 'Harvest',
        body: 'Dear {{first_name}}, give at https://bit.ly/harvest - {{amount}}', variables: [{ name: 'amount' }, { name: 'unused', example: 'x' }],
      });
      const result = await mcpCall(owner, 'templates_validate_version', { versionId: created.version.id });
      expect(result.valid).toBe(true);
      expect(result.warnings.map((warning: { code: string }) => warning.code).sort())
        .toEqual(['missing_unsubscribe_wording', 'unused_variable', 'url_shortener', 'variable_without_example']);
    });

    it('refuses unknown placeholder syntax and undeclared variables; such a version cannot be activated', async () => {
      const created = await mcpCall(owner, 'templates_create_template', {
        name: 'Broken', channel: 'email', purpose: 'service', subject: 'Hi', body: 'Hello {{#if first_name}}{{first_name}}{{/if}} and {{nickname}} and {{{raw}}} and {{ unclosed',
      });
      const result = await mcpCall(owner, 'templates_validate_version', { versionId: created.version.id });
      expect(result.valid).toBe(false);
      expect(result.version.status).toBe('draft');
      const codes = result.errors.map((error: { code: string }) => error.code);
      expect(codes.filter((code: string) => code === 'syntax')).toHaveLength(4);
      expect(codes).toContain('undeclared_variable');
      const refusal = await mcpRefusal(owner, 'templates_activate_version', { versionId: created.version.id });
      expect(refusal.code).toBe('validation_failed');
      expect(refusal.issues.length).toBeGreaterThanOrEqual(5);
      const preview = await mcpCall(owner, 'templates_render_preview', { versionId: created.version.id });
      expect(preview).toMatchObject({ ready: false, rendered: null });
    });

    it('an email needs a subject; an SMS has no HTML', async () => {
      const email = await mcpCall(owner, 'templates_create_template', { name: 'No subject', channel: 'email', purpose: 'service', body: 'Hi' });
      expect((await mcpCall(owner, 'templates_validate_version', { versionId: email.version.id })).errors.map((e: { code: string }) => e.code)).toEqual(['email_subject_required']);
      const sms = await mcpCall(owner, 'templates_create_template', { name: 'Sms html', channel: 'sms', purpose: 'service', body: 'Hi', html: '<p>Hi</p>' });
      expect((await mcpCall(owner, 'templates_validate_version', { versionId: sms.version.id })).errors.map((e: { code: string }) => e.code)).toEqual(['html_not_allowed']);
    });
  });

  it('archiving is refused while a scheduled broadcast uses the template, and allowed once it is cancelled', async () => {
    const created = await mcpCall(owner, 'templates_create_template', { name: 'Notice', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}, the hall is closed on Saturday.' });
    await mcpCall(owner, 'templates_activate_version', { versionId: created.version.id });
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Hall users', count: 3, firstNumber: 700 });
    const preview = await mcpCall(owner, 'channels_preview_broadcast', {
      name: 'Hall closed', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, templateId: created.template.id,
    }, { approvalWaitMs: 0 });
    const broadcastId = preview.broadcast.id;
    const scheduled = await mcpCall(owner, 'channels_schedule_broadcast', {
      broadcastId, previewHash: preview.previewHash, sendAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    }, { approvalWaitMs: 0 });
    expect(scheduled.broadcast.status).toBe('scheduled');
    const refusal = await mcpRefusal(owner, 'templates_archive_template', { templateId: created.template.id });
    expect(refusal).toMatchObject({ code: 'conflict', details: { scheduledBroadcasts: 1 } });
    expect(refusal.hint).toMatch(/channels_cancel_broadcast/);
    expect((await mcpCall(owner, 'templates_get_template', { templateId: created.template.id })).template.archived).toBe(false);
    await mcpCall(owner, 'channels_cancel_broadcast', { broadcastId });
    expect((await mcpCall(owner, 'templates_archive_template', { templateId: created.template.id })).template.archived).toBe(true);
  });

  it('concurrent activations of different versions leave exactly one active', async () => {
    const created = await mcpCall(owner, 'templates_create_template', { name: 'Race', channel: 'sms', purpose: 'service', body: 'Version one' });
    const templateId = created.template.id;
    const ids = [created.version.id];
    for (let i = 2; i <= 6; i += 1) ids.push((await mcpCall(owner, 'templates_create_version', { templateId, body: `Version ${i}` })).version.id);
    const results = await Promise.allSettled(ids.map((versionId) => mcpCall(owner, 'templates_activate_version', { versionId })));
    const { versions } = await mcpCall(owner, 'templates_get_template', { templateId });
    const active = versions.filter((version: { status: string }) => version.status === 'active');
    expect(active).toHaveLength(1);
    // Each activation either won in turn (archiving the one before) or found its version archived meanwhile.
    for (const result of results) if (result.status === 'rejected') expect(String(result.reason)).toMatch(/archived/);
    const { rows } = await harness.pool.query("SELECT count(*)::int AS n FROM template_versions WHERE template_id = $1 AND status = 'active'", [templateId]);
    expect(rows[0].n).toBe(1);
  });

  it('a second version numbered under concurrency gets distinct numbers', async () => {
    const created = await mcpCall(owner, 'templates_create_template', { name: 'Numbers', channel: 'sms', purpose: 'service', body: 'v1' });
    const made = await Promise.all([2, 3, 4, 5].map((i) => mcpCall(owner, 'templates_create_version', { templateId: created.template.id, body: `v${i}` })));
    expect(made.map((result) => result.version.number).sort()).toEqual([2, 3, 4, 5]);
  });

  it('another organisation\'s template, version or contact behaves as missing', async () => {
    const created = await mcpCall(owner, 'templates_create_template', { name: 'Private', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}' });
    await mcpCall(owner, 'templates_activate_version', { versionId: created.version.id });
    for (const [tool, args] of [
      ['templates_get_template', { templateId: created.template.id }],
      ['templates_create_version', { templateId: created.template.id, body: 'x' }],
      ['templates_render_preview', { versionId: created.version.id }],
      ['templates_validate_version', { versionId: created.version.id }],
      ['templates_activate_version', { versionId: created.version.id }],
      ['templates_archive_template', { templateId: created.template.id }],
      ['templates_diff_versions', { fromVersionId: created.version.id, toVersionId: created.version.id }],
    ] as const) {
      expect((await mcpRefusal(otherMcp, tool, args)).code).toBe('not_found');
    }
    await expect(render({ templateId: created.template.id, contactId: margaret, channel: 'sms' }, other.orgId)).rejects.toMatchObject({ code: 'not_found' });
    const foreignContact = (await mcpCall(otherMcp, 'people_create_contact', { firstName: 'Zed', lastName: 'Other' })).contact.id;
    await expect(render({ templateId: created.template.id, contactId: foreignContact, channel: 'sms' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
