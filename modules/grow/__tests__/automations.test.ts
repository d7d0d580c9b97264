import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import type { Harness, TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { startTestMessagingSandbox } from '../../../test/helpers/messaging-sandbox';
import type { TestSmtpServer } from '../../../test/helpers/message-servers';
import { type GrowMailStack, eventually, growMailStack, subjectOf, unfolded } from './mail-text';
import { postForm } from './forms-http';

jest.setTimeout(240_000);

/**
 * Automations over MCP with a real worker, Temporal and SMTP server: a welcome series triggered by
 * new contacts that waits, emails through the outbox, and stops at its next step for the person who
 * unsubscribed in one click; pausing holds a run and resuming continues it; a run cancelled; edits
 * making new versions while runs keep theirs; the active automations allowance; tenancy; bad input.
 * Also: an SMS step through channels' sandbox SMS provider (consent checked), the groups module's
 * "missed three meetings in a row", birthdays on the organisation's own day (far from UTC), and a
 * run whose worker is stopped mid-wait and replaced.
 */
describe('grow: automations', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let mcp: McpClient;
  let otherMcp: McpClient;
  let smtp: TestSmtpServer;
  let stack: GrowMailStack;

  beforeAll(async () => {
    stack = await growMailStack({ GROW_AUTOMATION_POLL_SECONDS: '1' });
    ({ harness, smtp, org, other, mcp, otherMcp } = stack);
  });

  afterAll(async () => {
    // Pause every automation so their watchers stop reading before the stack closes.
    for (const orgId of [org?.orgId, other?.orgId]) if (orgId) await harness?.pool.query("UPDATE grow_automations SET status = 'paused' WHERE org_id = $1", [orgId]);
    await stack?.close();
  });

  const runsOf = async (automationId: string) => (await mcpCall(mcp, 'grow_list_automation_runs', { automationId })).runs as any[];
  const tagsOf = async (contactId: string) => (await harness.pool.query<{ name: string }>(
    'SELECT t.name FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.org_id = $1 AND ct.contact_id = $2', [org.orgId, contactId])).rows.map((r) => r.name);
  const consent = (contactId: string) => mcpCall(mcp, 'channels_record_consent', { contactId, channel: 'email', purpose: 'marketing', source: 'connect card', wording: 'Send me church news' });

  it('waits, emails through the outbox, and stops for the person who unsubscribed before the next step', async () => {
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Welcome series', trigger: { event: 'contact_created' },
      conditions: { match: 'all', rules: [{ field: 'email', operator: 'is_not_empty' }] },
      steps: [
        { type: 'wait', seconds: 2 },
        { type: 'send_email', subject: 'Welcome to St Anne', body: 'We are glad you came.' },
        { type: 'wait', seconds: 12 },
        { type: 'send_email', subject: 'Coffee after church?', body: 'Join us for coffee on Sunday.' },
        { type: 'add_tag', tag: 'Welcomed' },
      ],
    });
    expect(automation).toMatchObject({ status: 'draft', version: 1, messagesPeople: true, runs: { active: 0 } });

    // It emails people, so activating waits for a person.
    const gated = await mcpRefusal(mcp, 'grow_activate_automation', { automationId: automation.id }, { approvalWaitMs: 0 });
    expect(gated.code).toBe('approval_required');
    expect((await mcpCall(mcp, 'grow_list_automations', { status: 'active' })).automations).toHaveLength(0);
    await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
    await eventually(() => mcpCall(mcp, 'grow_list_automations', { status: 'active' }), (r) => r.automations.length === 1);
    const usage = await mcpCall(mcp, 'platform_usage', {});
    expect(JSON.stringify(usage)).toMatch(/"feature":"active_automations","used":1/);

    const stays = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Ada', lastName: 'Stays', email: 'ada@example.org' })).contact.id;
    const leaves = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Ben', lastName: 'Leaves', email: 'ben@example.org' })).contact.id;
    const noEmail = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Cy', lastName: 'Nomail' })).contact.id;
    await consent(stays);
    await consent(leaves);

    // Each new contact meeting the conditions gets one run; the one without an email address none.
    const runs = await eventually(() => runsOf(automation.id), (r) => r.length === 2);
    expect(runs.map((r) => r.contactId).sort()).toEqual([stays, leaves].sort());
    expect(runs.some((r) => r.contactId === noEmail)).toBe(false);

    const first = await eventually(() => smtp.delivered.slice(), (d) => d.length >= 2);
    expect(first.map((m) => subjectOf(m.raw))).toEqual(['Welcome to St Anne', 'Welcome to St Anne']);
    // Sent, each run is in its second wait: its next action is the second email, due in about 12 s.
    const during = await eventually(() => runsOf(automation.id), (r) => r.every((run) => run.step === 4));
    for (const run of during) {
      expect(run).toMatchObject({ status: 'active', stepCount: 5, nextAction: 'Email "Coffee after church?"', held: false });
      expect(Date.parse(run.nextAt)).toBeGreaterThan(Date.now());
    }

    // Ben unsubscribes in one click from the welcome email, before the next one is due.
    const bens = first.find((m) => m.to[0] === 'ben@example.org')!;
    const link = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(unfolded(bens.raw))![1]!;
    const posted = await fetch(`${harness.url}${new URL(link).pathname}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(posted.status).toBe(200);

    const ended = await eventually(() => runsOf(automation.id), (r) => r.every((run) => run.status !== 'active'), 90_000);
    const ada = ended.find((r) => r.contactId === stays)!;
    const ben = ended.find((r) => r.contactId === leaves)!;
    expect(ada).toMatchObject({ status: 'completed', contactName: 'Ada Stays', failures: 0, nextAction: null });
    expect(ben.status).toBe('stopped');
    expect(ben.stopReason).toMatch(/^no_consent/);
    // The automation's own moves are in the trail, the system as actor: started, each step, finished.
    const adaTrail = (await mcpCall(mcp, 'audit_list_events', { targetId: ada.id, actorKind: 'system' })).events.map((event: any) => event.action);
    expect(adaTrail[0]).toBe('grow.automation_run.finish');
    expect(adaTrail[adaTrail.length - 1]).toBe('grow.automation_run.start');
    expect(adaTrail).toContain('grow.automation_run.advance');
    const benHistory = (await mcpCall(mcp, 'audit_get_entity_history', { targetType: 'automation_run', targetId: ben.id })).entries;
    expect(benHistory.find((entry: any) => entry.action === 'grow.automation_run.finish').changes)
      .toEqual(expect.arrayContaining([{ field: 'status', before: 'active', after: 'stopped' }, { field: 'stopReason', after: 'no_consent' }]));
    const all = smtp.delivered.slice();
    expect(all.filter((m) => m.to[0] === 'ada@example.org').map((m) => subjectOf(m.raw))).toEqual(['Welcome to St Anne', 'Coffee after church?']);
    expect(all.filter((m) => m.to[0] === 'ben@example.org')).toHaveLength(1);
    expect(await tagsOf(stays)).toEqual(['Welcomed']);
    expect(await tagsOf(leaves)).toEqual([]);
    // Counted once each by channels: three emails.
    const sent = await harness.pool.query("SELECT count(*)::int AS n FROM channel_messages WHERE org_id = $1 AND idempotency_key LIKE 'grow-automation:%'", [org.orgId]);
    expect(sent.rows[0].n).toBe(3);

    // Tenancy: another organisation sees none of it.
    expect((await mcpRefusal(otherMcp, 'grow_list_automation_runs', { automationId: automation.id })).code).toBe('not_found');
    expect((await mcpRefusal(otherMcp, 'grow_cancel_automation_run', { runId: ada.id })).code).toBe('not_found');
    expect((await mcpRefusal(otherMcp, 'grow_pause_automation', { automationId: automation.id })).code).toBe('not_found');
    expect((await mcpCall(otherMcp, 'grow_list_automations', {})).automations).toHaveLength(0);
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('holds a run while paused, continues it on resume, and cancels a run', async () => {
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Tag newcomers', trigger: { event: 'contact_created' }, steps: [{ type: 'wait', seconds: 3 }, { type: 'add_tag', tag: 'Newcomer' }, { type: 'create_task', title: 'Ring to say hello', dueInDays: 2 }],
    });
    // Nothing it does messages anyone: activation needs no approval.
    expect((await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id })).changed).toBe(true);
    const held = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Dee', lastName: 'Held' })).contact.id;
    await eventually(() => runsOf(automation.id), (r) => r.length === 1);
    const paused = await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
    expect(paused).toMatchObject({ changed: true, automation: { status: 'paused' } });
    expect((await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id })).changed).toBe(false);

    // The run is held before its next step: the wait itself when the pause came first, else the tag. Either
    // way, well past the 3-second wait it is still held and nothing after the wait has happened.
    const [holding] = await eventually(() => runsOf(automation.id), (r) => r[0]?.held === true, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const [still] = await runsOf(automation.id);
    expect(still).toMatchObject({ status: 'active', held: true, step: holding.step });
    expect(['Wait 3 seconds', 'Add the tag "Newcomer"']).toContain(still.nextAction);
    expect(await tagsOf(held)).toEqual([]);

    // An edit while it runs makes version 2; the run keeps version 1.
    const edited = await mcpCall(mcp, 'grow_update_automation', { automationId: automation.id, steps: [{ type: 'add_tag', tag: 'Newcomer v2' }] });
    expect(edited).toMatchObject({ newVersion: true, backToDraft: false, automation: { version: 2, status: 'paused' } });

    await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
    const done = await eventually(() => runsOf(automation.id), (r) => r[0].status === 'completed', 30_000);
    expect(done[0]).toMatchObject({ version: 1, stepCount: 3 });
    expect(await tagsOf(held)).toEqual(['Newcomer']);
    const tasks = await harness.pool.query("SELECT title FROM follow_up_tasks WHERE org_id = $1 AND contact_id = $2", [org.orgId, held]);
    expect(tasks.rows.map((r) => r.title)).toEqual(['Ring to say hello']);

    // A new person runs the new version; cancelled before its step, nothing happens to them.
    await mcpCall(mcp, 'grow_update_automation', { automationId: automation.id, steps: [{ type: 'wait', days: 1 }, { type: 'add_tag', tag: 'Never' }] });
    const later = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Eve', lastName: 'Later' })).contact.id;
    const running = await eventually(() => runsOf(automation.id), (r) => r.some((run) => run.contactId === later && run.step === 2));
    const run = running.find((r) => r.contactId === later)!;
    expect(run).toMatchObject({ version: 3, status: 'active', held: false, nextAction: 'Add the tag "Never"' });
    expect(Date.parse(run.nextAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const cancelled = await mcpCall(mcp, 'grow_cancel_automation_run', { runId: run.id });
    expect(cancelled).toMatchObject({ changed: true, run: { status: 'cancelled', stopReason: 'cancelled by a person', nextAt: null } });
    expect((await mcpCall(mcp, 'grow_cancel_automation_run', { runId: run.id })).changed).toBe(false);
    expect((await mcpCall(mcp, 'grow_list_automation_runs', { automationId: automation.id, status: 'cancelled' })).runs).toHaveLength(1);
    expect(await tagsOf(later)).toEqual([]);
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('stops a person\'s run at its next step when they are placed on a crisis hold', async () => {
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Guest follow-up', trigger: { event: 'contact_created' }, conditions: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'Crisis' }] },
      steps: [{ type: 'wait', seconds: 4 }, { type: 'add_tag', tag: 'Followed up' }],
    });
    await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
    const person = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Hal', lastName: 'Crisis' })).contact.id;
    await eventually(() => runsOf(automation.id), (r) => r.length === 1 && r[0].step === 2);
    const referral = await mcpCall(mcp, 'people_analyze_counseling_referral', { text: 'Hal says he wants to end his life.', contactId: person });
    expect(referral.hold).not.toBeNull();
    const [stopped] = await eventually(() => runsOf(automation.id), (r) => r[0].status !== 'active', 30_000);
    expect(stopped).toMatchObject({ status: 'stopped', contactId: person });
    expect(stopped.stopReason).toMatch(/^crisis_hold/);
    expect(await tagsOf(person)).toEqual([]);
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('starts runs from what other modules record: a form submitted, a first visit, a life event, a gift, a birthday', async () => {
    // Five more active automations than the starter plan's three.
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'active_automations', 20)", [org.orgId]);
    const { form } = await mcpCall(mcp, 'grow_create_form', { name: 'Connect', fields: [
      { key: 'first_name', label: 'First name', type: 'text', required: true, contactField: 'firstName' },
      { key: 'last_name', label: 'Last name', type: 'text', required: true, contactField: 'lastName' },
    ], creates: ['contact'] });
    const { form: published } = await mcpCall(mcp, 'grow_publish_form', { formId: form.id });
    const triggers: Array<[string, Record<string, unknown>]> = [
      ['form', { event: 'form_submitted', formId: form.id }], ['visit', { event: 'first_time_guest' }], ['life', { event: 'life_event', eventTypes: ['marriage'] }],
      ['gift', { event: 'donation_recorded' }], ['birthday', { event: 'birthday' }],
    ];
    const ids: Record<string, string> = {};
    // A gift also puts the giver in the thank-you group and tells the warden (a service email through the outbox).
    const { group } = await mcpCall(mcp, 'people_create_crm_group', { name: 'To thank' });
    const warden = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Wendy', lastName: 'Warden', email: 'warden@example.org' })).contact.id;
    const extra: Record<string, unknown[]> = { gift: [{ type: 'add_to_group', groupId: group.id }, { type: 'notify_staff', staffContactId: warden, message: 'A first gift came in: please thank them.' }] };
    for (const [tag, trigger] of triggers) {
      const { automation } = await mcpCall(mcp, 'grow_create_automation', {
        name: `Trigger ${tag}`, trigger, conditions: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'Trigger' }] }, steps: [{ type: 'add_tag', tag: `auto-${tag}` }, ...(extra[tag] ?? [])],
      });
      expect(automation.messagesPeople).toBe(false);
      await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
      ids[tag] = automation.id;
    }
    const submitted = await postForm(published.publicUrl, { first_name: 'Fay', last_name: 'Trigger' });
    expect(submitted.status).toBe(200);
    const visitor = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Gus', lastName: 'Trigger' })).contact.id;
    await mcpCall(mcp, 'people_update_contact', { contactId: visitor, membershipStatus: 'first_time_visitor' });
    const married = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Ivy', lastName: 'Trigger' })).contact.id;
    await mcpCall(mcp, 'people_record_life_event', { contactId: married, type: 'marriage', title: 'Married in June', eventDate: new Date().toISOString().slice(0, 10) });
    const bereaved = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Jo', lastName: 'Trigger' })).contact.id;
    await mcpCall(mcp, 'people_record_life_event', { contactId: bereaved, type: 'bereavement', title: 'Loss of his father', eventDate: new Date().toISOString().slice(0, 10) });
    const giver = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Kit', lastName: 'Trigger' })).contact.id;
    await mcpCall(mcp, 'giving_record_donation', { contactId: giver, amount: 2000, method: 'cash', receivedOn: new Date().toISOString().slice(0, 10) });
    // Today where the organisation is (no services scheduled: Europe/London).
    const birthday = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Lu', lastName: 'Trigger', dateOfBirth: `1990-${DateTime.now().setZone('Europe/London').toFormat('MM-dd')}` })).contact.id;

    const who = async (tag: string) => (await runsOf(ids[tag]!)).map((r) => r.contactId);
    await eventually(async () => [await who('form'), await who('visit'), await who('life'), await who('gift'), await who('birthday')], (all) => all.every((list) => list.length > 0), 30_000);
    const formRuns = await runsOf(ids.form!);
    expect(formRuns).toHaveLength(1);
    expect(formRuns[0].contactName).toBe('Fay Trigger');
    expect(await who('visit')).toEqual([visitor]);
    expect(await who('life')).toEqual([married]);
    expect(await who('gift')).toEqual([giver]);
    expect(await who('birthday')).toEqual([birthday]);
    await eventually(() => runsOf(ids.gift!), (r) => r[0].status === 'completed');
    expect(await tagsOf(giver)).toEqual(['auto-gift']);
    const members = await harness.pool.query('SELECT contact_id FROM crm_group_members WHERE org_id = $1 AND group_id = $2', [org.orgId, group.id]);
    expect(members.rows.map((r) => r.contact_id)).toEqual([giver]);
    const told = await eventually(() => smtp.delivered.filter((m) => m.to[0] === 'warden@example.org'), (d) => d.length === 1);
    expect(subjectOf(told[0]!.raw)).toBe('Automation: Kit Trigger');
    for (const id of Object.values(ids)) await mcpCall(mcp, 'grow_pause_automation', { automationId: id });
  });

  it('ends a run as failed, with its error, when a step cannot be carried out', async () => {
    const { group } = await mcpCall(mcp, 'people_create_crm_group', { name: 'Short-lived group' });
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Into the group', trigger: { event: 'contact_created' }, conditions: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'Failing' }] },
      steps: [{ type: 'wait', seconds: 3 }, { type: 'add_to_group', groupId: group.id }],
    });
    await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
    await mcpCall(mcp, 'people_create_contact', { firstName: 'Mo', lastName: 'Failing' });
    await eventually(() => runsOf(automation.id), (r) => r.length === 1 && r[0].step === 2);
    // The group goes while the run waits: its next step can never succeed.
    await mcpCall(mcp, 'people_delete_crm_group', { groupId: group.id });
    const [failed] = await eventually(() => runsOf(automation.id), (r) => r[0].status !== 'active', 30_000);
    expect(failed).toMatchObject({ status: 'failed', retrying: false, nextAction: null });
    expect(failed.failures).toBeGreaterThanOrEqual(1);
    expect(failed.lastError).toMatch(/was not found/);
    const failTrail = (await mcpCall(mcp, 'audit_list_events', { targetId: failed.id, actorKind: 'system', outcome: 'failed' })).events;
    expect(failTrail).toEqual([expect.objectContaining({ action: 'grow.automation_run.fail', tool: 'job:grow.automation' })]);
    expect((await mcpCall(mcp, 'grow_list_automations', {})).automations.find((a: any) => a.id === automation.id).runs).toMatchObject({ failed: 1, active: 0 });
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('texts through channels\' SMS provider, only to the person who agreed to texts', async () => {
    const sandbox = await startTestMessagingSandbox(harness.url);
    try {
      await mcpCall(mcp, 'channels_create_sender', { channel: 'sms', address: sandbox.config.smsFrom });
      const { automation } = await mcpCall(mcp, 'grow_create_automation', {
        name: 'Welcome text', trigger: { event: 'contact_created' }, conditions: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'Texted' }] },
        steps: [{ type: 'send_sms', body: 'Welcome to St Anne! Coffee is on us this Sunday.' }, { type: 'add_tag', tag: 'Texted welcome' }],
      });
      expect(automation.messagesPeople).toBe(true);
      const gated = await mcpRefusal(mcp, 'grow_activate_automation', { automationId: automation.id }, { approvalWaitMs: 0 });
      expect(gated.code).toBe('approval_required');
      await mcpCall(mcp, 'platform_approve_proposal', { proposalId: gated.details.proposalId });
      await eventually(() => mcpCall(mcp, 'grow_list_automations', { status: 'active' }), (r) => r.automations.some((a: any) => a.id === automation.id));

      const agreed = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Sam', lastName: 'Texted', phone: '+447700900111' })).contact.id;
      await mcpCall(mcp, 'channels_record_consent', { contactId: agreed, channel: 'sms', purpose: 'marketing', source: 'connect card', wording: 'Text me church news' });
      // Agreed to emails only: no text.
      const emailOnly = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Tia', lastName: 'Texted', phone: '+447700900222', email: 'tia@example.org' })).contact.id;
      await consent(emailOnly);

      const ended = await eventually(() => runsOf(automation.id), (r) => r.length === 2 && r.every((run) => run.status !== 'active'), 90_000);
      expect(ended.find((r) => r.contactId === agreed)).toMatchObject({ status: 'completed', failures: 0 });
      const refused = ended.find((r) => r.contactId === emailOnly)!;
      expect(refused.status).toBe('stopped');
      expect(refused.stopReason).toMatch(/^no_consent/);
      // At the provider: one text, to Sam, from the organisation's number, with the step's words.
      const texts = sandbox.messages().filter((m) => m.channel === 'sms');
      expect(texts.map((m) => ({ to: m.to, body: m.body, from: m.from }))).toEqual([{ to: '+447700900111', body: 'Welcome to St Anne! Coffee is on us this Sunday.', from: sandbox.config.smsFrom }]);
      const sent = await harness.pool.query("SELECT contact_id, status FROM channel_messages WHERE org_id = $1 AND channel = 'sms' AND idempotency_key LIKE 'grow-automation:%'", [org.orgId]);
      expect(sent.rows).toEqual([{ contact_id: agreed, status: 'sent' }]);
      expect(await tagsOf(agreed)).toEqual(['Texted welcome']);
      expect(await tagsOf(emailOnly)).toEqual([]);
      await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
    } finally {
      await sandbox.close();
    }
  });

  it('starts a run for a member who missed three group meetings in a row, once', async () => {
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Missing from group', trigger: { event: 'missed_group_meetings' },
      steps: [{ type: 'add_tag', tag: 'Missing from group' }, { type: 'create_task', title: 'Ring to see how they are', dueInDays: 1 }],
    });
    await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
    const group = (await mcpCall(mcp, 'groups_create', { name: 'Thursday cell' })).group.id;
    const drifting = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Drew', lastName: 'Drifting' })).contact.id;
    const faithful = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Pat', lastName: 'Faithful' })).contact.id;
    for (const contactId of [drifting, faithful]) await mcpCall(mcp, 'groups_add_member', { groupId: group, contactId });
    const { meetings } = await mcpCall(mcp, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-28), startTime: '19:00', timeZone: 'Europe/London', rrule: 'FREQ=WEEKLY;COUNT=4' });
    // Drew came to the first, then missed three; Pat came to all four.
    await mcpCall(mcp, 'groups_record_attendance', { meetingId: meetings[0].id, present: [drifting, faithful] });
    for (const meeting of meetings.slice(1, 3)) await mcpCall(mcp, 'groups_record_attendance', { meetingId: meeting.id, present: [faithful] });
    // Two missed: nobody is missing yet. The third makes it three in a row.
    expect((await mcpCall(mcp, 'groups_get_health_report', { groupId: group, weeks: 8 })).groups[0].missingMembers).toEqual([]);
    await mcpCall(mcp, 'groups_record_attendance', { meetingId: meetings[3].id, present: [faithful] });

    const [run] = await eventually(() => runsOf(automation.id), (r) => r.length === 1 && r[0].status === 'completed');
    expect(run).toMatchObject({ contactId: drifting, contactName: 'Drew Drifting', failures: 0 });
    expect(await tagsOf(drifting)).toEqual(['Missing from group']);
    expect(await tagsOf(faithful)).toEqual([]);
    const tasks = await harness.pool.query('SELECT title FROM follow_up_tasks WHERE org_id = $1 AND contact_id = $2', [org.orgId, drifting]);
    expect(tasks.rows.map((r) => r.title)).toEqual(['Ring to see how they are']);
    // Later sweeps still find Drew missing, but a person runs an automation once.
    const swept = (await harness.pool.query('SELECT trigger_cursor FROM grow_automations WHERE id = $1', [automation.id])).rows[0].trigger_cursor as Date;
    await eventually(() => harness.pool.query('SELECT trigger_cursor FROM grow_automations WHERE id = $1', [automation.id]), (r) => r.rows[0].trigger_cursor > swept);
    expect(await runsOf(automation.id)).toHaveLength(1);
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('greets people on their birthday where the organisation is, not in UTC', async () => {
    // A zone whose date now is not UTC's: Auckland from about 11:00 UTC, Pago Pago (UTC-11) before; Kiritimati (UTC+14) covers the hour Auckland's winter leaves.
    const now = DateTime.utc();
    const zone = ['Pacific/Auckland', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((z) => now.setZone(z).toISODate() !== now.toISODate())!;
    // Away from either midnight for the length of the test, so both days hold while it runs.
    const toMidnight = Math.min(...[now, now.setZone(zone)].map((t) => t.endOf('day').diff(t).as('milliseconds')));
    if (toMidnight < 120_000) await new Promise((resolve) => setTimeout(resolve, toMidnight + 1_000));
    const local = DateTime.now().setZone(zone);
    const utc = DateTime.utc();
    expect(local.toISODate()).not.toBe(utc.toISODate());

    const church = await harness.createOrg({ name: 'Far Church' });
    const far = await harness.mcpClient(church.apiKey);
    try {
      // The organisation's time zone is the one its services are scheduled in.
      await mcpCall(far, 'schedule_create_series', { title: 'Morning worship', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: local.plus({ days: 7 }).toISODate(), startTime: '10:00', durationMinutes: 60, timeZone: zone });
      const theirDay = (await mcpCall(far, 'people_create_contact', { firstName: 'Kiri', lastName: 'Zone', dateOfBirth: `1985-${local.toFormat('MM-dd')}` })).contact.id;
      const utcDay = (await mcpCall(far, 'people_create_contact', { firstName: 'Uta', lastName: 'Zone', dateOfBirth: `1985-${utc.toFormat('MM-dd')}` })).contact.id;
      const { automation } = await mcpCall(far, 'grow_create_automation', {
        name: 'Birthday greeting', trigger: { event: 'birthday' }, allowReentry: true, steps: [{ type: 'add_tag', tag: 'Birthday greeted' }],
      });
      await mcpCall(far, 'grow_activate_automation', { automationId: automation.id });
      const runs = await eventually(async () => (await mcpCall(far, 'grow_list_automation_runs', { automationId: automation.id })).runs as any[], (r) => r.length > 0 && r.every((run) => run.status === 'completed'));
      // One sweep reads the day's birthdays at once: Kiri's day is today there; Uta's (today in UTC) is not.
      expect(runs.map((r) => r.contactId)).toEqual([theirDay]);
      const greeted = await harness.pool.query("SELECT ct.contact_id FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.org_id = $1 AND t.name = 'Birthday greeted'", [church.orgId]);
      expect(greeted.rows.map((r) => r.contact_id)).toEqual([theirDay]);
      expect(greeted.rows.map((r) => r.contact_id)).not.toContain(utcDay);
      await mcpCall(far, 'grow_pause_automation', { automationId: automation.id });
    } finally {
      await far.close();
    }
  });

  it('carries on a run after its worker is stopped mid-wait and a new one starts', async () => {
    const { automation } = await mcpCall(mcp, 'grow_create_automation', {
      name: 'Survives a deploy', trigger: { event: 'contact_created' }, conditions: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'Restart' }] },
      steps: [{ type: 'add_tag', tag: 'Before restart' }, { type: 'wait', seconds: 10 }, { type: 'add_tag', tag: 'After restart' }],
    });
    await mcpCall(mcp, 'grow_activate_automation', { automationId: automation.id });
    const person = (await mcpCall(mcp, 'people_create_contact', { firstName: 'Rae', lastName: 'Restart' })).contact.id;
    const [waiting] = await eventually(() => runsOf(automation.id), (r) => r.length === 1 && r[0].step === 3);
    expect(waiting).toMatchObject({ status: 'active', nextAction: 'Add the tag "After restart"' });

    const runRow = async () => (await harness.pool.query('SELECT status, step, next_at FROM grow_automation_runs WHERE id = $1', [waiting.id])).rows[0];
    const before = await runRow();
    expect(before.status).toBe('active');
    await harness.stopWorker();
    try {
      // The wait ends while no worker runs: nothing can happen until one is back. (Tool calls run on the
      // worker too, so while it is away the test reads the database.)
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(waiting.nextAt) - Date.now()) + 2_000));
      expect(await tagsOf(person)).toEqual(['Before restart']);
      expect(await runRow()).toEqual(before);
    } finally {
      await harness.startWorker();
    }
    const [done] = await eventually(() => runsOf(automation.id), (r) => r[0].status === 'completed');
    expect(done).toMatchObject({ id: waiting.id, failures: 0, stepCount: 3 });
    expect((await tagsOf(person)).sort()).toEqual(['After restart', 'Before restart']);
    expect(await runsOf(automation.id)).toHaveLength(1);
    await mcpCall(mcp, 'grow_pause_automation', { automationId: automation.id });
  });

  it('refuses bad input and foreign ids, and holds to the allowance of active automations', async () => {
    const base = { name: 'Bad', trigger: { event: 'contact_created' } };
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, steps: [{ type: 'wait' }] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, steps: [{ type: 'teleport' }] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, steps: [] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, trigger: { event: 'moon_phase' }, steps: [{ type: 'add_tag', tag: 'x' }] })).code).toBe('validation_failed');
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, conditions: { match: 'all', rules: [{ field: 'shoeSize', operator: 'equals', value: 9 }] }, steps: [{ type: 'add_tag', tag: 'x' }] })).code).toBe('validation_failed');
    const foreignGroup = randomUUID();
    await harness.pool.query("INSERT INTO crm_groups (id, org_id, name) VALUES ($1, $2, 'Their group')", [foreignGroup, other.orgId]);
    expect((await mcpRefusal(mcp, 'grow_create_automation', { ...base, steps: [{ type: 'add_to_group', groupId: foreignGroup }] })).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'grow_activate_automation', { automationId: randomUUID() })).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'grow_cancel_automation_run', { runId: randomUUID() })).code).toBe('not_found');
    expect((await mcpRefusal(mcp, 'grow_list_automation_runs', { automationId: 'not-a-uuid' })).code).toBe('validation_failed');
    expect((await harness.pool.query("SELECT count(*)::int AS n FROM grow_automations WHERE org_id = $1 AND name = 'Bad'", [org.orgId])).rows[0].n).toBe(0);

    // The other organisation may have one active automation: the second is refused, also when two race.
    await harness.pool.query("INSERT INTO org_allowance_overrides (org_id, feature, monthly_limit) VALUES ($1, 'active_automations', 1)", [other.orgId]);
    const make = async (name: string) => (await mcpCall(otherMcp, 'grow_create_automation', { name, trigger: { event: 'birthday' }, steps: [{ type: 'add_tag', tag: 'Birthday' }] })).automation.id;
    const [a, b] = [await make('One'), await make('Two')];
    const raced = await Promise.allSettled([a, b].map((automationId) => mcpCall(otherMcp, 'grow_activate_automation', { automationId })));
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = raced.findIndex((r) => r.status === 'rejected');
    expect((await mcpRefusal(otherMcp, 'grow_activate_automation', { automationId: [a, b][loser] })).code).toBe('allowance_exceeded');
    expect((await mcpCall(otherMcp, 'grow_list_automations', { status: 'active' })).automations).toHaveLength(1);
  });
});
