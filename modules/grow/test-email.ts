import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { StewardError } from '../../core/errors';
import { assertAllowance } from '../../kernel/billing';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { checkRecipient, queueMessage } from '../channels/api';
import { toolsFor } from '../kit';
import { escapeHtml } from '../templates/api';
import { requireCampaign } from './campaigns';

/**
 * A campaign's test email: its content as it stands (or one A/B variant's) to one person, usually a
 * team member checking it before it goes. It goes through the channels outbox like every email
 * (consent for the campaign's purpose and suppression checked there too), is marked as a test in
 * its subject and first line, keeps its links untracked and is never a campaign recipient, so the
 * campaign's report never counts it. Rate-limited per campaign and per organisation.
 */

export const TEST_EMAIL_TOOL = 'grow_send_test_email';
export const TEST_SENDS_PER_CAMPAIGN_PER_HOUR = 10;
export const TEST_SENDS_PER_ORG_PER_DAY = 50;

export interface TestEmailContent { subject: string; body: string; html: string }

/** The test's words: "[Test]" before the subject, a first line saying what it is, links left as they are (no tracking, so nothing reaches the report). */
export function renderTestEmail(campaignName: string, content: { subject: string; body: string }): TestEmailContent {
  const notice = `This is a test of the campaign "${campaignName}". Its links are not tracked and it is not counted in the campaign's report.`;
  const linked = (text: string) => escapeHtml(text).replace(/https:\/\/[^\s<>"')\]]+/g, (url) => `<a href="${url.replace(/[.,;:!?]+$/, '')}">${url}</a>`);
  const paragraphs = content.body.split(/\n\s*\n/).map((p) => `<p>${linked(p).replace(/\n/g, '<br>')}</p>`).join('');
  return {
    subject: `[Test] ${content.subject}`.slice(0, 998),
    body: `${notice}\n\n${content.body}`,
    html: `<p><strong>${escapeHtml(notice)}</strong></p><hr>${paragraphs}`,
  };
}

async function assertUnderLimits(db: Queryable, orgId: string, campaignId: string): Promise<void> {
  // One test at a time per organisation: the counts below cannot both pass for two concurrent calls.
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`grow-test-email:${orgId}`]);
  const counts = await queryOne<{ campaign_hour: number; org_day: number }>(db, `SELECT
      count(*) FILTER (WHERE campaign_id = $2 AND created_at > now() - interval '1 hour')::int AS campaign_hour,
      count(*) FILTER (WHERE created_at > now() - interval '1 day')::int AS org_day
    FROM grow_campaign_test_sends WHERE org_id = $1 AND created_at > now() - interval '1 day'`, [orgId, campaignId]);
  if ((counts?.campaign_hour ?? 0) >= TEST_SENDS_PER_CAMPAIGN_PER_HOUR) {
    throw new StewardError('conflict', `This campaign has had ${TEST_SENDS_PER_CAMPAIGN_PER_HOUR} test emails in the last hour`, {
      hint: 'Wait a little before sending another test; grow_preview_campaign shows the content without sending.', details: { reason: 'test_limit_campaign', limit: TEST_SENDS_PER_CAMPAIGN_PER_HOUR },
    });
  }
  if ((counts?.org_day ?? 0) >= TEST_SENDS_PER_ORG_PER_DAY) {
    throw new StewardError('conflict', `The organisation has sent ${TEST_SENDS_PER_ORG_PER_DAY} test emails in the last day`, {
      hint: 'Try again tomorrow.', details: { reason: 'test_limit_organisation', limit: TEST_SENDS_PER_ORG_PER_DAY },
    });
  }
}

export interface TestEmailResult {
  message: { id: string; status: string; deferredUntil: string | null };
  campaignId: string; contactId: string; variant: number; subject: string; created: boolean;
}

/** Queues one test email in the channels outbox (the tool's follow-up hands it over); a repeated call with the same key answers the same message. */
export async function sendTestEmail(db: Queryable, orgId: string, input: { campaignId: string; contactId: string; variant?: number }, callKey: string): Promise<TestEmailResult> {
  const campaign = await requireCampaign(db, orgId, input.campaignId);
  if (campaign.status === 'cancelled') throw new StewardError('conflict', `Campaign ${campaign.id} is cancelled`, { details: { reason: 'campaign_cancelled' } });
  const variants = await queryRows<{ position: number; subject: string; body: string }>(db,
    'SELECT position, subject, body FROM grow_campaign_variants WHERE org_id = $1 AND campaign_id = $2 ORDER BY position', [orgId, campaign.id]);
  const position = input.variant ?? 0;
  const chosen = variants.length > 0 ? variants.find((v) => v.position === position) : position === 0 ? campaign : undefined;
  if (!chosen) {
    throw new StewardError('validation_failed', `There is no variant ${position}`, { issues: [{ path: 'variant', message: variants.length > 0 ? `0 to ${variants.length - 1}` : 'this campaign has no A/B variants: leave it out' }] });
  }
  const content = renderTestEmail(campaign.name, chosen);
  const queued = await queueMessage(db, orgId, {
    contactId: input.contactId, channel: 'email', purpose: campaign.purpose, subject: content.subject, body: content.body, html: content.html,
    idempotencyKey: `grow-test:${campaign.id}:${callKey}`, usageTool: TEST_EMAIL_TOOL,
  });
  const result = (created: boolean): TestEmailResult => ({
    message: { id: queued.message.id, status: queued.message.status, deferredUntil: queued.message.deferredUntil },
    campaignId: campaign.id, contactId: input.contactId, variant: position, subject: content.subject, created,
  });
  if (!queued.created) return result(false);
  const check = await checkRecipient(db, orgId, { contactId: input.contactId, channel: 'email', purpose: campaign.purpose, now: new Date() });
  if (!check.ok) {
    throw new StewardError('forbidden', check.message, {
      hint: check.hint ?? 'Send the test to a team member who agreed to this kind of email (channels_record_consent).', details: { reason: check.reason },
    });
  }
  await assertUnderLimits(db, orgId, campaign.id);
  await assertAllowance(db, orgId, 'email_sends', queued.message.meteredUnits, { tool: TEST_EMAIL_TOOL, purpose: campaign.purpose });
  await db.query('INSERT INTO grow_campaign_test_sends (id, org_id, campaign_id, contact_id, message_id, variant) VALUES ($1, $2, $3, $4, $5, $6)',
    [randomUUID(), orgId, campaign.id, input.contactId, queued.messageId, position]);
  return result(true);
}

const tools = toolsFor('grow', { read: 'grow:read', write: 'grow:write' });

const sendTestEmailTool = tools.send('send_test_email', {
  title: 'Send a test of a campaign email',
  description: `Sends one person (usually a team member checking it) the campaign's email as it stands, or one A/B variant, marked "[Test]" with a first line saying so. It goes through the channels outbox (consent for the campaign's purpose and suppression checked), its links are not tracked, and it is never counted in the campaign's report or audience. At most ${TEST_SENDS_PER_CAMPAIGN_PER_HOUR} tests per campaign an hour and ${TEST_SENDS_PER_ORG_PER_DAY} a day.`,
  keywords: ['test email', 'proof', 'send me a copy', 'check campaign email', 'try it on myself', 'sample email', 'inbox check', 'before it goes out'],
  examples: [
    'send me a test of the Christmas email', 'email a proof of the newsletter to the vicar before it goes out', 'I want to see how the campaign looks in my inbox',
    'send a sample of the mailing to the office manager first', 'test the second subject line on me', 'test it on me', 'Zoe wants to check the Easter mailing on her phone before it goes to everyone', 'can I see a sample of variant B of the newsletter',
  ],
  followUp: { kind: 'channels.send_message' },
  input: z.object({
    campaignId: z.uuid().describe('The campaign (grow_list_campaigns)'),
    contactId: z.uuid().describe('Who gets the test: a contact with an email address, usually the team member\'s own'),
    variant: z.number().int().min(0).max(4).optional().describe('An A/B variant to test (default 0, the campaign\'s own content)'),
  }),
  output: z.object({
    message: z.object({ id: z.uuid(), status: z.string(), deferredUntil: z.string().nullable().describe('Quiet hours: when it will go') }).strict().describe('The channel message; channels_get_message shows its delivery'),
    campaignId: z.uuid(), contactId: z.uuid(), variant: z.number().int(), subject: z.string(), created: z.boolean().describe('False when this call had already queued it'),
  }).strict(),
  run: async (ctx, input) => sendTestEmail(ctx.db, ctx.org.id, input, ctx.workflowId),
});

export const growTestEmailTools = [sendTestEmailTool];

/** A campaign's test emails, newest first (who was sent which variant and when; the message's delivery is in channels). */
export async function listTestSends(db: Queryable, orgId: string, campaignId: string, limit: number): Promise<Array<{ messageId: string; contactId: string | null; variant: number; sentAt: string }>> {
  await requireCampaign(db, orgId, campaignId);
  const rows = await queryRows<{ message_id: string; contact_id: string | null; variant: number; created_at: Date }>(db,
    'SELECT message_id, contact_id, variant, created_at FROM grow_campaign_test_sends WHERE org_id = $1 AND campaign_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3', [orgId, campaignId, limit]);
  return rows.map((r) => ({ messageId: r.message_id, contactId: r.contact_id, variant: r.variant, sentAt: r.created_at.toISOString() }));
}
