import { Harness, type TestOrg } from '../../../test/helpers/harness';

/**
 * Every people tool from the People module issue, three ways: it works, a bad
 * input is refused with its stable code, and another organisation's key on
 * this organisation's ids finds nothing and changes nothing.
 */

interface Seed {
  anna: string; ben: string; cara: string; visitor: string;
  noteId: string; groupId: string; tagId: string; categoryId: string; segmentId: string; taskId: string;
}

interface Case {
  tool: string;
  ok: (s: Seed) => Record<string, unknown>;
  check: (result: any, s: Seed) => void;
  bad: (s: Seed) => Record<string, unknown>;
  badCode: string;
  /** Arguments that name organisation A's records; called with B's key. */
  foreign?: (s: Seed) => Record<string, unknown>;
  /** For tools without ids: B's own call must not see, or be blocked by, A's data. */
  foreignEmpty?: (result: any) => void;
  /** Arguments for that call when they differ from `ok`. */
  foreignOk?: (s: Seed) => Record<string, unknown>;
}

const MISSING = '00000000-0000-4000-8000-000000000000';

const cases: Case[] = [
  {
    tool: 'people_list_custom_field_definitions', ok: () => ({}),
    check: (r) => expect(r.definitions.map((d: any) => d.key)).toEqual(['shirtSize']),
    bad: () => ({ unexpected: true }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.definitions).toEqual([]),
  },
  {
    tool: 'people_update_contact', ok: (s) => ({ contactId: s.anna, customFields: { shirtSize: 'M' } }),
    check: (r) => expect(r.contact.customFields).toEqual({ shirtSize: 'M' }),
    bad: (s) => ({ contactId: s.anna, customFields: { shirtSize: 'XXL' } }), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.anna, phone: '01234 567890' }),
  },
  {
    tool: 'people_bulk_update_contacts', ok: (s) => ({ entries: [{ contactId: s.anna, preferredName: 'Annie' }, { contactId: s.ben, phone: '07700 900001' }] }),
    check: (r) => expect(r.updated).toBe(2),
    bad: (s) => ({ entries: [{ contactId: s.anna, preferredName: 'Changed' }, { contactId: MISSING, phone: '07700 900002' }] }), badCode: 'not_found',
    foreign: (s) => ({ entries: [{ contactId: s.anna, preferredName: 'Hijacked' }] }),
  },
  {
    tool: 'people_bulk_opt_in_whatsapp', ok: (s) => ({ contactIds: [s.ben, s.cara] }),
    check: (r, s) => {
      expect(r.optedIn).toBe(1);
      expect(r.skippedNoPhone).toEqual([s.cara]);
    },
    bad: () => ({ contactIds: [], allWithPhone: true }), badCode: 'validation_failed',
    foreignOk: () => ({ allWithPhone: true }),
    foreignEmpty: (r) => expect(r).toEqual({ optedIn: 0, alreadyOptedIn: 0, skippedNoPhone: [], notFound: [] }),
  },
  {
    tool: 'people_upcoming_birthdays', ok: () => ({ days: 366 }),
    check: (r, s) => expect(r.birthdays.map((b: any) => b.contactId)).toContain(s.anna),
    bad: () => ({ days: 400 }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.birthdays).toEqual([]),
  },
  {
    tool: 'people_count_unsubscribes', ok: () => ({}),
    check: (r) => expect(r.unsubscribes).toBe(1),
    bad: () => ({ from: '31/02/2026' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.unsubscribes).toBe(0),
  },
  {
    tool: 'people_add_family_relationship', ok: (s) => ({ contactId: s.anna, relatedContactId: s.ben, relationship: 'husband' }),
    check: (r) => {
      expect(r.inverse.relationship).toBe('wife');
      expect(r.familyId).toEqual(expect.any(String));
    },
    bad: (s) => ({ contactId: s.anna, relatedContactId: s.anna, relationship: 'spouse' }), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.anna, relatedContactId: s.cara, relationship: 'sister' }),
  },
  {
    tool: 'people_list_family', ok: (s) => ({ contactId: s.ben }),
    check: (r, s) => expect(r.family).toEqual([{ contactId: s.anna, displayName: 'Annie Smith', relationship: 'wife' }]),
    bad: () => ({ contactId: 'not-a-uuid' }), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.ben }),
  },
  {
    tool: 'people_list_household', ok: (s) => ({ contactId: s.anna }),
    check: (r, s) => expect(r.members.map((m: any) => m.contactId).sort()).toEqual([s.anna, s.ben].sort()),
    bad: () => ({}), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.anna }),
  },
  {
    tool: 'people_remove_family_relationship', ok: (s) => ({ contactId: s.anna, relatedContactId: s.ben }),
    check: (r) => expect(r.removedLinks).toBe(2),
    bad: (s) => ({ contactId: s.anna, relatedContactId: s.cara }), badCode: 'not_found',
    foreign: (s) => ({ contactId: s.anna, relatedContactId: s.ben }),
  },
  {
    tool: 'people_update_note', ok: (s) => ({ noteId: s.noteId, content: 'Called Anna: recovering well' }),
    check: (r) => expect(r.changedFields).toEqual(['content']),
    bad: (s) => ({ noteId: s.noteId, content: `See ${MISSING}` }), badCode: 'validation_failed',
    foreign: (s) => ({ noteId: s.noteId, content: 'overwritten' }),
  },
  {
    tool: 'people_list_pastoral_note_followups', ok: () => ({}),
    check: (r, s) => expect(r.followUps.map((f: any) => f.id)).toEqual([s.noteId]),
    bad: () => ({ status: 'someday' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.followUps).toEqual([]),
  },
  {
    tool: 'people_complete_note_followup', ok: (s) => ({ noteId: s.noteId }),
    check: (r) => expect(r.note.followUpCompleted).toBe(true),
    bad: (s) => ({ noteId: s.noteId }), badCode: 'conflict',
    foreign: (s) => ({ noteId: s.noteId }),
  },
  {
    tool: 'people_list_tags', ok: () => ({}),
    check: (r) => expect(r.tags.map((t: any) => t.name)).toEqual(['Choir', 'Youth']),
    bad: () => ({ categoryId: 'x' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.tags).toEqual([]),
  },
  {
    tool: 'people_add_contact_tags', ok: (s) => ({ contactId: s.ben, tags: ['Youth', 'Welcome Team'] }),
    check: (r) => {
      expect(r.added.sort()).toEqual(['Welcome Team', 'Youth']);
      expect(r.created).toEqual(['Welcome Team']);
    },
    bad: (s) => ({ contactId: s.ben, tags: [] }), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.ben, tags: ['Intruder'] }),
  },
  {
    tool: 'people_remove_contact_tags', ok: (s) => ({ contactId: s.ben, tags: ['Welcome Team', 'Never'] }),
    check: (r) => expect(r).toEqual({ removed: ['Welcome Team'], notTagged: ['Never'] }),
    bad: (s) => ({ contactId: s.ben, tags: 'Youth' }), badCode: 'validation_failed',
    foreign: (s) => ({ contactId: s.ben, tags: ['Youth'] }),
  },
  {
    tool: 'people_create_crm_tag', ok: (s) => ({ name: 'Hospitality', colour: '#ff8800', categoryId: s.categoryId }),
    check: (r) => expect(r.tag).toMatchObject({ name: 'Hospitality', category: 'Ministries' }),
    bad: () => ({ name: 'choir' }), badCode: 'conflict',
    foreign: (s) => ({ name: 'Sneaky', categoryId: s.categoryId }),
  },
  {
    tool: 'people_update_crm_tag', ok: (s) => ({ tagId: s.tagId, name: 'Senior Choir' }),
    check: (r) => expect(r.tag.name).toBe('Senior Choir'),
    bad: (s) => ({ tagId: s.tagId }), badCode: 'validation_failed',
    foreign: (s) => ({ tagId: s.tagId, name: 'Renamed by B' }),
  },
  {
    tool: 'people_create_tag_category', ok: () => ({ name: 'Skills' }),
    check: (r) => expect(r.category.name).toBe('Skills'),
    bad: () => ({ name: 'ministries' }), badCode: 'conflict',
    foreignOk: () => ({ name: 'Ministries' }),
    foreignEmpty: (r) => expect(r.category.name).toBe('Ministries'),
  },
  {
    tool: 'people_update_tag_category', ok: (s) => ({ categoryId: s.categoryId, name: 'Ministry Teams' }),
    check: (r) => expect(r.category.name).toBe('Ministry Teams'),
    bad: (s) => ({ categoryId: s.categoryId, name: '' }), badCode: 'validation_failed',
    foreign: (s) => ({ categoryId: s.categoryId, name: 'Taken over' }),
  },
  {
    tool: 'people_delete_crm_tag', ok: () => ({ name: 'Hospitality' }),
    check: (r) => expect(r.tag.name).toBe('Hospitality'),
    bad: () => ({ name: 'No Such Tag' }), badCode: 'not_found',
    foreign: (s) => ({ tagId: s.tagId }),
  },
  {
    tool: 'people_list_crm_groups', ok: () => ({}),
    check: (r) => expect(r.groups.map((g: any) => g.name)).toEqual(['Worship Team']),
    bad: () => ({ status: 'sleeping' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.groups).toEqual([]),
  },
  {
    tool: 'people_add_crm_group_member', ok: () => ({ groupName: 'worship team', email: 'ben@example.org', role: 'Drums' }),
    check: (r, s) => expect(r).toMatchObject({ contactId: s.ben, alreadyMember: false }),
    bad: () => ({ groupName: 'Worship Team', email: 'nobody@example.org' }), badCode: 'not_found',
    foreign: (s) => ({ groupId: s.groupId, contactId: s.ben }),
  },
  {
    tool: 'people_list_crm_group_members', ok: (s) => ({ groupId: s.groupId }),
    check: (r, s) => expect(r.members.map((m: any) => m.contactId).sort()).toEqual([s.anna, s.ben].sort()),
    bad: () => ({}), badCode: 'validation_failed',
    foreign: (s) => ({ groupId: s.groupId }),
  },
  {
    tool: 'people_remove_crm_group_member', ok: (s) => ({ groupId: s.groupId, contactId: s.ben }),
    check: (r, s) => expect(r.contactId).toBe(s.ben),
    bad: (s) => ({ groupId: s.groupId, contactId: s.cara }), badCode: 'not_found',
    foreign: (s) => ({ groupId: s.groupId, contactId: s.anna }),
  },
  {
    tool: 'people_create_crm_group', ok: () => ({ name: 'Car Park Team', description: 'Sunday parking' }),
    check: (r) => expect(r.group).toMatchObject({ name: 'Car Park Team', status: 'active', memberCount: 0 }),
    bad: () => ({ name: 'WORSHIP TEAM' }), badCode: 'conflict',
    foreignOk: () => ({ name: 'Worship Team' }),
    foreignEmpty: (r) => expect(r.group.memberCount).toBe(0),
  },
  {
    tool: 'people_update_crm_group', ok: (s) => ({ groupId: s.groupId, status: 'on-hold' }),
    check: (r) => expect(r.group.status).toBe('on-hold'),
    bad: (s) => ({ groupId: s.groupId, status: 'paused' }), badCode: 'validation_failed',
    foreign: (s) => ({ groupId: s.groupId, status: 'archived' }),
  },
  {
    tool: 'people_list_segment_fields', ok: () => ({}),
    check: (r) => expect(r.fields.find((f: any) => f.field === 'membershipStatus').operators).toContain('in'),
    bad: () => ({ x: 1 }), badCode: 'validation_failed',
  },
  {
    tool: 'people_list_segment_templates', ok: () => ({}),
    check: (r) => expect(r.templates.map((t: any) => t.id)).toContain('new_visitors'),
    bad: () => ({ x: 1 }), badCode: 'validation_failed',
  },
  {
    tool: 'people_create_segment_from_template', ok: () => ({ templateId: 'members' }),
    check: (r, s) => expect(r.segment).toMatchObject({ name: 'Members', memberCount: 1 }),
    bad: () => ({ templateId: 'custom' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.segment.memberCount).toBe(0),
  },
  {
    tool: 'people_list_segments_api', ok: () => ({}),
    check: (r) => expect(r.segments.map((x: any) => x.name)).toEqual(['Members', 'Visitors']),
    bad: () => ({ x: 1 }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.segments.map((x: any) => [x.name, x.memberCount])).toEqual([['Members', 0]]),
  },
  {
    tool: 'people_get_segment_api', ok: (s) => ({ segmentId: s.segmentId }),
    check: (r) => expect(r.segment.name).toBe('Visitors'),
    bad: () => ({ segmentId: MISSING }), badCode: 'not_found',
    foreign: (s) => ({ segmentId: s.segmentId }),
  },
  {
    tool: 'people_preview_segment_api', ok: () => ({ rules: { match: 'all', rules: [{ field: 'lastName', operator: 'equals', value: 'smith' }] } }),
    check: (r) => expect(r.count).toBe(2),
    bad: () => ({ rules: { match: 'all', rules: [{ field: 'shoeSize', operator: 'equals', value: '9' }] } }), badCode: 'validation_failed',
    foreign: (s) => ({ segmentId: s.segmentId }),
  },
  {
    tool: 'people_update_segment', ok: (s) => ({ segmentId: s.segmentId, rules: { match: 'any', rules: [{ field: 'membershipStatus', operator: 'equals', value: 'first_time_visitor' }, { field: 'firstName', operator: 'equals', value: 'Cara' }] } }),
    check: (r) => expect(r.segment.memberCount).toBe(2),
    bad: (s) => ({ segmentId: s.segmentId, rules: { match: 'all', rules: [{ field: 'age', operator: 'contains', value: 'x' }] } }), badCode: 'validation_failed',
    foreign: (s) => ({ segmentId: s.segmentId, name: 'Mine now' }),
  },
  {
    tool: 'people_add_contact_to_segment_api', ok: (s) => ({ segmentId: s.segmentId, contactId: s.anna }),
    check: (r) => expect(r).toMatchObject({ alreadyManualMember: false, memberCount: 3 }),
    bad: (s) => ({ segmentId: s.segmentId, contactId: MISSING }), badCode: 'not_found',
    foreign: (s) => ({ segmentId: s.segmentId, contactId: s.ben }),
  },
  {
    tool: 'people_refresh_segment', ok: (s) => ({ segmentId: s.segmentId }),
    check: (r) => expect(r.segment.memberCount).toBe(3),
    bad: () => ({ segmentId: MISSING }), badCode: 'not_found',
    foreign: (s) => ({ segmentId: s.segmentId }),
  },
  {
    tool: 'people_list_segment_contacts_api', ok: (s) => ({ segmentId: s.segmentId }),
    check: (r, s) => expect(r.contacts.find((c: any) => c.contactId === s.anna).source).toBe('manual'),
    bad: (s) => ({ segmentId: s.segmentId, limit: 0 }), badCode: 'validation_failed',
    foreign: (s) => ({ segmentId: s.segmentId }),
  },
  {
    tool: 'people_list_welcome_desk_visitors', ok: () => ({}),
    check: (r, s) => expect(r.visitors).toEqual([expect.objectContaining({ contactId: s.visitor, openFollowUpTasks: 1 })]),
    bad: () => ({ stage: 'member' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.visitors).toEqual([]),
  },
  {
    tool: 'people_list_follow_up_tasks', ok: () => ({}),
    check: (r, s) => expect(r.tasks.map((t: any) => t.id)).toEqual([s.taskId]),
    bad: () => ({ status: 'done' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.tasks).toEqual([]),
  },
  {
    tool: 'people_complete_follow_up_task', ok: (s) => ({ taskId: s.taskId, outcome: 'Had coffee after the service' }),
    check: (r) => expect(r.task).toMatchObject({ status: 'completed', outcome: 'Had coffee after the service' }),
    bad: (s) => ({ taskId: s.taskId }), badCode: 'conflict',
    foreign: (s) => ({ taskId: s.taskId }),
  },
  {
    tool: 'people_export_contacts', ok: () => ({ columns: ['firstName', 'lastName', 'email'] }),
    check: (r) => {
      expect(r.rowCount).toBe(4);
      expect(r.csv.split('\n')[0]).toBe('firstName,lastName,email');
      expect(r.csv).not.toContain('recovering');
    },
    bad: () => ({ columns: ['notes'] }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r.rowCount).toBe(0),
  },
  {
    tool: 'people_import_contacts', ok: () => ({ csv: 'First Name,Last Name,Email\nDan,Jones,dan@example.org\nBen,Smith,ben@example.org\n' }),
    check: (r) => expect(r).toMatchObject({ committed: false, toCreate: 1, toSkip: 1 }),
    bad: () => ({ csv: 'First Name,Email\nDan,not-an-email\n', mode: 'commit' }), badCode: 'validation_failed',
    foreignEmpty: (r) => expect(r).toMatchObject({ toCreate: 2, toSkip: 0 }),
  },
  {
    tool: 'people_remove_note', ok: (s) => ({ noteId: s.noteId }),
    check: (r, s) => expect(r).toEqual({ noteId: s.noteId, contactId: s.anna, removed: true, restricted: false }),
    bad: (s) => ({ noteId: s.noteId }), badCode: 'not_found',
    foreign: (s) => ({ noteId: s.noteId }),
  },
  {
    tool: 'people_delete_crm_group', ok: (s) => ({ groupId: s.groupId }),
    check: (r) => expect(r).toMatchObject({ unlinkedMembers: 1 }),
    bad: (s) => ({ groupId: s.groupId }), badCode: 'not_found',
    foreign: (s) => ({ groupId: s.groupId }),
  },
];

const ORG_TABLES = ['contacts', 'notes', 'tags', 'tag_categories', 'contact_tags', 'family_relationships', 'crm_groups', 'crm_group_members',
  'segments', 'segment_members', 'follow_up_tasks', 'custom_field_definitions', 'timeline_entries'];

describe('People module tools', () => {
  let harness: Harness;
  let a: TestOrg;
  let b: TestOrg;
  let seed: Seed;

  /** Every row of organisation A, to prove B's calls changed nothing. */
  async function fingerprint(): Promise<string> {
    const parts: string[] = [];
    for (const table of ORG_TABLES) {
      const { rows } = await harness.pool.query(`SELECT row_to_json(t)::text AS r FROM ${table} t WHERE org_id = $1 ORDER BY 1`, [a.orgId]);
      parts.push(`${table}:${rows.map((row) => row.r).join('|')}`);
    }
    return parts.join('\n');
  }

  beforeAll(async () => {
    harness = await Harness.start();
    a = await harness.createOrg({ name: 'St Anne' });
    b = await harness.createOrg({ name: 'St Bede' });
    const call = (tool: string, args: unknown) => harness.call(a.apiKey, tool, args);
    await call('people_create_custom_field_definition', { key: 'shirtSize', label: 'Shirt size', type: 'select', options: ['S', 'M', 'L'], section: 'Volunteering' });
    const anna = (await call('people_create_contact', { firstName: 'Anna', lastName: 'Smith', email: 'anna@example.org', gender: 'female', dateOfBirth: '01/03/1980', membershipStatus: 'member' })).contact.id;
    const ben = (await call('people_create_contact', { firstName: 'Ben', lastName: 'Smith', email: 'ben@example.org', gender: 'male' })).contact.id;
    const cara = (await call('people_create_contact', { firstName: 'Cara', lastName: 'Jones', email: 'cara@example.org', status: 'subscribed' })).contact.id;
    await call('people_update_contact', { contactId: cara, status: 'unsubscribed' });
    const visitor = (await call('people_create_contact', { firstName: 'Vic', lastName: 'Newman', membershipStatus: 'first_time_visitor' })).contact.id;
    const noteId = (await call('people_add_note', { contactId: anna, content: 'Anna is in hospital', followUpDate: '2030-01-01' })).note.id;
    const categoryId = (await call('people_create_tag_category', { name: 'Ministries' })).category.id;
    await call('people_add_contact_tags', { contactId: anna, tags: ['Choir', 'Youth'] });
    const tagId = (await call('people_list_tags', {})).tags.find((t: any) => t.name === 'Choir').id;
    const groupId = (await call('people_create_crm_group', { name: 'Worship Team' })).group.id;
    await call('people_add_crm_group_member', { groupId, contactId: anna });
    const segmentId = (await call('people_create_segment_from_template', { templateId: 'new_visitors', name: 'Visitors' })).segment.id;
    const taskId = (await call('people_list_follow_up_tasks', {})).tasks[0].id;
    seed = { anna, ben, cara, visitor, noteId, groupId, tagId, categoryId, segmentId, taskId };
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('covers every people tool named in the People module work', () => {
    const covered = new Set(cases.map((c) => c.tool));
    const expected = [
      'people_bulk_update_contacts', 'people_bulk_opt_in_whatsapp', 'people_upcoming_birthdays', 'people_count_unsubscribes',
      'people_add_family_relationship', 'people_remove_family_relationship', 'people_list_family', 'people_list_household',
      'people_update_note', 'people_remove_note', 'people_complete_note_followup', 'people_list_pastoral_note_followups',
      'people_list_tags', 'people_add_contact_tags', 'people_remove_contact_tags', 'people_delete_crm_tag', 'people_create_crm_tag',
      'people_update_crm_tag', 'people_create_tag_category', 'people_update_tag_category',
      'people_list_segments_api', 'people_get_segment_api', 'people_list_segment_fields', 'people_list_segment_templates',
      'people_create_segment_from_template', 'people_update_segment', 'people_preview_segment_api', 'people_refresh_segment',
      'people_list_segment_contacts_api', 'people_add_contact_to_segment_api',
      'people_list_crm_groups', 'people_list_crm_group_members', 'people_create_crm_group', 'people_update_crm_group',
      'people_add_crm_group_member', 'people_remove_crm_group_member', 'people_delete_crm_group',
      'people_list_custom_field_definitions', 'people_list_welcome_desk_visitors', 'people_list_follow_up_tasks',
      'people_complete_follow_up_task', 'people_import_contacts', 'people_export_contacts',
    ];
    expect(expected.filter((name) => !covered.has(name))).toEqual([]);
  });

  // Order matters: the foreign call sees the record as seeded, `works` changes it, and some bad inputs repeat a finished action.
  describe.each(cases.map((c) => [c.tool, c] as const))('%s', (_name, testCase) => {
    // Segment fields and templates hold no organisation data, so they have no isolation case.
    if (testCase.foreign || testCase.foreignEmpty) it("finds nothing and changes nothing with another organisation's key", async () => {
      const before = await fingerprint();
      const args = testCase.foreign ? testCase.foreign(seed) : (testCase.foreignOk ?? testCase.ok)(seed);
      const { body } = await harness.invoke(b.apiKey, testCase.tool, args);
      if (testCase.foreign) {
        expect(body.ok).toBe(false);
        expect(body.error?.code).toBe('not_found');
      } else {
        expect(body.ok).toBe(true);
        testCase.foreignEmpty!(body.result);
      }
      expect(await fingerprint()).toBe(before);
    });

    it('works', async () => {
      const result = await harness.call(a.apiKey, testCase.tool, testCase.ok(seed));
      testCase.check(result, seed);
    });

    it('refuses a bad input with its code and changes nothing', async () => {
      const before = await fingerprint();
      const { body } = await harness.invoke(a.apiKey, testCase.tool, testCase.bad(seed));
      expect(body.ok).toBe(false);
      expect(body.error?.code).toBe(testCase.badCode);
      expect(await fingerprint()).toBe(before);
    });
  });
});
