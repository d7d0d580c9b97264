import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The people dashboard's readers over MCP, each answering exact figures from data this suite lays
 * down by hand: headline analytics, engagement bands (restricted entries counted only for a caller
 * with people:safeguarding), the birthday and new-member cards, where people live, the community
 * roster search, the visitor card form, the CRM subscription, a roll check preview, and the tag
 * and group `_api` tools the dashboard's pickers use.
 */
describe('people dashboard readers', () => {
  let harness: Harness;
  let org: TestOrg;
  let owner: McpClient;
  let staff: McpClient;
  const ids: Record<string, string> = {};

  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  /** A date of birth `years` ago, falling `inDays` days from today (so the next birthday is then). */
  const bornYearsAgo = (years: number, inDays: number) => {
    const date = new Date(Date.now() + inDays * 86_400_000);
    date.setUTCFullYear(date.getUTCFullYear() - years);
    return date.toISOString().slice(0, 10);
  };

  async function seed(key: string, fields: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    const columns = ['id', 'org_id', ...Object.keys(fields)];
    await harness.pool.query(`INSERT INTO contacts (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`, [id, org.orgId, ...Object.values(fields)]);
    ids[key] = id;
    return id;
  }

  async function timeline(contactId: string, daysAgo: number, restricted = false): Promise<void> {
    await harness.pool.query(`INSERT INTO timeline_entries (id, org_id, contact_id, kind, source_kind, source_id, summary, occurred_at, restricted)
      VALUES ($1, $2, $3, 'visit', 'test_visit', $1, 'Visited', now() - make_interval(days => $4), $5)`, [randomUUID(), org.orgId, contactId, daysAgo, restricted]);
  }

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'Readers Chapel', planCode: 'starter' });
    owner = await harness.mcpClient(org.apiKey);
    staff = await harness.mcpClient((await harness.createKey(org.orgId, ['people:read'], 'staff')).apiKey);
    // Ann: a member since ten days ago, turning 40 in three days, in Leeds. Ben: a member for over a year, aged 9, by phone only.
    await seed('ann', {
      first_name: 'Ann', last_name: 'Able', email: 'ann@readers.example', status: 'subscribed', membership_status: 'member', membership_date: day(-10),
      date_of_birth: bornYearsAgo(40, 3), address_line1: '1 Church Lane', address_city: 'leeds', address_postcode: 'LS6 2QE',
    });
    await seed('ben', {
      first_name: 'Ben', last_name: 'Baker', phone: '07700 900002', status: 'non_subscribed', membership_status: 'member', membership_date: day(-400),
      date_of_birth: bornYearsAgo(10, 5), address_city: 'Leeds ', address_postcode: 'LS6 1AA',
    });
    // Cat: a regular attender of 30 added 45 days ago (the period before the last 30 days), first visit five days ago, in York.
    await seed('cat', {
      first_name: 'Cat', last_name: 'Cole', email: 'cat@readers.example', status: 'subscribed', membership_status: 'regular_attender',
      date_of_birth: bornYearsAgo(30, -100), address_city: 'York', address_postcode: 'YO1 7HH', first_visit_date: day(-5), created_at: new Date(Date.now() - 45 * 86_400_000),
    });
    // Dan: a first-time visitor two days ago with no way to reach him and no location; he unsubscribed today.
    await seed('dan', { first_name: 'Dan', last_name: 'Drew', status: 'unsubscribed', membership_status: 'first_time_visitor', first_visit_date: day(-2) });
    await harness.pool.query(`INSERT INTO contact_status_events (org_id, contact_id, from_status, to_status) VALUES ($1, $2, 'non_subscribed', 'unsubscribed')`, [org.orgId, ids.dan]);
    // Eve: deleted, so counted nowhere.
    await seed('eve', { first_name: 'Eve', last_name: 'Evans', email: 'eve@readers.example', status: 'subscribed', membership_status: 'member', membership_date: day(0), date_of_birth: bornYearsAgo(50, 1), address_city: 'Leeds', deleted_at: new Date() });

    // Two open follow-ups for Dan, one overdue; one completed.
    await harness.pool.query(`INSERT INTO follow_up_tasks (id, org_id, contact_id, title, due_date, status) VALUES
      ($1, $4, $5, 'Welcome call', current_date + 1, 'open'), ($2, $4, $5, 'Send welcome pack', current_date - 1, 'open'), ($3, $4, $5, 'Say hello', current_date - 3, 'completed')`,
    [randomUUID(), randomUUID(), randomUUID(), org.orgId, ids.dan]);

    // Ann in the Welcome team as its leader and Ben as a member; an archived team; Ann tagged Choir.
    const welcome = (await mcpCall(owner, 'people_create_crm_group', { name: 'Welcome team', description: 'Greeters at the door' })).group;
    ids.welcome = welcome.id;
    ids.flowers = (await mcpCall(owner, 'people_create_crm_group', { name: 'Flower rota', status: 'archived' })).group.id;
    await mcpCall(owner, 'people_add_crm_group_member', { groupId: welcome.id, contactId: ids.ann, role: 'Team leader' });
    await mcpCall(owner, 'people_add_crm_group_member', { groupId: welcome.id, contactId: ids.ben });
    expect(await mcpCall(owner, 'people_add_contact_tag_api', { contactId: ids.ann, tagName: 'Choir' })).toMatchObject({ added: true, created: true, tags: [{ name: 'Choir' }] });

    // The community roster: Ann (consenting to be celebrated) and Ben current, Cat joined and left.
    await mcpCall(owner, 'people_set_community_membership_bulk', { memberships: [
      { contactId: ids.ann, member: true, joinedOn: '2024-01-10', celebrationConsent: true }, { contactId: ids.ben, member: true, joinedOn: '2025-06-01' },
      { contactId: ids.cat, member: true, joinedOn: '2023-03-03' },
    ] });
    await mcpCall(owner, 'people_set_community_membership_bulk', { memberships: [{ contactId: ids.cat, member: false }] });

    // The care timeline, laid down exactly: Ann today, Ben 60 days ago, Cat a restricted entry today and an open one 120 days ago, Dan nothing.
    await harness.pool.query('DELETE FROM timeline_entries WHERE org_id = $1', [org.orgId]);
    await timeline(ids.ann, 0);
    await timeline(ids.ben, 60);
    await timeline(ids.cat, 0, true);
    await timeline(ids.cat, 120);
  });

  afterAll(async () => {
    await owner?.close();
    await staff?.close();
    await harness?.close();
  });

  it('gives headline analytics for the last 30 days and the period before', async () => {
    const { stats } = await mcpCall(owner, 'people_get_analytics_stats', {});
    expect(stats).toEqual({
      period: { from: day(-29), to: day(0), days: 30 },
      totalContacts: 4, newContacts: 3, newContactsPreviousPeriod: 1, members: 2, visitors: 1, firstVisits: 2, unsubscribes: 1, subscribed: 2,
      withEmailPercent: 50, withPhonePercent: 25, openFollowUps: 2, overdueFollowUps: 1, activeGroups: 1, tags: 1, segments: 0,
    });
    // A week: Cat's first visit (five days ago) and Dan's (two days ago) still count; Cat was added before it.
    const week = (await mcpCall(owner, 'people_get_analytics_stats', { days: 7 })).stats;
    expect(week).toMatchObject({ period: { from: day(-6), to: day(0), days: 7 }, newContacts: 3, newContactsPreviousPeriod: 0, firstVisits: 2 });
    // Three days (today and the two before): Dan's first visit only.
    const threeDays = (await mcpCall(owner, 'people_get_analytics_stats', { days: 3 })).stats;
    expect(threeDays).toMatchObject({ period: { from: day(-2), to: day(0), days: 3 }, firstVisits: 1 });
    expect((await mcpRefusal(owner, 'people_get_analytics_stats', { days: 0 })).code).toBe('validation_failed');
  });

  it('bands engagement by the latest care timeline entry, restricted entries only for a safeguarding caller', async () => {
    const full = await mcpCall(owner, 'people_get_engagement_overview', {});
    expect(full).toEqual({
      total: 4,
      // Ann and Cat (restricted entry today) active; Ben cooling; Dan quiet.
      bands: { active: 2, cooling: 1, quiet: 1 },
      definitions: { active: 'A care timeline entry in the last 30 days', cooling: 'The latest entry 31 to 90 days ago', quiet: 'No entry for over 90 days, or none ever' },
      inAGroupPercent: 50, taggedPercent: 25, inASegmentPercent: 0, subscribedPercent: 50, includesRestricted: true,
    });
    // Without people:safeguarding Cat's latest visible entry is 120 days old: quiet.
    const limited = await mcpCall(staff, 'people_get_engagement_overview', {});
    expect(limited).toMatchObject({ bands: { active: 1, cooling: 1, quiet: 2 }, includesRestricted: false });
  });

  it('fills the birthday and new-member cards', async () => {
    const { birthdays } = await mcpCall(owner, 'people_get_smart_content_birthdays', {});
    expect(birthdays).toEqual([
      { contactId: ids.ann, displayName: 'Ann Able', dateOfBirth: bornYearsAgo(40, 3), nextBirthday: day(3), turning: 40 },
      { contactId: ids.ben, displayName: 'Ben Baker', dateOfBirth: bornYearsAgo(10, 5), nextBirthday: day(5), turning: 10 },
    ]);
    expect((await mcpCall(owner, 'people_get_smart_content_birthdays', { days: 4 })).birthdays.map((b: any) => b.contactId)).toEqual([ids.ann]);
    expect((await mcpCall(owner, 'people_get_smart_content_birthdays', { limit: 1 })).birthdays).toHaveLength(1);

    const { members } = await mcpCall(owner, 'people_get_smart_content_new_members', {});
    expect(members).toEqual([{ contactId: ids.ann, displayName: 'Ann Able', membershipDate: day(-10), since: day(-10) }]);
    const longer = await mcpCall(owner, 'people_get_smart_content_new_members', { days: 500 });
    expect(longer.members.map((m: any) => [m.displayName, m.since])).toEqual([['Ann Able', day(-10)], ['Ben Baker', day(-400)]]);
    expect((await mcpCall(owner, 'people_get_smart_content_new_members', { days: 5 })).members).toEqual([]);
  });

  it('says where people live, answers the CRM subscription, and gives the visitor card form', async () => {
    expect(await mcpCall(owner, 'people_list_crm_locations', {})).toEqual({
      towns: [{ town: 'Leeds', contacts: 2 }, { town: 'York', contacts: 1 }],
      postcodeDistricts: [{ district: 'LS6', contacts: 2 }, { district: 'YO1', contacts: 1 }],
      withoutLocation: 1,
    });
    expect((await mcpCall(owner, 'people_list_crm_locations', { limit: 1 })).towns).toEqual([{ town: 'Leeds', contacts: 2 }]);

    expect(await mcpCall(owner, 'people_get_crm_subscription', {})).toEqual({
      planCode: 'starter', contactsAllowance: 500, liveContacts: 4, remaining: 496, percentUsed: 0.8, atLimit: false,
    });

    const before = await mcpCall(owner, 'people_get_visitor_card_form', {});
    expect(before.fields.map((f: any) => f.key)).toEqual(['firstName', 'lastName', 'email', 'phone', 'addressPostcode', 'firstVisit', 'prayerRequest', 'contactConsent']);
    expect(before.fields.filter((f: any) => f.required).map((f: any) => f.key)).toEqual(['firstName', 'lastName', 'contactConsent']);
    expect(before.consentNote).toBe('Contact consent is asked on every card; nobody is contacted without it.');
    await mcpCall(owner, 'people_create_custom_field_definition', { key: 'tshirt', label: 'T-shirt size', type: 'select', options: ['S', 'M', 'L'] });
    const after = await mcpCall(owner, 'people_get_visitor_card_form', {});
    expect(after.fields).toHaveLength(9);
    expect(after.fields[8]).toEqual({ key: 'custom.tshirt', label: 'T-shirt size', type: 'select', required: false, source: 'custom', options: ['S', 'M', 'L'] });
  });

  it('searches the community roster by name or email, those who left only when asked', async () => {
    const current = await mcpCall(owner, 'people_execute_community_search', {});
    expect(current.members).toEqual([
      { contactId: ids.ann, displayName: 'Ann Able', membershipStatus: 'member', joinedOn: '2024-01-10', leftOn: null, celebrationConsent: true },
      { contactId: ids.ben, displayName: 'Ben Baker', membershipStatus: 'member', joinedOn: '2025-06-01', leftOn: null, celebrationConsent: false },
    ]);
    expect((await mcpCall(owner, 'people_execute_community_search', { query: 'BAKER' })).members.map((m: any) => m.contactId)).toEqual([ids.ben]);
    expect((await mcpCall(owner, 'people_execute_community_search', { query: 'ann@readers' })).members.map((m: any) => m.contactId)).toEqual([ids.ann]);
    expect((await mcpCall(owner, 'people_execute_community_search', { query: 'cat' })).members).toEqual([]);
    const all = await mcpCall(owner, 'people_execute_community_search', { query: 'cat', includeLeft: true });
    expect(all.members).toEqual([{ contactId: ids.cat, displayName: 'Cat Cole', membershipStatus: 'regular_attender', joinedOn: '2023-03-03', leftOn: day(0), celebrationConsent: false }]);
  });

  it('previews a roll check: who passes, who needs attention and why, and who could join', async () => {
    const roll = await mcpCall(owner, 'people_preview_roll_check', {});
    expect(roll).toMatchObject({
      previewOnly: true, onRoll: 2, passing: 1,
      byIssue: { under_minimum_age: 1, age_unknown: 0, no_address: 0, no_recent_activity: 0, no_contact_method: 0 },
      needingAttention: [{ contactId: ids.ben, displayName: 'Ben Baker', ok: false, issues: ['under_minimum_age'] }],
      candidates: [{ contactId: ids.cat, displayName: 'Cat Cole', age: 30 }], candidateCount: 1, includesRestricted: true,
    });
    expect(roll.rules).toMatchObject({ minimumAge: 16, activityDays: 180 });
    // A 30-day window flags Ben's visit 60 days ago too; a minimum age of 8 lets Ben pass on age.
    const strict = await mcpCall(owner, 'people_preview_roll_check', { activityDays: 30, minimumAge: 8 });
    expect(strict).toMatchObject({ passing: 1, byIssue: { under_minimum_age: 0, no_recent_activity: 1 }, needingAttention: [{ contactId: ids.ben, issues: ['no_recent_activity'] }] });
    // Nothing changed.
    expect((await mcpCall(owner, 'people_get_contact', { contactId: ids.ben })).contact.membershipStatus).toBe('member');
  });

  it('serves tags and teams through their _api forms: list, one contact\'s tags, add and remove one, groups and paged members', async () => {
    const tagsApi = await mcpCall(owner, 'people_list_crm_tags_api', {});
    expect(tagsApi.tags.map((t: any) => [t.name, t.contactCount])).toEqual([['Choir', 1]]);
    expect(tagsApi.categories).toEqual([]);
    const annTags = await mcpCall(owner, 'people_list_contact_tags_api', { contactId: ids.ann });
    expect(annTags.tags.map((t: any) => t.name)).toEqual(['Choir']);
    expect((await mcpCall(owner, 'people_list_contact_tags_api', { contactId: ids.ben })).tags).toEqual([]);

    // By id: Ben gains Choir without a new tag; again changes nothing.
    const choirId = tagsApi.tags[0].id;
    expect(await mcpCall(owner, 'people_add_contact_tag_api', { contactId: ids.ben, tagId: choirId })).toMatchObject({ added: true, created: false });
    expect(await mcpCall(owner, 'people_add_contact_tag_api', { contactId: ids.ben, tagId: choirId })).toMatchObject({ added: false, created: false });
    expect((await mcpCall(owner, 'people_list_crm_tags_api', {})).tags[0].contactCount).toBe(2);
    // Remove by name, then by id; removing again is a no-op; the tag itself stays.
    const removed = await mcpCall(owner, 'people_remove_contact_tag_api', { contactId: ids.ann, tagName: 'choir' });
    expect(removed).toEqual({ contactId: ids.ann, tags: [], removed: true });
    expect(await mcpCall(owner, 'people_remove_contact_tag_api', { contactId: ids.ann, tagName: 'Choir' })).toEqual({ contactId: ids.ann, tags: [], removed: false });
    expect((await mcpCall(owner, 'people_remove_contact_tag_api', { contactId: ids.ben, tagId: choirId })).removed).toBe(true);
    expect((await mcpCall(owner, 'people_list_crm_tags_api', {})).tags.map((t: any) => [t.name, t.contactCount])).toEqual([['Choir', 0]]);
    // Both a tag id and a name, or neither, is refused.
    expect((await mcpRefusal(owner, 'people_remove_contact_tag_api', { contactId: ids.ann, tagId: choirId, tagName: 'Choir' })).code).toBe('validation_failed');
    expect((await mcpRefusal(owner, 'people_remove_contact_tag_api', { contactId: ids.ann, tagId: randomUUID() })).code).toBe('not_found');

    const groups = await mcpCall(owner, 'people_list_crm_groups_api', {});
    expect(groups.groups.map((g: any) => [g.name, g.status, g.memberCount]).sort()).toEqual([['Flower rota', 'archived', 0], ['Welcome team', 'active', 2]]);
    expect((await mcpCall(owner, 'people_list_crm_groups_api', { query: 'door' })).groups.map((g: any) => g.id)).toEqual([ids.welcome]);
    expect((await mcpCall(owner, 'people_list_crm_groups_api', { status: 'archived' })).groups.map((g: any) => g.id)).toEqual([ids.flowers]);

    const firstPage = await mcpCall(owner, 'people_list_crm_group_members_api', { groupId: ids.welcome, limit: 1 });
    expect(firstPage).toMatchObject({ total: 2, nextOffset: 1, group: { id: ids.welcome, memberCount: 2 } });
    expect(firstPage.members).toHaveLength(1);
    const secondPage = await mcpCall(owner, 'people_list_crm_group_members_api', { groupId: ids.welcome, limit: 1, offset: 1 });
    expect(secondPage).toMatchObject({ total: 2, nextOffset: null });
    expect([firstPage.members[0].contactId, secondPage.members[0].contactId].sort()).toEqual([ids.ann, ids.ben].sort());

    const detail = await mcpCall(owner, 'people_get_crm_group', { groupName: 'Welcome team' });
    expect(detail.group).toMatchObject({ id: ids.welcome, memberCount: 2 });
    expect(detail.roles).toEqual({ 'Team leader': 1, member: 1 });
  });
});
