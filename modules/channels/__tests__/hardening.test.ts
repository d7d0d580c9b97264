import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { withTransaction } from '../../../db/pool';
import { recordConsent } from '../audience/consent';
import { createSender } from '../audience/senders';
import type { MessagingSandbox, SandboxMessage } from '../../../sandbox/messaging/server';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';
import { seedTaggedContacts } from './broadcast-seed';

/**
 * Channels weaknesses closed, each through a real surface (signed webhooks from the sandbox, MCP, the
 * bridge): an inbound message to a number no organisation registered is attributed to none; a STOP
 * landing while the provider's acceptance is still unrecorded leaves that message sent; pastoral
 * outreach on WhatsApp is dispatched under exactly the channels sendability check; the actual cost
 * a provider reports in a status callback is kept (and never guessed when absent).
 */
jest.setTimeout(150_000);

describe('channels hardening', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let sandbox: MessagingSandbox;
  let phoneSeq = 500;
  const WHATSAPP_NUMBER = '+447700900002';

  async function contact(firstName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; phone: string }> {
    phoneSeq += 1;
    const phone = `+4477009${String(phoneSeq).padStart(5, '0')}`;
    const created = await mcpCall(mcp, 'people_create_contact', { firstName, lastName: 'Tester', phone, ...extra });
    return { id: created.contact.id, phone };
  }

  async function consent(contactId: string, channel: 'sms' | 'whatsapp', purpose: 'service' | 'marketing') {
    await withTransaction(harness.pool, (db) => recordConsent(db, org.orgId, {
      contactId, channel, purpose, basis: 'consent', source: 'test sign-up form', wording: 'Yes, you may message me',
    }, null));
  }

  async function messageWhen(messageId: string, done: (message: any) => boolean): Promise<any> {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const { message } = await mcpCall(mcp, 'channels_get_message', { messageId });
      if (done(message) || Date.now() > deadline) return message;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const sandboxMessagesTo = (to: string) => sandbox.messages().filter((m) => m.to === to);

  beforeAll(async () => {
    // Its own stack: jest mocks and providers in this suite's environment must reach the worker.
    harness = await Harness.start({ own: true });
    sandbox = await startTestMessagingSandbox(harness.url);
    org = await harness.createOrg({ name: 'St Anne' });
    mcp = await harness.mcpClient(org.apiKey);
    await withTransaction(harness.pool, async (db) => {
      await createSender(db, org.orgId, { channel: 'sms', address: sandbox.config.smsFrom });
      await createSender(db, org.orgId, { channel: 'whatsapp', address: WHATSAPP_NUMBER });
    });
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await sandbox?.close();
  });

  describe('inbound to a number no organisation registered', () => {
    it('is attributed to no organisation: answered 200, nothing recorded or suppressed, one non-personal log line', async () => {
      const ruth = await contact('Ruth');
      await consent(ruth.id, 'sms', 'service');
      // St Anne has texted Ruth: the old routing gave any inbound from her number to the organisation that last messaged her.
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: ruth.id, purpose: 'service', body: 'Choir is at 7 tonight' });
      await messageWhen(sent.message.id, (m) => m.status === 'sent');

      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const sms = await sandbox.inbound({ channel: 'sms', from: ruth.phone, to: '+447700900999', text: 'STOP' });
        expect(sms.status).toBe(200);
        expect(sms.body).not.toContain('<Message>');
        const whatsapp = await sandbox.inbound({ channel: 'whatsapp', from: ruth.phone, to: '+447700900998', text: 'STOP' });
        expect(whatsapp.status).toBe(200);
        expect(JSON.parse(whatsapp.body)).toMatchObject({ ok: true, applied: 0 });

        const lines = warn.mock.calls.map((args) => args.map(String).join(' '));
        expect(lines).toHaveLength(2);
        for (const line of lines) {
          expect(line).toMatch(/no organisation has registered/);
          for (const personal of [ruth.phone, ruth.phone.slice(1), '+447700900999', '+447700900998', 'STOP']) expect(line).not.toContain(personal);
        }
      } finally {
        warn.mockRestore();
      }

      // Nothing anywhere: no suppression in any organisation, no WhatsApp window opened.
      const suppressions = await harness.pool.query('SELECT org_id FROM channel_suppressions WHERE address = $1', [ruth.phone]);
      expect(suppressions.rows).toEqual([]);
      const windows = await harness.pool.query('SELECT org_id FROM channel_inbound_windows WHERE address = $1', [ruth.phone]);
      expect(windows.rows).toEqual([]);
      const check = await mcpCall(mcp, 'channels_check_sendability', { contactId: ruth.id, channel: 'sms', purpose: 'service' });
      expect(check).toMatchObject({ allowed: true, reason: null });

      // The registered number still routes: the same STOP to it suppresses, in St Anne only.
      const routed = await sandbox.inbound({ channel: 'sms', from: ruth.phone, to: sandbox.config.smsFrom, text: 'STOP' });
      expect(routed.body).toContain('<Message>');
      expect((await harness.pool.query('SELECT org_id FROM channel_suppressions WHERE address = $1', [ruth.phone])).rows).toEqual([{ org_id: org.orgId }]);
    });
  });

  describe('a STOP while the provider\'s acceptance is unrecorded', () => {
    const saved = process.env.STEWARD_SEND_TIMEOUT_MS;
    afterAll(() => {
      sandbox.holdResponses(0);
      if (saved === undefined) delete process.env.STEWARD_SEND_TIMEOUT_MS;
      else process.env.STEWARD_SEND_TIMEOUT_MS = saved;
    });

    it('leaves the accepted message sent (and later callbacks apply); the STOP refuses the next message', async () => {
      const peter = await contact('Peter');
      await consent(peter.id, 'sms', 'service');
      // The provider takes the message at once but its answer is lost (held past the 1 s send timeout).
      process.env.STEWARD_SEND_TIMEOUT_MS = '1000';
      sandbox.holdResponses(4000);
      const recorded = sandbox.nextRecorded();
      const sent = await mcpCall(mcp, 'channels_send_sms', { contactId: peter.id, purpose: 'service', body: 'Rota: you are on coffee this Sunday' });
      const accepted: SandboxMessage = await recorded;
      // STOP arrives after the provider accepted it, before Steward recorded that.
      const stop = await sandbox.inbound({ channel: 'sms', from: peter.phone, to: sandbox.config.smsFrom, text: 'STOP' });
      expect(stop.body).toContain('<Message>');
      sandbox.holdResponses(0);

      const out = await messageWhen(sent.message.id, (m) => m.status !== 'queued' && m.status !== 'sending');
      expect(out).toMatchObject({ status: 'sent', providerMessageId: accepted.id, error: null });
      expect(sandboxMessagesTo(peter.phone)).toHaveLength(1);

      const delivered = await sandbox.setMessageStatus(accepted.id, 'delivered');
      expect(delivered.status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: sent.message.id })).message.status).toBe('delivered');

      const refused = await mcpRefusal(mcp, 'channels_send_sms', { contactId: peter.id, purpose: 'service', body: 'Are you coming Sunday?' });
      expect(refused.details).toMatchObject({ reason: 'suppressed' });
      expect(sandboxMessagesTo(peter.phone)).toHaveLength(1);
    });
  });

  describe('pastoral outreach on WhatsApp', () => {
    it('is dispatched under the channels sendability check: the 24-hour window, with the same reason code', async () => {
      const wendy = await contact('Wendy', { whatsappConsent: true });
      await consent(wendy.id, 'whatsapp', 'service');
      const check = await mcpCall(mcp, 'channels_check_sendability', { contactId: wendy.id, channel: 'whatsapp', purpose: 'service' });
      expect(check).toMatchObject({ allowed: false, reason: 'window_closed' });

      const item = (await harness.call(org.apiKey, 'people_create_outreach', { contactId: wendy.id, channel: 'whatsapp', body: 'Thinking of you this week' })).item;
      const approved = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
      expect(approved.item).toMatchObject({ status: 'approved', sendError: { code: check.reason } });
      expect(approved.item.sendError.message).toContain(check.message);
      expect(sandboxMessagesTo(wendy.phone)).toHaveLength(0);

      // She writes in: the window opens, the check allows it, and the next approved item goes.
      expect((await sandbox.inbound({ channel: 'whatsapp', from: wendy.phone, to: WHATSAPP_NUMBER, text: 'Thank you for the visit' })).status).toBe(200);
      expect(await mcpCall(mcp, 'channels_check_sendability', { contactId: wendy.id, channel: 'whatsapp', purpose: 'service' })).toMatchObject({ allowed: true });
      const next = (await harness.call(org.apiKey, 'people_create_outreach', { contactId: wendy.id, channel: 'whatsapp', body: 'Lovely to hear from you' })).item;
      const sentItem = await harness.call(org.apiKey, 'people_approve_outreach', { outreachId: next.id, contentVersion: 1 });
      expect(sentItem.item).toMatchObject({ status: 'sent', sendError: null });
      expect(sandboxMessagesTo(wendy.phone).map((m) => m.body)).toEqual(['Lovely to hear from you']);
    });
  });

  describe('actual cost from status callbacks', () => {
    it('fills it from a Twilio-style Price/PriceUnit and a Meta-style status pricing; an absent or unreadable price stays null', async () => {
      const anna = await contact('Anna');
      await consent(anna.id, 'sms', 'service');
      await consent(anna.id, 'whatsapp', 'service');
      const first = await mcpCall(mcp, 'channels_send_sms', { contactId: anna.id, purpose: 'service', body: 'Bible study moves to Wednesday' });
      await messageWhen(first.message.id, (m) => m.status === 'sent');
      const [sms] = sandboxMessagesTo(anna.phone);

      // A status without a price: the status applies, the actual cost stays unknown.
      await sandbox.setMessageStatus(sms.id, 'sent');
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: first.message.id })).message).toMatchObject({
        actualCost: null, estimatedCost: { amountMinor: 4, currency: 'GBP' },
      });
      // An unreadable price changes no cost, but the status still moves.
      const garbled = await sandbox.setMessageStatus(sms.id, 'delivered', { price: 'about 4p', priceUnit: 'GBP' });
      expect(garbled.status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: first.message.id })).message).toMatchObject({ status: 'delivered', actualCost: null });
      // Twilio quotes fractions of a cent: 0.0075 USD is 0.75 cents, kept as 1 cent (half up), in the currency billed.
      const priced = await sandbox.setMessageStatus(sms.id, 'read', { price: '0.0075', priceUnit: 'USD' });
      expect(priced.status).toBe(200);
      const listed = await mcpCall(mcp, 'channels_list_messages', { contactId: anna.id, limit: 10 });
      expect(listed.messages[0]).toMatchObject({ id: first.message.id, actualCost: { amountMinor: 1, currency: 'USD' }, estimatedCost: { amountMinor: 4, currency: 'GBP' } });

      await sandbox.inbound({ channel: 'whatsapp', from: anna.phone, to: WHATSAPP_NUMBER, text: 'Which room?' });
      const reply = await mcpCall(mcp, 'channels_send_whatsapp', { contactId: anna.id, purpose: 'service', body: 'The upper room' });
      await messageWhen(reply.message.id, (m) => m.status === 'sent');
      const whatsapp = sandboxMessagesTo(anna.phone).find((m) => m.channel === 'whatsapp')!;
      const metaStatus = await sandbox.setMessageStatus(whatsapp.id, 'delivered', { price: '0.0230', priceUnit: 'gbp' });
      expect(metaStatus.status).toBe(200);
      expect((await mcpCall(mcp, 'channels_get_message', { messageId: reply.message.id })).message).toMatchObject({
        status: 'delivered', actualCost: { amountMinor: 2, currency: 'GBP' },
      });
    });

    it('a broadcast report totals the actual cost by currency and counts the messages not yet priced', async () => {
      const { tagId, contacts: members } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Stewards', count: 3, firstNumber: 800 });
      const previewed = await mcpCall(mcp, 'channels_preview_broadcast', {
        name: 'Stewards meeting', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Stewards meet at 8 on Sunday.', ratePerMinute: 600,
      }, { approvalWaitMs: 0 });
      const broadcastId = previewed.broadcast.id;
      await mcpCall(mcp, 'channels_schedule_broadcast', { broadcastId, previewHash: previewed.previewHash, actionSummary: 'Stewards meeting to 3 people' }, { approvalWaitMs: 0 });
      await harness.temporal.workflow.getHandle(`broadcast-${broadcastId}`).result();

      const before = await mcpCall(mcp, 'channels_get_broadcast', { broadcastId });
      expect(before.cost).toEqual({ estimated: { amountMinor: 12, currency: 'GBP' }, actual: [], messagesWithoutActualCost: 3 });
      const [bea, cal] = members.map((m) => sandboxMessagesTo(m.phone)[0]);
      await sandbox.setMessageStatus(bea.id, 'delivered', { price: '0.0400', priceUnit: 'GBP' });
      await sandbox.setMessageStatus(cal.id, 'delivered', { price: '0.0350', priceUnit: 'GBP' });
      const after = await mcpCall(mcp, 'channels_get_broadcast', { broadcastId });
      expect(after.cost).toEqual({ estimated: { amountMinor: 12, currency: 'GBP' }, actual: [{ amountMinor: 8, currency: 'GBP', messages: 2 }], messagesWithoutActualCost: 1 });
    });
  });
});
