import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The community module end to end over MCP: a prayer request reaches the wall only after a person
 * approves it; restricted material never reaches the wall, the celebrations board or the radar; a
 * key holding only community scopes works the board; other organisations' ids behave as missing.
 */
describe('community: prayer wall, celebrations, roster and follow-up radar', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let community: McpClient;
  let otherMcp: McpClient;
  let margaret: string;
  let tom: string;

  const contact = async (firstName: string, lastName: string) =>
    (await mcpCall(owner, 'people_create_contact', { firstName, lastName })).contact.id as string;
  const prayer = async (contactId: string, extra: Record<string, unknown>) =>
    (await mcpCall(owner, 'people_add_prayer_request', { contactId, request: 'Pray for the operation on Friday', ...extra })).prayerRequest.id as string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    // A care-team volunteer's key: the community side only, no people scopes and no safeguarding.
    const volunteer = await harness.createKey(org.orgId, ['community:read', 'community:write'], 'staff');
    community = await harness.mcpClient(volunteer.apiKey);
    margaret = await contact('Margaret', 'Hill');
    tom = await contact('Tom', 'Reed');
  });

  afterAll(async () => {
    await community?.close();
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  it('a key with only community scopes sees the community tools and no people tools', async () => {
    const volunteer = await harness.createKey(org.orgId, ['community:read', 'community:write'], 'staff');
    const all = await harness.mcpClient(volunteer.apiKey, '?toolsets=all');
    try {
      const names = (await all.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['community_list_prayer_wall', 'community_get_followup_radar', 'community_approve_post']));
      expect(names.filter((name) => !name.startsWith('community_') && !name.startsWith('platform_'))).toEqual([]);
    } finally {
      await all.close();
    }
  });

  describe('prayer wall', () => {
    let request: string;
    let postId: string;

    beforeAll(async () => {
      request = await prayer(margaret, { visibility: 'congregation' });
    });

    it('shares a request only after a person approves it, with the text and name chosen', async () => {
      const { post } = await mcpCall(community, 'community_share_prayer_request', {
        prayerRequestId: request, consentConfirmed: true, wallText: 'Pray for Margaret\'s operation on Friday',
      });
      postId = post.id;
      expect(post).toMatchObject({ kind: 'prayer', status: 'pending', displayName: 'Margaret', body: 'Pray for Margaret\'s operation on Friday' });
      expect((await mcpCall(community, 'community_list_prayer_wall', {})).items).toEqual([]);
      const alerts = (await mcpCall(owner, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'community.moderation_waiting');
      expect(alerts).toEqual([expect.objectContaining({ severity: 'info', count: 1, actWith: { tool: 'community_list_moderation_queue' } })]);
      const queue = await mcpCall(community, 'community_list_moderation_queue', {});
      expect(queue.posts.map((p: any) => p.id)).toEqual([postId]);

      const approved = await mcpCall(community, 'community_approve_post', { postId });
      expect(approved.post.status).toBe('approved');
      const wall = await mcpCall(community, 'community_list_prayer_wall', {});
      expect(wall.items).toEqual([expect.objectContaining({ id: postId, displayName: 'Margaret', body: 'Pray for Margaret\'s operation on Friday', status: 'approved', prayedCount: 0 })]);
      expect(JSON.stringify(wall)).not.toContain(margaret);
      expect((await mcpCall(community, 'community_list_moderation_queue', {})).posts).toEqual([]);
      expect((await mcpCall(owner, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'community.moderation_waiting')).toEqual([]);
    });

    it('refuses sharing without consent, twice, or a request not open to the congregation', async () => {
      expect((await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId: request })).code).toBe('validation_failed');
      expect((await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: false })).code).toBe('validation_failed');
      expect((await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true })).code).toBe('conflict');
      const team = await prayer(tom, {});
      const privateOne = await prayer(tom, { visibility: 'private', request: 'Private trouble at home' });
      const red = await prayer(tom, { visibility: 'congregation', confidentialityLevel: 'red', request: 'Red matter' });
      // Each answers exactly as a missing id does, so a private request's existence does not show.
      const missing = await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId: '00000000-0000-4000-8000-000000000000', consentConfirmed: true });
      for (const prayerRequestId of [team, privateOne, red]) {
        const error = await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId, consentConfirmed: true });
        expect(error.code).toBe('not_found');
        expect(error.message.replace(prayerRequestId, 'ID')).toBe(missing.message.replace('00000000-0000-4000-8000-000000000000', 'ID'));
      }
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM community_posts WHERE prayer_request_id = ANY($1)', [[team, privateOne, red]]);
      expect(rows[0].n).toBe(0);
    });

    it('two moderators deciding at once: one decision wins, the other is told it was decided', async () => {
      const second = await prayer(tom, { visibility: 'congregation', request: 'Pray for Tom\'s new job' });
      const { post } = await mcpCall(community, 'community_share_prayer_request', { prayerRequestId: second, consentConfirmed: true, showName: 'anonymous' });
      expect(post.displayName).toBe('Anonymous');
      const results = await Promise.all([
        community.callTool({ name: 'community_approve_post', arguments: { postId: post.id } }),
        owner.callTool({ name: 'community_reject_post', arguments: { postId: post.id, reason: 'Too personal' } }),
      ]);
      expect(results.filter((r) => !r.isError)).toHaveLength(1);
      const refused = results.find((r) => r.isError)!;
      expect(JSON.parse((refused.content as any)[0].text).error.code).toBe('conflict');
      const { rows } = await harness.pool.query('SELECT status FROM community_posts WHERE id = $1', [post.id]);
      expect(['approved', 'rejected']).toContain(rows[0].status);
    });

    it('the same request shared by several callers at once makes one post', async () => {
      const request = await prayer(tom, { visibility: 'congregation', request: 'Pray for Tom\'s exams' });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? community : owner).callTool({ name: 'community_share_prayer_request', arguments: { prayerRequestId: request, consentConfirmed: true } })));
      expect(results.filter((r) => !r.isError)).toHaveLength(1);
      for (const refused of results.filter((r) => r.isError)) expect(JSON.parse((refused.content as any)[0].text).error.code).toBe('conflict');
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM community_posts WHERE prayer_request_id = $1', [request]);
      expect(rows[0].n).toBe(1);
    });

    it('counts every prayer said at the same moment', async () => {
      const calls = Array.from({ length: 12 }, (_, i) => mcpCall(i % 2 ? community : owner, 'community_record_prayer', { postId }));
      await Promise.all(calls);
      const { post } = await mcpCall(community, 'community_get_post', { postId });
      expect(post.prayedCount).toBe(12);
    });

    it('a request made private after approval drops off the wall and cannot be prayed for', async () => {
      const later = await prayer(tom, { visibility: 'congregation', request: 'Pray for Tom\'s travel' });
      const { post } = await mcpCall(community, 'community_share_prayer_request', { prayerRequestId: later, consentConfirmed: true });
      await mcpCall(community, 'community_approve_post', { postId: post.id });
      expect((await mcpCall(community, 'community_list_prayer_wall', {})).items.map((i: any) => i.id)).toContain(post.id);
      const updated = await mcpCall(owner, 'people_update_prayer_request', { prayerRequestId: later, visibility: 'private' });
      expect(updated).toMatchObject({ changedFields: ['visibility'], prayerRequest: { visibility: 'private' } });
      const wall = await mcpCall(community, 'community_list_prayer_wall', {});
      expect(wall.items.map((i: any) => i.id)).not.toContain(post.id);
      expect(JSON.stringify(wall)).not.toContain('travel');
      expect((await mcpRefusal(community, 'community_record_prayer', { postId: post.id })).code).toBe('conflict');
    });

    it('a request answered from the people side shows as answered on the wall', async () => {
      const request = await prayer(tom, { visibility: 'congregation', request: 'Pray for Tom\'s interview' });
      const { post } = await mcpCall(community, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true });
      await mcpCall(community, 'community_approve_post', { postId: post.id });
      await mcpCall(owner, 'people_set_prayer_request_status', { prayerRequestId: request, status: 'answered' });
      const item = (await mcpCall(community, 'community_list_prayer_wall', {})).items.find((i: any) => i.id === post.id);
      expect(item.status).toBe('answered');
      expect(item.answeredAt).not.toBeNull();
    });

    it('marks a wall prayer answered with a praise note, and the request answered too', async () => {
      const { post } = await mcpCall(community, 'community_mark_prayer_answered', { postId, answerNote: 'The operation went well' });
      expect(post).toMatchObject({ status: 'answered', answerNote: 'The operation went well' });
      const wall = await mcpCall(community, 'community_list_prayer_wall', {});
      expect(wall.items.find((i: any) => i.id === postId)).toMatchObject({ status: 'answered', answerNote: 'The operation went well' });
      const requests = await mcpCall(owner, 'people_list_prayer_requests', { contactId: margaret });
      expect(requests.prayerRequests[0]).toMatchObject({ id: request, status: 'answered', answerNote: 'The operation went well' });
      const again = await mcpCall(community, 'community_mark_prayer_answered', { postId });
      expect(again.post.answeredAt).toBe(post.answeredAt);
    });

    it('removes a post from the wall while the request stays', async () => {
      const { post } = await mcpCall(community, 'community_remove_post', { postId, reason: 'Margaret asked' });
      expect(post.status).toBe('removed');
      expect((await mcpCall(community, 'community_list_prayer_wall', {})).items.map((i: any) => i.id)).not.toContain(postId);
      expect((await mcpCall(owner, 'people_list_prayer_requests', { contactId: margaret })).prayerRequests).toHaveLength(1);
    });

    it('a post leaves the wall when its lifetime passes or its person is deleted', async () => {
      const ada = await contact('Ada', 'Aged');
      const expiring = await prayer(ada, { visibility: 'congregation', request: 'Pray for Ada\'s garden' });
      const { post: old } = await mcpCall(owner, 'community_share_prayer_request', { prayerRequestId: expiring, consentConfirmed: true });
      await mcpCall(owner, 'community_approve_post', { postId: old.id });
      const wallIds = async () => (await mcpCall(community, 'community_list_prayer_wall', {})).items.map((i: any) => i.id);
      expect(await wallIds()).toContain(old.id);
      await harness.pool.query("UPDATE community_posts SET decided_at = now() - interval '31 days' WHERE id = $1", [old.id]);
      expect(await wallIds()).not.toContain(old.id);
      await harness.pool.query('UPDATE community_posts SET decided_at = now() WHERE id = $1', [old.id]);
      expect(await wallIds()).toContain(old.id);
      await mcpCall(owner, 'people_delete_contact', { contactId: ada });
      expect(await wallIds()).not.toContain(old.id);
      expect((await mcpRefusal(community, 'community_get_post', { postId: old.id })).code).toBe('not_found');
    });

    it('a switched-off wall takes no new posts and shows nothing', async () => {
      await mcpCall(owner, 'people_set_community_settings', { prayerWallEnabled: false });
      try {
        const fresh = await prayer(margaret, { visibility: 'congregation', request: 'Pray for the recovery' });
        expect((await mcpRefusal(community, 'community_share_prayer_request', { prayerRequestId: fresh, consentConfirmed: true })).code).toBe('conflict');
        expect(await mcpCall(community, 'community_list_prayer_wall', {})).toMatchObject({ enabled: false, items: [] });
      } finally {
        await mcpCall(owner, 'people_set_community_settings', { prayerWallEnabled: true });
      }
    });
  });

  describe('celebrations', () => {
    const lifeEvent = async (extra: Record<string, unknown>) =>
      (await mcpCall(owner, 'people_record_life_event', { contactId: tom, type: 'birth', title: 'Baby Grace born', eventDate: dayFromToday(-1), ...extra })).lifeEvent.id as string;

    it('celebrates a life event shared with consent once approved; restricted or unconsented events never reach the board', async () => {
      const shared = await lifeEvent({ shareWithCommunity: true });
      const { post } = await mcpCall(community, 'community_share_celebration', { lifeEventId: shared, consentConfirmed: true, message: 'Welcome, baby Grace!' });
      expect(post).toMatchObject({ kind: 'celebration', status: 'pending', eventType: 'birth', displayName: 'Tom' });
      expect((await mcpCall(community, 'community_list_celebrations', {})).items).toEqual([]);
      await mcpCall(community, 'community_approve_post', { postId: post.id });
      expect((await mcpCall(community, 'community_list_celebrations', {})).items).toEqual([
        expect.objectContaining({ id: post.id, displayName: 'Tom', body: 'Welcome, baby Grace!', eventType: 'birth' }),
      ]);

      const noConsent = await lifeEvent({ title: 'Second event' });
      expect((await mcpRefusal(community, 'community_share_celebration', { lifeEventId: noConsent, consentConfirmed: true })).code).toBe('conflict');
      const privateEvent = await lifeEvent({ shareWithCommunity: true, privacy: 'private', title: 'Private news' });
      const amberEvent = await lifeEvent({ shareWithCommunity: true, confidentialityLevel: 'amber', title: 'Amber news' });
      for (const lifeEventId of [privateEvent, amberEvent]) {
        expect((await mcpRefusal(community, 'community_share_celebration', { lifeEventId, consentConfirmed: true })).code).toBe('not_found');
      }
      // A type the settings do not celebrate publicly, until they do.
      const retirement = await lifeEvent({ type: 'retirement', intent: 'celebrate', shareWithCommunity: true, title: 'Tom retires' });
      const notCelebrated = await mcpRefusal(community, 'community_share_celebration', { lifeEventId: retirement, consentConfirmed: true });
      expect(notCelebrated).toMatchObject({ code: 'conflict' });
      expect(notCelebrated.message).toContain('retirement is not among the life-event types celebrated publicly');
      const { settings } = await mcpCall(owner, 'people_get_community_settings', {});
      await mcpCall(owner, 'people_set_community_settings', { celebratedLifeEventTypes: [...settings.celebratedLifeEventTypes, 'retirement'] });
      expect((await mcpCall(community, 'community_share_celebration', { lifeEventId: retirement, consentConfirmed: true })).post.status).toBe('pending');
      const support = await lifeEvent({ type: 'illness', shareWithCommunity: true, title: 'In hospital' });
      expect((await mcpRefusal(community, 'community_share_celebration', { lifeEventId: support, consentConfirmed: true })).code).toBe('conflict');

      // Consent withdrawn after approval: the celebration drops off the board.
      await mcpCall(owner, 'people_update_life_event', { lifeEventId: shared, shareWithCommunity: false });
      expect((await mcpCall(community, 'community_list_celebrations', {})).items).toEqual([]);
    });
  });

  describe('roster and follow-up radar', () => {
    it('the same person added to the roster by several callers at once is one membership', async () => {
      const newcomer = await contact('Nia', 'Newcomer');
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) =>
        mcpCall(i % 2 ? community : owner, i % 2 ? 'community_set_roster_membership' : 'people_set_community_membership_bulk',
          i % 2 ? { contactId: newcomer, member: true } : { memberships: [{ contactId: newcomer, member: true }] })));
      const outcomes = results.map((r) => r.outcome ?? r.results[0].outcome);
      expect(outcomes.filter((o) => o === 'joined')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'joined').every((o) => o === 'unchanged')).toBe(true);
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM community_memberships WHERE contact_id = $1', [newcomer]);
      expect(rows[0].n).toBe(1);
      await mcpCall(owner, 'people_set_community_membership_bulk', { memberships: [{ contactId: newcomer, member: false }] });
    });

    it('a community key puts people on the roster and sees who joined recently', async () => {
      const joined = await mcpCall(community, 'community_set_roster_membership', { contactId: margaret, member: true, celebrationConsent: true });
      expect(joined).toMatchObject({ outcome: 'joined', member: { contactId: margaret, name: 'Margaret Hill', leftOn: null, celebrationConsent: true } });
      await mcpCall(community, 'community_set_roster_membership', { contactId: tom, member: true, joinedOn: '2020-05-01' });
      const recent = await mcpCall(community, 'community_list_roster', { joinedWithinDays: 30 });
      expect(recent).toMatchObject({ total: 1, members: [expect.objectContaining({ contactId: margaret })] });
      expect((await mcpCall(community, 'community_list_roster', {})).total).toBe(2);
      const summary = await mcpCall(community, 'community_get_summary', {});
      expect(summary.roster).toMatchObject({ current: 2, joinedRecently: 1 });
      expect((await mcpCall(owner, 'platform_overview', {})).communityMembers).toBe(2);
      const left = await mcpCall(community, 'community_set_roster_membership', { contactId: tom, member: false });
      expect(left.outcome).toBe('left');
      const leavers = (await mcpCall(community, 'community_list_roster', { status: 'left' })).members.map((m: any) => m.contactId);
      expect(leavers).toContain(tom);
      expect(leavers).not.toContain(margaret);
    });

    it('the radar lists who needs following up with why, names unavailable sources, and keeps restricted records out', async () => {
      const quiet = await contact('Quentin', 'Quiet');
      await harness.pool.query("UPDATE contacts SET created_at = now() - interval '400 days' WHERE id = $1", [quiet]);
      // A red note with a follow-up and an urgent private prayer request: for safeguarding holders only.
      const hidden = await contact('Hester', 'Hidden');
      await mcpCall(owner, 'people_add_note', { contactId: hidden, content: 'Red concern about Hester', confidentialityLevel: 'red', followUpDate: dayFromToday(1) });
      await mcpCall(owner, 'people_add_prayer_request', { contactId: hidden, request: 'Urgent private prayer for Hester', visibility: 'private', urgent: true });
      await mcpCall(owner, 'people_record_life_event', { contactId: hidden, type: 'surgery', title: 'Private operation', eventDate: dayFromToday(3), privacy: 'private' });
      const greta = await contact('Greta', 'Wedding');
      await mcpCall(owner, 'people_record_life_event', { contactId: greta, type: 'marriage', title: 'Greta marries Sam', eventDate: dayFromToday(3) });
      const open = await contact('Olive', 'Open');
      await mcpCall(owner, 'people_add_note', { contactId: open, content: 'Call Olive about the move', followUpDate: dayFromToday(2) });

      const radar = await mcpCall(community, 'community_get_followup_radar', {});
      const reasons = (contactId: string) => radar.items.filter((i: any) => i.contactId === contactId).map((i: any) => i.reason).sort();
      expect(reasons(quiet)).toEqual(['welfare_due']);
      expect(reasons(open)).toEqual(['note_follow_up']);
      expect(reasons(margaret)).toEqual(['new_member']);
      expect(reasons(hidden)).toEqual([]);
      expect(radar.items.find((i: any) => i.contactId === greta && i.reason === 'life_event').detail).toContain('Greta marries Sam');
      expect(JSON.stringify(radar)).not.toMatch(/Red concern|Urgent private|Call Olive|Private operation/);
      expect(radar.includesRestricted).toBe(false);
      expect(radar.sources.filter((s: any) => s.status === 'unavailable')).toEqual([]);
      expect(radar.sources.map((s: any) => s.source)).toEqual(expect.arrayContaining(['guests', 'attendance']));
      expect(radar.sources.find((s: any) => s.source === 'note_follow_ups')).toMatchObject({ status: 'included', count: radar.items.filter((i: any) => i.reason === 'note_follow_up').length });

      // A guest whose first follow-up (the pipeline's Welcome stage, two days) falls inside the week shows with why.
      const guest = await contact('Gwen', 'Visitor');
      const { card } = await mcpCall(owner, 'guests_open_guest_card', { contactId: guest });
      const withGuest = await mcpCall(community, 'community_get_followup_radar', {});
      expect(withGuest.items.filter((i: any) => i.contactId === guest)).toEqual([
        { contactId: guest, name: 'Gwen Visitor', reason: 'guest_follow_up', detail: `Guest follow-up "Welcome" is due on ${card.dueDate}`, since: card.dueDate },
      ]);
      expect(withGuest.sources.find((s: any) => s.source === 'guests')).toMatchObject({ status: 'included', count: 1 });

      const full = await mcpCall(owner, 'community_get_followup_radar', {});
      const fullReasons = full.items.filter((i: any) => i.contactId === hidden).map((i: any) => i.reason).sort();
      expect(fullReasons).toEqual(['life_event', 'note_follow_up', 'urgent_prayer']);
    });
  });

  describe('another organisation', () => {
    it('sees none of this organisation\'s posts and its ids behave as missing', async () => {
      const request = await prayer(margaret, { visibility: 'congregation', request: 'Pray for the harvest supper' });
      const { post } = await mcpCall(owner, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true });
      for (const [tool, args] of [
        ['community_get_post', { postId: post.id }],
        ['community_approve_post', { postId: post.id }],
        ['community_reject_post', { postId: post.id, reason: 'no' }],
        ['community_remove_post', { postId: post.id }],
        ['community_record_prayer', { postId: post.id }],
        ['community_mark_prayer_answered', { postId: post.id }],
        ['community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true }],
        ['community_set_roster_membership', { contactId: margaret, member: true }],
      ] as const) {
        expect({ tool, code: (await mcpRefusal(otherMcp, tool, args)).code }).toEqual({ tool, code: 'not_found' });
      }
      expect((await mcpCall(otherMcp, 'community_list_moderation_queue', {})).posts).toEqual([]);
      expect((await mcpCall(otherMcp, 'community_list_roster', { status: 'all' })).total).toBe(0);
      const { rows } = await harness.pool.query('SELECT status FROM community_posts WHERE id = $1', [post.id]);
      expect(rows[0].status).toBe('pending');
    });
  });

  it('merging a duplicate (an approved proposal) brings its prayer requests, visits, roster place and wall posts to the kept contact', async () => {
    const keep = await contact('Mabel', 'Twice');
    const duplicate = await contact('Mabel', 'Twice');
    const request = await prayer(duplicate, { visibility: 'congregation', request: 'Pray for Mabel\'s sister' });
    const { post } = await mcpCall(owner, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true });
    await mcpCall(owner, 'community_approve_post', { postId: post.id });
    await mcpCall(owner, 'people_log_pastoral_visit', { contactId: duplicate, summary: 'Visited Mabel at home' });
    await mcpCall(owner, 'people_set_community_membership_bulk', {
      memberships: [{ contactId: keep, member: true, joinedOn: '2025-09-01' }, { contactId: duplicate, member: true, joinedOn: '2022-02-01' }],
    });
    const gated = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: keep, mergeContactId: duplicate, actionSummary: 'Merge the two Mabels' });
    expect(gated.body.error?.code).toBe('approval_required');
    const decided = await harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: gated.body.error!.details.proposalId });
    expect(decided.execution.status).toBe('succeeded');

    const { rows } = await harness.pool.query(`SELECT
      (SELECT array_agg(DISTINCT contact_id) FROM prayer_requests WHERE id = $1) AS requests,
      (SELECT array_agg(DISTINCT contact_id) FROM pastoral_visits WHERE contact_id = ANY($2)) AS visits,
      (SELECT array_agg(contact_id || ' ' || joined_on) FROM community_memberships WHERE contact_id = ANY($2)) AS roster,
      (SELECT array_agg(DISTINCT contact_id) FROM community_posts WHERE id = $3) AS posts`, [request, [keep, duplicate], post.id]);
    expect(rows[0]).toEqual({ requests: [keep], visits: [keep], roster: [`${keep} 2022-02-01`], posts: [keep] });
    expect((await mcpCall(community, 'community_list_prayer_wall', {})).items.map((i: any) => i.id)).toContain(post.id);
  });

  it('permanent erasure removes the person\'s wall posts with their prayer requests', async () => {
    const gone = await contact('Gwen', 'Gone');
    const request = await prayer(gone, { visibility: 'congregation', request: 'Pray for Gwen' });
    const { post } = await mcpCall(owner, 'community_share_prayer_request', { prayerRequestId: request, consentConfirmed: true });
    await mcpCall(owner, 'community_approve_post', { postId: post.id });
    await mcpCall(owner, 'people_set_community_membership_bulk', { memberships: [{ contactId: gone, member: true }] });
    await mcpCall(owner, 'people_delete_contact', { contactId: gone, permanent: true });
    const { rows } = await harness.pool.query(`SELECT (SELECT count(*) FROM community_posts WHERE contact_id = $1)::int AS posts,
      (SELECT count(*) FROM prayer_requests WHERE contact_id = $1)::int AS requests, (SELECT count(*) FROM community_memberships WHERE contact_id = $1)::int AS roster`, [gone]);
    expect(rows[0]).toEqual({ posts: 0, requests: 0, roster: 0 });
  });
});
