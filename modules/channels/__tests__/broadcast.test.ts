import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { withTenantTransaction } from '../../../db/pool';
import { applyInboundKeyword } from '../audience/services';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { seedTaggedContacts } from './broadcast-seed';
import { startSmsServer, type SmsServer } from './broadcast-sms-server';

/**
 * Broadcasts over MCP against a Twilio-style SMS API over HTTP: preview (exclusions by reason,
 * segments and cost, a sample, the hash), approval above 50 recipients through the proposals flow,
 * throttled sending with a STOP arriving part-way (that person gets nothing more), cancelling
 * part-way, and a stale preview refused.
 */

jest.setTimeout(180_000);

describe('channels broadcasts over MCP', () => {
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  let sms: SmsServer;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    sms = await startSmsServer();
    for (const [key, value] of Object.entries(sms.env())) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    // Its own stack: the worker sends through the SMS server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ country: 'GB' });
    mcp = await harness.mcpClient(org.apiKey);
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
    await sms?.close();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  const call = (name: string, args: Record<string, unknown>) => mcpCall(mcp, name, args, { approvalWaitMs: 0 });
  const refusal = (name: string, args: Record<string, unknown>) => mcpRefusal(mcp, name, args, { approvalWaitMs: 0 });

  /** Waits for the broadcast's sending workflow to end and returns the broadcast as it then stands. */
  async function finished(broadcastId: string) {
    await harness.temporal.workflow.getHandle(`broadcast-${broadcastId}`).result();
    return call('channels_get_broadcast', { broadcastId });
  }

  it('previews, waits for approval above 50 people, and sends throttled; a STOP part-way stops that person', async () => {
    const { tagId, contacts } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Choir', count: 55 });
    // One member has no phone, one number is suppressed: both excluded, by reason.
    const phoneless = randomUUID();
    await harness.pool.query("INSERT INTO contacts (id, org_id, first_name, last_name, email) VALUES ($1, $2, 'No', 'Phone', 'nophone@example.org')", [phoneless, org.orgId]);
    await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, phoneless, tagId]);
    const suppressed = contacts[0];
    await call('channels_add_suppression', { channel: 'sms', address: suppressed.phone });

    const body = 'Choir practice moves to 7pm on Thursday. Reply STOP to opt out.';
    const previewed = await call('channels_preview_broadcast', {
      name: 'Choir practice change', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body, ratePerMinute: 1200,
    });
    expect(previewed.preview).toMatchObject({
      total: 56, eligible: 54, excluded: { no_address: 1, suppressed: 1 }, deferredForQuietHours: 0, needsApproval: true,
      cost: { channel: 'sms', messages: 54, smsSegments: 54, unit: 'sms_segment', unitPrice: 4, amount: 216, currency: 'GBP' },
      sample: { text: body, sms: { encoding: 'GSM-7', segments: 1 } },
    });
    expect(previewed.previewHash).toMatch(/^[0-9a-f]{64}$/);
    expect(previewed.broadcast).toMatchObject({ status: 'previewed', totalRecipients: 56, previewHash: previewed.previewHash });
    // A preview sends nothing and meters nothing.
    expect(sms.messages).toHaveLength(0);
    const start = sms.messages.length;
    const broadcastId = previewed.broadcast.id;

    // A hash that is not the latest preview's is refused at once: no proposal waits in the queue only to fail when approved.
    const wrongHash = await refusal('channels_schedule_broadcast', { broadcastId, previewHash: 'f'.repeat(64), actionSummary: 'Choir practice change to 56 people' });
    expect(wrongHash).toMatchObject({ code: 'conflict', message: expect.stringContaining('previewHash') });
    expect((await call('platform_pending_proposals', {})).proposals).toEqual([]);
    expect((await call('channels_get_broadcast', { broadcastId })).broadcast).toMatchObject({ status: 'previewed' });

    const gated = await refusal('channels_schedule_broadcast', { broadcastId, previewHash: previewed.previewHash, actionSummary: 'Choir practice change to 56 people' });
    expect(gated.code).toBe('approval_required');
    const proposalId = gated.details.proposalId as string;
    expect((await call('channels_get_broadcast', { broadcastId })).broadcast).toMatchObject({ status: 'pending_approval', approvalProposalId: proposalId });

    // Hold the provider after ten messages, so the STOP lands while the broadcast is part-way.
    sms.holdAfter = 10;
    const decided = await call('platform_approve_proposal', { proposalId });
    expect(decided.execution).toMatchObject({ status: 'succeeded' });
    await sms.waitFor(10);
    const stopper = contacts[contacts.length - 1];
    const stop = await withTenantTransaction(harness.pool, org.orgId, (db) => applyInboundKeyword(db, org.orgId, { channel: 'sms', from: stopper.phone, text: 'STOP', at: new Date() }));
    expect(stop.action).toBe('stopped');
    expect((await call('channels_get_broadcast', { broadcastId })).broadcast.status).toBe('sending');
    sms.release();

    const done = await finished(broadcastId);
    expect(done.broadcast).toMatchObject({ status: 'completed', approvedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(done.recipients.byStatus).toMatchObject({ sent: 53, skipped: 3, failed: 0, pending: 0, queued: 0, deferred: 0 });
    expect(done.recipients.skippedByReason).toEqual({ suppressed: 2, no_address: 1 });
    expect(done.messages.sent + done.messages.delivered).toBe(53);
    expect(done.preview).toMatchObject({ total: 56, eligible: 54 });
    // Exactly one message per consenting person; none to the suppressed number or to the person who said STOP.
    const mine = sms.messages.slice(start);
    expect(mine).toHaveLength(53);
    expect(sms.requests).toBe(53);
    expect(new Set(mine.map((m) => m.to)).size).toBe(53);
    expect(mine.map((m) => m.to)).not.toContain(stopper.phone);
    expect(mine.map((m) => m.to)).not.toContain(suppressed.phone);
    const listed = await call('channels_list_messages', { broadcastId, limit: 100 });
    expect(listed.messages.filter((m: any) => m.status === 'sent')).toHaveLength(53);
    expect((await call('channels_list_broadcasts', { status: 'completed' })).broadcasts.map((b: any) => b.id)).toContain(broadcastId);
    // The trail: the broadcast's start and finish by the system, and exactly one delivery event per message sent.
    const trail = (await call('audit_list_events', { targetId: broadcastId, actorKind: 'system' })).events;
    expect(trail.map((event: any) => event.action)).toEqual(['channels.broadcast.finish', 'channels.broadcast.start']);
    const deliveries = await harness.pool.query(`SELECT count(*)::int AS n, count(DISTINCT e.target_id)::int AS messages FROM audit_events e
      JOIN channel_messages m ON m.id::text = e.target_id WHERE e.org_id = $1 AND m.broadcast_id = $2 AND e.action = 'channels.message.send' AND e.actor_kind = 'system'`, [org.orgId, broadcastId]);
    expect(deliveries.rows[0]).toEqual({ n: 53, messages: 53 });
  });

  it('refuses a stale preview, and a cancel part-way stops the rest while sent messages stay sent', async () => {
    const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Youth', count: 30, firstNumber: 500 });
    const args = { name: 'Youth weekend', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Youth weekend: bring a sleeping bag 🏕️', ratePerMinute: 600 };
    const first = await call('channels_preview_broadcast', args);
    // One emoji: UCS-2, so the per-segment limit is 70.
    expect(first.preview.sample.sms).toMatchObject({ encoding: 'UCS-2', segments: 1 });
    expect(first.preview.needsApproval).toBe(false);
    const broadcastId = first.broadcast.id;

    const wrong = await refusal('channels_schedule_broadcast', { broadcastId, previewHash: '0'.repeat(64) });
    expect(wrong).toMatchObject({ code: 'conflict', hint: expect.stringContaining('channels_preview_broadcast') });

    // The audience changes after the preview: the same hash is refused.
    const late = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Youth late', count: 1, firstNumber: 600 });
    const youthTag = tagId;
    await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, late.contacts[0].id, youthTag]);
    const stale = await refusal('channels_schedule_broadcast', { broadcastId, previewHash: first.previewHash });
    expect(stale).toMatchObject({ code: 'conflict', message: expect.stringContaining('changed since') });
    expect((await call('channels_get_broadcast', { broadcastId })).recipients.byStatus.pending).toBe(0);

    const again = await call('channels_preview_broadcast', { ...args, broadcastId });
    expect(again.preview.total).toBe(31);
    expect(again.previewHash).not.toBe(first.previewHash);

    const before = sms.messages.length;
    sms.holdAfter = before + 5;
    const scheduled = await call('channels_schedule_broadcast', { broadcastId, previewHash: again.previewHash });
    expect(scheduled.broadcast.status).toBe('scheduled');
    await sms.waitFor(before + 5);
    const cancelled = await call('channels_cancel_broadcast', { broadcastId, reason: 'Weekend postponed' });
    expect(cancelled.broadcast).toMatchObject({ status: 'cancelled', cancelReason: 'Weekend postponed' });
    expect(cancelled.cancelledRecipients).toBeGreaterThan(20);
    sms.release();

    const done = await finished(broadcastId);
    expect(done.broadcast.status).toBe('cancelled');
    const sent = sms.messages.length - before;
    // The message in flight when the cancel came still went; nothing after it.
    expect(sent).toBe(5);
    expect(done.recipients.byStatus.sent).toBe(5);
    expect(done.recipients.byStatus.cancelled).toBe(26);
    // Cancelling again changes nothing; a cancelled broadcast is never scheduled again.
    expect((await call('channels_cancel_broadcast', { broadcastId })).cancelledRecipients).toBe(0);
    expect((await refusal('channels_schedule_broadcast', { broadcastId, previewHash: again.previewHash })).code).toBe('conflict');
  });

  it('quiet hours defer a broadcast, never drop it: it waits and sends when they end', async () => {
    const quiet = await harness.createOrg({ name: 'Quiet Chapel' });
    const quietMcp = await harness.mcpClient(quiet.apiKey);
    const quietCall = (name: string, args: Record<string, unknown>) => mcpCall(quietMcp, name, args, { approvalWaitMs: 0 });
    try {
      // Quiet hours (UTC) that began an hour ago and end at the first minute boundary at least 30 s away (the time
      // the check below may take to see every message deferred). The wait is real: the outbox and Postgres decide
      // deferral on the wall clock, which Temporal's time-skipping test server cannot move (only workflow timers).
      const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
      const endsAt = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
      await quietCall('channels_update_settings', { quietHours: { enabled: true, start: hhmm(Date.now() - 3_600_000), end: hhmm(endsAt) }, timeZone: 'UTC' });
      const { tagId, contacts } = await seedTaggedContacts(harness.pool, quiet.orgId, { tag: 'Night owls', count: 5, firstNumber: 800 });
      const preview = await quietCall('channels_preview_broadcast', { name: 'Tomorrow', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Prayer breakfast tomorrow at 8.' });
      expect(preview.preview).toMatchObject({ eligible: 5, deferredForQuietHours: 5, excluded: {} });
      const before = sms.messages.length;
      const { broadcast } = await quietCall('channels_schedule_broadcast', { broadcastId: preview.broadcast.id, previewHash: preview.previewHash });

      // Every message waits for the end of quiet hours; nothing is sent, dropped or failed meanwhile.
      const deadline = Date.now() + 30_000;
      let waiting = await quietCall('channels_get_broadcast', { broadcastId: broadcast.id });
      while (waiting.recipients.byStatus.deferred < 5 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        waiting = await quietCall('channels_get_broadcast', { broadcastId: broadcast.id });
      }
      expect(Date.now()).toBeLessThan(endsAt);
      expect(waiting.broadcast.status).toBe('sending');
      expect(waiting.recipients.byStatus).toMatchObject({ deferred: 5, sent: 0, failed: 0, skipped: 0 });
      expect(sms.messages.length).toBe(before);

      await harness.temporal.workflow.getHandle(`broadcast-${broadcast.id}`).result();
      const done = await quietCall('channels_get_broadcast', { broadcastId: broadcast.id });
      expect(done.broadcast.status).toBe('completed');
      expect(done.recipients.byStatus).toMatchObject({ sent: 5, deferred: 0 });
      const arrived = sms.messages.slice(before).map((m) => m.to).sort();
      expect(arrived).toEqual(contacts.map((c) => c.phone).sort());
    } finally {
      await quietMcp.close();
    }
  });

  it('sends a template rendered for each person; missing variables exclude, and a template cannot be archived while a broadcast holds it', async () => {
    const { tagId, contacts } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Harvest', count: 3, firstNumber: 900 });
    const created = await call('templates_create_template', {
      name: 'Event invitation', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}, {{event}} is on {{day}}.',
      variables: [{ name: 'event', example: 'the parish picnic' }, { name: 'day', example: 'Saturday' }],
    });
    await call('templates_validate_version', { versionId: created.version.id });
    await call('templates_activate_version', { versionId: created.version.id });
    const args = { name: 'Harvest invitation', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, templateId: created.template.id };

    // A variable missing: nobody would get "… is on {{day}}", so everyone is excluded, by reason.
    const missing = await call('channels_preview_broadcast', { ...args, variables: { event: 'Harvest supper' } });
    expect(missing.preview).toMatchObject({ total: 3, eligible: 0, excluded: { missing_variables: 3 }, sample: null });

    const full = await call('channels_preview_broadcast', { ...args, broadcastId: missing.broadcast.id, variables: { event: 'Harvest supper', day: 'Friday' } });
    expect(full.preview).toMatchObject({ eligible: 3, templateVersionId: created.version.id, sample: { text: 'Hi Member, Harvest supper is on Friday.' } });

    // Scheduled for later: the template is held, and archiving it is refused until the broadcast is done or cancelled.
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await call('channels_schedule_broadcast', { broadcastId: full.broadcast.id, previewHash: full.previewHash, sendAt });
    expect(scheduled.broadcast).toMatchObject({ status: 'scheduled', sendAt });
    expect((await refusal('templates_archive_template', { templateId: created.template.id })).code).toBe('conflict');
    await call('channels_cancel_broadcast', { broadcastId: full.broadcast.id });
    expect((await finished(full.broadcast.id)).broadcast.status).toBe('cancelled');

    // Sent now: each person gets the text rendered for them.
    const now = await call('channels_preview_broadcast', { ...args, name: 'Harvest invitation (now)', variables: { event: 'Harvest supper', day: 'Friday' } });
    const before = sms.messages.length;
    await call('channels_schedule_broadcast', { broadcastId: now.broadcast.id, previewHash: now.previewHash });
    expect((await finished(now.broadcast.id)).broadcast.status).toBe('completed');
    const arrived = sms.messages.slice(before);
    expect(arrived.map((m) => m.to).sort()).toEqual(contacts.map((c) => c.phone).sort());
    expect(new Set(arrived.map((m) => m.body))).toEqual(new Set(['Hi Member, Harvest supper is on Friday.']));
    const listed = await call('channels_list_messages', { broadcastId: now.broadcast.id });
    expect(listed.messages.every((m: any) => m.templateVersionId === created.version.id)).toBe(true);
  });

  it('sends the template version that was previewed and scheduled, not one activated afterwards', async () => {
    const { tagId, contacts } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Pinned', count: 2, firstNumber: 950 });
    const created = await call('templates_create_template', { name: 'Rota note', channel: 'sms', purpose: 'service', body: 'Hi {{first_name}}, the rota is out.' });
    await call('templates_validate_version', { versionId: created.version.id });
    await call('templates_activate_version', { versionId: created.version.id });
    const previewed = await call('channels_preview_broadcast', { name: 'Rota note', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, templateId: created.template.id });
    expect(previewed.preview.sample.text).toBe('Hi Member, the rota is out.');
    const sendAt = new Date(Date.now() + 4_000).toISOString();
    await call('channels_schedule_broadcast', { broadcastId: previewed.broadcast.id, previewHash: previewed.previewHash, sendAt });

    // A newer version becomes active between scheduling and sending: nobody saw or approved it.
    const newer = await call('templates_create_version', { templateId: created.template.id, body: 'Hi {{first_name}}, IGNORE the rota.' });
    await call('templates_validate_version', { versionId: newer.version.id });
    await call('templates_activate_version', { versionId: newer.version.id });

    const before = sms.messages.length;
    expect((await finished(previewed.broadcast.id)).broadcast.status).toBe('completed');
    const arrived = sms.messages.slice(before).filter((m) => contacts.some((c) => c.phone === m.to));
    expect(arrived).toHaveLength(2);
    expect(new Set(arrived.map((m) => m.body))).toEqual(new Set(['Hi Member, the rota is out.']));
    const listed = await call('channels_list_messages', { broadcastId: previewed.broadcast.id });
    expect(listed.messages.map((m: any) => m.templateVersionId)).toEqual([created.version.id, created.version.id]);
  });

  it('refuses bad input and another organisation\'s broadcast, writing nothing', async () => {
    const other = await harness.createOrg();
    const otherMcp = await harness.mcpClient(other.apiKey);
    try {
      const { tagId } = await seedTaggedContacts(harness.pool, org.orgId, { tag: 'Elders', count: 2, firstNumber: 700 });
      const { broadcast } = await call('channels_preview_broadcast', { name: 'Elders', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'Meeting moved' });
      for (const tool of ['channels_get_broadcast', 'channels_cancel_broadcast']) {
        expect((await mcpRefusal(otherMcp, tool, { broadcastId: broadcast.id })).code).toBe('not_found');
      }
      // Another organisation's tag is not an audience here.
      expect((await mcpRefusal(otherMcp, 'channels_preview_broadcast', { name: 'x', channel: 'sms', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'x' })).code).toBe('not_found');
      expect((await refusal('channels_preview_broadcast', { name: 'x', channel: 'email', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'no subject' })).code).toBe('validation_failed');
      expect((await refusal('channels_preview_broadcast', { name: 'x', channel: 'whatsapp', purpose: 'service', audience: { kind: 'tag', id: tagId }, body: 'free text' })))
        .toMatchObject({ code: 'validation_failed', hint: expect.stringContaining('template') });
      expect((await refusal('channels_preview_broadcast', { name: 'x', channel: 'sms', purpose: 'service', audience: { kind: 'segment', id: randomUUID() }, body: 'x' })).code).toBe('not_found');
      // Marketing always waits for a person, however few it goes to; and without marketing consent nobody is eligible.
      const marketing = await call('channels_preview_broadcast', { name: 'Gift day', channel: 'sms', purpose: 'marketing', audience: { kind: 'tag', id: tagId }, body: 'Gift day on Sunday' });
      expect(marketing.preview).toMatchObject({ total: 2, eligible: 0, excluded: { no_consent: 2 }, needsApproval: true });
      expect((await refusal('channels_schedule_broadcast', { broadcastId: marketing.broadcast.id, previewHash: marketing.previewHash })).code).toBe('approval_required');
      const rows = await harness.pool.query('SELECT count(*)::int AS n FROM channel_broadcasts WHERE org_id = $1', [other.orgId]);
      expect(rows.rows[0].n).toBe(0);
    } finally {
      await otherMcp.close();
    }
  });
});
