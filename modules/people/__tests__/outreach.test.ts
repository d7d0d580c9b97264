import { randomUUID } from 'node:crypto';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
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
    // The same person approving the same version again (a retried call) is told where it stands: nothing is sent again.
    const again = await harness.invoke(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 2 });
    expect(again.status).toBe(200);
    expect(again.body.result.item).toMatchObject({ status: 'sent', approvedVersion: 2 });
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

  it('leaves one denied or failed event per refused decision, by the deciding credential and naming only the item; another organisation\'s item is missing and that organisation hears nothing', async () => {
    const church = await harness.createOrg({ name: 'Refusal Parish' });
    const other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    const staff = await harness.createKey(church.orgId, ['people:read', 'people:write'], 'staff');
    const volunteer = await harness.createKey(church.orgId, ['people:read', 'people:write'], 'volunteer');
    const decider = await harness.createKey(church.orgId, ['people:read', 'people:write'], 'admin');
    const clients = await Promise.all([church.apiKey, other.apiKey, staff.apiKey, volunteer.apiKey, decider.apiKey].map((key) => harness.mcpClient(key)));
    const [churchMcp, otherMcp, staffMcp, volunteerMcp, deciderMcp] = clients;
    try {
      const body = 'Dear Rhiannon, we miss you at the Thursday group';
      const { contact } = await mcpCall(churchMcp, 'people_create_contact', { firstName: 'Rhiannon', lastName: 'Refusal', email: 'rhiannon@example.org' });
      const queue = async () => (await mcpCall(churchMcp, 'people_create_outreach', { contactId: contact.id, channel: 'email', subject: 'Missing you', body })).item;
      const approved = await queue();
      const declined = await queue();
      const { contact: stranger } = await mcpCall(otherMcp, 'people_create_contact', { firstName: 'Stranger', lastName: 'Elsewhere', email: 'stranger@example.org' });
      const foreign = (await mcpCall(otherMcp, 'people_create_outreach', { contactId: stranger.id, channel: 'email', subject: 'Hello', body: 'From elsewhere' })).item;
      const otherEvents = async () => Number((await harness.pool.query('SELECT count(*) FROM audit_events WHERE org_id = $1', [other.orgId])).rows[0].count);
      const otherBefore = await otherEvents();
      const missing = randomUUID();

      // Refused before any step ran: a volunteer never decides (denied); a version no one saw (failed); no such item, and another organisation's, alike.
      expect((await mcpRefusal(volunteerMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 1 })).code).toBe('forbidden');
      expect((await mcpRefusal(deciderMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 7 })).code).toBe('conflict');
      const notFound = await mcpRefusal(deciderMcp, 'people_approve_outreach', { outreachId: missing, contentVersion: 1 });
      const foreignRefusal = await mcpRefusal(deciderMcp, 'people_approve_outreach', { outreachId: foreign.id, contentVersion: 1 });
      expect(foreignRefusal).toEqual({ ...notFound, message: notFound.message.replace(missing, foreign.id) });
      expect(foreignRefusal.code).toBe('not_found');
      // Refused by the decision's own step: content an email cannot carry (failed); the care team's rule on who approves (denied).
      expect((await mcpRefusal(staffMcp, 'people_edit_outreach', { outreachId: approved.id, subject: null })).code).toBe('validation_failed');
      await mcpCall(churchMcp, 'people_seed_care_team_roles', {});
      const lead = (await mcpCall(churchMcp, 'people_list_care_team_roles', {})).roles.find((role: any) => role.name === 'Pastoral care lead');
      await mcpCall(churchMcp, 'people_assign_care_team_member', { roleId: lead.roleId, userId: church.ownerUserId });
      expect((await mcpRefusal(staffMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 1 })).code).toBe('forbidden');

      // Decided, then decided again: the same person's same decision answers the item as it stands; any other is a conflict.
      expect((await mcpCall(deciderMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 1 })).item.status).toBe('sent');
      expect((await mcpCall(deciderMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 1 })).item).toMatchObject({ status: 'sent', approvedVersion: 1 });
      expect(smtp.delivered.filter((mail) => mail.to.includes('rhiannon@example.org'))).toHaveLength(1);
      expect((await mcpRefusal(churchMcp, 'people_approve_outreach', { outreachId: approved.id, contentVersion: 1 })).code).toBe('conflict');
      expect((await mcpRefusal(deciderMcp, 'people_cancel_outreach', { outreachId: approved.id })).code).toBe('conflict');
      expect((await mcpCall(deciderMcp, 'people_decline_outreach', { outreachId: declined.id, reason: 'She rang us' })).item.status).toBe('declined');
      expect((await mcpCall(deciderMcp, 'people_decline_outreach', { outreachId: declined.id })).item).toMatchObject({ status: 'declined', decisionReason: 'She rang us' });
      expect((await mcpRefusal(churchMcp, 'people_decline_outreach', { outreachId: declined.id })).code).toBe('conflict');
      expect((await mcpRefusal(deciderMcp, 'people_approve_outreach', { outreachId: declined.id, contentVersion: 1 })).code).toBe('conflict');

      const ownerKeyId = (await harness.pool.query('SELECT id FROM api_keys WHERE org_id = $1 AND user_id = $2', [church.orgId, church.ownerUserId])).rows[0].id as string;
      const refusedOn = async (targetId: string) => (await harness.pool.query(
        `SELECT action, tool, outcome, credential_id, target_type, workflow_id, contact_ids, changes FROM audit_events
         WHERE org_id = $1 AND target_id = $2 AND outcome <> 'success' ORDER BY seq`, [church.orgId, targetId])).rows;
      const event = (credentialId: string, decision: string, outcome: string, error: string, version?: number) => ({
        action: `people.outreach.${decision}`, tool: `people_${decision}_outreach`, outcome, credential_id: credentialId, target_type: 'outreach',
        workflow_id: expect.stringMatching(/^outreach-/), contact_ids: [],
        changes: { fields: { error: { after: error }, ...(version !== undefined ? { version: { after: version } } : {}) } },
      });
      expect(await refusedOn(approved.id)).toEqual([
        event(volunteer.keyId, 'approve', 'denied', 'forbidden', 1),
        event(decider.keyId, 'approve', 'failed', 'conflict', 7),
        event(staff.keyId, 'edit', 'failed', 'validation_failed'),
        event(staff.keyId, 'approve', 'denied', 'forbidden', 1),
        event(ownerKeyId, 'approve', 'failed', 'conflict', 1),
        event(decider.keyId, 'cancel', 'failed', 'conflict'),
      ]);
      expect(await refusedOn(declined.id)).toEqual([event(ownerKeyId, 'decline', 'failed', 'conflict'), event(decider.keyId, 'approve', 'failed', 'conflict', 1)]);
      expect(await refusedOn(missing)).toEqual([event(decider.keyId, 'approve', 'failed', 'not_found', 1)]);
      expect(await refusedOn(foreign.id)).toEqual([event(decider.keyId, 'approve', 'failed', 'not_found', 1)]);
      // The decisions that happened, once each: the repeats added nothing.
      const applied = await harness.pool.query(`SELECT action, target_id FROM audit_events
        WHERE org_id = $1 AND target_type = 'outreach' AND outcome = 'success' AND tool <> 'job:outbox' ORDER BY seq`, [church.orgId]);
      expect(applied.rows).toEqual([{ action: 'people.outreach.approve', target_id: approved.id }, { action: 'people.outreach.decline', target_id: declined.id }]);

      // As the audit tools show them: who, with which credential, the error; nothing of the message or the person.
      const { events: denials } = await mcpCall(churchMcp, 'audit_list_events', { outcome: 'denied', limit: 100 });
      expect(denials.map((e: any) => [e.errorCode, e.actor.credentialId, e.target.id]).sort()).toEqual(
        [['forbidden', staff.keyId, approved.id], ['forbidden', volunteer.keyId, approved.id]].sort());
      const { events: failures } = await mcpCall(churchMcp, 'audit_list_events', { outcome: 'failed', limit: 100 });
      expect(failures).toHaveLength(8);
      const shown = JSON.stringify(await Promise.all([...denials, ...failures].map((e: any) => mcpCall(churchMcp, 'audit_get_event', { eventId: e.id }))));
      for (const personal of [body, 'Missing you', 'Rhiannon', 'rhiannon@example.org', contact.id, 'From elsewhere', 'Stranger', stranger.id]) {
        expect(shown).not.toContain(personal);
      }

      // The other organisation's trail is untouched, and both chains verify.
      expect(await otherEvents()).toBe(otherBefore);
      expect(await mcpCall(churchMcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
      expect(await mcpCall(otherMcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
