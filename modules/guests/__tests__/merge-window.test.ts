import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { dayFromToday, mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { daytimeZone, startingIn } from '../../../test/helpers/service-times';

/**
 * Check-in records through merge and erasure, and the check-in window, over MCP and the bridge:
 * two contacts both checked in to one service merge into one open check-in (the earlier, its code
 * still valid; the other closed as merged into it), their child profiles and volunteer places join,
 * authorised pickup lists follow a merged pickup person and lose an erased one; check-in is refused
 * before its window opens and after it closes (nothing written), while checkout stays possible.
 */
jest.setTimeout(120_000);

describe('guests: merge, erasure and the check-in window', () => {
  const ZONE = daytimeZone();
  let harness: Harness;
  let org: TestOrg;
  let mcp: McpClient;
  const ids: Record<string, string> = {};
  let soon: { id: string; seriesId: string };

  const contact = async (firstName: string, lastName: string, dateOfBirth?: string) =>
    (await mcpCall(mcp, 'people_create_contact', { firstName, lastName, ...(dateOfBirth ? { dateOfBirth } : {}) })).contact.id as string;
  const checkIn = async (contactId: string, personKind = 'child', instanceId = soon.id) =>
    mcpCall(mcp, 'guests_check_in', { instanceId, stationId: ids.desk, contactId, locationId: ids.room, personKind });
  const merge = async (keepContactId: string, mergeContactId: string) => {
    const gated = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId, mergeContactId, actionSummary: 'Merge duplicates' });
    expect(gated.body.error?.code).toBe('approval_required');
    return harness.call(org.apiKey, 'platform_approve_proposal', { proposalId: gated.body.error!.details.proposalId });
  };
  const checkinRow = async (id: string) => (await harness.pool.query(
    'SELECT contact_id, checked_out_at, checkout_station_id, merged_into_checkin_id, group_id FROM guests_checkins WHERE id = $1', [id])).rows[0];
  const released = async (groupId: string) => (await harness.pool.query('SELECT released_at FROM guests_checkin_groups WHERE id = $1', [groupId])).rows[0].released_at !== null;
  const rowCounts = async () => (await harness.pool.query(`SELECT (SELECT count(*)::int FROM guests_checkins WHERE org_id = $1) AS checkins,
    (SELECT count(*)::int FROM guests_checkin_groups WHERE org_id = $1) AS groups`, [org.orgId])).rows[0];
  const yearsAgo = (years: number) => DateTime.now().minus({ years }).toISODate()!;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    mcp = await harness.mcpClient(org.apiKey);
    soon = (await mcpCall(mcp, 'schedule_create_series', {
      title: 'Family service', rrule: 'FREQ=WEEKLY', ...startingIn(30, ZONE), durationMinutes: 60, timeZone: ZONE,
    })).upcoming[0];
    ids.room = (await mcpCall(mcp, 'guests_create_location', { name: 'Kids church' })).location.id;
    ids.desk = (await mcpCall(mcp, 'guests_create_check_in_station', { name: 'Welcome desk', kind: 'manned' })).station.id;
  });

  afterAll(async () => {
    await mcp?.close();
    await harness?.close();
  });

  describe('merging two contacts who were both checked in', () => {
    it('keeps the earlier check-in open with its code, closes the other as merged, and joins their profiles', async () => {
      const keep = await contact('Amy', 'Smith', yearsAgo(5));
      const duplicate = await contact('Amy', 'Smyth', yearsAgo(5));
      ids.nan = await contact('Nan', 'Smith');
      ids.aunt = await contact('Aunt', 'Smith');
      await mcpCall(mcp, 'guests_update_child_profile', { contactId: keep, allergies: 'Peanuts', authorisedPickupIds: [ids.nan] });
      await mcpCall(mcp, 'guests_update_child_profile', { contactId: duplicate, grade: 1, medicalNotes: 'Asthma inhaler', authorisedPickupIds: [ids.aunt, ids.nan] });
      const first = await checkIn(keep);
      const second = await checkIn(duplicate);

      const decided = await merge(keep, duplicate);
      expect(decided.execution.status).toBe('succeeded');

      const roster = await mcpCall(mcp, 'guests_get_live_roster', { instanceId: soon.id });
      expect(roster.totals.children).toBe(1);
      expect(roster.rooms[0].people.filter((p: any) => p.contactId === keep)).toHaveLength(1);
      // Attendance reads one check-in for the merged person: the duplicate's was the same attendance recorded twice.
      const listed = await mcpCall(mcp, 'attendance_list_checkins', { instanceId: soon.id, from: dayFromToday(-2), to: dayFromToday(2) });
      expect(listed.checkins.map((c: any) => c.id)).toEqual([first.checkins[0].id]);
      expect(await checkinRow(first.checkins[0].id)).toMatchObject({ contact_id: keep, checked_out_at: null, merged_into_checkin_id: null });
      // The duplicate's check-in is kept as history, closed as merged into the one still open; its code is freed.
      const closed = await checkinRow(second.checkins[0].id);
      expect(closed).toMatchObject({ contact_id: keep, checkout_station_id: ids.desk, merged_into_checkin_id: first.checkins[0].id });
      expect(closed.checked_out_at).not.toBeNull();
      expect(await released(closed.group_id)).toBe(true);
      expect(await released(first.groupId)).toBe(false);

      const profile = (await mcpCall(mcp, 'guests_get_child_profile', { contactId: keep })).profile;
      expect(profile).toMatchObject({ grade: 1, allergies: 'Peanuts', medicalNotes: 'Asthma inhaler', authorisedPickupIds: [ids.nan, ids.aunt] });
      expect((await harness.pool.query('SELECT count(*)::int AS n FROM guests_child_profiles WHERE contact_id = $1', [keep])).rows[0].n).toBe(1);

      // The kept check-in's code still checks the child out.
      expect(await mcpCall(mcp, 'guests_check_out_child', { checkinId: first.checkins[0].id, stationId: ids.desk, securityCode: first.securityCode, pickupContactId: ids.aunt }))
        .toMatchObject({ codeMatched: true, pickupAuthorised: true, codeReleased: true });
    });

    it('keeps the earlier check-in open when it is the merged-away contact\'s', async () => {
      const early = await contact('Ben', 'Early', yearsAgo(6));
      const late = await contact('Ben', 'Late', yearsAgo(6));
      const earlier = await checkIn(early);
      const later = await checkIn(late);
      expect((await merge(late, early)).execution.status).toBe('succeeded');
      expect(await checkinRow(earlier.checkins[0].id)).toMatchObject({ contact_id: late, checked_out_at: null, merged_into_checkin_id: null });
      expect(await checkinRow(later.checkins[0].id)).toMatchObject({ contact_id: late, merged_into_checkin_id: earlier.checkins[0].id });
      expect(await released(later.groupId)).toBe(true);
      const open = await harness.pool.query('SELECT id FROM guests_checkins WHERE contact_id = $1 AND instance_id = $2 AND checked_out_at IS NULL', [late, soon.id]);
      expect(open.rows.map((row) => row.id)).toEqual([earlier.checkins[0].id]);
      expect(await mcpCall(mcp, 'guests_check_out_child', { checkinId: earlier.checkins[0].id, stationId: ids.desk, securityCode: earlier.securityCode, pickupName: 'Dad', staffOverride: { reason: 'Dad known to the team' } }))
        .toMatchObject({ codeMatched: true });
    });

    it('joins two volunteers on the same team for the same service into one place', async () => {
      const keep = await contact('Vera', 'Helper');
      const duplicate = await contact('Vera', 'Helpers');
      await mcpCall(mcp, 'guests_assign_volunteer', { instanceId: soon.id, contactId: keep, team: 'welcome' });
      await mcpCall(mcp, 'guests_assign_volunteer', { instanceId: soon.id, contactId: duplicate, team: 'welcome', status: 'confirmed', role: 'Door greeter' });
      expect((await merge(keep, duplicate)).execution.status).toBe('succeeded');
      const { assignments } = await mcpCall(mcp, 'guests_list_volunteer_schedules', { instanceId: soon.id, team: 'welcome' });
      expect(assignments.map((a: any) => [a.contactId, a.status, a.role])).toEqual([[keep, 'confirmed', 'Door greeter']]);
    });
  });

  describe('authorised pickup lists', () => {
    it('follow a merged pickup person to the kept contact, and lose an erased one (and the name typed for them)', async () => {
      const child = await contact('Cara', 'Jones', yearsAgo(4));
      const granny = await contact('Granny', 'Jones');
      const grannyDuplicate = await contact('Gran', 'Jones');
      const uncle = await contact('Uncle', 'Jones');
      await mcpCall(mcp, 'guests_update_child_profile', { contactId: child, authorisedPickupIds: [grannyDuplicate, uncle] });
      expect((await merge(granny, grannyDuplicate)).execution.status).toBe('succeeded');
      expect((await mcpCall(mcp, 'guests_get_child_profile', { contactId: child })).profile.authorisedPickupIds).toEqual([granny, uncle]);

      // Granny, now on the list under her kept record, collects without an override.
      const inside = await checkIn(child);
      expect(await mcpCall(mcp, 'guests_check_out_child', { checkinId: inside.checkins[0].id, stationId: ids.desk, securityCode: inside.securityCode, pickupContactId: granny, pickupName: 'Granny Jones' }))
        .toMatchObject({ pickupAuthorised: true, overridden: [] });

      expect(await mcpCall(mcp, 'people_delete_contact', { contactId: granny, permanent: true })).toMatchObject({ deleted: 'permanent' });
      expect((await mcpCall(mcp, 'guests_get_child_profile', { contactId: child })).profile.authorisedPickupIds).toEqual([uncle]);
      const { rows } = await harness.pool.query('SELECT pickup_contact_id, pickup_name FROM guests_checkins WHERE id = $1', [inside.checkins[0].id]);
      expect(rows[0]).toEqual({ pickup_contact_id: null, pickup_name: null });
      const anywhere = await harness.pool.query('SELECT count(*)::int AS n FROM guests_child_profiles WHERE org_id = $1 AND ($2 = ANY(authorised_pickup_ids) OR $3 = ANY(authorised_pickup_ids))',
        [org.orgId, granny, grannyDuplicate]);
      expect(anywhere.rows[0].n).toBe(0);
    });
  });

  describe('the check-in window', () => {
    it('is not open yet three hours before a service: refused with when it opens, nothing written', async () => {
      const later = (await mcpCall(mcp, 'schedule_create_series', {
        title: 'Evening service', rrule: 'FREQ=WEEKLY', ...startingIn(180, ZONE), durationMinutes: 60, timeZone: ZONE,
      })).upcoming[0];
      const child = await contact('Early', 'Bird', yearsAgo(5));
      const before = await rowCounts();
      const refusal = await mcpRefusal(mcp, 'guests_check_in', { instanceId: later.id, stationId: ids.desk, contactId: child, locationId: ids.room, personKind: 'child' });
      const opensAt = new Date(Date.parse(later.startsAt) - 60 * 60_000);
      expect(refusal).toMatchObject({ code: 'conflict', details: { gate: 'checkin_closed', window: 'not_open_yet', opensAt: opensAt.toISOString(), instanceId: later.id } });
      expect(refusal.message).toContain(`opens at ${DateTime.fromJSDate(opensAt, { zone: ZONE }).toFormat('ccc d LLL HH:mm')} (${ZONE})`);
      expect(refusal.hint).toContain('guests_update_settings');
      // The bridge and the kiosk say the same.
      await mcpCall(mcp, 'guests_update_checkin_hub', { stationId: (await mcpCall(mcp, 'guests_create_check_in_station', { name: 'Kiosk', kind: 'self' })).station.id });
      const hub = await harness.invoke(org.apiKey, 'guests_check_in_child_hub', { instanceId: later.id, childContactId: child, locationId: ids.room });
      expect(hub.body.error).toMatchObject({ code: 'conflict', details: { gate: 'checkin_closed' } });
      expect(await rowCounts()).toEqual(before);

      // Opening check-in four hours before lets the child in.
      expect((await mcpCall(mcp, 'guests_update_settings', { checkinOpensMinutesBefore: 240 })).settings).toMatchObject({ checkinOpensMinutesBefore: 240, checkinClosesMinutesAfter: 30 });
      expect((await checkIn(child, 'child', later.id)).checkins).toHaveLength(1);
      await mcpCall(mcp, 'guests_update_settings', { checkinOpensMinutesBefore: 60 });
    });

    it('has closed half an hour after a service ended: refused with when it closed', async () => {
      const past = (await mcpCall(mcp, 'schedule_create_series', {
        title: 'Early service', rrule: 'FREQ=DAILY', ...startingIn(-180, ZONE), durationMinutes: 60, timeZone: ZONE,
      })).series;
      const today = DateTime.now().setZone(ZONE).toISODate()!;
      const [ended] = (await mcpCall(mcp, 'schedule_list_upcoming_instances', { seriesId: past.id, from: today, days: 1, includeCancelled: true })).instances;
      expect(ended.localDate).toBe(today);
      const refusal = await mcpRefusal(mcp, 'guests_check_in', { instanceId: ended.id, stationId: ids.desk, contactId: await contact('Late', 'Comer'), locationId: ids.room, personKind: 'adult' });
      const closesAt = new Date(Date.parse(ended.endsAt) + 30 * 60_000);
      expect(refusal).toMatchObject({ code: 'conflict', details: { gate: 'checkin_closed', window: 'closed', closesAt: closesAt.toISOString() } });
      expect(refusal.message).toContain(`closed at ${DateTime.fromJSDate(closesAt, { zone: ZONE }).toFormat('ccc d LLL HH:mm')} (${ZONE})`);
    });

    it('never stops a child already checked in from being checked out', async () => {
      const child = await contact('Dan', 'Inside', yearsAgo(5));
      const inside = await checkIn(child);
      // Check-in now opens only at the start: the service is not open for check-in, but checkout goes ahead.
      await mcpCall(mcp, 'guests_update_settings', { checkinOpensMinutesBefore: 0 });
      expect((await mcpRefusal(mcp, 'guests_check_in', { instanceId: soon.id, stationId: ids.desk, contactId: await contact('Eve', 'Outside'), locationId: ids.room, personKind: 'child' })).details)
        .toMatchObject({ gate: 'checkin_closed', window: 'not_open_yet' });
      expect(await mcpCall(mcp, 'guests_check_out_child', { checkinId: inside.checkins[0].id, stationId: ids.desk, securityCode: inside.securityCode, pickupName: 'Mum', staffOverride: { reason: 'Mum known to the team' } }))
        .toMatchObject({ codeMatched: true, overridden: ['pickup'] });
      await mcpCall(mcp, 'guests_update_settings', { checkinOpensMinutesBefore: 60 });
    });

    it('refuses a window outside its limits and changes nothing', async () => {
      for (const bad of [{ checkinOpensMinutesBefore: -1 }, { checkinOpensMinutesBefore: 43_201 }, { checkinClosesMinutesAfter: 1441 }, { checkinClosesMinutesAfter: 1.5 }]) {
        expect((await mcpRefusal(mcp, 'guests_update_settings', bad)).code).toBe('validation_failed');
      }
      expect((await mcpCall(mcp, 'guests_get_checkin_settings', {})).settings).toMatchObject({ checkinOpensMinutesBefore: 60, checkinClosesMinutesAfter: 30 });
    });
  });
});
