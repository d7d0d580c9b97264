import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { holdLock, started } from '../../../test/helpers/row-locks';
import { eventually } from '../../../test/helpers/sandbox-stack';
import { meetingDates } from '../meetings';

/**
 * Small groups end to end over MCP: a request-to-join group with its leader's own credential
 * deciding the request, a weekly schedule of meetings and their attendance (visitors inline, one
 * record per person), the health report and the community radar it feeds, a confidential group's
 * roster, a leader's credential seeing only its own groups, messages to members through channels
 * honouring consent, and enrolment limits under 20 concurrent calls.
 */
describe('groups: small groups, enrolment, meetings and attendance', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let staff: McpClient;
  let leader: McpClient;
  let outsider: McpClient;
  let otherMcp: McpClient;
  let leaderUserId: string;
  let leaderApiKey: string;
  const ids: Record<string, string> = {};

  const contact = async (firstName: string, lastName: string, extra: Record<string, unknown> = {}) =>
    (await mcpCall(owner, 'people_create_contact', { firstName, lastName, email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}@example.org`, ...extra })).contact.id as string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Columba' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    // Staff without people:safeguarding; a volunteer who will lead one group; a volunteer who leads none.
    staff = await harness.mcpClient((await harness.createKey(org.orgId, ['groups:read', 'groups:write', 'people:read'], 'staff')).apiKey);
    const leaderKey = await harness.createKey(org.orgId, ['groups:read', 'groups:write', 'people:read', 'platform:read'], 'volunteer');
    leaderUserId = leaderKey.userId;
    leaderApiKey = leaderKey.apiKey;
    leader = await harness.mcpClient(leaderKey.apiKey);
    outsider = await harness.mcpClient((await harness.createKey(org.orgId, ['groups:read', 'groups:write'], 'volunteer')).apiKey);
    ids.anna = await contact('Anna', 'Leader');
    ids.sam = await contact('Sam', 'Seeker');
    ids.ruth = await contact('Ruth', 'Regular');
    ids.tom = await contact('Tom', 'Faithful');
  });

  afterAll(async () => {
    for (const client of [owner, staff, leader, outsider, otherMcp]) await client?.close();
    await harness?.close();
  });

  it('tool descriptions tell small groups from the people module\'s CRM groups, both ways', async () => {
    const toolset = await harness.mcpClient(org.apiKey, '?toolsets=groups,people');
    const { tools } = await toolset.listTools();
    await toolset.close();
    const listed = new Map(tools.map((tool) => [tool.name, tool.description ?? '']));
    expect(listed.get('people_list_crm_groups')).toMatch(/not Small Groups/);
    expect(listed.get('groups_list')).toMatch(/not the people module's CRM groups/);
    expect(listed.get('groups_create')).toMatch(/people_list_crm_groups/);
    const homeGroups = await mcpCall(owner, 'platform_search_tools', { query: 'list our home groups' });
    expect(homeGroups.tools.slice(0, 3).map((t: any) => t.name ?? t)).toContain('groups_list');
    const teams = await mcpCall(owner, 'platform_search_tools', { query: 'list our ministry teams' });
    expect(teams.tools.slice(0, 3).map((t: any) => t.name ?? t)).toContain('people_list_crm_groups');
  });

  it('journey: a request-to-join group, its leader deciding with their own credential, a meeting and its attendance', async () => {
    const created = await mcpCall(owner, 'groups_create', {
      name: 'Tuesday home group', type: 'Home group', scheduleText: 'Tuesdays 7:30pm', meetingDay: 'tuesday', meetingTime: '19:30',
      address: '12 Elm Road', area: 'Kingsbury', capacity: 14, minAge: 18, tags: ['Adults', 'bible study'], memberLimit: 10,
      leaderContactId: ids.anna, leaderUserId,
    });
    ids.tuesday = created.group.id;
    expect(created.group).toMatchObject({
      name: 'Tuesday home group', type: { name: 'Home group' }, listed: true, confidential: false, tags: ['adults', 'bible study'], leaders: 1,
      enrolment: { strategy: 'request_to_join', open: true, closedBy: null, memberLimit: 10, members: 0, placesLeft: 10 },
    });
    expect(created.leader).toEqual({ contactId: ids.anna, leaderUserId });

    // Someone asks: the request waits for a leader.
    const asked = await mcpCall(owner, 'groups_request_to_join', { groupId: ids.tuesday, contactId: ids.sam, message: 'New to the area' });
    expect(asked).toMatchObject({ outcome: 'pending', membershipId: null, request: { status: 'pending', name: 'Sam Seeker', message: 'New to the area' } });
    expect((await mcpCall(owner, 'groups_request_to_join', { groupId: ids.tuesday, contactId: ids.sam })).outcome).toBe('already_pending');

    // Staff who do not lead the group do not decide; the leader's own credential does.
    const refused = await mcpRefusal(staff, 'groups_decide_join_request', { requestId: asked.request.id, decision: 'approve' });
    expect(refused.code).toBe('forbidden');
    expect(refused.hint).toMatch(/groups_set_leader/);
    const mine = await mcpCall(leader, 'groups_get', { groupId: ids.tuesday });
    expect(mine.group.youLead).toBe(true);
    expect(mine.pendingJoinRequests.map((r: any) => r.contactId)).toEqual([ids.sam]);
    const approved = await mcpCall(leader, 'groups_decide_join_request', { requestId: asked.request.id, decision: 'approve' });
    expect(approved.request).toMatchObject({ status: 'approved', decidedByUserId: leaderUserId });
    expect((await mcpRefusal(leader, 'groups_decide_join_request', { requestId: asked.request.id, decision: 'decline' })).code).toBe('conflict');

    // A declined request keeps its reason.
    const tomAsks = await mcpCall(owner, 'groups_request_to_join', { groupId: ids.tuesday, contactId: ids.tom });
    const declined = await mcpCall(leader, 'groups_decide_join_request', { requestId: tomAsks.request.id, decision: 'decline', reason: 'Joining the Thursday group instead' });
    expect(declined.request).toMatchObject({ status: 'declined', declineReason: 'Joining the Thursday group instead' });
    await mcpCall(leader, 'groups_add_member', { groupId: ids.tuesday, contactId: ids.ruth });

    // Weekly meetings from three weeks ago: three have met, one is to come.
    const firstDate = dayFromToday(-21);
    const scheduled = await mcpCall(leader, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: firstDate, startTime: '19:30', timeZone: 'Europe/London', rrule: 'FREQ=WEEKLY;COUNT=4', title: 'Home group' });
    expect(scheduled.meetings.map((m: any) => m.localDate)).toEqual([firstDate, dayFromToday(-14), dayFromToday(-7), dayFromToday(0)]);
    expect(scheduled.meetings.every((m: any) => m.localTime === '19:30' && m.seriesId === scheduled.seriesId)).toBe(true);
    const again = await mcpCall(leader, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: firstDate, startTime: '19:30', timeZone: 'Europe/London' });
    expect(again).toMatchObject({ meetings: [], skippedExisting: 1 });
    ids.meeting1 = scheduled.meetings[0].id;

    const register = await mcpCall(leader, 'groups_record_attendance', { meetingId: ids.meeting1, present: [ids.sam], visitors: [{ name: 'Alex Friend' }, { contactId: ids.tom }] });
    // Everyone in the group not named present (the leader too) is recorded absent.
    expect(register.records).toEqual([
      { contactId: ids.sam, name: 'Sam Seeker', present: true, visitor: false },
      { contactId: ids.anna, name: 'Anna Leader', present: false, visitor: false },
      { contactId: ids.ruth, name: 'Ruth Regular', present: false, visitor: false },
      { contactId: null, name: 'Alex Friend', present: true, visitor: true },
      { contactId: ids.tom, name: 'Tom Faithful', present: true, visitor: true },
    ]);
    expect(register.meeting.attendance).toEqual({ recorded: true, present: 1, absent: 2, visitors: 2 });
    // Recording again corrects: one record per person, visitors by name too.
    const corrected = await mcpCall(leader, 'groups_record_attendance', { meetingId: ids.meeting1, present: [ids.sam, ids.ruth], visitors: [{ name: 'alex friend' }] });
    expect(corrected.meeting.attendance).toEqual({ recorded: true, present: 2, absent: 1, visitors: 2 });
    expect(corrected.records).toHaveLength(5);

    // A non-member named present is refused and changes nothing; a meeting to come takes no register.
    const notMember = await mcpRefusal(leader, 'groups_record_attendance', { meetingId: ids.meeting1, present: [ids.tom] });
    expect(notMember.code).toBe('validation_failed');
    expect(notMember.hint).toMatch(/visitors/);
    const future = await mcpCall(leader, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: dayFromToday(30), startTime: '19:30' });
    expect((await mcpRefusal(leader, 'groups_record_attendance', { meetingId: future.meetings[0].id, present: [ids.sam] })).code).toBe('conflict');

    const got = await mcpCall(owner, 'groups_get', { groupId: ids.tuesday });
    expect(got.roster.map((m: any) => [m.name, m.role])).toEqual([['Anna Leader', 'leader'], ['Ruth Regular', 'member'], ['Sam Seeker', 'member']]);
    expect(got.recentMeetings.at(-1)).toMatchObject({ id: ids.meeting1, attendance: { present: 2, visitors: 2 } });
    expect(got.group.enrolment).toMatchObject({ members: 2, placesLeft: 8 });
  });

  it('dashboard routes through the invoke bridges: RSVPs, a meeting\'s register, join requests; curated writes point at their tool', async () => {
    const coming = (await mcpCall(leader, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: dayFromToday(10), startTime: '19:30' })).meetings[0].id;
    const rsvpPath = `/api/groups/meetings/${coming}/rsvps`;
    const rsvp = await harness.call(leaderApiKey, 'groups_invoke_api_write', { method: 'PUT', path: rsvpPath, body: { contactId: ids.sam, response: 'yes' }, actionSummary: 'Sam is coming' });
    expect(rsvp.result.meeting.rsvps).toEqual({ yes: 1, no: 0, maybe: 0 });
    const changed = await harness.call(leaderApiKey, 'groups_invoke_api_write', { method: 'PUT', path: rsvpPath, body: { contactId: ids.sam, response: 'no' }, actionSummary: 'Sam cannot come' });
    expect(changed.result.meeting.rsvps).toEqual({ yes: 0, no: 1, maybe: 0 });
    const register = await harness.call(org.apiKey, 'groups_invoke_api_read', { path: `/api/groups/meetings/${ids.meeting1}/attendance` });
    expect(register.result.records.map((r: any) => r.name)).toContain('Alex Friend');
    const requests = await harness.call(org.apiKey, 'groups_invoke_api_read', { path: `/api/groups/groups/${ids.tuesday}/join-requests`, query: { status: 'all' } });
    expect(requests.result.requests.map((r: any) => r.declineReason)).toContain('Joining the Thursday group instead');
    const detail = await harness.call(leaderApiKey, 'groups_invoke_api_read', { path: `/api/groups/groups/${ids.tuesday}` });
    expect(detail.result.group.youLead).toBe(true);
    const curated = await harness.invoke(org.apiKey, 'groups_invoke_api_write', {
      method: 'POST', path: `/api/groups/groups/${ids.tuesday}/members`, body: { groupId: ids.tuesday, contactId: ids.tom }, actionSummary: 'Add Tom',
    });
    expect(curated.status).toBe(405);
    expect(curated.body.error?.details?.tool).toBe('groups_add_member');
    const foreign = await harness.invoke(other.apiKey, 'groups_invoke_api_read', { path: `/api/groups/meetings/${ids.meeting1}/attendance` });
    expect(foreign.body.error?.code).toBe('not_found');
  });

  it('a leader\'s credential sees and manages only the groups it leads; another credential sees none', async () => {
    const elsewhere = await mcpCall(owner, 'groups_create', { name: 'Friday youth cell', enrolment: 'open' });
    ids.friday = elsewhere.group.id;
    const listed = await mcpCall(leader, 'groups_list', {});
    expect(listed.groups.map((g: any) => g.id)).toEqual([ids.tuesday]);
    expect((await mcpRefusal(leader, 'groups_get', { groupId: ids.friday })).code).toBe('not_found');
    expect((await mcpRefusal(leader, 'groups_add_member', { groupId: ids.friday, contactId: ids.tom })).code).toBe('not_found');
    expect((await mcpRefusal(leader, 'groups_create', { name: 'My own group' })).code).toBe('forbidden');
    expect((await mcpCall(outsider, 'groups_list', {})).groups).toEqual([]);
    expect((await mcpCall(outsider, 'groups_search', {})).groups).toEqual([]);
    expect((await mcpRefusal(outsider, 'groups_get', { groupId: ids.tuesday })).code).toBe('not_found');
    // Staff see both; another organisation sees neither.
    expect((await mcpCall(staff, 'groups_list', {})).groups.map((g: any) => g.name)).toEqual(expect.arrayContaining(['Friday youth cell', 'Tuesday home group']));
    expect((await mcpRefusal(otherMcp, 'groups_get', { groupId: ids.tuesday })).code).toBe('not_found');
    expect((await mcpCall(otherMcp, 'groups_list', {})).groups).toEqual([]);
  });

  it('a confidential group\'s roster is shown only to its leaders and staff holding people:safeguarding', async () => {
    const care = await mcpCall(owner, 'groups_create', { name: 'Recovery group', confidential: true, listed: true, leaderContactId: ids.anna, leaderUserId });
    ids.care = care.group.id;
    expect(care.group).toMatchObject({ confidential: true, listed: false });
    await mcpCall(owner, 'groups_add_member', { groupId: ids.care, contactId: ids.tom });

    const forStaff = await mcpCall(staff, 'groups_get', { groupId: ids.care, includeFormerMembers: true });
    expect(forStaff).toMatchObject({ rosterHidden: true, roster: [], pendingJoinRequests: [] });
    expect(forStaff.group.enrolment).toMatchObject({ members: 0, placesLeft: null });
    expect((await mcpRefusal(leader, 'groups_update', { groupId: ids.care, confidential: false })).code).toBe('forbidden');
    expect(JSON.stringify(forStaff)).not.toContain('Tom');
    expect((await mcpRefusal(staff, 'groups_message_members', { groupId: ids.care, channel: 'email', purpose: 'service', subject: 'Hi', body: 'Hello' })).code).toBe('forbidden');

    const forOwner = await mcpCall(owner, 'groups_get', { groupId: ids.care });
    expect(forOwner.rosterHidden).toBe(false);
    expect(forOwner.roster.map((m: any) => m.name)).toEqual(['Anna Leader', 'Tom Faithful']);
    const forLeader = await mcpCall(leader, 'groups_get', { groupId: ids.care });
    expect(forLeader.roster.map((m: any) => m.name)).toEqual(['Anna Leader', 'Tom Faithful']);

    // Never in the finder, and it cannot be listed while confidential.
    expect((await mcpCall(owner, 'groups_search', { query: 'Recovery' })).groups).toEqual([]);
    expect((await mcpRefusal(owner, 'groups_update', { groupId: ids.care, listed: true })).code).toBe('validation_failed');
  });

  it('links a leader to the team member with their email when no login is named', async () => {
    const member = await harness.createMember(org.orgId, { role: 'volunteer', email: 'priya.patel@example.org' });
    const priya = await contact('Priya', 'Patel');
    const linked = await mcpCall(owner, 'groups_set_leader', { groupId: ids.tuesday, contactId: priya });
    expect(linked).toMatchObject({ role: 'leader', leaderUserId: member.userId, linkedBy: 'email' });
    // A contact nobody on the team shares an email with is a leader without a login.
    const unlinked = await mcpCall(owner, 'groups_set_leader', { groupId: ids.tuesday, contactId: ids.tom });
    expect(unlinked).toMatchObject({ role: 'leader', leaderUserId: null, linkedBy: null });
    expect(await mcpCall(owner, 'groups_set_leader', { groupId: ids.tuesday, contactId: ids.tom, leader: false })).toMatchObject({ role: 'member', leaderUserId: null });
    await mcpCall(owner, 'groups_remove_member', { groupId: ids.tuesday, contactId: ids.tom, reason: 'Only helping out for a week' });
    await mcpCall(owner, 'groups_set_leader', { groupId: ids.tuesday, contactId: priya, leader: false });
    await mcpCall(owner, 'groups_remove_member', { groupId: ids.tuesday, contactId: priya });
  });

  it('the finder filters by type, day, area, age and openness', async () => {
    await mcpCall(owner, 'groups_create', { name: 'Over-60s fellowship', type: 'Fellowship', meetingDay: 'thursday', area: 'Westfield', minAge: 60, enrolment: 'closed' });
    const byDay = await mcpCall(owner, 'groups_search', { day: 'tuesday' });
    expect(byDay.groups.map((g: any) => g.name)).toEqual(['Tuesday home group']);
    expect((await mcpCall(owner, 'groups_search', { area: 'kingsbury', age: 30 })).groups.map((g: any) => g.name)).toEqual(['Tuesday home group']);
    expect((await mcpCall(owner, 'groups_search', { age: 15 })).groups.map((g: any) => g.name)).toEqual(['Friday youth cell']);
    expect((await mcpCall(owner, 'groups_search', { type: 'fellowship' })).groups.map((g: any) => g.name)).toEqual(['Over-60s fellowship']);
    const open = await mcpCall(owner, 'groups_search', { openOnly: true });
    expect(open.groups.map((g: any) => g.name).sort()).toEqual(['Friday youth cell', 'Tuesday home group']);
  });

  it('enrolment: open groups take people at once, close themselves at the limit, reopen when a place frees, and closed ones refuse', async () => {
    const small = (await mcpCall(owner, 'groups_create', { name: 'Lent course', enrolment: 'open', memberLimit: 2 })).group.id;
    expect((await mcpCall(owner, 'groups_request_to_join', { groupId: small, contactId: ids.sam })).outcome).toBe('joined');
    const second = await mcpCall(owner, 'groups_request_to_join', { groupId: small, contactId: ids.ruth });
    expect(second).toMatchObject({ outcome: 'joined', enrolmentClosedNow: true });
    const full = await mcpRefusal(owner, 'groups_request_to_join', { groupId: small, contactId: ids.tom });
    expect(full).toMatchObject({ code: 'conflict', details: { reason: 'group_full' } });
    expect((await mcpCall(owner, 'groups_get', { groupId: small })).group.enrolment).toMatchObject({ open: false, closedBy: 'member_limit', members: 2, placesLeft: 0 });

    // Leaving keeps the history and frees the place.
    const left = await mcpCall(owner, 'groups_remove_member', { groupId: small, contactId: ids.ruth, reason: 'Moved away' });
    expect(left.enrolmentReopened).toBe(true);
    const withFormer = await mcpCall(owner, 'groups_get', { groupId: small, includeFormerMembers: true });
    expect(withFormer.roster.find((m: any) => m.contactId === ids.ruth)).toMatchObject({ leftReason: 'Moved away' });
    expect(withFormer.roster.find((m: any) => m.contactId === ids.ruth).leftAt).not.toBeNull();
    expect((await mcpCall(owner, 'groups_request_to_join', { groupId: small, contactId: ids.tom })).outcome).toBe('joined');

    // A closing date in the past, then a closed strategy.
    await mcpCall(owner, 'groups_update_enrolment', { groupId: small, memberLimit: null, closesOn: dayFromToday(-1) });
    expect(await mcpRefusal(owner, 'groups_request_to_join', { groupId: small, contactId: ids.anna })).toMatchObject({ code: 'conflict', details: { closedBy: 'closing_date' } });
    const moved = await mcpCall(owner, 'groups_update_enrolment', { groupId: small, closesOn: dayFromToday(7), strategy: 'closed' });
    expect(moved.group.enrolment).toMatchObject({ strategy: 'closed', open: false, closedBy: 'strategy', closesOn: dayFromToday(7) });
    expect(await mcpRefusal(owner, 'groups_request_to_join', { groupId: small, contactId: ids.anna })).toMatchObject({ code: 'conflict', details: { reason: 'enrolment_closed' } });
  });

  it('an age range holds for people whose date of birth is known; staff may add someone outside it on purpose', async () => {
    const youth = (await mcpCall(owner, 'groups_create', { name: 'Sixth-form cell', enrolment: 'open', minAge: 16, maxAge: 18 })).group.id;
    const yearsAgo = (years: number, days = 0) => new Date(Date.UTC(new Date().getUTCFullYear() - years, new Date().getUTCMonth(), new Date().getUTCDate() + days)).toISOString().slice(0, 10);
    const adult = await contact('Adult', 'Helper', { dateOfBirth: yearsAgo(40) });
    const almost16 = await contact('Nearly', 'Sixteen', { dateOfBirth: yearsAgo(16, 3) });
    const seventeen = await contact('Seven', 'Teen', { dateOfBirth: yearsAgo(17) });
    const unknown = await contact('No', 'Birthday');

    const tooOld = await mcpRefusal(owner, 'groups_request_to_join', { groupId: youth, contactId: adult });
    expect(tooOld).toMatchObject({ code: 'conflict', details: { reason: 'outside_age_range', age: 40, minAge: 16, maxAge: 18 } });
    // Sixteen in three days (whatever the organisation's time zone makes today): still too young.
    expect((await mcpRefusal(owner, 'groups_request_to_join', { groupId: youth, contactId: almost16 })).details).toMatchObject({ reason: 'outside_age_range', age: 15 });
    expect((await mcpRefusal(owner, 'groups_add_member', { groupId: youth, contactId: adult })).details.reason).toBe('outside_age_range');
    expect((await mcpCall(owner, 'groups_get', { groupId: youth })).group.enrolment.members).toBe(0);

    expect((await mcpCall(owner, 'groups_request_to_join', { groupId: youth, contactId: seventeen })).outcome).toBe('joined');
    // Nothing says someone without a date of birth is outside the range.
    expect((await mcpCall(owner, 'groups_request_to_join', { groupId: youth, contactId: unknown })).outcome).toBe('joined');
    expect((await mcpCall(owner, 'groups_add_member', { groupId: youth, contactId: adult, allowOutsideAgeRange: true })).created).toBe(true);
    expect((await mcpCall(owner, 'groups_get', { groupId: youth })).group.enrolment.members).toBe(3);
  });

  it('the daily job records enrolment closed for groups past their closing date, once', async () => {
    const lapsed = (await mcpCall(owner, 'groups_create', { name: 'Autumn course', enrolment: 'open', closesOn: dayFromToday(-2) })).group.id;
    expect((await mcpCall(owner, 'groups_get', { groupId: lapsed })).group.enrolment).toMatchObject({ open: false, closedBy: 'closing_date', autoClosedAt: null });
    expect(await harness.runJob('groups.close_enrolment', { orgId: org.orgId })).toMatchObject({ organisations: 1, closed: 1 });
    expect((await mcpCall(owner, 'groups_get', { groupId: lapsed })).group.enrolment.autoClosedAt).not.toBeNull();
    expect(await harness.runJob('groups.close_enrolment', { orgId: org.orgId })).toMatchObject({ closed: 0 });
    const trail = (await mcpCall(owner, 'audit_list_events', { targetId: lapsed, actorKind: 'system' })).events;
    expect(trail).toEqual([expect.objectContaining({ action: 'groups.enrolment.close', tool: 'job:groups.close_enrolment', target: { type: 'group', id: lapsed } })]);
    // Moving the date on reopens it.
    const reopened = await mcpCall(owner, 'groups_update_enrolment', { groupId: lapsed, closesOn: dayFromToday(10) });
    expect(reopened.group.enrolment).toMatchObject({ open: true, closedBy: null, autoClosedAt: null });
  });

  it('holds the member limit under 20 concurrent join requests, and under 20 concurrent approvals', async () => {
    const people = await Promise.all(Array.from({ length: 20 }, (_, i) => contact(`Joiner${i}`, 'Crowd')));
    const open = (await mcpCall(owner, 'groups_create', { name: 'Popular open group', enrolment: 'open', memberLimit: 5 })).group.id;
    const results = await Promise.all(people.map((contactId) => owner.callTool({ name: 'groups_request_to_join', arguments: { groupId: open, contactId } })));
    const joined = results.filter((r) => !r.isError && (r.structuredContent as any).outcome === 'joined');
    const refused = results.filter((r) => r.isError).map((r) => JSON.parse((r.content as any)[0].text).error);
    expect(joined).toHaveLength(5);
    expect(refused).toHaveLength(15);
    expect(refused.every((e) => e.code === 'conflict' && ['group_full', 'enrolment_closed'].includes(e.details.reason))).toBe(true);
    const after = await mcpCall(owner, 'groups_get', { groupId: open });
    expect(after.roster).toHaveLength(5);
    expect(after.group.enrolment).toMatchObject({ members: 5, open: false, closedBy: 'member_limit' });
    expect(after.group.enrolment.autoClosedAt).not.toBeNull();

    // One person asking twenty times at once joins once.
    const repeat = (await mcpCall(owner, 'groups_create', { name: 'Repeat open group', enrolment: 'open' })).group.id;
    const same = await Promise.all(Array.from({ length: 20 }, () => owner.callTool({ name: 'groups_request_to_join', arguments: { groupId: repeat, contactId: people[0] } })));
    expect(same.every((r) => !r.isError)).toBe(true);
    expect(same.map((r) => (r.structuredContent as any).outcome).sort()).toEqual(['joined', ...Array(19).fill('already_member')].sort());
    expect((await mcpCall(owner, 'groups_get', { groupId: repeat, includeFormerMembers: true })).roster).toHaveLength(1);

    // Twenty pending requests, the leader approving them all at once: three places, three approvals.
    const asking = (await mcpCall(owner, 'groups_create', { name: 'Popular asking group', memberLimit: 3, leaderContactId: ids.anna, leaderUserId })).group.id;
    const requests = [];
    for (const contactId of people) requests.push((await mcpCall(owner, 'groups_request_to_join', { groupId: asking, contactId })).request.id);
    const decisions = await Promise.all(requests.map((requestId) => leader.callTool({ name: 'groups_decide_join_request', arguments: { requestId, decision: 'approve' } })));
    expect(decisions.filter((r) => !r.isError)).toHaveLength(3);
    expect(decisions.filter((r) => r.isError).every((r) => JSON.parse((r.content as any)[0].text).error.details?.reason === 'group_full')).toBe(true);
    const asked = await mcpCall(leader, 'groups_get', { groupId: asking });
    expect(asked.group.enrolment.members).toBe(3);
    expect(asked.pendingJoinRequests).toHaveLength(17);
  });

  it('health report: trend, meetings without a register, members missing three in a row, and the community radar fed by them', async () => {
    const group = (await mcpCall(owner, 'groups_create', { name: 'Wednesday cell', leaderContactId: ids.anna, leaderUserId })).group.id;
    const drifting = await contact('Derek', 'Drifting');
    await mcpCall(owner, 'groups_add_member', { groupId: group, contactId: drifting });
    await mcpCall(owner, 'groups_add_member', { groupId: group, contactId: ids.ruth });
    const { meetings } = await mcpCall(owner, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-35), startTime: '19:00', timeZone: 'Europe/London', rrule: 'FREQ=WEEKLY;COUNT=5' });
    expect(meetings).toHaveLength(5);
    // Derek came to the first, then missed three; Ruth came to all; the last meeting has no register.
    await mcpCall(leader, 'groups_record_attendance', { meetingId: meetings[0].id, present: [drifting, ids.ruth] });
    for (const meeting of meetings.slice(1, 4)) await mcpCall(leader, 'groups_record_attendance', { meetingId: meeting.id, present: [ids.ruth] });

    const report = await mcpCall(owner, 'groups_get_health_report', { groupId: group, weeks: 8 });
    expect(report.groups).toHaveLength(1);
    const health = report.groups[0];
    expect(health).toMatchObject({ meetingsHeld: 5, meetingsLogged: 4, meetingsWithoutAttendance: [meetings[4].localDate], trend: 'not_enough_data', currentMembers: 2 });
    expect(health.missingMembers).toEqual([{ contactId: drifting, name: 'Derek Drifting', missedInARow: 3, lastPresent: meetings[0].localDate }]);
    expect(report.missingMembersTotal).toBe(1);

    const all = await mcpCall(owner, 'groups_get_health_report', {});
    expect(all.groupsWithNoAttendanceLogged.map((g: any) => g.name)).toEqual(expect.arrayContaining(['Friday youth cell']));
    expect(all.groupsWithNoAttendanceLogged.map((g: any) => g.name)).not.toContain('Wednesday cell');

    // The same meetings through platform_analytics_query; a leader's credential counts only its own groups.
    const attended = await mcpCall(owner, 'platform_analytics_query', { metric: 'small_group_attendance', from: dayFromToday(-40), to: dayFromToday(0) });
    expect(attended.data).toMatchObject({ meetingsLogged: expect.any(Number), visitors: expect.any(Number) });
    const forLeader = await mcpCall(leader, 'platform_analytics_query', { metric: 'small_group_attendance', from: dayFromToday(-40), to: dayFromToday(0) });
    expect(forLeader.data.meetingsLogged).toBeGreaterThanOrEqual(5);
    expect(attended.data.meetingsLogged).toBeGreaterThanOrEqual(forLeader.data.meetingsLogged);
    const overview = await mcpCall(owner, 'platform_overview', {});
    expect(overview.smallGroups).toMatchObject({ pendingJoinRequests: expect.any(Number) });
    expect(overview.smallGroups.active).toBeGreaterThanOrEqual(5);

    const radar = await mcpCall(owner, 'community_get_followup_radar', {});
    expect(radar.sources).toEqual(expect.arrayContaining([{ source: 'small_groups', status: 'included', count: 1, reason: null }]));
    expect(radar.items.filter((item: any) => item.reason === 'missing_group_meetings')).toEqual([{
      contactId: drifting, name: 'Derek Drifting', reason: 'missing_group_meetings', since: meetings[0].localDate,
      detail: `Missed the last 3 meetings of the small group Wednesday cell (last there ${meetings[0].localDate})`,
    }]);
  });

  it('health report trend: the last three logged meetings against the three before', async () => {
    const group = (await mcpCall(owner, 'groups_create', { name: 'Trend group' })).group.id;
    const members = await Promise.all(['One', 'Two', 'Three'].map((last) => contact('Trend', last)));
    for (const contactId of members) await mcpCall(owner, 'groups_add_member', { groupId: group, contactId });
    const { meetings } = await mcpCall(owner, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-42), startTime: '19:00', rrule: 'FREQ=WEEKLY;COUNT=6' });
    const present = [3, 3, 3, 1, 2, 1];
    for (const [i, meeting] of meetings.entries()) await mcpCall(owner, 'groups_record_attendance', { meetingId: meeting.id, present: members.slice(0, present[i]) });
    const [health] = (await mcpCall(owner, 'groups_get_health_report', { groupId: group })).groups;
    expect(health).toMatchObject({ meetingsLogged: 6, averagePresent: 2.2, trend: 'falling' });
    expect(health.trendReason).toBe('An average of 1.3 present at the last three logged meetings against 3.0 at the three before');
    expect(health.meetings.map((m: any) => m.present)).toEqual(present);
  });

  it('two registers of one meeting queue on the meeting, so their people\'s rows are never taken in two orders at once', async () => {
    const group = (await mcpCall(owner, 'groups_create', { name: 'Register group' })).group.id;
    const members = await Promise.all(['Ada', 'Bea'].map((first) => contact(first, 'Register')));
    for (const contactId of members) await mcpCall(owner, 'groups_add_member', { groupId: group, contactId });
    const { meetings } = await mcpCall(owner, 'groups_schedule_meeting', { groupId: group, startDate: dayFromToday(-7), startTime: '19:00' });
    const meetingId = meetings[0].id as string;
    const held = await holdLock(harness.pool, 'SELECT id FROM groups_meetings WHERE id = $1 FOR NO KEY UPDATE', [meetingId]);
    // The same people named in opposite orders, as two leaders might.
    const first = started(() => mcpCall(owner, 'groups_record_attendance', { meetingId, present: members }));
    const second = started(() => mcpCall(owner, 'groups_record_attendance', { meetingId, present: [...members].reverse() }));
    try {
      // Registers waiting for the meeting's row (the second may queue behind the first rather than the holder).
      const waiting = async () => (await harness.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND query LIKE '%FROM groups_meetings WHERE%FOR NO KEY UPDATE%' AND pid <> pg_backend_pid()`)).rows[0]!.n;
      await eventually(waiting, (n) => n === 2, 10_000, 100).catch(() => undefined);
      // Both wait for the meeting before writing anyone: no attendance row exists yet.
      expect(await waiting()).toBe(2);
      expect((await harness.pool.query('SELECT count(*)::int AS n FROM groups_attendance WHERE meeting_id = $1', [meetingId])).rows[0].n).toBe(0);
    } finally {
      await held.release();
    }
    for (const register of [await first.running, await second.running]) expect(register.records.filter((r: any) => r.present)).toHaveLength(2);
    expect((await harness.pool.query('SELECT count(*)::int AS n FROM groups_attendance WHERE meeting_id = $1', [meetingId])).rows[0].n).toBe(2);
  });

  it('messages members through channels: consent honoured, the unreachable listed with why, a repeat sends nothing twice', async () => {
    const group = (await mcpCall(owner, 'groups_create', { name: 'Book group', leaderContactId: ids.anna, leaderUserId })).group.id;
    const consenting = await contact('Cara', 'Consent');
    const silent = await contact('Nell', 'Noconsent');
    const noEmail = (await mcpCall(owner, 'people_create_contact', { firstName: 'Otto', lastName: 'Offline' })).contact.id;
    for (const contactId of [consenting, silent, noEmail]) await mcpCall(owner, 'groups_add_member', { groupId: group, contactId });
    await mcpCall(owner, 'channels_record_consent', { contactId: consenting, channel: 'email', purpose: 'charitable_purpose', source: 'group sign-up', wording: 'Email me about my group' });

    const args = { groupId: group, channel: 'email', subject: 'This week', body: 'We meet at 8 this week.', includeLeaders: false, idempotencyKey: 'book-group-week-1' };
    const sent = await mcpCall(leader, 'groups_message_members', args);
    expect(sent.sent.map((s: any) => s.contactId)).toEqual([consenting]);
    expect(sent.skipped.map((s: any) => [s.contactId, s.reason]).sort()).toEqual([[noEmail, 'no_address'], [silent, 'no_consent']].sort());
    const message = await mcpCall(owner, 'channels_get_message', { messageId: sent.sent[0].messageId });
    expect(message.message).toMatchObject({ contactId: consenting, channel: 'email' });
    // The call's follow-up started channels' own message workflow for it, under channels' id.
    const started = await harness.temporal.workflow.getHandle(`channel-message-${org.orgId}-${sent.sent[0].messageId}`).describe();
    expect(started.type).toBe('channelMessageWorkflow');
    const repeat = await mcpCall(leader, 'groups_message_members', args);
    expect(repeat.sent[0].messageId).toBe(sent.sent[0].messageId);
    expect((await mcpRefusal(leader, 'groups_message_members', { groupId: group, channel: 'email', body: 'No subject' })).code).toBe('validation_failed');
  });

  it('a message to more than 50 members waits for approval, then goes to each of them', async () => {
    const big = (await mcpCall(owner, 'groups_create', { name: 'Big congregation group', enrolment: 'open' })).group.id;
    const crowd = await Promise.all(Array.from({ length: 51 }, (_, i) => contact(`Many${i}`, 'Members')));
    await Promise.all(crowd.map((contactId) => mcpCall(owner, 'groups_request_to_join', { groupId: big, contactId })));
    const args = { groupId: big, channel: 'email', purpose: 'service', subject: 'Venue change', body: 'We meet in the hall this week.', actionSummary: 'Tell the big group about the hall' };
    const gated = await harness.invoke(org.apiKey, 'groups_message_members', args);
    expect(gated.body.error?.code).toBe('approval_required');
    expect(await harness.pool.query('SELECT count(*)::int AS n FROM channel_messages WHERE org_id = $1 AND usage_tool = $2 AND contact_id = ANY($3::uuid[])', [org.orgId, 'groups_message_members', crowd]))
      .toMatchObject({ rows: [{ n: 0 }] });
    const approved = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: gated.body.error!.details!.proposalId });
    expect(JSON.stringify(approved)).toContain('approved');
    const sent = await harness.pool.query('SELECT count(*)::int AS n FROM channel_messages WHERE org_id = $1 AND usage_tool = $2 AND contact_id = ANY($3::uuid[])', [org.orgId, 'groups_message_members', crowd]);
    expect(sent.rows[0].n).toBe(51);
  });

  it('bad input is refused with a clear error and changes nothing', async () => {
    const badRule = await mcpRefusal(owner, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: dayFromToday(3), startTime: '19:30', rrule: 'FREQ=HOURLY' });
    expect(badRule).toMatchObject({ code: 'validation_failed', issues: [{ path: 'rrule' }] });
    expect((await mcpRefusal(owner, 'groups_schedule_meeting', { groupId: ids.tuesday, startDate: dayFromToday(3), startTime: '19:30', rrule: 'DTSTART=20260101;FREQ=WEEKLY' })).code).toBe('validation_failed');
    expect((await mcpRefusal(owner, 'groups_create', { name: 'Zoom group', locationKind: 'online' })).issues[0].path).toBe('onlineUrl');
    expect((await mcpRefusal(owner, 'groups_create', { name: 'Odd ages', minAge: 40, maxAge: 20 })).code).toBe('validation_failed');
    expect((await mcpRefusal(owner, 'groups_set_leader', { groupId: ids.tuesday, contactId: ids.tom, userId: other.ownerUserId })).code).toBe('not_found');
    expect((await mcpRefusal(owner, 'groups_remove_member', { groupId: ids.tuesday, contactId: ids.anna })).code).toBe('conflict');
    const unchanged = await mcpCall(owner, 'groups_get', { groupId: ids.tuesday });
    expect(unchanged.roster.map((m: any) => m.contactId)).toEqual(expect.arrayContaining([ids.anna]));
  });

  it('archiving keeps the history and stops new members and meetings', async () => {
    const archived = await mcpCall(owner, 'groups_archive', { groupId: ids.friday });
    expect(archived).toMatchObject({ changed: true, group: { archived: true, enrolment: { open: false, closedBy: 'archived' } } });
    expect((await mcpRefusal(owner, 'groups_add_member', { groupId: ids.friday, contactId: ids.tom })).details.reason).toBe('archived');
    expect((await mcpCall(owner, 'groups_list', {})).groups.map((g: any) => g.id)).not.toContain(ids.friday);
    expect((await mcpCall(owner, 'groups_list', { includeArchived: true })).groups.map((g: any) => g.id)).toContain(ids.friday);
    expect((await mcpRefusal(leader, 'groups_archive', { groupId: ids.tuesday })).code).toBe('forbidden');
  });

  it('expands a fortnightly rule in local time', () => {
    expect(meetingDates('FREQ=WEEKLY;INTERVAL=2;COUNT=3', '2026-03-17', '19:30')).toEqual(['2026-03-17', '2026-03-31', '2026-04-14']);
    expect(meetingDates('FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4', '2026-03-17', '19:30')).toEqual(['2026-03-17', '2026-03-19', '2026-03-24', '2026-03-26']);
    expect(() => meetingDates('FREQ=YEARLY', '2026-03-17', '19:30')).toThrow(/DAILY, WEEKLY or MONTHLY/);
  });
});
