import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { createOutbox } from '../../../activities/outbox';
import { withTenantTransaction } from '../../../db/pool';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import type { TestSmtpServer } from '../../../test/helpers/message-servers';
import { chainHeadIsFree, holdLock, started, untilWaitingBehind } from '../../../test/helpers/row-locks';
import { outboxDispatch, queueMessage } from '../../channels/api';
import { sendCampaignBatch, trackingToken } from '../campaigns';
import { type GrowMailStack, eventually, growMailStack } from './mail-text';

jest.setTimeout(240_000);

/**
 * What a campaign's hand-over does with each answer the outbox gives, end to end over MCP and a real
 * SMTP server: quiet hours hold the campaign (nothing queued, nothing counted) until they end; a
 * provider that cannot take an email now is tried again until it does, once; one that refuses it
 * for good fails that recipient, not the campaign; and a cancel withdraws the queued emails nothing
 * has begun to send while an email that went before a crash is counted as handed, not cancelled.
 */
describe('grow: a campaign\'s hand-over', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let smtp: TestSmtpServer;
  let stack: GrowMailStack;

  beforeAll(async () => {
    stack = await growMailStack();
    ({ harness, smtp, org, mcp } = stack);
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** People on a new tag, each with marketing email consent; returns the tag and their ids. */
  async function audience(label: string, emails: string[]): Promise<{ tagId: string; people: string[] }> {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, label]);
    const people: string[] = [];
    for (const [index, email] of emails.entries()) {
      const { contact } = await mcpCall(mcp, 'people_create_contact', { firstName: `${label}${index}`, lastName: 'Reader', email });
      people.push(contact.id);
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, contact.id, tagId]);
      await mcpCall(mcp, 'channels_record_consent', { contactId: contact.id, channel: 'email', purpose: 'marketing', source: 'website form', wording: 'Send me church news' });
    }
    return { tagId, people };
  }

  /** Creates, previews and schedules a campaign to the tag, approving the new audience as a person would. */
  async function scheduled(name: string, tagId: string): Promise<string> {
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', { name, audience: { kind: 'tag', id: tagId }, subject: name, body: `${name}: book at https://example.org/${slugOf(name)}` });
    const { previewHash } = await mcpCall(mcp, 'grow_preview_campaign', { campaignId: campaign.id });
    const gated = await mcpRefusal(mcp, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash }, { approvalWaitMs: 0 });
    expect(gated.code).toBe('approval_required');
    await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    return campaign.id;
  }
  const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z]+/g, '-');
  const report = (campaignId: string) => mcpCall(mcp, 'grow_get_campaign_report', { campaignId });
  const mailsTo = (address: string) => smtp.delivered.filter((m) => m.to.includes(address));
  const hhmm = (date: Date) => date.toISOString().slice(11, 16);

  it('quiet hours hold the campaign, queueing and counting nothing, until they end; then every email goes once', async () => {
    const emails = ['quiet0@example.org', 'quiet1@example.org', 'quiet2@example.org'];
    const { tagId } = await audience('Quiet', emails);
    const now = Date.now();
    await mcpCall(mcp, 'channels_update_settings', { quietHours: { enabled: true, start: hhmm(new Date(now - 3_600_000)), end: hhmm(new Date(now + 3_600_000)) }, timeZone: 'UTC' });
    try {
      const campaignId = await scheduled('Quiet carols', tagId);
      // The batch that found quiet hours started the campaign, in the transaction that would have queued its emails.
      const started = await eventually(() => mcpCall(mcp, 'grow_get_campaign', { campaignId }), (r) => r.campaign.status !== 'scheduled');
      expect(started.campaign.status).toBe('sending');
      const { rows } = await harness.pool.query('SELECT status, message_id FROM grow_campaign_recipients WHERE campaign_id = $1', [campaignId]);
      expect(rows).toEqual(emails.map(() => ({ status: 'pending', message_id: null })));
      expect((await report(campaignId)).totals).toMatchObject({ recipients: 3, handed: 0 });
      expect(emails.flatMap(mailsTo)).toHaveLength(0);

      // Quiet hours lifted; a pause and resume wakes the campaign at once rather than when they would have ended. The
      // resume's poke may arrive while the pause's batch is running: it is kept for the next wait, not lost to the
      // paused campaign's minute-long look-again (the deadline is below that minute, so a lost poke fails here).
      await mcpCall(mcp, 'channels_update_settings', { quietHours: { enabled: false } });
      await mcpCall(mcp, 'grow_pause_campaign', { campaignId });
      await mcpCall(mcp, 'grow_pause_campaign', { campaignId, resume: true });
      const done = await eventually(() => report(campaignId), (r) => r.campaign.status === 'sent', 40_000);
      expect(done.totals).toMatchObject({ recipients: 3, handed: 3, skipped: 0, failed: 0 });
      expect(emails.map((email) => mailsTo(email).length)).toEqual([1, 1, 1]);
    } finally {
      await mcpCall(mcp, 'channels_update_settings', { quietHours: { enabled: false } });
    }
  });

  const refusalsOf = (address: string) => smtp.refused.filter((r) => r.address === address).map((r) => r.code);
  const recipientRows = async (campaignId: string) => (await harness.pool.query(`SELECT c.email, r.status, r.skip_reason, r.attempts FROM grow_campaign_recipients r
    JOIN contacts c ON c.id = r.contact_id WHERE r.campaign_id = $1 ORDER BY c.email`, [campaignId])).rows;

  it('an email the mail server cannot take now goes once it can; one it refuses for good, or never takes, fails that recipient only', async () => {
    const emails = ['steady@example.org', 'busy@example.org', 'gone@example.org', 'greylisted@example.org'];
    const { tagId } = await audience('Server', emails);
    smtp.refuseRecipient('busy@example.org', 451, 2);
    smtp.refuseRecipient('gone@example.org', 550);
    smtp.refuseRecipient('greylisted@example.org', 451);
    const campaignId = await scheduled('Harvest appeal', tagId);
    const done = await eventually(() => report(campaignId), (r) => r.campaign.status === 'sent', 120_000);
    expect(done.totals).toMatchObject({ recipients: 4, handed: 2, skipped: 0, failed: 2 });
    expect(done.failures).toEqual(expect.arrayContaining([{ reason: 'delivery_refused', count: 1 }, { reason: 'send_failed', count: 1 }]));
    expect(emails.map((email) => mailsTo(email).length)).toEqual([1, 1, 0, 0]);
    expect(refusalsOf('busy@example.org')).toEqual([451, 451]);
    // A refusal for good is not tried again; a mailbox that never takes it is tried channels' five times, then given up.
    expect(refusalsOf('gone@example.org')).toEqual([550]);
    expect(refusalsOf('greylisted@example.org')).toEqual([451, 451, 451, 451, 451]);
    expect(await recipientRows(campaignId)).toEqual([
      { email: 'busy@example.org', status: 'handed', skip_reason: null, attempts: 3 },
      { email: 'gone@example.org', status: 'failed', skip_reason: 'delivery_refused', attempts: 1 },
      { email: 'greylisted@example.org', status: 'failed', skip_reason: 'send_failed', attempts: 5 },
      { email: 'steady@example.org', status: 'handed', skip_reason: null, attempts: 1 },
    ]);
  });

  it('a cancel while an email is being sent leaves it to that attempt; turned away, it is withdrawn and never tried again', async () => {
    const { tagId } = await audience('Retry', ['full@example.org']);
    smtp.refuseRecipient('full@example.org', 451);
    const gate = smtp.holdRecipients();
    try {
      const campaignId = await scheduled('Advent calendar', tagId);
      // The server has the envelope and has not answered: the email is being sent, so the cancel leaves it to that attempt.
      expect(await gate.arrived).toBe('full@example.org');
      const cancelled = await mcpCall(mcp, 'grow_cancel_campaign', { campaignId });
      expect(cancelled).toMatchObject({ campaign: { status: 'cancelled' }, cancelledRecipients: 0 });
      gate.release();
      // Turned away (451), it is queued again and the cancelled campaign's next batch withdraws it: the workflow ends, the server asked once.
      const handle = harness.temporal.workflow.getHandle(`grow-campaign-${campaignId}`);
      expect(await handle.result()).toMatchObject({ status: 'cancelled' });
      expect(refusalsOf('full@example.org')).toEqual([451]);
      expect((await recipientRows(campaignId))[0]).toMatchObject({ status: 'cancelled', attempts: 1 });
      const { rows: [message] } = await harness.pool.query(`SELECT m.status, m.error_code FROM channel_messages m
        JOIN grow_campaign_recipients r ON r.message_id = m.id WHERE r.campaign_id = $1`, [campaignId]);
      expect(message).toEqual({ status: 'failed', error_code: 'campaign_cancelled' });
    } finally {
      gate.release();
    }
  });

  it('a first batch holds no audit chain head while it waits for a recipient\'s row, and records the start once its emails are queued', async () => {
    const { tagId, people } = await audience('Chain', ['chain0@example.org', 'chain1@example.org']);
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', { name: 'Harvest supper', audience: { kind: 'tag', id: tagId }, subject: 'Harvest supper', body: 'Book at https://example.org/harvest' });
    await harness.pool.query("INSERT INTO grow_campaign_recipients (org_id, campaign_id, contact_id, status) SELECT $1, $2, unnest($3::uuid[]), 'pending'", [org.orgId, campaign.id, people]);
    await harness.pool.query("UPDATE grow_campaigns SET status = 'scheduled' WHERE id = $1", [campaign.id]);
    // The batch takes recipients by contact id: the second it reaches is the one a person's edit holds.
    const second = [...people].sort()[1]!;
    const held = await holdLock(harness.pool, 'SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [second]);
    const batch = started(() => sendCampaignBatch(harness.pool, org.orgId, campaign.id, 'all', 200, outboxDispatch(createOutbox({ pool: harness.pool }), org.orgId)));
    try {
      await untilWaitingBehind(harness.pool, held);
      // Were the start recorded first, the batch would hold the chain head here, and the person's edit, ending with its own event, would wait for it: a cycle.
      expect(await chainHeadIsFree(harness.pool, org.orgId)).toBe(true);
      expect(batch.settled()).toBe(false);
    } finally {
      await held.release();
    }
    expect(await batch.running).toMatchObject({ state: 'running', handed: 2 });
    const { rows } = await harness.pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1 AND target_id = $2 AND action = 'grow.campaign.start'`, [org.orgId, campaign.id]);
    expect(rows[0].n).toBe(1);
  });

  it('a cancel withdraws queued emails nothing began to send; one that went before a crash is finished as handed, and its links work', async () => {
    const emails = ['went@example.org', 'queued@example.org', 'waiting@example.org'];
    const { tagId, people } = await audience('Cancel', emails);
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', { name: 'Lent course', audience: { kind: 'tag', id: tagId }, subject: 'Lent course', body: 'Join at https://example.org/lent' });
    await harness.pool.query("INSERT INTO grow_campaign_recipients (org_id, campaign_id, contact_id, status) SELECT $1, $2, unnest($3::uuid[]), 'pending'", [org.orgId, campaign.id, people]);
    // A batch queues the first two, hands the first to the mail server and dies before marking it; the second never leaves.
    const outbox = createOutbox({ pool: harness.pool });
    const send = outboxDispatch(outbox, org.orgId);
    const went = await withTenantTransaction(harness.pool, org.orgId, (db) => queueMessage(db, org.orgId, {
      contactId: people[0]!, channel: 'email', purpose: 'marketing', subject: 'Lent course', body: 'Join us', idempotencyKey: `grow-campaign:${campaign.id}:${people[0]}`, usageTool: 'grow_schedule_campaign',
    }));
    const queued = await withTenantTransaction(harness.pool, org.orgId, (db) => queueMessage(db, org.orgId, {
      contactId: people[1]!, channel: 'email', purpose: 'marketing', subject: 'Lent course', body: 'Join us', idempotencyKey: `grow-campaign:${campaign.id}:${people[1]}`, usageTool: 'grow_schedule_campaign',
    }));
    await harness.pool.query('UPDATE grow_campaign_recipients SET message_id = $3 WHERE campaign_id = $1 AND contact_id = $2', [campaign.id, people[0], went.messageId]);
    await harness.pool.query('UPDATE grow_campaign_recipients SET message_id = $3 WHERE campaign_id = $1 AND contact_id = $2', [campaign.id, people[1], queued.messageId]);
    expect(await send(went.messageId)).toEqual({ kind: 'sent' });

    const cancelled = await mcpCall(mcp, 'grow_cancel_campaign', { campaignId: campaign.id });
    expect(cancelled).toMatchObject({ campaign: { status: 'cancelled' }, cancelledRecipients: 2 });
    expect((await mcpCall(mcp, 'channels_get_message', { messageId: queued.messageId })).message).toMatchObject({ status: 'failed', error: { code: 'campaign_cancelled' } });
    // The workflow's next batch (its retry after the crash) finds the campaign cancelled and finishes what went.
    expect(await sendCampaignBatch(harness.pool, org.orgId, campaign.id, 'all', 200, send)).toMatchObject({ state: 'running', handed: 1 });
    // Nothing is left: the next batch ends the campaign.
    expect(await sendCampaignBatch(harness.pool, org.orgId, campaign.id, 'all', 200, send)).toEqual({ state: 'cancelled', handed: 0, skipped: 0 });
    const { rows } = await harness.pool.query('SELECT contact_id, status FROM grow_campaign_recipients WHERE campaign_id = $1', [campaign.id]);
    expect(Object.fromEntries(rows.map((r) => [r.contact_id, r.status]))).toEqual({ [people[0]!]: 'handed', [people[1]!]: 'cancelled', [people[2]!]: 'cancelled' });
    expect((await report(campaign.id)).totals).toMatchObject({ recipients: 3, handed: 1 });
    expect(emails.map((email) => mailsTo(email).length)).toEqual([1, 0, 0]);
    const follow = (contactId: string) => fetch(`${harness.url}/grow/c/${trackingToken(org.orgId, campaign.id, contactId, 0)}`, { redirect: 'manual' });
    expect((await follow(people[0]!)).status).toBe(302);
    expect((await follow(people[1]!)).status).toBe(404);
    // Nothing withdrawn can go later: a second hand-over of it sends nothing.
    expect(await send(queued.messageId)).toMatchObject({ kind: 'refused' });
    expect(mailsTo('queued@example.org')).toHaveLength(0);
  });
});
