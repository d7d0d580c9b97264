import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTenantTransaction } from '../../../db/pool';
import { renderForSend } from '../services';
import { whatsAppReviewWorkflowId } from '../whatsapp-review';
import type { MessagingSandbox } from '../../../sandbox/messaging/server';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';

/**
 * WhatsApp template review end to end: a version is submitted to the messaging sandbox (Meta Cloud
 * API shapes), its review is mirrored by a workflow that waits for the signed status webhook and
 * falls back to polling the provider, and only an approved version can be activated and rendered.
 */
describe('templates: WhatsApp review', () => {
  let harness: Harness;
  let sandbox: MessagingSandbox;
  let org: TestOrg;
  let owner: McpClient;
  let contactId: string;
  const pollEnv = ['TEMPLATES_WHATSAPP_POLL_FIRST_MS', 'TEMPLATES_WHATSAPP_POLL_MAX_MS'] as const;

  beforeAll(async () => {
    // Its own stack: the worker calls the WhatsApp provider this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    sandbox = await startTestMessagingSandbox(harness.url);
    org = await harness.createOrg({ name: 'St Anne' });
    owner = await harness.mcpClient(org.apiKey);
    contactId = (await mcpCall(owner, 'people_create_contact', { firstName: 'Margaret', lastName: 'Hill' })).contact.id;
  });

  afterAll(async () => {
    for (const key of pollEnv) delete process.env[key];
    await owner?.close();
    await sandbox?.close();
    await harness?.close();
  });

  /** The review workflow reads these when it starts: a long first wait means only the webhook can decide in time. */
  const polling = (firstMs: number) => {
    process.env.TEMPLATES_WHATSAPP_POLL_FIRST_MS = String(firstMs);
    process.env.TEMPLATES_WHATSAPP_POLL_MAX_MS = String(firstMs);
  };

  let counter = 0;
  const whatsAppTemplate = async (body = 'Hello {{first_name}}, you are on the {{rota}} rota on Sunday. Thank you!') => {
    counter += 1;
    return mcpCall(owner, 'templates_create_template', {
      name: `Rota reminder ${counter}`, channel: 'whatsapp', purpose: 'service', subject: 'Rota reminder', body,
      variables: [{ name: 'rota', example: 'welcome team' }],
    });
  };
  const versionOf = async (templateId: string) => (await mcpCall(owner, 'templates_get_template', { templateId })).versions[0];
  const render = (templateId: string) => withTenantTransaction(harness.pool, org.orgId, (db) => renderForSend(db, org.orgId, { templateId, contactId, channel: 'whatsapp', variables: { rota: 'tea' } }));
  const reviewResult = (versionId: string) => harness.temporal.workflow.getHandle(whatsAppReviewWorkflowId(versionId)).result();

  it('submit → pending → the signed status webhook approves it → it can be activated and rendered', async () => {
    polling(10 * 60_000);
    const { template, version } = await whatsAppTemplate();
    const notSubmitted = await mcpRefusal(owner, 'templates_activate_version', { versionId: version.id });
    expect(notSubmitted).toMatchObject({ code: 'conflict' });
    expect(notSubmitted.hint).toMatch(/templates_submit_whatsapp_template/);

    const submitted = await mcpCall(owner, 'templates_submit_whatsapp_template', { versionId: version.id });
    expect(submitted.version.whatsapp).toMatchObject({ status: 'pending', name: `rota_reminder_${counter}_v1`, category: 'UTILITY' });
    const providerId = submitted.version.whatsapp.providerTemplateId;
    const atProvider = sandbox.templates().find((t) => t.id === providerId)!;
    expect(atProvider).toMatchObject({ name: `rota_reminder_${counter}_v1`, language: 'en_GB', category: 'UTILITY', status: 'PENDING' });
    expect(JSON.stringify(atProvider.components)).toContain('"body_text_named_params":[{"param_name":"first_name","example":"Sam"},{"param_name":"rota","example":"welcome team"}]');

    // Submitting again names the same provider template and sends nothing more.
    const count = sandbox.templates().length;
    expect((await mcpCall(owner, 'templates_submit_whatsapp_template', { versionId: version.id })).version.whatsapp.providerTemplateId).toBe(providerId);
    expect(sandbox.templates()).toHaveLength(count);

    expect((await mcpRefusal(owner, 'templates_activate_version', { versionId: version.id })).message).toMatch(/review: pending/);

    const webhook = await sandbox.setTemplateStatus(providerId, 'APPROVED');
    expect(webhook?.status).toBe(200);
    expect(await versionOf(template.id)).toMatchObject({ status: 'approved', whatsapp: { status: 'approved' } });
    // The review's first look counts as a poll, whether it came before the webhook decided it or after.
    expect(await reviewResult(version.id)).toEqual({ versionId: version.id, status: 'approved', polls: 1 });

    await mcpCall(owner, 'templates_activate_version', { versionId: version.id });
    const rendered = await render(template.id);
    expect(rendered.text).toBe('Hello Margaret, you are on the tea rota on Sunday. Thank you!');
    expect(rendered.whatsapp).toEqual({
      name: `rota_reminder_${counter}_v1`, language: { code: 'en_GB' },
      components: [{ type: 'body', parameters: [{ type: 'text', parameter_name: 'first_name', text: 'Margaret' }, { type: 'text', parameter_name: 'rota', text: 'tea' }] }],
    });

    // WhatsApp pausing an approved template stops sends with it until it is approved again.
    await sandbox.setTemplateStatus(providerId, 'PAUSED', { reason: 'low quality' });
    expect((await versionOf(template.id)).whatsapp).toMatchObject({ status: 'paused', reason: 'low quality' });
    await expect(render(template.id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('with no webhook, the workflow finds the approval by polling the provider', async () => {
    polling(300);
    const { template, version } = await whatsAppTemplate();
    const submitted = await mcpCall(owner, 'templates_submit_whatsapp_template', { versionId: version.id });
    expect(await sandbox.setTemplateStatus(submitted.version.whatsapp.providerTemplateId, 'APPROVED', { webhook: false })).toBeNull();
    const result = await reviewResult(version.id);
    expect(result).toMatchObject({ status: 'approved' });
    expect(result.polls).toBeGreaterThanOrEqual(1);
    expect(await versionOf(template.id)).toMatchObject({ status: 'approved', whatsapp: { status: 'approved' } });
    expect((await mcpCall(owner, 'templates_activate_version', { versionId: version.id })).version.status).toBe('active');
  });

  it('a rejection is mirrored with its reason; the version cannot be activated and a late PENDING changes nothing', async () => {
    polling(10 * 60_000);
    const { template, version } = await whatsAppTemplate();
    const submitted = await mcpCall(owner, 'templates_submit_whatsapp_template', { versionId: version.id });
    const providerId = submitted.version.whatsapp.providerTemplateId;
    await sandbox.setTemplateStatus(providerId, 'REJECTED', { reason: 'INVALID_FORMAT' });
    expect(await versionOf(template.id)).toMatchObject({ status: 'draft', whatsapp: { status: 'rejected', reason: 'INVALID_FORMAT' } });
    expect(await reviewResult(version.id)).toMatchObject({ status: 'rejected', polls: 1 });
    const refusal = await mcpRefusal(owner, 'templates_activate_version', { versionId: version.id });
    expect(refusal.message).toMatch(/review: rejected/);
    await sandbox.setTemplateStatus(providerId, 'PENDING');
    expect((await versionOf(template.id)).whatsapp.status).toBe('rejected');
  });

  it('refuses to submit what WhatsApp would reject, and non-WhatsApp templates; nothing reaches the provider', async () => {
    const before = sandbox.templates().length;
    const edge = await whatsAppTemplate('{{first_name}}, you are on the {{rota}} rota');
    const refusal = await mcpRefusal(owner, 'templates_submit_whatsapp_template', { versionId: edge.version.id });
    expect(refusal.code).toBe('validation_failed');
    expect(refusal.issues.map((issue: { message: string }) => issue.message).join(' ')).toMatch(/starts or ends with a variable/);
    const sms = await mcpCall(owner, 'templates_create_template', { name: 'Plain SMS', channel: 'sms', purpose: 'service', body: 'Hi' });
    expect((await mcpRefusal(owner, 'templates_submit_whatsapp_template', { versionId: sms.version.id })).code).toBe('validation_failed');
    expect(sandbox.templates()).toHaveLength(before);
  });

  it('a status webhook for a template nobody here submitted changes nothing', async () => {
    const stray = await fetch(`${sandbox.url}/v21.0/${sandbox.config.wabaId}/message_templates`, {
      method: 'POST', headers: { authorization: `Bearer ${sandbox.config.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stray', language: 'en_GB', category: 'UTILITY', components: [] }),
    }).then((response) => response.json()) as { id: string };
    const webhook = await sandbox.setTemplateStatus(stray.id, 'APPROVED');
    expect(webhook?.status).toBe(200);
    expect(JSON.parse(webhook!.body)).toEqual({ ok: true, ignored: 'unknown_template' });
    // Not remembered: the same event again is still unknown, not a replay.
    expect(JSON.parse((await sandbox.replay(sandbox.lastWebhook()!)).body)).toEqual({ ok: true, ignored: 'unknown_template' });
  });

  it('a decision that overtakes the submission is found by the review\'s first look, and its webhook matches when resent', async () => {
    polling(10 * 60_000);
    const { template, version } = await whatsAppTemplate();
    // The provider approves at once: its webhook arrives while the create is still answering, before Steward has recorded the template.
    sandbox.decideNextTemplate('APPROVED');
    const submitted = await mcpCall(owner, 'templates_submit_whatsapp_template', { versionId: version.id });
    const early = sandbox.lastWebhook()!;
    expect(JSON.parse(early.body).entry[0].changes[0].value.message_template_id).toBe(Number(submitted.version.whatsapp.providerTemplateId));
    // It did overtake the submission: it matched nothing then.
    expect(sandbox.lastWebhookAnswer()).toMatchObject({ status: 200 });
    expect(JSON.parse(sandbox.lastWebhookAnswer()!.body)).toEqual({ ok: true, ignored: 'unknown_template' });
    expect(submitted.version.whatsapp.status).toBe('pending');

    // With a first wait of ten minutes, only the look before it can find the decision in time.
    let giveUp: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([reviewResult(version.id), new Promise((resolve) => { giveUp = setTimeout(() => resolve('still waiting'), 30_000); })]);
    clearTimeout(giveUp);
    expect(inTime).toEqual({ versionId: version.id, status: 'approved', polls: 1 });
    expect(await versionOf(template.id)).toMatchObject({ status: 'approved', whatsapp: { status: 'approved' } });

    // The early webhook matched nothing and was not remembered, so a second delivery of it is taken (changing nothing now), and only then is a replay.
    expect(JSON.parse((await sandbox.replay(early)).body)).toEqual({ ok: true, applied: 1 });
    expect(JSON.parse((await sandbox.replay(early)).body)).toEqual({ ok: true, ignored: 'replay' });
  });
});
