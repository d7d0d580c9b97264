import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { sundayBefore } from '../pipeline/first-timers';

/**
 * The guest pipeline end to end over MCP: stages synced idempotently (removed stages' cards handled
 * explicitly), welcome card submissions that match or create the contact and never open a second card
 * (also under concurrent submissions), journeys, follow-ups and explained suggestions, welcome cards
 * consent-checked and queued for a person, volunteer schedules copied between services, and another
 * organisation's ids behaving as missing.
 */
describe('guests: pipeline, welcome cards and volunteers', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let otherMcp: McpClient;
  let anna: { userId: string };
  const ids: Record<string, string> = {};
  const stageIds: Record<string, string> = {};
  const stages = () => [
    { name: 'Welcome', expectedDays: 2, defaultAssigneeUserId: anna.userId, description: 'Say thank you' },
    { name: 'Coffee', expectedDays: 7 },
    { name: 'Connected', expectedDays: 30 },
  ];
  const journeyOf = async (contactId: string) => (await mcpCall(owner, 'guests_list_guest_journeys', { contactId })).journeys[0];

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    anna = await harness.createMember(org.orgId, { role: 'staff' });
    const start = DateTime.now().setZone('Europe/London').plus({ days: 1 }).toISODate()!;
    const { upcoming } = await mcpCall(owner, 'schedule_create_series', {
      title: 'Morning worship', rrule: 'FREQ=WEEKLY', startDate: start, startTime: '10:30', durationMinutes: 90, timeZone: 'Europe/London',
    });
    ids.week1 = upcoming[0].id;
    ids.week2 = upcoming[1].id;
    ids.ruth = (await mcpCall(owner, 'people_create_contact', { firstName: 'Ruth', lastName: 'Brown', email: 'ruth@example.org' })).contact.id;
    ids.volunteer = (await mcpCall(owner, 'people_create_contact', { firstName: 'Vera', lastName: 'Helper' })).contact.id;
    ids.volunteer2 = (await mcpCall(owner, 'people_create_contact', { firstName: 'Dan', lastName: 'Door' })).contact.id;
  });

  afterAll(async () => {
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  describe('stages', () => {
    it('syncs ordered stages with default assignees, and the same list twice changes nothing', async () => {
      expect((await mcpCall(owner, 'guests_list_pipeline_stages', {})).stages).toEqual([]);
      const first = await mcpCall(owner, 'guests_sync_pipeline_stages', { stages: stages() });
      expect(first).toMatchObject({ changed: true, updated: [], removed: [], cardsMoved: 0 });
      expect(first.created).toHaveLength(3);
      expect(first.stages.map((s: any) => [s.name, s.position, s.expectedDays, s.defaultAssigneeUserId])).toEqual([
        ['Welcome', 0, 2, anna.userId], ['Coffee', 1, 7, null], ['Connected', 2, 30, null],
      ]);
      for (const stage of first.stages) stageIds[stage.name] = stage.id;
      const again = await mcpCall(owner, 'guests_sync_pipeline_stages', { stages: stages() });
      expect(again).toMatchObject({ changed: false, created: [], updated: [], removed: [] });
      expect(again.stages.map((s: any) => s.id)).toEqual(first.stages.map((s: any) => s.id));
    });

    it('refuses duplicate names, a stranger as assignee and an unknown stage id', async () => {
      const twice = await mcpRefusal(owner, 'guests_sync_pipeline_stages', { stages: [{ name: 'A', expectedDays: 1 }, { name: 'a', expectedDays: 2 }] });
      expect(twice).toMatchObject({ code: 'validation_failed', issues: [{ path: 'stages.1.name' }] });
      const stranger = await mcpRefusal(owner, 'guests_sync_pipeline_stages', { stages: [{ name: 'A', expectedDays: 1, defaultAssigneeUserId: other.ownerUserId }] });
      expect(stranger.code).toBe('not_found');
      expect((await mcpRefusal(owner, 'guests_sync_pipeline_stages', { stages: [{ id: '00000000-0000-4000-8000-000000000000', name: 'A', expectedDays: 1 }] })).code).toBe('not_found');
      expect((await mcpRefusal(owner, 'guests_sync_pipeline_stages', { stages: [{ name: 'A', expectedDays: 400 }] })).code).toBe('validation_failed');
    });
  });

  describe('welcome card submissions', () => {
    it('creates a contact and opens a card in the first stage, for the stage\'s default assignee', async () => {
      const result = await mcpCall(owner, 'guests_submit_welcome_card', {
        firstName: 'Sam', lastName: 'Green', email: 'Sam@Example.org', instanceId: ids.week1, howHeard: 'A friend', interests: ['Home groups'],
      });
      expect(result).toMatchObject({ contactOutcome: 'created', matchedOn: [], otherCandidates: [], cardCreated: true });
      ids.sam = result.contactId;
      ids.samCard = result.cardId;
      const journey = await journeyOf(ids.sam);
      expect(journey).toMatchObject({
        id: ids.samCard, guestName: 'Sam Green', stageName: 'Welcome', stagePosition: 0, status: 'ready', source: 'welcome_card',
        instanceId: ids.week1, assigneeUserId: anna.userId, dueDate: dayFromToday(2),
      });
      expect(journey.steps.map((s: any) => s.kind)).toEqual(['opened']);
    });

    it('matches the same guest again by email and reports the card they already have', async () => {
      const again = await mcpCall(owner, 'guests_submit_welcome_card', { firstName: 'Samuel', lastName: 'Green', email: 'sam@example.org' });
      expect(again).toMatchObject({ contactId: ids.sam, contactOutcome: 'matched', matchedOn: ['email'], cardId: ids.samCard, cardCreated: false });
      expect((await journeyOf(ids.sam)).steps.map((s: any) => s.kind)).toEqual(['opened', 'card_submitted']);
    });

    it('matches an existing contact by full name, reporting what matched', async () => {
      const result = await mcpCall(owner, 'guests_submit_welcome_card', { firstName: 'ruth', lastName: 'BROWN', phone: '07700 900123' });
      expect(result).toMatchObject({ contactId: ids.ruth, contactOutcome: 'matched', matchedOn: ['name'], cardCreated: true });
    });

    it('never opens two cards or two contacts for the same guest submitted concurrently', async () => {
      const submit = () => harness.invoke(org.apiKey, 'guests_submit_welcome_card', { firstName: 'Pat', lastName: 'Lee', phone: '+44 7700 900456', message: 'Hello!' });
      const responses = await Promise.all(Array.from({ length: 8 }, submit));
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
      const results = responses.map((r) => r.body.result as any);
      expect(new Set(results.map((r) => r.contactId)).size).toBe(1);
      expect(new Set(results.map((r) => r.cardId)).size).toBe(1);
      expect(results.filter((r) => r.cardCreated)).toHaveLength(1);
      expect(results.filter((r) => r.contactOutcome === 'created')).toHaveLength(1);
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM guests_pipeline_cards WHERE org_id = $1 AND contact_id = $2', [org.orgId, results[0].contactId]);
      expect(rows[0].n).toBe(1);
      ids.pat = results[0].contactId;
      ids.patCard = results[0].cardId;
    });

    it('never opens a second card for a guest through any path, even at the same moment', async () => {
      const open = () => harness.invoke(org.apiKey, 'guests_open_guest_card', { contactId: ids.volunteer2 });
      const results = (await Promise.all(Array.from({ length: 6 }, open))).map((r) => r.body.result as any);
      expect(new Set(results.map((r) => r.card.id)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const viaCard = await mcpCall(owner, 'guests_submit_welcome_card', { firstName: 'Dan', lastName: 'Door' });
      expect(viaCard).toMatchObject({ contactId: ids.volunteer2, cardId: results[0].card.id, cardCreated: false });
    });

    it('refuses a card nobody could be found again from', async () => {
      expect((await mcpRefusal(owner, 'guests_submit_welcome_card', { firstName: 'Anon' })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'guests_submit_welcome_card', { firstName: 'Bad', email: 'not-an-email' })).code).toBe('validation_failed');
    });
  });

  describe('welcome cards', () => {
    it('lists templates', async () => {
      const { templates } = await mcpCall(owner, 'guests_list_welcome_card_templates', {});
      expect(templates.map((t: any) => t.key)).toEqual(expect.arrayContaining(['first_visit', 'second_visit']));
    });

    it('refuses an email welcome without consent, and sends one through channels once they consented', async () => {
      const [before] = (await mcpCall(owner, 'guests_get_followup_suggestions', { contactId: ids.sam })).suggestions;
      expect(before).toMatchObject({ action: 'send_welcome_card', tool: 'guests_send_welcome_card', args: { contactId: ids.sam } });
      expect(before.reason).toMatch(/no welcome card has been sent/);
      const refused = await mcpRefusal(owner, 'guests_send_welcome_card', { contactId: ids.sam, channel: 'email' });
      expect(refused).toMatchObject({ code: 'forbidden', details: { reason: 'no_consent' }, message: expect.stringMatching(/charitable purpose consent/) });
      expect((await mcpCall(owner, 'guests_list_welcome_cards', {})).welcomeCards).toEqual([]);
      await mcpCall(owner, 'channels_record_consent', {
        contactId: ids.sam, channel: 'email', purpose: 'charitable_purpose', source: 'welcome card', wording: 'Keep me up to date with church news',
      });
      const sent = await mcpCall(owner, 'guests_send_welcome_card', { contactId: ids.sam, templateKey: 'first_visit', channel: 'email' });
      expect(sent).toMatchObject({
        delivery: 'channels',
        welcomeCard: { status: 'dispatched', purpose: 'charitable_purpose', channelMessageId: sent.message.id, queuedForUserId: null, subject: 'Lovely to meet you at St Anne' },
      });
      expect(sent.welcomeCard.body).toMatch(/^Dear Sam,\n\nThank you for joining us at St Anne\./);
      const { message } = await mcpCall(owner, 'channels_get_message', { messageId: sent.message.id });
      expect(message).toMatchObject({ channel: 'email', contactId: ids.sam, purpose: 'charitable_purpose', subject: 'Lovely to meet you at St Anne', idempotencyKey: `guests-welcome-card:${sent.welcomeCard.id}` });
      const [after] = (await mcpCall(owner, 'guests_get_followup_suggestions', { contactId: ids.sam })).suggestions;
      expect(after).toMatchObject({ action: 'wait', reason: expect.stringMatching(/due \d{4}-\d{2}-\d{2}/) });
      expect((await journeyOf(ids.sam)).steps.map((s: any) => s.kind)).toContain('welcome_card_sent');
      expect((await mcpRefusal(owner, 'guests_mark_welcome_card_sent', { welcomeCardId: sent.welcomeCard.id })).code).toBe('conflict');
    });

    it('queues a posted card for the guest\'s follow-up person, who marks it sent once', async () => {
      expect(await mcpRefusal(owner, 'guests_send_welcome_card', { contactId: ids.sam, channel: 'post' })).toMatchObject({ code: 'conflict', message: expect.stringMatching(/no postal address/) });
      await mcpCall(owner, 'people_update_contact', { contactId: ids.sam, addressLine1: '1 Church Lane', addressPostcode: 'AB1 2CD' });
      const posted = await mcpCall(owner, 'guests_send_welcome_card', { contactId: ids.sam, channel: 'post', templateKey: 'second_visit', personalNote: 'See you at coffee!' });
      expect(posted).toMatchObject({ delivery: 'queued_for_person', message: null, welcomeCard: { status: 'queued', queuedForUserId: anna.userId, channelMessageId: null } });
      expect(posted.welcomeCard.body).toMatch(/See you at coffee!$/);
      ids.welcomeCard = posted.welcomeCard.id;
      const marked = await mcpCall(owner, 'guests_mark_welcome_card_sent', { welcomeCardId: ids.welcomeCard });
      expect(marked.welcomeCard).toMatchObject({ status: 'sent' });
      expect((await mcpRefusal(owner, 'guests_mark_welcome_card_sent', { welcomeCardId: ids.welcomeCard })).code).toBe('conflict');
      expect((await mcpCall(owner, 'guests_list_welcome_cards', { status: 'sent' })).welcomeCards.map((c: any) => c.id)).toEqual([ids.welcomeCard]);
      expect((await mcpCall(owner, 'guests_list_welcome_cards', { contactId: ids.sam })).welcomeCards.map((c: any) => c.status)).toEqual(['sent', 'dispatched']);
    });

    it('checks addresses and templates: no email, a template not written for texts, an unknown template', async () => {
      expect(await mcpRefusal(owner, 'guests_send_welcome_card', { contactId: ids.pat, channel: 'email', purpose: 'service' })).toMatchObject({ code: 'forbidden', details: { reason: 'no_address' } });
      expect((await mcpRefusal(owner, 'guests_send_welcome_card', { contactId: ids.sam, channel: 'sms' })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'guests_send_welcome_card', { contactId: ids.sam, templateKey: 'nope' })).code).toBe('not_found');
    });
  });

  describe('moving cards', () => {
    it('advances to the next stage, snoozes, completes and reopens, keeping every step', async () => {
      const advanced = await mcpCall(owner, 'guests_advance_guest_card', { cardId: ids.samCard, note: 'Had coffee planned' });
      expect(advanced.card).toMatchObject({ stageName: 'Coffee', status: 'ready', dueDate: dayFromToday(7), assigneeUserId: anna.userId });
      const snoozed = await mcpCall(owner, 'guests_snooze_guest_card', { cardId: ids.samCard, until: dayFromToday(10), reason: 'Away' });
      expect(snoozed.card).toMatchObject({ status: 'snoozed', snoozedUntil: dayFromToday(10), dueDate: dayFromToday(10) });
      expect((await mcpRefusal(owner, 'guests_snooze_guest_card', { cardId: ids.samCard, until: dayFromToday(0) })).code).toBe('validation_failed');
      const due = await mcpCall(owner, 'guests_list_followups_due', { by: dayFromToday(9) });
      expect(due.followups.map((c: any) => c.id)).not.toContain(ids.samCard);
      const completed = await mcpCall(owner, 'guests_complete_guest_card', { cardId: ids.samCard, outcome: 'Joined a home group' });
      expect(completed.card).toMatchObject({ status: 'completed', outcome: 'Joined a home group' });
      expect((await mcpRefusal(owner, 'guests_advance_guest_card', { cardId: ids.samCard })).code).toBe('conflict');
      const reopened = await mcpCall(owner, 'guests_reopen_guest_card', { cardId: ids.samCard, stageName: 'welcome' });
      expect(reopened.card).toMatchObject({ status: 'ready', stageName: 'Welcome', completedAt: null });
      expect((await journeyOf(ids.sam)).steps.map((s: any) => [s.kind, s.fromStage, s.toStage])).toEqual([
        ['opened', null, 'Welcome'], ['card_submitted', null, null], ['welcome_card_sent', null, null], ['welcome_card_sent', null, null], ['advanced', 'Welcome', 'Coffee'],
        ['snoozed', null, null], ['completed', 'Coffee', null], ['reopened', null, 'Welcome'],
      ]);
      expect((await mcpRefusal(owner, 'guests_advance_guest_card', { cardId: ids.samCard, stageName: 'Nowhere' })).code).toBe('not_found');
    });

    it('shows an overdue card as overdue, due, and to follow up now, with the reason', async () => {
      await harness.pool.query('UPDATE guests_pipeline_cards SET due_date = current_date - 3 WHERE id = $1', [ids.patCard]);
      const overdue = await mcpCall(owner, 'guests_list_followup_tasks', { status: 'overdue' });
      expect(overdue.tasks.map((t: any) => t.id)).toEqual([ids.patCard]);
      const mine = await mcpCall(owner, 'guests_list_followup_tasks', { mine: true });
      expect(mine.tasks).toEqual([]);
      const annas = await mcpCall(owner, 'guests_list_followup_tasks', { assigneeUserId: anna.userId });
      expect(annas.tasks.map((t: any) => t.id)).toContain(ids.patCard);
      expect((await mcpCall(owner, 'guests_list_followups_due', {})).followups.map((c: any) => c.id)).toContain(ids.patCard);
      const text = await mcpCall(owner, 'guests_send_welcome_card', { contactId: ids.pat, channel: 'sms', templateKey: 'first_visit_short', purpose: 'service' });
      expect(text).toMatchObject({ delivery: 'channels', welcomeCard: { status: 'dispatched', purpose: 'service' } });
      const [suggestion] = (await mcpCall(owner, 'guests_get_followup_suggestions', { contactId: ids.pat })).suggestions;
      expect(suggestion).toMatchObject({ action: 'follow_up_now', status: 'overdue' });
      expect(suggestion.reason).toMatch(/3 day\(s\) overdue/);
      const summary = await mcpCall(owner, 'guests_pipeline_summary', {});
      expect(summary.stages.find((s: any) => s.name === 'Welcome')).toMatchObject({ open: 4, overdue: 1 });
      expect(summary).toMatchObject({ open: 4, overdue: 1, openedLast7Days: 4 });
    });

    it('refuses to drop a stage that holds open cards unless told what to do with them', async () => {
      await mcpCall(owner, 'guests_advance_guest_card', { cardId: ids.patCard });
      const withoutCoffee = [stages()[0], stages()[2]];
      const refused = await mcpRefusal(owner, 'guests_sync_pipeline_stages', { stages: withoutCoffee });
      expect(refused).toMatchObject({ code: 'conflict', message: expect.stringMatching(/Coffee \(1\)/) });
      expect((await mcpCall(owner, 'guests_list_pipeline_stages', {})).stages).toHaveLength(3);
      const synced = await mcpCall(owner, 'guests_sync_pipeline_stages', { stages: withoutCoffee, removedStageCards: 'move_to_previous' });
      expect(synced).toMatchObject({ removed: [stageIds.Coffee], cardsMoved: 1, changed: true });
      expect(synced.stages.map((s: any) => [s.name, s.position])).toEqual([['Welcome', 0], ['Connected', 1]]);
      const pat = await journeyOf(ids.pat);
      expect(pat).toMatchObject({ stageName: 'Welcome' });
      expect(pat.steps.at(-1)).toMatchObject({ kind: 'stage_removed', fromStage: 'Coffee', toStage: 'Welcome' });
    });
  });

  describe('volunteers', () => {
    it('assigns, lists, updates, copies the welcome team and removes', async () => {
      const { assignment } = await mcpCall(owner, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer, role: 'Door greeter' });
      expect(assignment).toMatchObject({ team: 'welcome', role: 'Door greeter', status: 'scheduled', volunteerName: 'Vera Helper', serviceTitle: 'Morning worship' });
      await mcpCall(owner, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer2, status: 'declined' });
      await mcpCall(owner, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer2, team: 'kids' });
      expect((await mcpRefusal(owner, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer })).code).toBe('conflict');
      const racing = await Promise.all(Array.from({ length: 5 }, () => harness.invoke(org.apiKey, 'guests_assign_volunteer', { instanceId: ids.week2, contactId: ids.volunteer2, team: 'parking' })));
      expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      await mcpCall(owner, 'guests_delete_volunteer_schedule', { assignmentId: (racing.find((r) => r.status === 200)!.body.result as any).assignment.id });
      expect((await mcpRefusal(owner, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer, team: 'Welcome Team' })).code).toBe('validation_failed');
      const listed = await mcpCall(owner, 'guests_list_volunteer_schedules', { instanceId: ids.week1, team: 'welcome' });
      expect(listed.assignments.map((a: any) => [a.volunteerName, a.status])).toEqual([['Vera Helper', 'scheduled'], ['Dan Door', 'declined']]);
      const updated = await mcpCall(owner, 'guests_update_volunteer_schedule', { assignmentId: assignment.id, status: 'confirmed', role: null });
      expect(updated.assignment).toMatchObject({ status: 'confirmed', role: null });
      expect((await mcpRefusal(owner, 'guests_update_volunteer_schedule', { assignmentId: assignment.id })).code).toBe('validation_failed');

      const copied = await mcpCall(owner, 'guests_copy_welcome_volunteers', { fromInstanceId: ids.week1, toInstanceId: ids.week2 });
      expect(copied).toMatchObject({ alreadyThere: 0, declinedSkipped: 1 });
      expect(copied.copied.map((a: any) => [a.volunteerName, a.status, a.instanceId, a.copiedFromId])).toEqual([['Vera Helper', 'scheduled', ids.week2, assignment.id]]);
      const twice = await mcpCall(owner, 'guests_copy_welcome_volunteers', { fromInstanceId: ids.week1, toInstanceId: ids.week2 });
      expect(twice).toMatchObject({ copied: [], alreadyThere: 1 });
      expect((await mcpRefusal(owner, 'guests_copy_welcome_volunteers', { fromInstanceId: ids.week1, toInstanceId: ids.week1 })).code).toBe('validation_failed');

      const range = await mcpCall(owner, 'guests_list_volunteer_schedules', { from: dayFromToday(0), to: dayFromToday(20), contactId: ids.volunteer });
      expect(range.assignments.map((a: any) => a.instanceId)).toEqual([ids.week1, ids.week2]);
      const removed = await mcpCall(owner, 'guests_delete_volunteer_schedule', { assignmentId: copied.copied[0].id });
      expect(removed.removed.id).toBe(copied.copied[0].id);
      expect((await mcpRefusal(owner, 'guests_delete_volunteer_schedule', { assignmentId: copied.copied[0].id })).code).toBe('not_found');
      expect((await mcpRefusal(owner, 'guests_list_volunteer_schedules', {})).code).toBe('validation_failed');
    });
  });

  describe('merging contacts', () => {
    it('keeps the kept contact\'s card when both had one, and moves a card to a contact without one', async () => {
      const move = (from: string, to: string) => harness.pool.query('UPDATE guests_pipeline_cards SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2', [org.orgId, from, to]);
      // Both Sam and Pat have cards: the move the merge makes changes nothing, and does not fail.
      expect((await move(ids.pat, ids.sam)).rowCount).toBe(0);
      expect((await journeyOf(ids.sam)).id).toBe(ids.samCard);
      expect((await journeyOf(ids.pat)).id).toBe(ids.patCard);
      const newcomer = (await mcpCall(owner, 'people_create_contact', { firstName: 'Mo', lastName: 'Merged' })).contact.id;
      expect((await move(ids.pat, newcomer)).rowCount).toBe(1);
      expect((await journeyOf(newcomer)).id).toBe(ids.patCard);
      await move(newcomer, ids.pat);
    });
  });

  describe('which Sunday the Monday run looks back on', () => {
    it('is the last Sunday before today in the organisation\'s zone, never today', () => {
      // Monday 00:30 UTC after the spring clock change: Monday in London, still Sunday evening in Los Angeles.
      const mondayNight = new Date('2026-03-30T00:30:00Z');
      expect(sundayBefore(mondayNight, 'Europe/London')).toBe('2026-03-29');
      expect(sundayBefore(mondayNight, 'America/Los_Angeles')).toBe('2026-03-22');
      expect(sundayBefore(new Date('2026-04-02T12:00:00Z'), 'Europe/London')).toBe('2026-03-29');
      expect(sundayBefore(new Date('2026-10-26T00:30:00Z'), 'Europe/London')).toBe('2026-10-25');
      expect(sundayBefore(new Date('2026-10-25T23:30:00Z'), 'Europe/London')).toBe('2026-10-18');
    });
  });

  describe('another organisation', () => {
    it('sees none of these guests, cards, stages or volunteers, and their ids behave as missing', async () => {
      expect((await mcpRefusal(otherMcp, 'guests_advance_guest_card', { cardId: ids.patCard })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_open_guest_card', { contactId: ids.sam })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_send_welcome_card', { contactId: ids.sam })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_mark_welcome_card_sent', { welcomeCardId: ids.welcomeCard })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_assign_volunteer', { instanceId: ids.week1, contactId: ids.volunteer })).code).toBe('not_found');
      expect((await mcpCall(otherMcp, 'guests_list_guest_journeys', {})).journeys).toEqual([]);
      expect((await mcpCall(otherMcp, 'guests_list_welcome_cards', {})).welcomeCards).toEqual([]);
      const fresh = await mcpCall(otherMcp, 'guests_submit_welcome_card', { firstName: 'Sam', lastName: 'Green', email: 'sam@example.org' });
      expect(fresh).toMatchObject({ contactOutcome: 'created', cardCreated: true });
      expect(fresh.contactId).not.toBe(ids.sam);
    });
  });
});
