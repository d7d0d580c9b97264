import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { startMessagingServer, startSmtpServer, type TestMessagingServer, type TestSmtpServer } from '../../../test/helpers/message-servers';

/** Pastoral outreach: the approval state machine, exact-content approval, consent, allowance, and sends (one per approval, counted once; crash windows are in outreach-crash and outbox-lease). */
describe('pastoral outreach', () => {
  let harness: Harness;
  let org: TestOrg;
  let smtp: TestSmtpServer;
  let messaging: TestMessagingServer;
  const saved = { ...process.env };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    messaging = await startMessagingServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.SMTP_FROM = 'Grace Church <office@grace.example>';
    process.env.MESSAGING_API_URL = messaging.url;
    // Its own stack: the worker sends through the SMTP and messaging servers this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Grace Church' });
  });

  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
    await messaging?.close();
    process.env = saved;
  });

  async function contact(fields: Record<string, unknown>): Promise<string> {
    return (await harness.call(org.apiKey, 'people_create_contact', fields)).contact.id;
  }

  async function queue(contactId: string, extra: Record<string, unknown> = {}) {
    return (await harness.call(org.apiKey, 'people_create_outreach', {
      contactId, channel: 'email', subject: 'Thinking of you', body: 'Hi, how are you doing?', ...extra,
    })).item;
  }

  async function usage(feature: string): Promise<number> {
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = $2', [org.orgId, feature]);
    return rows[0].n;
  }

  it('runs pending_review → edit → approve (exact version) → sent, once, on the timeline', async () => {
    const ruth = await contact({ firstName: 'Ruth', lastName: 'Bell', email: 'ruth@example.org' });
    const item = await queue(ruth, { reason: 'Back from hospital' });
    expect(item).toMatchObject({ status: 'pending_review', contentVersion: 1, channel: 'email', recipient: 'ruth@example.org', contactName: 'Ruth Bell' });

    // Its own workflow, findable by org/kind/status.
    const handle = harness.temporal.workflow.getHandle(`outreach-${item.id}`);
    const described = await handle.describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.searchAttributes.StewardOrg).toEqual([org.orgId]);
    expect(described.searchAttributes.StewardKind).toEqual(['outreach']);

    const queued = await harness.call(org.apiKey, 'people_list_pending_outreach', {});
    expect(queued.items.map((i: any) => i.id)).toContain(item.id);

    const edited = await harness.call(org.apiKey, 'people_edit_outreach', { outreachId: item.id, body: 'Hi Ruth, we are so glad you are home.' });
    expect(edited.item).toMatchObject({ contentVersion: 2, body: 'Hi Ruth, we are so glad you are home.', status: 'pending_review' });

    // The approver saw version 1: refused, nothing sent.
    const stale = await harness.invoke(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.code).toBe('conflict');
    expect(stale.body.error?.message).toContain('version');
    expect(smtp.delivered).toHaveLength(0);

    const approved = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 2 });
    expect(approved.item.status).toBe('sent');
    expect(approved.item.approvedVersion).toBe(2);
    expect(smtp.delivered).toHaveLength(1);
    expect(smtp.delivered[0].to).toEqual(['ruth@example.org']);
    expect(smtp.delivered[0].raw).toContain('we are so glad you are home');
    expect(smtp.delivered[0].idempotencyKey).toBe(`outreach-${item.id}`);
    expect(smtp.delivered[0].messageId).toBe(`<outreach-${item.id}@grace.example>`);
    expect(await usage('email_sends')).toBe(1);

    const timeline = await harness.call(org.apiKey, 'people_list_care_timeline', { contactId: ruth });
    expect(timeline.entries.map((e: any) => e.kind)).toContain('outreach_sent');

    // Finished: the workflow completed with status sent.
    expect((await handle.result() as any).status).toBe('sent');
    const afterSend = await harness.invoke(org.apiKey, 'people_cancel_outreach', { outreachId: item.id });
    expect(afterSend.status).toBe(409);
    expect(afterSend.body.error?.message).toContain('already been sent');
    const again = await harness.invoke(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 2 });
    expect(again.status).toBe(409);
    expect(smtp.delivered).toHaveLength(1);
    expect(await usage('email_sends')).toBe(1);
  });

  it('declines and cancels before sending, and refuses decisions afterwards', async () => {
    const id = await contact({ firstName: 'Tom', lastName: 'Hart', email: 'tom@example.org' });
    const declined = await harness.call(org.apiKey, 'people_decline_outreach', { outreachId: (await queue(id)).id, reason: 'Spoke in person' });
    expect(declined.item).toMatchObject({ status: 'declined', decisionReason: 'Spoke in person' });
    const late = await harness.invoke(org.apiKey, 'people_approve_outreach', { outreachId: declined.item.id, contentVersion: 1 });
    expect(late.status).toBe(409);

    const second = await queue(id, { body: 'Second try' });
    const cancelled = await harness.call(org.apiKey, 'people_cancel_outreach', { outreachId: second.id });
    expect(cancelled.item.status).toBe('cancelled');
    const edit = await harness.invoke(org.apiKey, 'people_edit_outreach', { outreachId: second.id, body: 'changed' });
    expect(edit.status).toBe(409);
    expect(smtp.delivered.filter((m) => m.to.includes('tom@example.org'))).toHaveLength(0);

    const history = await harness.call(org.apiKey, 'people_list_pending_outreach', { status: 'all', contactId: id });
    expect(history.items.map((i: any) => i.status).sort()).toEqual(['cancelled', 'declined']);
  });

  it('refuses what consent does not allow, up front (by channels\' rules, with their reason codes) and at send time', async () => {
    const unsubscribed = await contact({ firstName: 'Una', lastName: 'Sub', email: 'una@example.org', status: 'unsubscribed', phone: '+44 7700 900111' });
    const refused = await harness.invoke(org.apiKey, 'people_create_outreach', { contactId: unsubscribed, channel: 'email', subject: 'Hi', body: 'Hello' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'suppressed' } });

    const whatsapp = await harness.invoke(org.apiKey, 'people_create_outreach', { contactId: unsubscribed, channel: 'whatsapp', body: 'Hello' });
    expect(whatsapp.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'no_consent' }, hint: expect.stringContaining('channels_record_consent') });

    const noPhone = await contact({ firstName: 'Nora', lastName: 'Phoneless', email: 'nora@example.org' });
    const sms = await harness.invoke(org.apiKey, 'people_create_outreach', { contactId: noPhone, channel: 'sms', body: 'Hello' });
    expect(sms.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'no_address' } });
    // The same answer channels gives when asked directly.
    const asked = await harness.call(org.apiKey, 'channels_check_sendability', { contactId: noPhone, channel: 'sms', purpose: 'service' });
    expect(asked).toMatchObject({ allowed: false, reason: 'no_address' });
    const items = await harness.call(org.apiKey, 'people_list_pending_outreach', { status: 'all', contactId: noPhone });
    expect(items.items).toEqual([]);

    // Consent withdrawn after queueing: approved, but never sent, with the reason.
    const later = await contact({ firstName: 'Leo', lastName: 'Later', email: 'leo@example.org' });
    const item = await queue(later);
    await harness.call(org.apiKey, 'people_update_contact', { contactId: later, status: 'unsubscribed' });
    const before = smtp.delivered.length;
    const approved = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(approved.item.status).toBe('approved');
    expect(approved.item.sendError).toMatchObject({ code: 'suppressed' });
    expect(smtp.delivered.length).toBe(before);
    // Approved but unsent can still be cancelled.
    expect((await harness.call(org.apiKey, 'people_cancel_outreach', { outreachId: item.id })).item.status).toBe('cancelled');
  });

  it('leaves an item approved-but-unsent when the allowance is used up, and sends it once the allowance allows', async () => {
    const used = await usage('email_sends');
    await harness.pool.query(`INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'email_sends', $2)
      ON CONFLICT (org_id, feature) DO UPDATE SET monthly_limit = EXCLUDED.monthly_limit`, [org.orgId, used]);
    const id = await contact({ firstName: 'Amy', lastName: 'Allowance', email: 'amy@example.org' });
    const item = await queue(id);
    const before = smtp.delivered.length;
    const approved = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(approved.item).toMatchObject({ status: 'approved', sendError: { code: 'allowance_exceeded' } });
    expect(approved.item.sendError.message).toContain('approved and unsent');
    expect(smtp.delivered.length).toBe(before);
    expect(await usage('email_sends')).toBe(used);

    await harness.pool.query(`UPDATE org_allowance_overrides SET monthly_limit = $2 WHERE org_id = $1 AND feature = 'email_sends'`, [org.orgId, used + 1]);
    const retried = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(retried.item.status).toBe('sent');
    expect(smtp.delivered.length).toBe(before + 1);
    expect(await usage('email_sends')).toBe(used + 1);
  });

  it('sends SMS through the HTTP provider with the outbox key, metered as messaging credits', async () => {
    const id = await contact({ firstName: 'Sid', lastName: 'Sms', phone: '+44 7700 900222' });
    const item = (await harness.call(org.apiKey, 'people_create_outreach', { contactId: id, channel: 'sms', body: 'See you Sunday!' })).item;
    const sent = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(sent.item.status).toBe('sent');
    // Sent through the channels module: to the number in E.164, and recorded as a channel message (counted once, by the outbox).
    expect(messaging.messages).toEqual([{ channel: 'sms', to: '+447700900222', body: 'See you Sunday!', idempotencyKey: `outreach-${item.id}` }]);
    expect(await usage('messaging_credits')).toBe(1);
    const listed = await harness.call(org.apiKey, 'channels_list_messages', { contactId: sent.item.contactId });
    expect(listed.messages).toEqual([expect.objectContaining({ channel: 'sms', purpose: 'service', status: 'sent', body: 'See you Sunday!', recipientAddress: '+447700900222', idempotencyKey: `outreach-${item.id}` })]);
  });

  it('over MCP with awaitDecision: waits within the budget, then answers approval_required with the outreach id', async () => {
    const id = await contact({ firstName: 'Wanda', lastName: 'Wait', email: 'wanda@example.org' });
    const mcp = await harness.mcpClient(org.apiKey);
    try {
      const progress: unknown[] = [];
      const result = await mcp.callTool(
        { name: 'people_create_outreach', arguments: { contactId: id, subject: 'Hello', body: 'Thinking of you', awaitDecision: true }, _meta: { approvalWaitMs: 800 } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      );
      expect(result.isError).toBe(true);
      const error = JSON.parse((result.content as any)[0].text).error;
      expect(error).toMatchObject({ code: 'approval_required', details: { status: 'pending_review', contentVersion: 1, check: { tool: 'people_get_outreach_item' } } });
      expect(progress.length).toBeGreaterThanOrEqual(1);
      const { item } = await harness.call(org.apiKey, 'people_get_outreach_item', { outreachId: error.details.outreachId });
      expect(item).toMatchObject({ status: 'pending_review', contactId: id });
    } finally {
      await mcp.close();
    }
  });

  it('lets only staff and above decide, and keeps organisations apart', async () => {
    const id = await contact({ firstName: 'Vic', lastName: 'Volunteer', email: 'vic@example.org' });
    const item = await queue(id);
    const volunteer = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'volunteer');
    const refused = await harness.invoke(volunteer.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(refused.status).toBe(403);
    const other = await harness.createOrg({ name: 'Other Church' });
    const foreign = await harness.invoke(other.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(foreign.status).toBe(404);
    const staff = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
    expect((await harness.call(staff.apiKey, 'people_decline_outreach', { outreachId: item.id })).item.status).toBe('declined');
  });
});
