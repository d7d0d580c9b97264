import { Harness, type TestOrg } from '../../../test/helpers/harness';

/** Private and amber/red notes stay hidden from callers without people:safeguarding on the follow-up paths too. */
describe('restricted notes on follow-up and edit paths', () => {
  let harness: Harness;
  let org: TestOrg;
  let staffKey: string;
  let contactId: string;
  let openNote: string;
  let redNote: string;
  let privateNote: string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    staffKey = (await harness.createKey(org.orgId, ['people:read', 'people:write'], 'staff')).apiKey;
    contactId = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Ruth', lastName: 'Care' })).contact.id;
    const add = async (extra: Record<string, unknown>) =>
      (await harness.call(org.apiKey, 'people_add_note', { contactId, content: 'Follow up with Ruth', followUpDate: '2031-05-01', ...extra })).note.id as string;
    openNote = await add({});
    redNote = await add({ confidentialityLevel: 'red', content: 'Safeguarding concern about Ruth' });
    privateNote = await add({ privacy: 'private', content: 'Private matter for Ruth' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('lists only unrestricted follow-ups without safeguarding, all of them with it', async () => {
    const staff = await harness.call(staffKey, 'people_list_pastoral_note_followups', {});
    expect(staff.followUps.map((n: any) => n.id)).toEqual([openNote]);
    const owner = await harness.call(org.apiKey, 'people_list_pastoral_note_followups', {});
    expect(owner.followUps.map((n: any) => n.id).sort()).toEqual([openNote, redNote, privateNote].sort());
  });

  it('counts open follow-ups on the overview the same way', async () => {
    const viewer = (await harness.createKey(org.orgId, ['platform:read'], 'staff')).apiKey;
    expect((await harness.call(viewer, 'platform_overview', {})).openFollowUps).toBe(1);
    expect((await harness.call(org.apiKey, 'platform_overview', {})).openFollowUps).toBe(3);
  });

  it.each(['people_update_note', 'people_complete_note_followup', 'people_remove_note'])('%s treats a restricted note as missing without safeguarding', async (tool) => {
    for (const noteId of [redNote, privateNote]) {
      const args = tool === 'people_update_note' ? { noteId, content: 'changed' } : { noteId };
      const { body } = await harness.invoke(staffKey, tool, args);
      expect(body.error?.code).toBe('not_found');
    }
    const { rows } = await harness.pool.query('SELECT content, follow_up_completed FROM notes WHERE id = ANY($1) ORDER BY content', [[redNote, privateNote]]);
    expect(rows).toEqual([
      { content: 'Private matter for Ruth', follow_up_completed: false },
      { content: 'Safeguarding concern about Ruth', follow_up_completed: false },
    ]);
  });

  it('leaves a content-free note_removed entry on the timeline after removal', async () => {
    await harness.call(org.apiKey, 'people_complete_note_followup', { noteId: openNote });
    await harness.call(org.apiKey, 'people_remove_note', { noteId: openNote });
    const timeline = await harness.call(staffKey, 'people_list_care_timeline', { contactId });
    const kinds = timeline.entries.map((e: any) => e.kind);
    expect(kinds).toContain('note_removed');
    expect(kinds).not.toContain('follow_up_completed');
    expect(JSON.stringify(timeline.entries)).not.toContain('Follow up with Ruth');
  });

  it('the removal of a restricted note is on the timeline only for safeguarding holders', async () => {
    await harness.call(org.apiKey, 'people_remove_note', { noteId: redNote });
    const staff = await harness.call(staffKey, 'people_list_care_timeline', { contactId });
    const owner = await harness.call(org.apiKey, 'people_list_care_timeline', { contactId });
    const removals = (entries: any[]) => entries.filter((e) => e.kind === 'note_removed').map((e) => e.sourceId);
    expect(removals(staff.entries)).not.toContain(redNote);
    expect(removals(owner.entries)).toContain(redNote);
  });

  it('welfare-due dates never come from a note the caller may not see', async () => {
    const person = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Wendy', lastName: 'Welfare' })).contact.id;
    const note = (await harness.call(org.apiKey, 'people_add_note', { contactId: person, content: 'Private pastoral matter', privacy: 'private' })).note.id;
    await harness.pool.query("UPDATE contacts SET created_at = now() - interval '400 days' WHERE id = $1", [person]);
    await harness.pool.query("UPDATE notes SET created_at = now() - interval '200 days' WHERE id = $1", [note]);
    await harness.pool.query("UPDATE timeline_entries SET occurred_at = now() - interval '300 days' WHERE contact_id = $1", [person]);
    const reader = (await harness.createKey(org.orgId, ['people:read'], 'staff')).apiKey;
    const find = async (key: string) => (await harness.call(key, 'people_list_welfare_due_contacts', {})).contacts.find((c: any) => c.contactId === person);
    const seenByStaff = await find(reader);
    const seenByOwner = await find(org.apiKey);
    expect(seenByOwner.daysSinceContact).toBe(200);
    expect(seenByStaff.daysSinceContact).not.toBe(200);
    expect(seenByStaff.lastPastoralContactAt).not.toBe(seenByOwner.lastPastoralContactAt);
  });

  it('welfare-due dates do not come from the removal of a restricted note either', async () => {
    const person = (await harness.call(org.apiKey, 'people_create_contact', { firstName: 'Rita', lastName: 'Removed' })).contact.id;
    const note = (await harness.call(org.apiKey, 'people_add_note', { contactId: person, content: 'Red matter', confidentialityLevel: 'red' })).note.id;
    await harness.call(org.apiKey, 'people_remove_note', { noteId: note });
    await harness.pool.query("UPDATE contacts SET created_at = now() - interval '400 days' WHERE id = $1", [person]);
    await harness.pool.query("UPDATE timeline_entries SET occurred_at = now() - interval '200 days' WHERE contact_id = $1", [person]);
    const reader = (await harness.createKey(org.orgId, ['people:read'], 'staff')).apiKey;
    const owner = (await harness.call(org.apiKey, 'people_list_welfare_due_contacts', {})).contacts.find((c: any) => c.contactId === person);
    const staff = (await harness.call(reader, 'people_list_welfare_due_contacts', {})).contacts.find((c: any) => c.contactId === person);
    expect(owner.daysSinceContact).toBe(200);
    expect(staff.daysSinceContact).toBe(400);
    expect(staff.lastPastoralContactAt).toBeNull();
  });
});
