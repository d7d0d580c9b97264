import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startSmtpServer, type TestSmtpServer } from '../../../test/helpers/message-servers';
import { findCrisisSignals } from '../pastoral/care/crisis-rules';
import { outreachDelivery } from '../outreach-delivery';

/**
 * The crisis rule set errs towards a person: every phrasing below must be caught. Missing one is
 * the failure that matters, so the list is long and written the way people actually say things.
 */
const CRISIS_PHRASINGS: Array<[string, string]> = [
  ['self_harm_or_suicide', 'She told me she has been feeling suicidal since Christmas.'],
  ['self_harm_or_suicide', 'He said he wants to kill himself.'],
  ['self_harm_or_suicide', 'I just want to end my life.'],
  ['self_harm_or_suicide', 'They keep saying they are going to end it all.'],
  ['self_harm_or_suicide', 'Mum says she wants to die.'],
  ['self_harm_or_suicide', 'He thinks everyone would be better off without him.'],
  ['self_harm_or_suicide', 'She said there is no reason to live any more.'],
  ['self_harm_or_suicide', 'I don’t want to be alive anymore.'],
  ['self_harm_or_suicide', 'He doesnt want to wake up tomorrow.'],
  ['self_harm_or_suicide', 'My daughter has been self-harming again.'],
  ['self_harm_or_suicide', 'She has been cutting herself.'],
  ['self_harm_or_suicide', 'He is hurting himself and will not talk about it.'],
  ['self_harm_or_suicide', 'She took too many pills last night.'],
  ['self_harm_or_suicide', 'We think he has been stockpiling tablets.'],
  ['self_harm_or_suicide', 'She wrote a goodbye letter to her sister.'],
  ['self_harm_or_suicide', 'He has been giving away his belongings.'],
  ['self_harm_or_suicide', 'She said she won’t be around much longer.'],
  ['self_harm_or_suicide', 'He talked about taking his own life.'],
  ['self_harm_or_suicide', 'I wish I was dead.'],
  ['self_harm_or_suicide', 'SHE SAID SHE WANTS TO DIE'],
  ['abuse', 'Her husband hits her when he drinks.'],
  ['abuse', 'He beat me again last week.'],
  ['abuse', 'I think she is in an abusive relationship.'],
  ['abuse', 'She is afraid of her partner.'],
  ['abuse', 'He is scared to go home.'],
  ['abuse', 'There is domestic violence in the home.'],
  ['abuse', 'A child disclosed that an adult touched her inappropriately.'],
  ['abuse', 'She was raped at university and has never told anyone.'],
  ['abuse', 'We think the youth leader has been grooming him.'],
  ['abuse', 'Her son is taking all her money; it looks like financial abuse.'],
  ['abuse', 'The elderly man next door is being neglected.'],
  ['abuse', 'Her partner controls everything: coercive control, the counsellor said.'],
  ['immediate_danger', 'He has a knife and says he will use it.'],
  ['immediate_danger', 'Her ex threatened to kill her.'],
  ['immediate_danger', 'She is not safe at home tonight.'],
  ['immediate_danger', 'We had to call the police last night.'],
  ['immediate_danger', 'He is unconscious and not breathing properly.'],
  ['immediate_danger', 'He has gone missing and his phone is off.'],
  ['immediate_danger', 'She says he is going to hurt the children.'],
  ['severe_distress', 'She feels completely hopeless.'],
  ['severe_distress', 'He says he can’t go on like this.'],
  ['severe_distress', 'I cannot cope any more.'],
  ['severe_distress', 'She feels she is a burden to her family.'],
  ['severe_distress', 'He has been hearing voices telling him to do things.'],
  ['severe_distress', 'He feels trapped and sees no way out.'],
];

/** Negated mentions still count: people minimise, and a person decides. */
const NEGATED_BUT_FLAGGED = [
  'She says she is not suicidal, just tired.',
  'He denies any self-harm.',
  'No thoughts of wanting to die, he says.',
];

const ORDINARY = [
  'Would love a visit; she has just moved house and does not know anyone yet.',
  'He is recovering well from his knee operation and would like communion at home.',
  'Grieving her mother who died peacefully last month; would appreciate a call.',
  'Could someone help with lifts to church on Sundays?',
  'They are expecting a baby in March and are very excited.',
  'Feeling a bit low since losing his job; would like to talk about next steps.',
  'The deadline at work is killing me, but otherwise all fine.',
];

describe('crisis rule set', () => {
  it.each(CRISIS_PHRASINGS)('%s: %s', (category, text) => {
    const signals = findCrisisSignals(text);
    expect(signals.map((signal) => signal.category)).toContain(category);
  });

  it.each(NEGATED_BUT_FLAGGED)('still flags a negated mention, marked negated: %s', (text) => {
    const signals = findCrisisSignals(text);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.some((signal) => signal.negated)).toBe(true);
  });

  it.each(ORDINARY)('does not flag an ordinary request: %s', (text) => {
    expect(findCrisisSignals(text)).toEqual([]);
  });
});

describe('crisis holds', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let smtp: TestSmtpServer;
  const saved = { ...process.env };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env.SMTP_HOST = '127.0.0.1';
    process.env.SMTP_PORT = String(smtp.port);
    process.env.SMTP_FROM = 'Grace Church <office@grace.example>';
    // Its own stack: the worker sends through the SMTP server this suite starts, named in its environment.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'Grace Church' });
    other = await harness.createOrg({ name: 'Other Church' });
    mcp = await harness.mcpClient(org.apiKey, '?toolsets=people');
  });

  afterAll(async () => {
    await mcp?.close();
    for await (const schedule of harness.temporal.schedule.list()) {
      if (schedule.scheduleId.includes(org.orgId)) await harness.temporal.schedule.getHandle(schedule.scheduleId).delete().catch(() => undefined);
    }
    await harness?.close();
    await smtp?.close();
    process.env = saved;
  });

  /** A contact added `daysOld` days ago (so a welfare interval can find them). */
  async function seedContact(first: string, email: string, daysOld = 0): Promise<string> {
    const id = randomUUID();
    await harness.pool.query(`INSERT INTO contacts (id, org_id, first_name, last_name, email, status, created_at)
      VALUES ($1, $2, $3, 'Test', $4, 'subscribed', now() - make_interval(days => $5))`, [id, org.orgId, first, email, daysOld]);
    return id;
  }

  async function outreachFor(contactId: string) {
    const { rows } = await harness.pool.query('SELECT id, status, source FROM outreach_items WHERE org_id = $1 AND contact_id = $2', [org.orgId, contactId]);
    return rows;
  }

  it('a crisis referral says to involve a person now, gives helplines and holds the contact; a calm one does neither', async () => {
    const calm = await seedContact('Carol', 'carol@example.org');
    const none = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Carol has just moved house and would love a visit.', contactId: calm });
    expect(none).toMatchObject({ isCrisis: false, signals: [], hold: null, holdCreated: false });
    expect((await mcpCall(mcp, 'people_list_crisis_holds', { contactId: calm })).holds).toEqual([]);

    const held = await seedContact('Hannah', 'hannah@example.org');
    const result = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Hannah told me she wants to end her life and has been stockpiling pills.', contactId: held });
    expect(result.isCrisis).toBe(true);
    expect(result.signals.map((s: any) => s.category)).toContain('self_harm_or_suicide');
    expect(result.guidance).toMatch(/Involve a person now/);
    expect(result.guidance).toContain('999');
    const numbers = result.resources.map((r: any) => r.contact);
    expect(numbers).toEqual(expect.arrayContaining(['999', '116 123', '0800 1111', '0808 800 5000', '0808 2000 247', 'Text SHOUT to 85258']));
    expect(result.hold).toMatchObject({ contactId: held, categories: ['self_harm_or_suicide'], clearedAt: null });
    expect(result.holdCreated).toBe(true);

    // The referral text is not kept anywhere on the hold.
    const { rows } = await harness.pool.query('SELECT row_to_json(h)::text AS row FROM crisis_holds h WHERE contact_id = $1', [held]);
    expect(rows[0].row).not.toContain('stockpiling');

    // No contact named: guidance still, no hold.
    const anonymous = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'A caller said her partner threatened to kill her.' });
    expect(anonymous).toMatchObject({ isCrisis: true, hold: null });
    expect(anonymous.guidance).toContain('No contact was named');
  });

  it('an automation and an autonomous agent both try to message a held contact: nothing is queued for them', async () => {
    // Due a welfare check (added 400 days ago, never contacted), and another who is due and not held.
    const held = await seedContact('Henry', 'henry@example.org', 400);
    const free = await seedContact('Frank', 'frank@example.org', 400);
    await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Henry says he feels hopeless and cannot go on.', contactId: held });

    // A pastoral automation run.
    const automation = (await mcpCall(mcp, 'people_create_pastoral_automation', { name: 'Welfare', type: 'welfare_check', daysWithoutContact: 180 })).automation;
    const run = await mcpCall(mcp, 'people_run_pastoral_generation', { automationId: automation.id });
    expect(run.items.map((i: any) => i.contactId)).toContain(free);
    expect(run.items.map((i: any) => i.contactId)).not.toContain(held);
    expect(run.skipped).toContainEqual({ contactId: held, reason: expect.stringContaining('crisis hold') });
    expect(await outreachFor(held)).toEqual([]);

    // The pastoral agent in auto mode (it would send a welfare message to everyone due without an open one).
    await harness.pool.query("UPDATE outreach_items SET status = 'cancelled' WHERE org_id = $1 AND contact_id = $2", [org.orgId, free]);
    // Raising an agent to auto is approved by a person with another credential than the one proposing it.
    const autoProposal = await harness.invoke(org.apiKey, 'platform_set_agent_autonomy', { agent: 'pastoral_care', autonomy: 'auto' });
    expect(autoProposal.body.error?.code).toBe('approval_required');
    const approver = await harness.createKey(org.orgId, ['platform:read', 'platform:write'], 'owner');
    await harness.call(approver.apiKey, 'platform_approve_proposal', { proposalId: autoProposal.body.error!.details.proposalId });
    const before = Date.now();
    await harness.temporal.schedule.getHandle(`agent-${org.orgId}-pastoral_care`).trigger('ALLOW_ALL');
    let ran = false;
    for (let i = 0; i < 150 && !ran; i++) {
      const { rows } = await harness.pool.query("SELECT last_run_at FROM agents WHERE org_id = $1 AND agent_key = 'pastoral_care'", [org.orgId]);
      ran = Boolean(rows[0]?.last_run_at && rows[0].last_run_at.getTime() >= before - 1000);
      if (!ran) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ran).toBe(true);
    // The agent did act (Frank got a new message), but never for Henry.
    const frank = await outreachFor(free);
    expect(frank.filter((item: any) => item.status !== 'cancelled').length).toBeGreaterThan(0);
    expect(await outreachFor(held)).toEqual([]);
    const { rows: proposals } = await harness.pool.query("SELECT args FROM proposals WHERE org_id = $1 AND agent_key = 'pastoral_care'", [org.orgId]);
    expect(proposals.some((p: any) => p.args.contactId === held)).toBe(false);
    await harness.call(org.apiKey, 'platform_set_agent_autonomy', { agent: 'pastoral_care', autonomy: 'off' });
  });

  it('refuses a templated draft for a held contact, takes a hand-written one marked held, and shows the hold on every queued item', async () => {
    const held = await seedContact('Jude', 'jude@example.org');
    const lifeEvent = (await mcpCall(mcp, 'people_record_life_event', { contactId: held, type: 'job_loss', title: 'Made redundant' })).lifeEvent.id;
    const before = (await mcpCall(mcp, 'people_create_outreach', { contactId: held, channel: 'email', subject: 'Hello', body: 'Hi Jude' })).item;
    expect(before.crisisHold).toBe(false);
    await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Jude says he wants to kill himself.', contactId: held });

    const templated = await mcpRefusal(mcp, 'people_generate_life_event_message', { lifeEventId: lifeEvent });
    expect(templated).toMatchObject({ code: 'conflict', details: { reason: 'crisis_hold' } });
    expect((await outreachFor(held)).map((row: any) => row.id)).toEqual([before.id]);

    // A person writing by hand may still queue one: it says it is held.
    const byHand = (await mcpCall(mcp, 'people_create_outreach', { contactId: held, channel: 'email', subject: 'Thinking of you', body: 'Jude, I am here.' })).item;
    expect(byHand).toMatchObject({ status: 'pending_review', crisisHold: true });
    const queued = (await mcpCall(mcp, 'people_list_pending_outreach', { contactId: held })).items;
    expect(queued.map((item: any) => [item.id, item.crisisHold]).sort()).toEqual([[before.id, true], [byHand.id, true]].sort());
    expect((await mcpCall(mcp, 'people_get_outreach_item', { outreachId: before.id })).item.crisisHold).toBe(true);
  });

  it('a message a person drafts for a held contact cannot be approved or delivered until the hold is cleared', async () => {
    const held = await seedContact('Iris', 'iris@example.org');
    const item = (await mcpCall(mcp, 'people_create_outreach', { contactId: held, channel: 'email', subject: 'Thinking of you', body: 'Hi Iris' })).item;
    await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Iris is afraid of her husband and says she is not safe at home.', contactId: held });

    const sentBefore = smtp.delivered.length;
    const refused = await mcpRefusal(mcp, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(refused).toMatchObject({ code: 'conflict', details: { reason: 'crisis_hold' } });
    expect((await outreachFor(held))[0].status).toBe('pending_review');

    // The outbox's own check, for an item approved before a hold: refused with the same reason.
    const delivery = await outreachDelivery.recipient(harness.pool, org.orgId, { channel: 'email', subject: 's', body: 'b', contactId: held } as never, 'email');
    expect(delivery).toEqual({ refused: expect.objectContaining({ code: 'crisis_hold' }) });

    // A staff member without safeguarding may not clear it and sees no categories.
    const staff = await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff');
    const staffMcp = await harness.mcpClient(staff.apiKey, '?toolsets=people');
    try {
      const [hold] = (await mcpCall(staffMcp, 'people_list_crisis_holds', { contactId: held })).holds;
      expect(hold).toMatchObject({ contactId: held, categories: null, clearNote: null });
      expect((await mcpRefusal(staffMcp, 'people_clear_crisis_hold', { holdId: hold.holdId, note: 'Visited' })).code).toBe('insufficient_scope');
      // Its timeline entry is restricted.
      const staffTimeline = (await mcpCall(staffMcp, 'people_list_care_timeline', { contactId: held })).entries.map((e: any) => e.kind);
      expect(staffTimeline).not.toContain('crisis_hold_placed');
      const ownerTimeline = (await mcpCall(mcp, 'people_list_care_timeline', { contactId: held })).entries.map((e: any) => e.kind);
      expect(ownerTimeline).toContain('crisis_hold_placed');

      // Another organisation's key finds no such hold.
      expect((await harness.invoke(other.apiKey, 'people_clear_crisis_hold', { holdId: hold.holdId, note: 'x' })).body.error?.code).toBe('not_found');

      const cleared = await mcpCall(mcp, 'people_clear_crisis_hold', { holdId: hold.holdId, note: 'Pastor visited with her; she is safe with family.' });
      expect(cleared.hold.clearedAt).not.toBeNull();
      expect((await mcpRefusal(mcp, 'people_clear_crisis_hold', { holdId: hold.holdId, note: 'again' })).code).toBe('conflict');
    } finally {
      await staffMcp.close();
    }
    const approved = await mcpCall(mcp, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(approved.item.status).toBe('sent');
    expect(smtp.delivered.length).toBe(sentBefore + 1);
  });

  it('a hold placed after approval stops the send: the item stays approved and unsent', async () => {
    const id = await seedContact('Jack', 'jack@example.org');
    const item = (await mcpCall(mcp, 'people_create_outreach', { contactId: id, channel: 'email', subject: 'Hello', body: 'Hi Jack' })).item;
    // Leave it approved and unsent (allowance used up), then hold the contact, then raise the allowance and retry.
    const { rows } = await harness.pool.query("SELECT count(*)::int AS n FROM usage_events WHERE org_id = $1 AND feature = 'email_sends'", [org.orgId]);
    await harness.pool.query(`INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'email_sends', $2)
      ON CONFLICT (org_id, feature) DO UPDATE SET monthly_limit = EXCLUDED.monthly_limit`, [org.orgId, rows[0].n]);
    const first = await mcpCall(mcp, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(first.item).toMatchObject({ status: 'approved', sendError: { code: 'allowance_exceeded' } });
    await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Jack said he wants to kill himself.', contactId: id });
    await harness.pool.query("UPDATE org_allowance_overrides SET monthly_limit = 100000 WHERE org_id = $1 AND feature = 'email_sends'", [org.orgId]);
    const sentBefore = smtp.delivered.length;
    const retried = await mcpCall(mcp, 'people_approve_outreach', { outreachId: item.id, contentVersion: 1 });
    expect(retried.item).toMatchObject({ status: 'approved', sendError: { code: 'crisis_hold' } });
    expect(smtp.delivered.length).toBe(sentBefore);
  });

  it('two referrals at once leave exactly one live hold; another organisation\'s contact is not found', async () => {
    const id = await seedContact('Kate', 'kate@example.org');
    const texts = ['Kate is self-harming.', 'Kate\'s partner hits her.', 'Kate is in danger tonight.'];
    const results = await Promise.all(texts.map((text) => harness.call(org.apiKey, 'people_analyze_counseling_referral', { text, contactId: id })));
    expect(results.filter((r) => r.holdCreated)).toHaveLength(1);
    const holds = (await harness.call(org.apiKey, 'people_list_crisis_holds', { contactId: id })).holds;
    expect(holds).toHaveLength(1);
    expect(holds[0].categories.sort()).toEqual(['abuse', 'immediate_danger', 'self_harm_or_suicide']);

    const foreign = await harness.invoke(other.apiKey, 'people_analyze_counseling_referral', { text: 'She wants to die.', contactId: id });
    expect(foreign.body.error?.code).toBe('not_found');
    expect((await harness.call(other.apiKey, 'people_list_crisis_holds', {})).holds).toEqual([]);

    const dashboard = (await harness.call(org.apiKey, 'people_get_pastoral_dashboard', {})).dashboard;
    const { rows } = await harness.pool.query('SELECT count(DISTINCT contact_id)::int AS n FROM crisis_holds WHERE org_id = $1 AND cleared_at IS NULL', [org.orgId]);
    expect(dashboard.crisisHolds).toBe(rows[0].n);
    expect((await harness.call(other.apiKey, 'people_get_pastoral_dashboard', {})).dashboard.crisisHolds).toBe(0);
  });

  it('lists the national helplines and the organisation\'s own resources, which crisis results include', async () => {
    const { resources } = await mcpCall(mcp, 'people_list_counseling_resources', {});
    expect(resources.find((r: any) => r.name === 'Samaritans')).toMatchObject({ contact: '116 123', source: 'national', resourceId: null });
    expect(resources.find((r: any) => r.name === 'Childline')).toMatchObject({ contact: '0800 1111' });

    const added = (await mcpCall(mcp, 'people_add_counseling_resource', { name: 'Riverside Counselling', contact: '01632 960000', how: 'call', forWhat: 'Low-cost counselling' })).resource;
    expect(added).toMatchObject({ source: 'organisation', name: 'Riverside Counselling' });
    expect((await mcpRefusal(mcp, 'people_add_counseling_resource', { name: 'riverside counselling', contact: 'x', how: 'web' })).code).toBe('conflict');
    const crisis = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'She feels hopeless.' });
    expect(crisis.resources.map((r: any) => r.name)).toEqual(expect.arrayContaining(['Samaritans', 'Riverside Counselling']));
    // Another organisation neither sees nor removes it.
    expect((await harness.call(other.apiKey, 'people_list_counseling_resources', {})).resources.map((r: any) => r.name)).not.toContain('Riverside Counselling');
    expect((await harness.invoke(other.apiKey, 'people_remove_counseling_resource', { resourceId: added.resourceId })).body.error?.code).toBe('not_found');
    expect((await mcpCall(mcp, 'people_remove_counseling_resource', { resourceId: added.resourceId })).removed).toBe(true);
    expect((await mcpCall(mcp, 'people_list_counseling_resources', {})).resources.filter((r: any) => r.source === 'organisation')).toEqual([]);
  });
});
