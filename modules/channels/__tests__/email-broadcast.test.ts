import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../../db/pool';
import { recordConsent } from '../audience/consent';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';

/**
 * An email broadcast end to end over MCP, through a real SMTP server: previewed (the person without
 * marketing consent excluded, by reason), scheduled with the preview's hash, approved (marketing
 * waits for a person), sent to each consenting person once, each email carrying RFC 8058 one-click
 * unsubscribe headers whose POST withdraws that person's consent; the report shows no actual cost
 * (email providers report none, so none is guessed).
 */
jest.setTimeout(150_000);

describe('channels: an email broadcast', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let smtp: TestSmtpServer;
  const saved = { SMTP_HOST: process.env.SMTP_HOST, SMTP_PORT: process.env.SMTP_PORT, SMTP_FROM: process.env.SMTP_FROM, CHANNELS_WEBHOOK_BASE_URL: process.env.CHANNELS_WEBHOOK_BASE_URL };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    Object.assign(process.env, { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_FROM: 'St Anne <news@stanne.example.org>' });
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    process.env.CHANNELS_WEBHOOK_BASE_URL = harness.url;
    org = await harness.createOrg({ name: 'St Anne' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await smtp?.close();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  const call = (name: string, args: Record<string, unknown>) => mcpCall(mcp, name, args, { approvalWaitMs: 0 });

  function header(raw: string, name: string): string | undefined {
    // Folded header lines continue with whitespace.
    const match = new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r?\\n[ \\t]+.*)*)`, 'im').exec(raw);
    return match?.[1].replace(/\r?\n[ \t]+/g, ' ').trim();
  }

  it('previews, schedules with the hash, is approved, goes out by SMTP with one-click unsubscribe, and the POST unsubscribes', async () => {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'Newsletter']);
    const people: Array<{ id: string; email: string }> = [];
    for (const name of ['Ada', 'Ben', 'Cy']) {
      const email = `${name.toLowerCase()}@example.org`;
      const created = await call('people_create_contact', { firstName: name, lastName: 'Reader', email });
      people.push({ id: created.contact.id, email });
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, created.contact.id, tagId]);
    }
    // Ada and Ben signed up for the newsletter; Cy never did.
    for (const person of people.slice(0, 2)) {
      await withTransaction(harness.pool, (db) => recordConsent(db, org.orgId, {
        contactId: person.id, channel: 'email', purpose: 'marketing', basis: 'consent', source: 'website newsletter form', wording: 'Send me the monthly newsletter',
      }, null));
    }

    const previewed = await call('channels_preview_broadcast', {
      name: 'March newsletter', channel: 'email', purpose: 'marketing', audience: { kind: 'tag', id: tagId },
      subject: 'St Anne in March', body: 'Lent lunches every Friday at noon.', html: '<p>Lent lunches every Friday at noon.</p>',
    });
    expect(previewed.preview).toMatchObject({
      total: 3, eligible: 2, excluded: { no_consent: 1 }, needsApproval: true,
      cost: { channel: 'email', messages: 2, unit: 'email', amount: 0, currency: 'GBP' },
      sample: { subject: 'St Anne in March', text: 'Lent lunches every Friday at noon.' },
    });
    expect(smtp.delivered).toHaveLength(0);
    const broadcastId = previewed.broadcast.id;

    const gated = await mcpRefusal(mcp, 'channels_schedule_broadcast', { broadcastId, previewHash: previewed.previewHash, actionSummary: 'March newsletter to 2 people' }, { approvalWaitMs: 0 });
    expect(gated.code).toBe('approval_required');
    const decided = await call('platform_approve_proposal', { proposalId: gated.details.proposalId });
    expect(decided.execution).toMatchObject({ status: 'succeeded' });
    await harness.temporal.workflow.getHandle(`broadcast-${broadcastId}`).result();

    const report = await call('channels_get_broadcast', { broadcastId });
    expect(report.broadcast.status).toBe('completed');
    expect(report.recipients.byStatus).toMatchObject({ sent: 2, failed: 0 });
    expect(report.messages).toMatchObject({ sent: 2 });
    expect(report.cost).toEqual({ estimated: { amountMinor: 0, currency: 'GBP' }, actual: [], messagesWithoutActualCost: 2 });
    // Email providers confirm no delivery here, so the funnel stops at sent.
    expect(report.funnel).toEqual([{ stage: 'audience', count: 3 }, { stage: 'recipients', count: 2 }, { stage: 'sent', count: 2 }, { stage: 'delivered', count: 0 }]);

    const delivered = smtp.delivered;
    expect(delivered.map((mail) => mail.to).flat().sort()).toEqual(['ada@example.org', 'ben@example.org']);
    for (const mail of delivered) {
      expect(header(mail.raw, 'Subject')).toBe('St Anne in March');
      expect(header(mail.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(header(mail.raw, 'List-Unsubscribe')).toMatch(/<https?:\/\/[^>]+\/channels\/unsubscribe\/[^>]+>/);
    }

    // Ada clicks "unsubscribe" in her mail client: the one-click POST withdraws her newsletter consent.
    const ada = delivered.find((mail) => mail.to.includes('ada@example.org'))!;
    const link = /<(https?:\/\/[^>]+\/channels\/unsubscribe\/[^>]+)>/.exec(header(ada.raw, 'List-Unsubscribe')!)![1];
    const scanned = await fetch(link);
    expect(scanned.status).toBe(200);
    expect((await call('channels_check_sendability', { contactId: people[0].id, channel: 'email', purpose: 'marketing' })).allowed).toBe(true);
    const posted = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(posted.status).toBe(200);
    expect(await call('channels_check_sendability', { contactId: people[0].id, channel: 'email', purpose: 'marketing' })).toMatchObject({ allowed: false, reason: 'no_consent' });
    expect((await call('channels_check_sendability', { contactId: people[1].id, channel: 'email', purpose: 'marketing' })).allowed).toBe(true);
  });
});
