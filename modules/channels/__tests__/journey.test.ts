import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTransaction } from '../../../db/pool';
import { createSender } from '../audience/senders';
import type { MessagingSandbox } from '../../../sandbox/messaging/server';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall } from '../../../test/helpers/mcp-calls';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';

/**
 * The journey an agent takes to text someone, in one piece over MCP against the local sandbox provider:
 * create a template → preview it → activate it → record the person's consent → check sendability →
 * send the SMS from the template → the provider's signed status callback → delivered.
 */
jest.setTimeout(120_000);

describe('channels journey: template to delivered SMS', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let sandbox: MessagingSandbox;

  beforeAll(async () => {
    // Its own stack: the worker sends through the messaging sandbox this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    sandbox = await startTestMessagingSandbox(harness.url);
    org = await harness.createOrg({ name: 'St Anne' });
    mcp = await harness.mcpClient(org.apiKey);
    await withTransaction(harness.pool, (db) => createSender(db, org.orgId, { channel: 'sms', address: sandbox.config.smsFrom }));
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
  });

  it('goes from a new template to a delivered, metered SMS, each step checked', async () => {
    const phone = '+447700900777';
    const ruth = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Ruth', lastName: 'Okafor', phone })).contact.id as string;

    const { template, version } = await mcpCall(mcp, 'templates_create_template', {
      name: 'Rota reminder', channel: 'sms', purpose: 'service',
      body: 'Hi {{first_name}}, you are on the {{team}} rota this Sunday.', variables: [{ name: 'team', example: 'coffee' }],
    });
    expect(version).toMatchObject({ status: 'draft' });

    const preview = await mcpCall(mcp, 'templates_render_preview', { versionId: version.id, contactId: ruth, variables: { team: 'welcome' }, useExamples: false });
    expect(preview).toMatchObject({ ready: true });
    expect(JSON.stringify(preview.rendered)).toContain('Hi Ruth, you are on the welcome rota this Sunday.');

    // Before activation there is nothing approved to send from.
    const early = await mcpCall(mcp, 'channels_check_sendability', { contactId: ruth, channel: 'sms', purpose: 'service', templateId: template.id });
    expect(early).toMatchObject({ allowed: false, reason: 'no_approved_template' });

    const activated = await mcpCall(mcp, 'templates_activate_version', { versionId: version.id });
    expect(activated).toMatchObject({ changed: true, version: { id: version.id, status: 'active' } });

    await mcpCall(mcp, 'channels_record_consent', {
      contactId: ruth, channel: 'sms', purpose: 'service', source: 'rota sign-up sheet', wording: 'Text me my rota reminders',
    });
    const sendable = await mcpCall(mcp, 'channels_check_sendability', { contactId: ruth, channel: 'sms', purpose: 'service', templateId: template.id });
    expect(sendable).toMatchObject({ allowed: true, reason: null });

    const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: ruth, purpose: 'service', templateId: template.id, variables: { team: 'welcome' } });
    const messageId = sent.message.id as string;
    expect(sent.message).toMatchObject({ channel: 'sms', body: 'Hi Ruth, you are on the welcome rota this Sunday.', sms: { encoding: 'GSM-7', segments: 1 } });

    // The dispatch runs after the call; wait (bounded) for the provider to have it.
    const deadline = Date.now() + 45_000;
    while (sandbox.messages().filter((m) => m.to === phone).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const atProvider = sandbox.messages().filter((m) => m.to === phone);
    expect(atProvider).toHaveLength(1);
    expect(atProvider[0]).toMatchObject({ body: 'Hi Ruth, you are on the welcome rota this Sunday.', idempotencyKey: `channel-message-${messageId}` });

    expect((await sandbox.setMessageStatus(atProvider[0].id, 'delivered')).status).toBe(200);
    const delivered = (await mcpCall(mcp, 'channels_get_message', { messageId })).message;
    expect(delivered).toMatchObject({ status: 'delivered', recipientAddress: phone, providerMessageId: atProvider[0].id });
    expect((await mcpCall(mcp, 'channels_get_usage', {})).sms).toEqual({ messages: 1, segments: 1 });
  });
});
