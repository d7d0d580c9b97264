import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import type { TestSmtpServer } from '../../../test/helpers/message-servers';
import { stewardEventSignature } from '../../channels/delivery/signatures';
import { trackingToken } from '../campaigns';
import { type GrowMailStack, decoded, eventually, growMailStack, subjectOf } from './mail-text';

jest.setTimeout(240_000);

/**
 * An A/B campaign end to end over MCP and a real SMTP server: previewed (the person without consent
 * excluded by reason), approved (a new audience), the test group sent both subjects, a click on
 * variant B's tracked link (signed; a tampered one goes nowhere), the durable timer picking B by
 * clicks and sending it to the rest, the report computed from events (deliveries and bounces the
 * mail provider reports, per variant), and the one-click unsubscribe of a campaign email
 * withdrawing consent in channels at once.
 */
describe('grow: an A/B email campaign', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let smtp: TestSmtpServer;
  let stack: GrowMailStack;

  beforeAll(async () => {
    stack = await growMailStack({ EMAIL_EVENTS_SECRET: 'grow-ab-events-secret' });
    ({ harness, smtp, org, mcp, otherMcp } = stack);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('tests two subjects, picks the one people clicked, sends it to the rest, and unsubscribes in one click', async () => {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'Christmas list']);
    const people: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      const { contact } = await mcpCall(mcp, 'people_create_contact', { firstName: `Person${i}`, lastName: 'Reader', email: `p${i}@example.org` });
      people.push(contact.id);
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, contact.id, tagId]);
      // Ten signed up for the church's news; the eleventh never did.
      if (i < 10) await mcpCall(mcp, 'channels_record_consent', { contactId: contact.id, channel: 'email', purpose: 'marketing', source: 'website form', wording: 'Send me church news' });
    }

    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', {
      name: 'Christmas invitation', audience: { kind: 'tag', id: tagId }, subject: 'Come for Christmas', body: 'Carols by candlelight.\n\nBook at https://example.org/christmas today.',
    });
    expect(campaign).toMatchObject({ status: 'draft', links: ['https://example.org/christmas'] });
    const ab = await mcpCall(mcp, 'grow_add_ab_variants', { campaignId: campaign.id, variable: 'subject', values: ['You are invited this Christmas'], testPercent: 40, waitHours: 0.012 });
    expect(ab.campaign.abTest).toMatchObject({ variable: 'subject', testPercent: 40, variants: [{ position: 0, subject: 'Come for Christmas' }, { position: 1, subject: 'You are invited this Christmas' }] });
    const previewed = await mcpCall(mcp, 'grow_preview_campaign', { campaignId: campaign.id });
    expect(previewed.preview).toMatchObject({ recipients: 10, excluded: [{ reason: 'no_consent', count: 1 }] });
    expect((await mcpRefusal(otherMcp, 'grow_preview_campaign', { campaignId: campaign.id })).code).toBe('not_found');

    // A wrong hash is refused at once; the right one waits for a person (a new audience).
    expect((await mcpRefusal(mcp, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash: '0'.repeat(64) }, { approvalWaitMs: 0 })).details.reason).toBe('stale_preview');
    const gated = await mcpRefusal(mcp, 'grow_schedule_campaign', { campaignId: campaign.id, previewHash: previewed.previewHash }, { approvalWaitMs: 0 });
    expect(gated.code).toBe('approval_required');
    expect(smtp.delivered).toHaveLength(0);
    await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });

    // The test group: 4 people (40 % of 10), two per subject.
    const testMails = await eventually(() => smtp.delivered.slice(), (d) => d.length >= 4);
    expect(testMails).toHaveLength(4);
    const subjects = testMails.map((m) => subjectOf(m.raw)).sort();
    expect(subjects).toEqual(['Come for Christmas', 'Come for Christmas', 'You are invited this Christmas', 'You are invited this Christmas']);
    const mailB = testMails.find((m) => subjectOf(m.raw) === 'You are invited this Christmas')!;
    const text = decoded(mailB.raw);
    expect(text).not.toContain('https://example.org/christmas today');
    const click = new RegExp(`${harness.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/grow/c/[A-Za-z0-9._-]+`).exec(text)![0];
    const open = new RegExp(`/grow/o/[A-Za-z0-9._-]+\\.gif`).exec(text)![0];

    // The signed link goes only where the campaign says; a tampered one goes nowhere.
    const followed = await fetch(click, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toBe('https://example.org/christmas');
    expect((await fetch(`${click.slice(0, -2)}xx`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${harness.url}/grow/c/${org.orgId}.${campaign.id}.${people[0]}.0.forged`, { redirect: 'manual' })).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const pixel = await fetch(`${harness.url}${open}`, { headers: { 'user-agent': 'Mozilla/5.0 (Person)' } });
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    await fetch(`${harness.url}${open}`, { headers: { 'user-agent': 'Mozilla/5.0 (via ggpht.com GoogleImageProxy)' } });

    // The timer decides by clicks: B goes to the other six.
    const all = await eventually(() => smtp.delivered.slice(), (d) => d.length >= 10, 150_000);
    expect(all).toHaveLength(10);
    const rest = all.filter((m) => !testMails.includes(m));
    expect(rest.map((m) => subjectOf(m.raw))).toEqual(Array(6).fill('You are invited this Christmas'));
    expect(new Set(all.map((m) => m.to[0])).size).toBe(10);

    const report = await eventually(() => mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id }), (r) => r.campaign.status === 'sent');
    expect(report.campaign.abTest).toMatchObject({ winner: 1, winnerBy: 'clicks' });
    // The sending workflow's moves are in the trail, the system as actor: test phase started, winner decided by clicks, sent.
    const trail = (await mcpCall(mcp, 'audit_list_events', { targetId: campaign.id, actorKind: 'system' })).events.map((event: any) => event.action);
    expect(trail).toEqual(['grow.campaign.finish', 'grow.campaign.decide', 'grow.campaign.start']);
    expect(report.totals).toMatchObject({ recipients: 11, handed: 10, skipped: 1, openedUnique: 1, machineOpens: 1, clickedUnique: 1, clicksPerLink: [{ url: 'https://example.org/christmas', uniqueClicks: 1 }] });
    expect(report.variants.map((v: any) => [v.variant, v.handed, v.clickedUnique])).toEqual([[0, 2, 0], [1, 8, 1]]);
    expect(report.excluded).toEqual([{ reason: 'no_consent', count: 1 }]);
    // Handed to the mail server; delivered only once the provider says so.
    expect(report.variants.map((v: any) => v.delivered)).toEqual([0, 0]);

    // One-click unsubscribe (RFC 8058) from a campaign email: consent is withdrawn in channels at once.
    const unsubscribeRaw = decoded(rest[0]!.raw).replace(/\r?\n[ \t]+/g, ' ');
    expect(unsubscribeRaw).toMatch(/^List-Unsubscribe-Post:\s*List-Unsubscribe=One-Click/im);
    const link = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(unsubscribeRaw)![1]!;
    const posted = await fetch(`${harness.url}${new URL(link).pathname}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(posted.status).toBe(200);
    const after = await mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id });
    expect(after.totals.unsubscribed).toBe(1);
    expect((await mcpRefusal(otherMcp, 'grow_get_campaign_report', { campaignId: campaign.id })).code).toBe('not_found');

    // The mail provider reports deliveries: one of A's, three of B's, one of which then bounces hard.
    const { rows: handed } = await harness.pool.query<{ variant: number; message_id: string; contact_id: string }>(
      "SELECT variant, message_id, contact_id FROM grow_campaign_recipients WHERE campaign_id = $1 AND status = 'handed' ORDER BY variant, contact_id", [campaign.id]);
    const providerEvent = async (event: Record<string, string>) => {
      const body = JSON.stringify(event);
      const response = await fetch(`${harness.url}/webhooks/channels/email/events`, {
        method: 'POST', body, headers: { 'content-type': 'application/json', 'x-steward-signature': stewardEventSignature('grow-ab-events-secret', body, Math.floor(Date.now() / 1000)) },
      });
      expect(response.status).toBe(200);
    };
    const addressOf = (contactId: string) => `p${people.indexOf(contactId)}@example.org`;
    const [a0] = handed.filter((r) => r.variant === 0);
    const [b0, b1, b2] = handed.filter((r) => r.variant === 1);
    for (const r of [a0!, b0!, b1!, b2!]) await providerEvent({ id: `delivered-${r.message_id}`, type: 'delivery', address: addressOf(r.contact_id), messageId: r.message_id });
    await providerEvent({ id: `bounce-${b2!.message_id}`, type: 'bounce', bounceType: 'hard', address: addressOf(b2!.contact_id), messageId: b2!.message_id });
    const delivered = await mcpCall(mcp, 'grow_get_campaign_report', { campaignId: campaign.id });
    expect(delivered.variants.map((v: any) => [v.variant, v.delivered, v.hardBounced])).toEqual([[0, 1, 0], [1, 2, 1]]);
    expect(delivered.totals).toMatchObject({ handed: 10, delivered: 3, hardBounced: 1 });
  });

  it('follows the link of an email still being handed over, and no link of an email that never went', async () => {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'Harvest list']);
    const { contact } = await mcpCall(mcp, 'people_create_contact', { firstName: 'Quick', lastName: 'Reader', email: 'quick@example.org' });
    const { campaign } = await mcpCall(mcp, 'grow_create_campaign', {
      name: 'Harvest supper', audience: { kind: 'tag', id: tagId }, subject: 'Harvest supper', body: 'Book at https://example.org/harvest now.',
    });
    const link = `${harness.url}/grow/c/${trackingToken(org.orgId, campaign.id, contact.id, 0)}`;
    const pixel = `${harness.url}/grow/o/${trackingToken(org.orgId, campaign.id, contact.id, null)}.gif`;
    const follow = () => fetch(link, { redirect: 'manual' });
    // Chosen, no email queued yet.
    await harness.pool.query("INSERT INTO grow_campaign_recipients (org_id, campaign_id, contact_id, status) VALUES ($1, $2, $3, 'pending')", [org.orgId, campaign.id, contact.id]);
    expect((await follow()).status).toBe(404);
    // Queued and being handed over: the mail server can deliver it, and its reader click, before the row is marked handed.
    await harness.pool.query('UPDATE grow_campaign_recipients SET message_id = $2 WHERE campaign_id = $1', [campaign.id, randomUUID()]);
    const followed = await follow();
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toBe('https://example.org/harvest');
    // An open during the hand-over is a machine's (a scanner fetching as the mail arrives), as one within seconds of it is.
    await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 (Person)' } });
    const { rows: events } = await harness.pool.query<{ kind: string; machine: boolean }>('SELECT kind, machine FROM grow_campaign_events WHERE campaign_id = $1 ORDER BY kind', [campaign.id]);
    expect(events).toEqual([{ kind: 'click', machine: false }, { kind: 'open', machine: true }]);
    // Cancelled before it went: its links lead nowhere.
    await harness.pool.query("UPDATE grow_campaign_recipients SET status = 'cancelled' WHERE campaign_id = $1", [campaign.id]);
    expect((await follow()).status).toBe(404);
  });
});
