import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday } from '../../../test/helpers/mcp-calls';

/**
 * Prayer requests, pastoral visits and the community roster through the HTTP bridge, with a staff
 * key (people:read/write, no people:safeguarding) beside the owner's (every scope) so each read
 * path is checked against the one privacy rule: private and amber/red records only with safeguarding.
 */
describe('prayer requests, pastoral visits and the community roster', () => {
  let harness: Harness;
  let org: TestOrg;
  let staffKey: string;
  let ruth: string;
  const prayer: Record<string, string> = {};

  const refusal = async (key: string, tool: string, args: unknown) => {
    const { body } = await harness.invoke(key, tool, args);
    expect(body.ok).toBe(false);
    return body.error!;
  };
  const createContact = async (firstName: string, lastName: string) =>
    (await harness.call(org.apiKey, 'people_create_contact', { firstName, lastName })).contact.id as string;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg();
    staffKey = (await harness.createKey(org.orgId, ['people:read', 'people:write', 'platform:read'], 'staff')).apiKey;
    ruth = await createContact('Ruth', 'Prayer');
    const add = async (name: string, extra: Record<string, unknown>) => {
      prayer[name] = (await harness.call(org.apiKey, 'people_add_prayer_request', { contactId: ruth, request: `Pray for Ruth (${name})`, ...extra })).prayerRequest.id;
    };
    await add('team', {});
    await add('congregation', { visibility: 'congregation', urgent: true });
    await add('private', { visibility: 'private', request: 'Private family matter for Ruth' });
    await add('amber', { visibility: 'congregation', confidentialityLevel: 'amber', request: 'Amber concern about Ruth' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('prayer requests', () => {
    it('lists restricted requests (private, amber) only for a caller holding people:safeguarding', async () => {
      const staff = await harness.call(staffKey, 'people_list_prayer_requests', {});
      expect(staff.prayerRequests.map((p: any) => p.id).sort()).toEqual([prayer.team, prayer.congregation].sort());
      expect(JSON.stringify(staff)).not.toMatch(/Private family matter|Amber concern/);
      const owner = await harness.call(org.apiKey, 'people_list_prayer_requests', {});
      expect(owner.prayerRequests).toHaveLength(4);
      const filtered = await harness.call(org.apiKey, 'people_list_prayer_requests', { visibility: 'congregation', urgentOnly: true });
      expect(filtered.prayerRequests.map((p: any) => p.id)).toEqual([prayer.congregation]);
    });

    it('a replayed request with the same Idempotency-Key never hands a restricted list to another credential', async () => {
      const key = `prayer-${Date.now()}`;
      const original = await harness.invoke(org.apiKey, 'people_list_prayer_requests', {}, { 'Idempotency-Key': key });
      expect(JSON.stringify(original.body)).toContain('Private family matter');
      const replay = await harness.invoke(staffKey, 'people_list_prayer_requests', {}, { 'Idempotency-Key': key });
      expect(replay.body.error?.code).toBe('idempotency_conflict');
      expect(JSON.stringify(replay.body)).not.toMatch(/Private family matter|Amber concern/);
    });

    it('treats a restricted request as missing for a caller without safeguarding, and changes nothing', async () => {
      for (const id of [prayer.private, prayer.amber]) {
        expect((await refusal(staffKey, 'people_set_prayer_request_status', { prayerRequestId: id, status: 'answered' })).code).toBe('not_found');
      }
      const { rows } = await harness.pool.query('SELECT status FROM prayer_requests WHERE id = ANY($1)', [[prayer.private, prayer.amber]]);
      expect(rows.map((r) => r.status)).toEqual(['active', 'active']);
    });

    it('refuses ids in the text, an unknown visibility and an answer note without answering', async () => {
      expect((await refusal(staffKey, 'people_add_prayer_request', { contactId: ruth, request: `Pray for ${ruth}` })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_add_prayer_request', { contactId: ruth, request: 'x', visibility: 'everyone' })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_set_prayer_request_status', { prayerRequestId: prayer.team, status: 'active', answerNote: 'Healed' })).code).toBe('validation_failed');
    });

    it('moves active → answered once, with the answer on the care timeline', async () => {
      const first = await harness.call(staffKey, 'people_set_prayer_request_status', { prayerRequestId: prayer.team, status: 'answered', answerNote: 'Ruth got the job' });
      expect(first).toMatchObject({ changed: true, prayerRequest: { status: 'answered', answerNote: 'Ruth got the job' } });
      expect(first.prayerRequest.answeredAt).not.toBeNull();
      const again = await harness.call(staffKey, 'people_set_prayer_request_status', { prayerRequestId: prayer.team, status: 'answered' });
      expect(again.changed).toBe(false);
      expect(again.prayerRequest.answeredAt).toBe(first.prayerRequest.answeredAt);
      const timeline = await harness.call(staffKey, 'people_list_care_timeline', { contactId: ruth });
      expect(timeline.entries.filter((e: any) => e.kind === 'prayer_answered').map((e: any) => e.sourceId)).toEqual([prayer.team]);
    });

    it('shows restricted requests on the care timeline only with safeguarding', async () => {
      const staff = await harness.call(staffKey, 'people_list_care_timeline', { contactId: ruth });
      const staffSources = staff.entries.filter((e: any) => e.kind === 'prayer_request').map((e: any) => e.sourceId);
      expect(staffSources.sort()).toEqual([prayer.team, prayer.congregation].sort());
      const owner = await harness.call(org.apiKey, 'people_list_care_timeline', { contactId: ruth });
      expect(owner.entries.filter((e: any) => e.kind === 'prayer_request')).toHaveLength(4);
    });

    it('updating a request to private hides it and its timeline entries from callers without safeguarding', async () => {
      const id = (await harness.call(staffKey, 'people_add_prayer_request', { contactId: ruth, request: 'Pray for Ruth\'s exam', visibility: 'congregation' })).prayerRequest.id;
      const timelineSources = async (key: string) => (await harness.call(key, 'people_list_care_timeline', { contactId: ruth })).entries.map((e: any) => e.sourceId);
      expect(await timelineSources(staffKey)).toContain(id);
      const updated = await harness.call(staffKey, 'people_update_prayer_request', { prayerRequestId: id, visibility: 'private', urgent: false });
      expect(updated.changedFields).toEqual(['visibility']);
      expect(await timelineSources(staffKey)).not.toContain(id);
      expect(await timelineSources(org.apiKey)).toContain(id);
      expect((await harness.call(staffKey, 'people_list_prayer_requests', {})).prayerRequests.map((p: any) => p.id)).not.toContain(id);
      expect((await refusal(staffKey, 'people_update_prayer_request', { prayerRequestId: id, visibility: 'team' })).code).toBe('not_found');
      expect((await refusal(org.apiKey, 'people_update_prayer_request', { prayerRequestId: id })).code).toBe('validation_failed');
      // Removed again so the counts below are those of the four requests made above.
      await harness.pool.query('DELETE FROM prayer_requests WHERE id = $1', [id]);
      await harness.pool.query('DELETE FROM timeline_entries WHERE source_id = $1', [id]);
    });

    it('platform_proactive_alerts counts urgent requests under the same rule', async () => {
      const urgentAlert = async (key: string) =>
        (await harness.call(key, 'platform_proactive_alerts', {})).alerts.filter((a: any) => a.ruleId === 'people.urgent_prayer_requests');
      const hiddenUrgent = (await harness.call(org.apiKey, 'people_add_prayer_request', { contactId: ruth, request: 'Urgent private matter', visibility: 'private', urgent: true })).prayerRequest.id;
      try {
        const staff = await urgentAlert(staffKey);
        expect(staff).toEqual([expect.objectContaining({ count: 1, actWith: { tool: 'people_list_prayer_requests', args: { status: 'active', urgentOnly: true } } })]);
        expect((await urgentAlert(org.apiKey))[0].count).toBe(2);
      } finally {
        await harness.pool.query('DELETE FROM timeline_entries WHERE source_id = $1', [hiddenUrgent]);
        await harness.pool.query('DELETE FROM prayer_requests WHERE id = $1', [hiddenUrgent]);
      }
    });

    it('counts analytics under the same rule, and refuses impossible or reversed dates', async () => {
      const staff = await harness.call(staffKey, 'people_get_prayer_analytics', {});
      expect(staff).toMatchObject({
        total: 2, byStatus: { active: 1, answered: 1 }, byVisibility: { private: 0, team: 1, congregation: 1 }, urgentActive: 1, answeredRate: 0.5, includesRestricted: false,
      });
      const owner = await harness.call(org.apiKey, 'people_get_prayer_analytics', { from: dayFromToday(-1), to: dayFromToday(1) });
      expect(owner).toMatchObject({ total: 4, byVisibility: { private: 1, team: 1, congregation: 2 }, answeredRate: 0.25, includesRestricted: true });
      expect(owner.byMonth.reduce((sum: number, m: any) => sum + m.added, 0)).toBe(4);
      const metric = async (key: string) => (await harness.call(key, 'platform_analytics_query', { metric: 'prayer_requests', from: dayFromToday(-1), to: dayFromToday(0) })).data;
      expect(await metric(staffKey)).toMatchObject({ added: 2, answered: 1, answeredRate: 0.5 });
      expect(await metric(org.apiKey)).toMatchObject({ added: 4, answered: 1, answeredRate: 0.25 });
      const none = await harness.call(org.apiKey, 'people_get_prayer_analytics', { to: '2000-01-01' });
      expect(none).toMatchObject({ total: 0, answeredRate: null, byMonth: [] });
      expect((await refusal(staffKey, 'people_get_prayer_analytics', { from: '2026-02-30' })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_get_prayer_analytics', { from: '2026-05-02', to: '2026-05-01' })).code).toBe('validation_failed');
    });
  });

  describe('pastoral visits', () => {
    let edith: string;

    beforeAll(async () => {
      edith = await createContact('Edith', 'Visits');
      // Added long ago, never contacted: due a welfare check for every caller.
      await harness.pool.query("UPDATE contacts SET created_at = now() - interval '400 days' WHERE id = $1", [edith]);
    });

    const welfareDue = async (key: string) =>
      (await harness.call(key, 'people_list_welfare_due_contacts', { days: 180, limit: 500 })).contacts.map((c: any) => c.contactId) as string[];

    it('a restricted visit counts as pastoral contact only for callers who may see it', async () => {
      expect(await welfareDue(staffKey)).toContain(edith);
      await harness.call(org.apiKey, 'people_log_pastoral_visit', { contactId: edith, kind: 'hospital', summary: 'Confidential hospital visit to Edith', confidentialityLevel: 'red' });
      expect(await welfareDue(staffKey)).toContain(edith);
      expect(await welfareDue(org.apiKey)).not.toContain(edith);
    });

    it('a team visit takes the person off the welfare-due list and appears on the care timeline', async () => {
      const { visit } = await harness.call(staffKey, 'people_log_pastoral_visit', {
        contactId: edith, kind: 'home', summary: 'Tea with Edith, she is settling in', durationMinutes: 45, visitorName: 'Pastor Sam', visitDate: dayFromToday(-2),
      });
      expect(visit).toMatchObject({ kind: 'home', privacy: 'team', confidentialityLevel: 'green', visitDate: dayFromToday(-2), contactName: 'Edith Visits' });
      expect(await welfareDue(staffKey)).not.toContain(edith);
      const timeline = await harness.call(staffKey, 'people_list_care_timeline', { contactId: edith });
      expect(timeline.entries.filter((e: any) => e.kind === 'pastoral_visit').map((e: any) => e.sourceId)).toEqual([visit.id]);
    });

    it('removing the only visit puts the person back on the welfare-due list', async () => {
      const zoe = await createContact('Zoe', 'Removed');
      await harness.pool.query("UPDATE contacts SET created_at = now() - interval '400 days' WHERE id = $1", [zoe]);
      const { visit } = await harness.call(staffKey, 'people_log_pastoral_visit', { contactId: zoe, summary: 'Logged for Zoe by mistake' });
      expect(await welfareDue(staffKey)).not.toContain(zoe);
      await harness.call(staffKey, 'people_remove_pastoral_visit', { visitId: visit.id });
      expect(await welfareDue(staffKey)).toContain(zoe);
    });

    it('reads dates the organisation way, and refuses future, impossible and id-bearing visits', async () => {
      const { visit } = await harness.call(staffKey, 'people_log_pastoral_visit', { contactId: edith, kind: 'phone', summary: 'Phone call with Edith', visitDate: '03/02/2025' });
      expect(visit.visitDate).toBe('2025-02-03');
      expect((await refusal(staffKey, 'people_log_pastoral_visit', { contactId: edith, summary: 'Planned', visitDate: dayFromToday(3) })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_log_pastoral_visit', { contactId: edith, summary: 'Odd', visitDate: '31/02/2025' })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_log_pastoral_visit', { contactId: edith, summary: `Visited ${edith}` })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_log_pastoral_visit', { contactId: edith, summary: 'x', kind: 'pub' })).code).toBe('validation_failed');
    });

    it('lists and counts restricted visits only with safeguarding', async () => {
      const staff = await harness.call(staffKey, 'people_list_pastoral_visits', { contactId: edith });
      expect(staff.visits.map((v: any) => v.kind).sort()).toEqual(['home', 'phone']);
      expect(JSON.stringify(staff)).not.toContain('Confidential hospital visit');
      const owner = await harness.call(org.apiKey, 'people_list_pastoral_visits', { contactId: edith });
      expect(owner.visits).toHaveLength(3);
      const staffStats = await harness.call(staffKey, 'people_get_visit_analytics', {});
      expect(staffStats).toMatchObject({ total: 2, contactsVisited: 1, totalMinutes: 45, byKind: { home: 1, phone: 1 }, includesRestricted: false });
      expect(staffStats.byVisitor).toEqual(expect.arrayContaining([{ visitor: 'Pastor Sam', visits: 1 }]));
      const ownerStats = await harness.call(org.apiKey, 'people_get_visit_analytics', {});
      expect(ownerStats).toMatchObject({ total: 3, byKind: { home: 1, phone: 1, hospital: 1 }, includesRestricted: true });
      const recent = await harness.call(org.apiKey, 'people_get_visit_analytics', { from: dayFromToday(-7), to: dayFromToday(0) });
      expect(recent).toMatchObject({ total: 2, byKind: { home: 1, hospital: 1 } });
      const ranged = await harness.call(staffKey, 'people_list_pastoral_visits', { from: '2025-01-01', to: '2025-12-31' });
      expect(ranged.visits.map((v: any) => v.visitDate)).toEqual(['2025-02-03']);
    });

    it('platform_analytics_query answers pastoral_visits under the same rule', async () => {
      const metric = async (key: string) => {
        const answer = await harness.call(key, 'platform_analytics_query', { metric: 'pastoral_visits', from: dayFromToday(-7), to: dayFromToday(0) });
        expect(answer).toMatchObject({ metric: 'pastoral_visits', module: 'people' });
        return answer;
      };
      expect((await metric(staffKey)).data).toMatchObject({ visits: 1, peopleVisited: 1 });
      const owner = await metric(org.apiKey);
      expect(owner.data).toMatchObject({ visits: 2, peopleVisited: 1 });
      expect(owner.speakToUser).toMatch(/^2 pastoral visits .*, to 1 person\.$/);
    });

    it('refuses impossible and reversed analytics dates', async () => {
      for (const args of [{ from: '2026-13-01' }, { to: '2026-02-29' }, { from: '1-1-2026' }, { from: '2026-05-02', to: '2026-05-01' }]) {
        expect((await refusal(staffKey, 'people_get_visit_analytics', args)).code).toBe('validation_failed');
      }
    });

    it('removing a visit leaves a content-free entry visible by the same rule as the visit', async () => {
      const team = (await harness.call(staffKey, 'people_log_pastoral_visit', { contactId: edith, summary: 'Logged against the wrong person' })).visit.id;
      const red = (await harness.call(org.apiKey, 'people_log_pastoral_visit', { contactId: edith, summary: 'Red visit logged in error', confidentialityLevel: 'red' })).visit.id;
      expect((await refusal(staffKey, 'people_remove_pastoral_visit', { visitId: red })).code).toBe('not_found');
      expect(await harness.call(staffKey, 'people_remove_pastoral_visit', { visitId: team })).toEqual({ visitId: team, contactId: edith, removed: true, restricted: false });
      expect(await harness.call(org.apiKey, 'people_remove_pastoral_visit', { visitId: red })).toMatchObject({ removed: true, restricted: true });
      expect((await refusal(org.apiKey, 'people_remove_pastoral_visit', { visitId: team })).code).toBe('not_found');

      const removals = (entries: any[]) => entries.filter((e) => e.kind === 'care_record_removed').map((e) => e.sourceId).sort();
      const staff = (await harness.call(staffKey, 'people_list_care_timeline', { contactId: edith })).entries;
      const owner = (await harness.call(org.apiKey, 'people_list_care_timeline', { contactId: edith })).entries;
      expect(removals(staff)).toEqual([team]);
      expect(removals(owner)).toEqual([team, red].sort());
      expect(JSON.stringify(owner)).not.toMatch(/wrong person|logged in error/);
      // The visit's own entry went with it.
      expect(owner.filter((e: any) => e.kind === 'pastoral_visit').map((e: any) => e.sourceId)).not.toContain(team);
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM pastoral_visits WHERE id = ANY($1)', [[team, red]]);
      expect(rows[0].n).toBe(0);
    });
  });

  describe('community roster and settings', () => {
    let members: string[];

    beforeAll(async () => {
      members = [await createContact('Anna', 'Roster'), await createContact('Ben', 'Roster'), await createContact('Cara', 'Roster')];
    });

    it('joins, updates and leaves in bulk, each entry with its outcome; another organisation\'s contact is not_found', async () => {
      const other = await harness.createOrg();
      const foreign = (await harness.call(other.apiKey, 'people_create_contact', { firstName: 'Zed', lastName: 'Elsewhere' })).contact.id;
      const first = await harness.call(staffKey, 'people_set_community_membership_bulk', {
        memberships: [
          { contactId: members[0], member: true, celebrationConsent: true },
          { contactId: members[1], member: true, joinedOn: '2024-01-10' },
          { contactId: members[2], member: false },
          { contactId: foreign, member: true },
        ],
      });
      expect(first.results.map((r: any) => r.outcome)).toEqual(['joined', 'joined', 'not_a_member', 'not_found']);
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM community_memberships WHERE contact_id = $1', [foreign]);
      expect(rows[0].n).toBe(0);

      const second = await harness.call(staffKey, 'people_set_community_membership_bulk', {
        memberships: [{ contactId: members[0], member: true }, { contactId: members[1], member: true, celebrationConsent: true }, { contactId: members[1], member: false }],
      });
      expect(second.results.map((r: any) => r.outcome)).toEqual(['unchanged', 'updated', 'left']);
      const back = await harness.call(staffKey, 'people_set_community_membership_bulk', { memberships: [{ contactId: members[1], member: true }] });
      expect(back.results[0].outcome).toBe('rejoined');
    });

    it('refuses a list over the maximum and a future join date, writing nothing', async () => {
      const tooMany = Array.from({ length: 201 }, () => ({ contactId: members[2], member: true }));
      expect((await refusal(staffKey, 'people_set_community_membership_bulk', { memberships: tooMany })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_set_community_membership_bulk', { memberships: [{ contactId: members[2], member: true, joinedOn: dayFromToday(5) }] })).code).toBe('validation_failed');
      const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM community_memberships WHERE contact_id = $1', [members[2]]);
      expect(rows[0].n).toBe(0);
    });

    it('platform_overview counts communityMembers from the roster, and the dashboard and analytics agree', async () => {
      const overview = await harness.call(staffKey, 'platform_overview', {});
      expect(overview.communityMembers).toBe(2);
      const metric = await harness.call(staffKey, 'platform_analytics_query', { metric: 'roster_members' });
      expect(metric.data).toMatchObject({ current: 2, joinedRecently: 2, windowDays: 90 });
      const dashboard = await harness.call(staffKey, 'people_get_community_dashboard', {});
      // Ben rejoined today without restating consent: a rejoin starts without consent to public celebrations.
      expect(dashboard.roster).toMatchObject({ current: 2, joinedRecently: 2, leftRecently: 0, withCelebrationConsent: 1, windowDays: 90 });
      expect(dashboard.prayer).toMatchObject({ active: 1, urgentActive: 1, answered: 1 });
      expect(dashboard.includesRestricted).toBe(false);
      const owner = await harness.call(org.apiKey, 'people_get_community_dashboard', {});
      expect(owner.prayer.active).toBe(3);
      // A soft-deleted contact is no longer counted.
      await harness.call(org.apiKey, 'people_delete_contact', { contactId: members[0] });
      expect((await harness.call(staffKey, 'platform_overview', {})).communityMembers).toBe(1);
    });

    it('settings start from defaults, change only what is given, and never switch moderation off', async () => {
      const initial = await harness.call(staffKey, 'people_get_community_settings', {});
      expect(initial.settings).toMatchObject({ prayerWallEnabled: true, wallModerationRequired: true, saved: false, wallPostLifetimeDays: 30 });
      const changed = await harness.call(staffKey, 'people_set_community_settings', { celebratedLifeEventTypes: ['birth', 'birth', 'graduation'], wallPostLifetimeDays: 14 });
      expect(changed.changedFields.sort()).toEqual(['celebratedLifeEventTypes', 'wallPostLifetimeDays']);
      expect(changed.settings).toMatchObject({ celebratedLifeEventTypes: ['birth', 'graduation'], wallPostLifetimeDays: 14, prayerWallEnabled: true, saved: true });
      expect((await refusal(staffKey, 'people_set_community_settings', { wallModerationRequired: false })).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_set_community_settings', {})).code).toBe('validation_failed');
      expect((await refusal(staffKey, 'people_set_community_settings', { wallPostLifetimeDays: 0 })).code).toBe('validation_failed');
      expect((await harness.call(staffKey, 'people_get_community_settings', {})).settings.wallPostLifetimeDays).toBe(14);
    });

    it('merging two roster members keeps one row, with the earlier join', async () => {
      const [keep, merged] = [await createContact('Dora', 'Merge'), await createContact('Dora', 'Merged')];
      await harness.call(staffKey, 'people_set_community_membership_bulk', {
        memberships: [{ contactId: keep, member: true, joinedOn: '2025-06-01' }, { contactId: merged, member: true, joinedOn: '2023-03-01' }],
      });
      // What merge does for an onMerge 'move' reference (contact-refs.ts moveDeclaredReferences).
      await harness.pool.query('UPDATE community_memberships SET contact_id = $3 WHERE org_id = $1 AND contact_id = $2', [org.orgId, merged, keep]);
      const { rows } = await harness.pool.query("SELECT contact_id, to_char(joined_on, 'YYYY-MM-DD') AS joined FROM community_memberships WHERE contact_id = ANY($1)", [[keep, merged]]);
      expect(rows).toEqual([{ contact_id: keep, joined: '2023-03-01' }]);
    });
  });

  it('unstated privacy follows the pastoral settings for prayer requests and visits', async () => {
    const careful = await harness.createOrg({ name: 'Careful Chapel' });
    await harness.call(careful.apiKey, 'people_set_pastoral_settings', { defaultPrivacy: 'private', defaultConfidentialityLevel: 'amber' });
    const person = (await harness.call(careful.apiKey, 'people_create_contact', { firstName: 'Pia', lastName: 'Private' })).contact.id;
    const { prayerRequest } = await harness.call(careful.apiKey, 'people_add_prayer_request', { contactId: person, request: 'Pray for Pia' });
    expect(prayerRequest).toMatchObject({ visibility: 'private', confidentialityLevel: 'amber' });
    const { visit } = await harness.call(careful.apiKey, 'people_log_pastoral_visit', { contactId: person, summary: 'Visited Pia' });
    expect(visit).toMatchObject({ privacy: 'private', confidentialityLevel: 'amber' });
    const stated = await harness.call(careful.apiKey, 'people_add_prayer_request', { contactId: person, request: 'Pray for Pia\'s garden', visibility: 'congregation', confidentialityLevel: 'green' });
    expect(stated.prayerRequest).toMatchObject({ visibility: 'congregation', confidentialityLevel: 'green' });
  });

  it('permanent erasure removes the person\'s prayer requests, visits and roster membership', async () => {
    const gone = await createContact('Gail', 'Erased');
    await harness.call(org.apiKey, 'people_add_prayer_request', { contactId: gone, request: 'Pray for Gail', visibility: 'private' });
    await harness.call(org.apiKey, 'people_log_pastoral_visit', { contactId: gone, summary: 'Visited Gail', privacy: 'private' });
    await harness.call(org.apiKey, 'people_set_community_membership_bulk', { memberships: [{ contactId: gone, member: true }] });
    await harness.call(org.apiKey, 'people_delete_contact', { contactId: gone, permanent: true });
    const { rows } = await harness.pool.query(`SELECT
      (SELECT count(*) FROM prayer_requests WHERE contact_id = $1)::int AS prayer,
      (SELECT count(*) FROM pastoral_visits WHERE contact_id = $1)::int AS visits,
      (SELECT count(*) FROM community_memberships WHERE contact_id = $1)::int AS roster,
      (SELECT count(*) FROM timeline_entries WHERE contact_id = $1)::int AS timeline`, [gone]);
    expect(rows[0]).toEqual({ prayer: 0, visits: 0, roster: 0, timeline: 0 });
  });
});
