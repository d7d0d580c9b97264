import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTransaction } from '../../../db/pool';
import { recordConsent } from '../audience/consent';
import { createSender } from '../audience/senders';
import { updateChannelSettings } from '../audience/quiet-hours';
import { createOutbox } from '../../../activities/outbox';
import { stewardEventSignature } from '../delivery/signatures';
import type { MessagingSandbox } from '../../../sandbox/messaging/server';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';

/**
 * One message leaving Steward, end to end over MCP, against the local sandbox provider (real HTTP,
 * Twilio- and Meta-shaped) and a real SMTP server: consent and suppression checked inside the send,
 * segments metered once, signed status callbacks moving a message to delivered, STOP and one-click
 * unsubscribe suppressing, unsigned and replayed webhooks changing nothing, and bad input refused
 * with nothing sent.
 */
jest.setTimeout(120_000);

describe('channels delivery: single sends, providers, webhooks', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let sandbox: MessagingSandbox;
  let smtp: TestSmtpServer;
  const saved = { SMTP_HOST: process.env.SMTP_HOST, SMTP_PORT: process.env.SMTP_PORT, SMTP_FROM: process.env.SMTP_FROM };
  let phoneSeq = 100;

  async function contact(mcpClient: McpClient, firstName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; phone: string; email: string }> {
    phoneSeq += 1;
    const phone = `+4477009${String(phoneSeq).padStart(5, '0')}`;
    const email = `${firstName.toLowerCase()}${phoneSeq}@example.org`;
    const created = await mcpCall(mcpClient, 'people_create_contact', { firstName, lastName: 'Tester', phone, email, ...extra });
    return { id: created.contact.id, phone, email };
  }

  async function consent(orgId: string, contactId: string, channel: 'email' | 'sms' | 'whatsapp', purpose: 'marketing' | 'service' | 'charitable_purpose') {
    await withTransaction(harness.pool, (db) => recordConsent(db, orgId, {
      contactId, channel, purpose, basis: 'consent', source: 'test sign-up form', wording: 'Yes, you may message me about church news',
    }, null));
  }

  /** Polls the message until `done` holds, within a deadline (not a timing assertion: the deadline only bounds a hang). */
  async function messageWhen(messageId: string, done: (message: any) => boolean, client?: McpClient): Promise<any> {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const { message } = await mcpCall(client ?? mcp, 'channels_get_message', { messageId });
      if (done(message) || Date.now() > deadline) return message;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const sandboxMessagesTo = (to: string) => sandbox.messages().filter((m) => m.to === to);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    Object.assign(process.env, { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_FROM: 'St Anne <news@stanne.example.org>' });
    // Its own stack: the worker sends through the providers this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    sandbox = await startTestMessagingSandbox(harness.url);
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    mcp = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    await withTransaction(harness.pool, async (db) => {
      await createSender(db, org.orgId, { channel: 'sms', address: sandbox.config.smsFrom });
      await createSender(db, org.orgId, { channel: 'whatsapp', address: '+447700900002' });
    });
  });

  afterAll(async () => {
    await otherMcp?.close();
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
    await smtp?.close();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  describe('SMS', () => {
    let ruth: { id: string; phone: string };
    let messageId: string;

    beforeAll(async () => {
      ruth = await contact(mcp, 'Ruth');
      await consent(org.orgId, ruth.id, 'sms', 'service');
    });

    it('sends through the sandbox with its segments metered, and a signed status callback marks it delivered', async () => {
      const body = 'Youth group is cancelled tonight 🙏 see you Sunday'; // one emoji: UCS-2
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', body });
      messageId = sent.message.id;
      expect(sent.message).toMatchObject({ channel: 'sms', status: 'queued', sms: { encoding: 'UCS-2', segments: 1 }, meteredUnits: 1, body });
      const out = await messageWhen(messageId, (m) => m.status === 'sent');
      expect(out).toMatchObject({ status: 'sent', recipientAddress: ruth.phone, sender: sandbox.config.smsFrom });
      const [atProvider] = sandboxMessagesTo(ruth.phone);
      expect(atProvider).toMatchObject({ channel: 'sms', body, from: sandbox.config.smsFrom, idempotencyKey: `channel-message-${messageId}` });
      expect(out.providerMessageId).toBe(atProvider.id);

      const callback = await sandbox.setMessageStatus(atProvider.id, 'delivered');
      expect(callback.status).toBe(200);
      const delivered = await mcpCall(mcp, 'channels_get_message', { messageId });
      expect(delivered.message).toMatchObject({ status: 'delivered' });
      expect(delivered.message.deliveredAt).not.toBeNull();

      const usage = await mcpCall(mcp, 'channels_get_usage', {});
      expect(usage.sms).toEqual({ messages: 1, segments: 1 });
      expect(usage.allowances.messagingCredits.used).toBe(1);

      // The trail, over MCP: the outbox's moves (the system as actor: claimed for attempt 1, then sent, once each), then the
      // provider's callback (the webhook as actor).
      const moves = (await mcpCall(mcp, 'audit_list_events', { targetId: messageId, actorKind: 'system' })).events;
      expect(moves.map((event: any) => event.action)).toEqual(['channels.message.send', 'channels.message.attempt']);
      const [send, attempt] = moves;
      expect(send).toMatchObject({ action: 'channels.message.send', tool: 'job:outbox', outcome: 'success', target: { type: 'message', id: messageId }, actor: { kind: 'system', userId: null } });
      expect(attempt).toMatchObject({ tool: 'job:outbox', outcome: 'success', target: { type: 'message', id: messageId }, actor: { kind: 'system', userId: null } });
      const attemptEvent = await mcpCall(mcp, 'audit_get_event', { eventId: attempt.id });
      // A new row: created, counted and claimed in one transaction.
      expect(attemptEvent.changes).toEqual(expect.arrayContaining([{ field: 'status', before: null, after: 'sending' }, { field: 'attempt', after: 1 }, { field: 'units', after: 1 }]));
      const [statusEvent] = (await mcpCall(mcp, 'audit_list_events', { targetId: messageId, actorKind: 'webhook' })).events;
      expect(statusEvent).toMatchObject({ action: 'channels.message.deliver', tool: 'webhook:sms', outcome: 'success' });
      const history = (await mcpCall(mcp, 'audit_get_entity_history', { targetType: 'message', targetId: messageId })).entries;
      const sentEntry = history.find((entry: any) => entry.action === 'channels.message.send');
      expect(sentEntry.changes).toEqual(expect.arrayContaining([
        { field: 'status', before: 'sending', after: 'sent' }, { field: 'providerId', after: atProvider.id },
        { field: 'body', after: { ref: expect.stringMatching(/^sha256:[0-9a-f]{32}$/) } },
      ]));
      expect(history.find((entry: any) => entry.action === 'channels.message.deliver').changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'sent', after: 'delivered' }]));
      // The body by reference only (the key names a message body), and no address.
      const stored = JSON.stringify((await harness.pool.query('SELECT changes FROM audit_events WHERE org_id = $1 AND target_id = $2', [org.orgId, messageId])).rows);
      expect(stored).not.toContain('Youth group');
      expect(stored).not.toContain(ruth.phone);
      expect(await mcpCall(mcp, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
    });

    it('a replayed callback is ignored and a tampered or unsigned one refused: nothing changes', async () => {
      const delivered = sandbox.lastWebhook()!;
      const replay = await sandbox.replay(delivered);
      expect(replay.status).toBe(200);
      expect(JSON.parse(replay.body)).toMatchObject({ ignored: 'replay' });

      const tampered = { ...delivered, body: delivered.body.replace('MessageStatus=delivered', 'MessageStatus=undelivered') };
      expect((await sandbox.replay(tampered)).status).toBe(401);
      const unsigned = { ...delivered, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      expect((await sandbox.replay(unsigned)).status).toBe(401);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId })).message.status).toBe('delivered');
    });

    it('concurrent identical sends make one message, sent once and metered once', async () => {
      const peter = await contact(mcp, 'Peter');
      await consent(org.orgId, peter.id, 'sms', 'service');
      const body = 'A'.repeat(200); // GSM-7, two segments
      const results = await Promise.all(Array.from({ length: 6 }, () => mcpCall(mcp, 'channels_send_sms', {
        contactId: peter.id, purpose: 'service', body, idempotencyKey: 'rota-reminder-peter',
      })));
      const ids = new Set(results.map((r) => r.message.id));
      expect(ids.size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const [id] = [...ids];
      await messageWhen(id, (m) => m.status === 'sent');
      expect(sandboxMessagesTo(peter.phone)).toHaveLength(1);
      const usage = await harness.pool.query("SELECT units FROM usage_events WHERE org_id = $1 AND idempotency_key = $2", [org.orgId, `channel-message-${id}`]);
      expect(usage.rows).toEqual([{ units: 2 }]);

      // The same key for someone else is a mistake, not a repeat.
      const reused = await mcpRefusal(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', body, idempotencyKey: 'rota-reminder-peter' });
      expect(reused.code).toBe('idempotency_conflict');
    });

    it('STOP from the phone suppresses it, and the next send is refused with nothing sent', async () => {
      const reply = await sandbox.inbound({ channel: 'sms', from: ruth.phone, to: sandbox.config.smsFrom, text: ' stop ' });
      expect(reply.status).toBe(200);
      expect(reply.body).toContain('<Message>');
      const before = sandbox.messages().length;
      const refused = await mcpRefusal(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', body: 'Are you coming Sunday?' });
      expect(refused.code).toBe('forbidden');
      expect(refused.details).toMatchObject({ reason: 'suppressed' });
      expect(sandbox.messages().length).toBe(before);
    });

    it('HELP gets the help text as the reply', async () => {
      const reply = await sandbox.inbound({ channel: 'sms', from: ruth.phone, to: sandbox.config.smsFrom, text: 'help' });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatch(/<Message>.*STOP.*<\/Message>/);
    });

    it('refuses a 10 KB SMS, a phone that is not E.164, an unknown template and another organisation\'s contact, sending nothing', async () => {
      const before = sandbox.messages().length;
      const long = await mcpRefusal(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', body: 'x'.repeat(10_240) });
      expect(long.code).toBe('validation_failed');
      expect(long.message).toMatch(/segments/);

      const badPhone = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Odd', lastName: 'Number', phone: '12345' })).contact.id;
      await consent(org.orgId, badPhone, 'sms', 'service');
      const invalid = await mcpRefusal(mcp, 'channels_send_sms', { contactId: badPhone, purpose: 'service', body: 'Hello' });
      expect(invalid.code).toBe('validation_failed');
      expect(invalid.message).toMatch(/E\.164/);

      const unknownTemplate = await mcpRefusal(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', templateId: '00000000-0000-4000-8000-000000000000' });
      expect(unknownTemplate.code).toBe('not_found');

      const foreign = await contact(otherMcp, 'Foreign');
      const notHere = await mcpRefusal(mcp, 'channels_send_sms', { contactId: foreign.id, purpose: 'service', body: 'Hello' });
      expect(notHere.code).toBe('not_found');
      expect(sandbox.messages().length).toBe(before);
      const stored = await harness.pool.query('SELECT count(*)::int AS n FROM channel_messages WHERE org_id = $1 AND contact_id = ANY($2::uuid[])', [org.orgId, [badPhone, foreign.id]]);
      expect(stored.rows[0].n).toBe(0);
    });

    it('refuses before sending when the segments would pass the messaging allowance', async () => {
      const tight = await harness.createOrg({ name: 'Tight Chapel' });
      const tightMcp = await harness.mcpClient(tight.apiKey);
      try {
        await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'messaging_credits', 2)", [tight.orgId]);
        const anna = await contact(tightMcp, 'Anna');
        await consent(tight.orgId, anna.id, 'sms', 'service');
        const refused = await mcpRefusal(tightMcp, 'channels_send_sms', { contactId: anna.id, purpose: 'service', body: 'B'.repeat(400) }); // 3 segments
        expect(refused.code).toBe('allowance_exceeded');
        expect(sandboxMessagesTo(anna.phone)).toHaveLength(0);
      } finally {
        await tightMcp.close();
      }
    });

    it('a UK number written nationally is sent to in E.164', async () => {
      const local = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Local', lastName: 'Number', phone: '07700 900777' })).contact.id;
      await consent(org.orgId, local, 'sms', 'service');
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: local, purpose: 'service', body: 'Hello' });
      const out = await messageWhen(sent.message.id, (m) => m.status === 'sent');
      expect(out.recipientAddress).toBe('+447700900777');
      expect(sandboxMessagesTo('+447700900777')).toHaveLength(1);
    });

    it('a provider failing with 500 is retried with the same Idempotency-Key: one message arrives', async () => {
      const mary = await contact(mcp, 'Mary');
      await consent(org.orgId, mary.id, 'sms', 'service');
      const requestsBefore = sandbox.requestCount();
      sandbox.failNext(2, 500);
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: mary.id, purpose: 'service', body: 'Bible study is at 8' });
      const out = await messageWhen(sent.message.id, (m) => m.status === 'sent');
      expect(out.status).toBe('sent');
      expect(sandbox.requestCount() - requestsBefore).toBe(3);
      expect(sandboxMessagesTo(mary.phone)).toHaveLength(1);
      const usage = await harness.pool.query('SELECT units FROM usage_events WHERE org_id = $1 AND idempotency_key = $2', [org.orgId, `channel-message-${sent.message.id}`]);
      expect(usage.rows).toEqual([{ units: 1 }]);
      // Every move of its row is in the trail, oldest first: each attempt, each retry (a 500 proves nothing was taken, so
      // the claim goes back to pending), and the send.
      const history = (await mcpCall(mcp, 'audit_get_entity_history', { targetType: 'message', targetId: sent.message.id })).entries;
      expect(history.map((entry: any) => entry.action)).toEqual([
        'channels.message.attempt', 'channels.message.retry', 'channels.message.attempt', 'channels.message.retry', 'channels.message.attempt', 'channels.message.send',
      ]);
      expect(history.map((entry: any) => entry.changes.find((change: any) => change.field === 'attempt')?.after)).toEqual([1, 1, 2, 2, 3, 3]);
      expect(history[1]).toMatchObject({ outcome: 'failed' });
      expect(history[1].changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'sending', after: 'pending' }, { field: 'error', after: 'not_delivered' }]));
      expect(history[2].changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'pending', after: 'sending' }]));
    });

    it('a provider refusing the message for good (400) fails it with the reason, sent once and not retried', async () => {
      const abe = await contact(mcp, 'Abe');
      await consent(org.orgId, abe.id, 'sms', 'service');
      const requestsBefore = sandbox.requestCount();
      sandbox.failNext(1, 400);
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: abe.id, purpose: 'service', body: 'Parish meeting at 7' });
      const out = await messageWhen(sent.message.id, (m) => m.status === 'failed');
      expect(out).toMatchObject({ status: 'failed', error: { code: 'provider_refused' } });
      expect(out.error.message).toMatch(/400/);
      expect(sandbox.requestCount() - requestsBefore).toBe(1);
      expect(sandboxMessagesTo(abe.phone)).toHaveLength(0);
      const trail = (await mcpCall(mcp, 'audit_list_events', { targetId: sent.message.id, actorKind: 'system' })).events;
      expect(trail).toEqual([
        expect.objectContaining({ action: 'channels.message.fail', outcome: 'failed', errorCode: 'provider_refused', tool: 'job:outbox' }),
        expect.objectContaining({ action: 'channels.message.attempt', outcome: 'success', tool: 'job:outbox' }),
      ]);
    });

    it('from a one-way sender id, marketing without an opt-out link is refused; with one it leaves from that id', async () => {
      const oneWay = await harness.createOrg({ name: 'Sender Id Chapel' });
      const oneWayMcp = await harness.mcpClient(oneWay.apiKey);
      try {
        await withTransaction(harness.pool, (db) => createSender(db, oneWay.orgId, { channel: 'sms', address: 'STANNE' }));
        const jo = await contact(oneWayMcp, 'Jo');
        await consent(oneWay.orgId, jo.id, 'sms', 'marketing');
        const refused = await mcpRefusal(oneWayMcp, 'channels_send_sms', { contactId: jo.id, purpose: 'marketing', body: 'Christmas fair on Saturday!' });
        expect(refused.details).toMatchObject({ reason: 'no_opt_out' });
        const sent = await mcpCall(oneWayMcp, 'channels_send_sms', {
          contactId: jo.id, purpose: 'marketing', body: 'Christmas fair on Saturday! Opt out: https://stanne.example.org/optout',
        });
        const out = await messageWhen(sent.message.id, (m) => m.status === 'sent', oneWayMcp);
        expect(out.sender).toBe('STANNE');
        expect(sandboxMessagesTo(jo.phone).map((m) => m.from)).toEqual(['STANNE']);
      } finally {
        await oneWayMcp.close();
      }
    });

    it('lists messages by channel and contact, and another organisation cannot read them', async () => {
      const page = await mcpCall(mcp, 'channels_list_messages', { channel: 'sms', contactId: ruth.id, limit: 10 });
      expect(page.messages.map((m: any) => m.id)).toEqual([messageId]);
      const missing = await mcpRefusal(otherMcp, 'channels_get_message', { messageId });
      expect(missing.code).toBe('not_found');
    });
  });

  describe('email', () => {
    let grace: { id: string; email: string };

    beforeAll(async () => {
      grace = await contact(mcp, 'Grace');
      await consent(org.orgId, grace.id, 'email', 'marketing');
      await consent(org.orgId, grace.id, 'email', 'service');
    });

    it('a marketing email carries one-click unsubscribe; GET only shows a page, POST leaves marketing and the next marketing send is refused', async () => {
      const sent = await mcpCall(mcp, 'channels_send_email', {
        contactId: grace.id, purpose: 'marketing', subject: 'Carol service', body: 'Join us for carols on the 21st.',
      });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      const mail = smtp.delivered.find((m) => m.to.includes(grace.email))!;
      expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      const link = /^List-Unsubscribe: <(https?:\/\/[^>]+)>, <mailto:[^>]+>$/m.exec(mail.raw.replace(/\r?\n\s+/g, ' '))![1];
      expect(link.startsWith(harness.url)).toBe(true);

      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<form method="post"');
      // A scanner following the link unsubscribed nobody: marketing still goes.
      const advent = await mcpCall(mcp, 'channels_send_email', { contactId: grace.id, purpose: 'marketing', subject: 'Advent', body: 'Advent lunches', idempotencyKey: 'grace-advent' });
      await messageWhen(advent.message.id, (m) => m.status === 'sent');
      const rota = await mcpCall(mcp, 'channels_send_email', { contactId: grace.id, purpose: 'service', subject: 'Rota', body: 'You are on coffee.', idempotencyKey: 'grace-rota' });
      await messageWhen(rota.message.id, (m) => m.status === 'sent');
      expect(smtp.delivered.filter((m) => m.to.includes(grace.email))).toHaveLength(3);

      const posted = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(posted.status).toBe(200);
      const refused = await mcpRefusal(mcp, 'channels_send_email', { contactId: grace.id, purpose: 'marketing', subject: 'Again', body: 'More news' });
      expect(refused.details).toMatchObject({ reason: 'no_consent' });
      // The list they left is marketing; service email still reaches them.
      const service = await mcpCall(mcp, 'channels_send_email', { contactId: grace.id, purpose: 'service', subject: 'Rota change', body: 'Now on welcome.' });
      expect(service.created).toBe(true);

      const forged = await fetch(`${link.slice(0, -3)}abc`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(forged.status).toBe(404);
    });

    it('a service email carries no List-Unsubscribe', async () => {
      const service = smtp.delivered.find((m) => m.to.includes(grace.email) && /Subject: Rota/.test(m.raw));
      expect(service).toBeDefined();
      expect(service!.raw).not.toMatch(/^List-Unsubscribe:/m);
    });

    it('a signed hard bounce suppresses the address; an unsigned one changes nothing', async () => {
      const tom = await contact(mcp, 'Tom');
      await consent(org.orgId, tom.id, 'email', 'service');
      const sent = await mcpCall(mcp, 'channels_send_email', { contactId: tom.id, purpose: 'service', subject: 'Hello', body: 'Welcome' });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');

      const unsigned = await fetch(`${harness.url}/webhooks/channels/email/events`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'evt_forged', type: 'bounce', address: tom.email, messageId: sent.message.id }),
      });
      expect(unsigned.status).toBe(401);
      await mcpCall(mcp, 'channels_send_email', { contactId: tom.id, purpose: 'service', subject: 'Still fine', body: 'x', idempotencyKey: 'tom-2' });

      const bounce = await sandbox.emailEvent({ type: 'bounce', address: tom.email, messageId: sent.message.id });
      expect(bounce.status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message.status).toBe('undelivered');
      const bounced = (await mcpCall(mcp, 'audit_list_events', { targetId: sent.message.id, actorKind: 'webhook' })).events;
      expect(bounced).toEqual([expect.objectContaining({ action: 'channels.message.bounce', tool: 'webhook:email', outcome: 'failed' })]);
      expect(JSON.stringify(bounced)).not.toContain(tom.email);
      const refused = await mcpRefusal(mcp, 'channels_send_email', { contactId: tom.id, purpose: 'service', subject: 'Again', body: 'x' });
      expect(refused.details).toMatchObject({ reason: 'suppressed' });
    });

    it('a signed delivery event marks an email delivered; a replay or a later one for an undelivered email changes nothing', async () => {
      const una = await contact(mcp, 'Una');
      await consent(org.orgId, una.id, 'email', 'service');
      const sent = await mcpCall(mcp, 'channels_send_email', { contactId: una.id, purpose: 'service', subject: 'Hello', body: 'Welcome' });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      const delivered = await sandbox.emailEvent({ type: 'delivery', address: una.email, messageId: sent.message.id });
      expect(delivered.status).toBe(200);
      const message = (await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message;
      expect(message).toMatchObject({ status: 'delivered', deliveredAt: expect.any(String) });
      expect((await sandbox.replay(sandbox.lastWebhook()!)).status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message).toMatchObject({ status: 'delivered', deliveredAt: message.deliveredAt });

      const vic = await contact(mcp, 'Vic');
      await consent(org.orgId, vic.id, 'email', 'service');
      const bounced = await mcpCall(mcp, 'channels_send_email', { contactId: vic.id, purpose: 'service', subject: 'Hello', body: 'Welcome' });
      await messageWhen(bounced.message.id, (m) => m.status === 'sent');
      await sandbox.emailEvent({ type: 'bounce', address: vic.email, messageId: bounced.message.id });
      expect((await sandbox.emailEvent({ type: 'delivery', address: vic.email, messageId: bounced.message.id })).status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: bounced.message.id })).message).toMatchObject({ status: 'undelivered', deliveredAt: null });
    });
    it('an event naming the email by its Message-ID finds pastoral outreach and channel email; an unknown or malformed one changes nothing', async () => {
      const messageIdOf = (email: string) => {
        const mail = smtp.delivered.find((m) => m.to.includes(email));
        return /^Message-ID:\s*(<[^>\r\n]+>)/mi.exec(mail?.raw ?? '')?.[1];
      };
      const sendable = async (contactId: string) => (await mcpCall(mcp, 'channels_check_sendability', { contactId, channel: 'email', purpose: 'service' })).allowed;

      // Pastoral outreach is recorded as a channel message only after the provider took it, under an id the email never carried.
      const wes = await contact(mcp, 'Wes');
      await consent(org.orgId, wes.id, 'email', 'service');
      const item = (await mcpCall(mcp, 'people_create_outreach', { contactId: wes.id, channel: 'email', subject: 'Thinking of you', body: 'How are you?' })).item;
      // An event for an email not yet recorded is not remembered: the provider's retry of it matches once the email is.
      // The relay reports a forwarding address; the one suppressed is the address Steward sent to.
      const early = await sandbox.emailEvent({ type: 'complaint', address: 'forwarded@example.net', messageId: `<outreach-${item.id}@stanne.example.org>` });
      expect(JSON.parse(early.body)).toEqual({ ok: true, ignored: 'unknown_message' });
      const earlyWebhook = sandbox.lastWebhook()!;
      expect((await mcpCall(mcp, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 })).item.status).toBe('sent');
      const outreachMessageId = messageIdOf(wes.email);
      expect(outreachMessageId).toMatch(new RegExp(`^<outreach-${item.id}@`));

      const stranger = await sandbox.emailEvent({ type: 'complaint', address: wes.email, messageId: outreachMessageId!.replace(item.id, randomUUID()) });
      expect(stranger.status).toBe(200);
      expect(JSON.parse(stranger.body)).toEqual({ ok: true, ignored: 'unknown_message' });
      const notAnId = await sandbox.emailEvent({ type: 'complaint', address: wes.email, messageId: 'not-a-message-id' });
      expect(JSON.parse(notAnId.body)).toEqual({ ok: true, ignored: 'unknown_message' });
      expect(await sendable(wes.id)).toBe(true);

      const complaint = await sandbox.replay(earlyWebhook);
      expect(complaint.status).toBe(200);
      expect(JSON.parse(complaint.body)).toEqual({ ok: true });
      expect(await sendable(wes.id)).toBe(false);
      expect(JSON.parse((await sandbox.replay(earlyWebhook)).body)).toEqual({ ok: true, ignored: 'replay' });
      const kept = await harness.pool.query(`SELECT e.kind FROM channel_email_events e JOIN channel_messages m ON m.id = e.message_id
        WHERE m.org_id = $1 AND m.idempotency_key = $2`, [org.orgId, `outreach-${item.id}`]);
      expect(kept.rows).toEqual([{ kind: 'complaint' }]);

      // A channel email named by its Message-ID without the angle brackets.
      const xan = await contact(mcp, 'Xan');
      await consent(org.orgId, xan.id, 'email', 'service');
      const sent = await mcpCall(mcp, 'channels_send_email', { contactId: xan.id, purpose: 'service', subject: 'Hello', body: 'Welcome' });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      const channelMessageId = messageIdOf(xan.email)!;
      expect(channelMessageId).toContain(sent.message.id);
      expect((await sandbox.emailEvent({ type: 'bounce', address: xan.email, messageId: channelMessageId.slice(1, -1) })).status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message.status).toBe('undelivered');
      expect(await sendable(xan.id)).toBe(false);

      // Signed, but not the event's shape: refused, nothing kept.
      const yan = await contact(mcp, 'Yan');
      await consent(org.orgId, yan.id, 'email', 'service');
      const events = async () => (await harness.pool.query('SELECT count(*)::int AS n FROM channel_email_events WHERE org_id = $1', [org.orgId])).rows[0].n;
      const before = await events();
      const bodies = ['null', '[1]', '{not json', JSON.stringify({ id: 'evt_number', type: 'bounce', address: yan.email, messageId: 42 }),
        JSON.stringify({ id: 'evt_address', type: 'bounce', address: 'Yan <nowhere>', messageId: 'x' }),
        JSON.stringify({ id: 'evt_nul', type: 'bounce', address: yan.email, messageId: 'a\u0000b' }),
        JSON.stringify({ id: 'evt_bounce_type', type: 'bounce', bounceType: 42, address: yan.email, messageId: 'x' })];
      for (const body of bodies) {
        const signature = stewardEventSignature(sandbox.config.emailEventsSecret, body, Math.floor(Date.now() / 1000));
        const refused = await fetch(`${harness.url}/webhooks/channels/email/events`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-steward-signature': signature }, body });
        expect(refused.status).toBe(400);
        expect((await refused.json()).error).toMatchObject({ code: 'validation_failed' });
      }
      // A kind Steward keeps nothing of is acknowledged, so the provider does not send it again.
      const opened = await sandbox.emailEvent({ type: 'open' as never, address: yan.email, messageId: outreachMessageId });
      expect(JSON.parse(opened.body)).toEqual({ ok: true, ignored: 'unsupported_type' });
      expect(await events()).toBe(before);
      expect(await sendable(yan.id)).toBe(true);
    });
  });

  describe('WhatsApp', () => {
    it('free-form outside the 24-hour window is refused with the hint to use a template; an inbound message opens it', async () => {
      const sam = await contact(mcp, 'Sam');
      await consent(org.orgId, sam.id, 'whatsapp', 'service');
      const refused = await mcpRefusal(mcp, 'channels_send_whatsapp', { contactId: sam.id, purpose: 'service', body: 'Thanks for your message' });
      expect(refused.code).toBe('forbidden');
      expect(refused.details).toMatchObject({ reason: 'window_closed' });
      expect(refused.hint).toMatch(/template/);

      const inbound = await sandbox.inbound({ channel: 'whatsapp', from: sam.phone, to: '+447700900002', text: 'Hi, is there parking at church?' });
      expect(inbound.status).toBe(200);
      const sent = await mcpCall(mcp, 'channels_send_whatsapp', { contactId: sam.id, purpose: 'service', body: 'Yes, behind the hall.' });
      expect(sent.message).toMatchObject({ whatsappCategory: 'service', meteredUnits: 1 });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      const [atProvider] = sandboxMessagesTo(sam.phone);
      expect(atProvider).toMatchObject({ channel: 'whatsapp', body: 'Yes, behind the hall.' });

      const status = await sandbox.setMessageStatus(atProvider.id, 'delivered');
      expect(status.status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message.status).toBe('delivered');

      const wrongSignature = { ...sandbox.lastWebhook()!, headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' } };
      expect((await sandbox.replay(wrongSignature)).status).toBe(401);
    });

    it('outside the window an approved template goes (reviewed through the signed template webhook), as a Meta template message', async () => {
      const created = await mcpCall(mcp, 'templates_create_template', {
        name: 'Service time', channel: 'whatsapp', purpose: 'service', body: 'Hi {{first_name}}, the service starts at {{time}}.',
        variables: [{ name: 'time', example: '10:30' }],
      });
      const submitted = await mcpCall(mcp, 'templates_submit_whatsapp_template', { versionId: created.version.id });
      const providerTemplateId = submitted.version.whatsapp.providerTemplateId as string;
      expect(sandbox.templates().map((t) => t.id)).toContain(providerTemplateId);
      const review = await sandbox.setTemplateStatus(providerTemplateId, 'APPROVED');
      expect(review!.status).toBe(200);
      expect(JSON.parse((await sandbox.replay(sandbox.lastWebhook()!)).body)).toMatchObject({ ignored: 'replay' });
      await mcpCall(mcp, 'templates_activate_version', { versionId: created.version.id });

      const joy = await contact(mcp, 'Joy');
      await consent(org.orgId, joy.id, 'whatsapp', 'service');
      const sent = await mcpCall(mcp, 'channels_send_whatsapp', { contactId: joy.id, purpose: 'service', templateId: created.template.id, variables: { time: '10:30' } });
      expect(sent.message).toMatchObject({ whatsappCategory: 'utility', body: 'Hi Joy, the service starts at 10:30.' });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      const [atProvider] = sandboxMessagesTo(joy.phone);
      expect(atProvider.body).toBeNull();
      expect(JSON.stringify(atProvider.template)).toContain('10:30');
    });
  });
  describe('templates', () => {
    it('sends a template\'s active version; a missing variable blocks the send and nothing goes', async () => {
      const naomi = await contact(mcp, 'Naomi');
      await consent(org.orgId, naomi.id, 'sms', 'service');
      const created = await mcpCall(mcp, 'templates_create_template', {
        name: 'Rota reminder', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}, you are on {{duty}} this Sunday.',
        variables: [{ name: 'duty', example: 'coffee' }],
      });
      await mcpCall(mcp, 'templates_activate_version', { versionId: created.version.id });

      const before = sandbox.messages().length;
      const missing = await mcpRefusal(mcp, 'channels_send_sms', { contactId: naomi.id, purpose: 'service', templateId: created.template.id });
      expect(missing.code).toBe('validation_failed');
      expect(JSON.stringify(missing)).toContain('duty');
      expect(sandbox.messages().length).toBe(before);

      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: naomi.id, purpose: 'service', templateId: created.template.id, variables: { duty: 'coffee' } });
      expect(sent.message).toMatchObject({ body: 'Hi Naomi, you are on coffee this Sunday.', templateId: created.template.id, templateVersionId: created.version.id });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');
      expect(sandboxMessagesTo(naomi.phone).map((m) => m.body)).toEqual(['Hi Naomi, you are on coffee this Sunday.']);
    });

    it('HTML-escapes merge data in a template email', async () => {
      const ed = await contact(mcp, 'Ed');
      await consent(org.orgId, ed.id, 'email', 'service');
      const created = await mcpCall(mcp, 'templates_create_template', {
        name: 'Team note', channel: 'email', purpose: 'service', subject: 'Note for {{first_name}}', body: 'From {{team}}', html: '<p>From {{team}}</p>',
        variables: [{ name: 'team', example: 'Welcome team' }],
      });
      await mcpCall(mcp, 'templates_activate_version', { versionId: created.version.id });
      const sent = await mcpCall(mcp, 'channels_send_email', { contactId: ed.id, purpose: 'service', templateId: created.template.id, variables: { team: '<b>Tom & Co</b>' } });
      expect(sent.message.html).toBe('<p>From &lt;b&gt;Tom &amp; Co&lt;/b&gt;</p>');
      expect(sent.message.body).toBe('From <b>Tom & Co</b>');
    });
  });

  describe('quiet hours', () => {
    it('defer a send, never drop it: nothing is sent or metered until they end, then it goes', async () => {
      const quiet = await harness.createOrg({ name: 'Quiet Chapel' });
      const quietMcp = await harness.mcpClient(quiet.apiKey);
      try {
        const london = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
        const at = (offsetMs: number) => london.format(new Date(Date.now() + offsetMs));
        await withTransaction(harness.pool, (db) => updateChannelSettings(db, quiet.orgId, {
          quietHours: { enabled: true, start: at(-3_600_000), end: at(3_600_000) }, timeZone: 'Europe/London',
        }));
        const lydia = await contact(quietMcp, 'Lydia');
        await consent(quiet.orgId, lydia.id, 'sms', 'service');
        const sent = await mcpCall(quietMcp, 'channels_send_sms', { contactId: lydia.id, purpose: 'service', body: 'Choir practice moved to 7pm' });
        expect(sent.deferredUntil).not.toBeNull();
        const deferred = await (async () => {
          const deadline = Date.now() + 30_000;
          for (;;) {
            const { message } = await mcpCall(quietMcp, 'channels_get_message', { messageId: sent.message.id });
            if (message.deferredUntil || Date.now() > deadline) return message;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        })();
        expect(deferred).toMatchObject({ status: 'queued' });
        expect(Date.parse(deferred.deferredUntil)).toBeGreaterThan(Date.now());
        expect(sandboxMessagesTo(lydia.phone)).toHaveLength(0);
        const metered = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'messaging_credits'", [quiet.orgId]);
        expect(metered.rows[0].n).toBe(0);

        // Quiet hours over (here: switched off): the same message goes, once.
        await withTransaction(harness.pool, (db) => updateChannelSettings(db, quiet.orgId, { quietHours: { enabled: false } }));
        const outcome = await createOutbox({ pool: harness.pool }).send('channels.message', quiet.orgId, sent.message.id);
        expect(outcome.status).toBe('sent');
        expect(sandboxMessagesTo(lydia.phone)).toHaveLength(1);
        const after = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'messaging_credits'", [quiet.orgId]);
        expect(after.rows[0].n).toBe(1);
      } finally {
        await quietMcp.close();
      }
    });
  });
});
