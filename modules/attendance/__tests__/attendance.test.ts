import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { attendanceDropFor, droppedRegulars } from '../published';
import { withTenantTransaction } from '../../../db/pool';

/**
 * Attendance end to end over MCP, from check-ins made with the real check-in tools on four Sundays
 * and headcounts: exact summary figures (regulars, guests, first-timers, volunteers, week-on-week
 * change), a recount replacing a count, check-in lists, a person's history, the metrics behind
 * platform_analytics_query, the Monday run that opens first-timers' guest cards exactly once, guest
 * analytics and the arrivals heatmap, and another organisation's ids behaving as missing.
 */
describe('attendance: headcounts, check-ins and summaries', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let reader: McpClient;
  let otherMcp: McpClient;
  const ZONE = 'Europe/London';
  const sundays: Array<{ id: string; localDate: string }> = [];
  const ids: Record<string, string> = {};

  const contact = async (firstName: string, lastName: string) => (await mcpCall(owner, 'people_create_contact', { firstName, lastName })).contact.id as string;
  const checkIn = (sunday: number, contactId: string, locationId: string, personKind: 'adult' | 'child' | 'volunteer') =>
    mcpCall(owner, 'guests_check_in', { instanceId: sundays[sunday].id, stationId: ids.desk, contactId, locationId, personKind });
  const mondayAfter = (sunday: number, hour = 9) => DateTime.fromISO(`${sundays[sunday].localDate}T${String(hour).padStart(2, '0')}:00`, { zone: ZONE }).plus({ days: 1 }).toJSDate();

  beforeAll(async () => {
    // Its own stack: it runs the first-timer job for every organisation and counts what it did.
    harness = await Harness.start({ own: true });
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
    reader = await harness.mcpClient((await harness.createKey(org.orgId, ['attendance:read'], 'staff')).apiKey);

    const today = DateTime.now().setZone(ZONE).startOf('day');
    const firstSunday = today.plus({ days: 7 - (today.weekday % 7) }).toISODate()!;
    const { series } = await mcpCall(owner, 'schedule_create_series', {
      title: 'Morning worship', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: firstSunday, startTime: '10:30', durationMinutes: 90, timeZone: ZONE,
    });
    const { instances } = await mcpCall(owner, 'schedule_list_upcoming_instances', { seriesId: series.id, days: 40 });
    // Four coming Sundays are checked in to now: open check-in up to 30 days ahead (the default is an hour before).
    await mcpCall(owner, 'guests_update_settings', { checkinOpensMinutesBefore: 30 * 24 * 60 });
    sundays.push(...instances.slice(0, 4));
    ids.series = series.id;

    ids.hall = (await mcpCall(owner, 'guests_create_location', { name: 'Main hall' })).location.id;
    ids.kids = (await mcpCall(owner, 'guests_create_location', { name: 'Kids church' })).location.id;
    ids.desk = (await mcpCall(owner, 'guests_create_check_in_station', { name: 'Welcome desk', kind: 'manned' })).station.id;
    ids.regular = await contact('Rita', 'Regular');
    ids.occasional = await contact('Gary', 'Sometimes');
    ids.newcomer = await contact('Ann', 'Newcomer');
    ids.volunteer = await contact('Vic', 'Server');
    ids.child = await contact('Cal', 'Small');

    // Sunday 1: Rita and Gary come for the first time. Sundays 2 and 3: Rita. Sunday 4: everyone.
    await checkIn(0, ids.regular, ids.hall, 'adult');
    await checkIn(0, ids.occasional, ids.hall, 'adult');
    await checkIn(1, ids.regular, ids.hall, 'adult');
    await checkIn(2, ids.regular, ids.hall, 'adult');
    await checkIn(3, ids.regular, ids.hall, 'adult');
    await checkIn(3, ids.occasional, ids.hall, 'adult');
    await checkIn(3, ids.newcomer, ids.hall, 'adult');
    await checkIn(3, ids.volunteer, ids.hall, 'volunteer');
    await checkIn(3, ids.child, ids.kids, 'child');
  });

  afterAll(async () => {
    await reader?.close();
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  it('records a headcount per place, and a recount replaces the figure rather than adding to it', async () => {
    const first = await mcpCall(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, area: 'Main hall', count: 40 });
    expect(first).toMatchObject({ replacedCount: null, headcount: { area: 'Main hall', locationId: ids.hall, count: 40, localDate: sundays[3].localDate, countedByUserId: org.ownerUserId } });
    const recount = await mcpCall(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, area: 'main hall', count: 45, note: 'Late arrivals' });
    expect(recount).toMatchObject({ replacedCount: 40, headcount: { id: first.headcount.id, count: 45 } });
    const kids = await mcpCall(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, locationId: ids.kids, count: 6 });
    expect(kids.headcount).toMatchObject({ area: 'Kids church', locationId: ids.kids, count: 6 });
  });

  it('keeps one figure per place when counts for it arrive at the same moment', async () => {
    const counts = [30, 31, 32, 33, 34];
    const responses = await Promise.all(counts.map((count) => harness.invoke(org.apiKey, 'attendance_record_headcount', { instanceId: sundays[2].id, area: 'Gallery', count })));
    expect(responses.map((r) => r.status)).toEqual(counts.map(() => 200));
    const { rows } = await harness.pool.query('SELECT count FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2', [org.orgId, sundays[2].id]);
    expect(rows).toHaveLength(1);
    expect(counts).toContain(rows[0].count);
    await harness.pool.query('DELETE FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2', [org.orgId, sundays[2].id]);
  });

  it('refuses bad headcounts clearly', async () => {
    expect((await mcpRefusal(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, count: -1 })).code).toBe('validation_failed');
    const both = await mcpRefusal(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, count: 3, area: 'Hall', locationId: ids.kids });
    expect(both).toMatchObject({ code: 'validation_failed' });
    expect((await mcpRefusal(owner, 'attendance_record_headcount', { instanceId: 'last-sunday', count: 3 })).code).toBe('validation_failed');
    expect((await mcpRefusal(owner, 'attendance_record_headcount', { instanceId: '00000000-0000-4000-8000-000000000000', count: 3 })).code).toBe('not_found');
    const stranger = await mcpRefusal(owner, 'attendance_record_headcount', { instanceId: sundays[3].id, count: 3, countedByUserId: other.ownerUserId });
    expect(stranger.code).toBe('not_found');
    expect((await mcpRefusal(reader, 'attendance_record_headcount', { instanceId: sundays[3].id, count: 3 })).code).toBe('insufficient_scope');
  });

  it('summarises the four Sundays with exact figures, by service, week and location', async () => {
    const summary = await mcpCall(reader, 'attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate });
    expect(summary.services.map((s: any) => [s.localDate, s.checkedIn, s.regulars, s.guests, s.firstTimers, s.volunteers, s.headcount, s.total, s.totalFrom])).toEqual([
      [sundays[0].localDate, 2, 0, 0, 2, 0, null, 2, 'checkins'],
      [sundays[1].localDate, 1, 0, 1, 0, 0, null, 1, 'checkins'],
      [sundays[2].localDate, 1, 0, 1, 0, 0, null, 1, 'checkins'],
      [sundays[3].localDate, 5, 1, 1, 2, 1, 51, 51, 'headcount'],
    ]);
    expect(summary.totals).toEqual({ services: 4, total: 55, checkedIn: 9, regulars: 1, guests: 3, firstTimers: 4, volunteers: 1, ticketCheckins: 0, averagePerService: 13.8, events: 0, eventCheckedIn: 0 });
    expect(summary.weeks.map((w: any) => [w.total, w.change, w.changePercent])).toEqual([[2, null, null], [1, -1, -50], [1, 0, 0], [51, 50, 5000]]);
    expect(summary.weeks.map((w: any) => w.firstTimers)).toEqual([2, 0, 0, 2]);
    expect(summary.byLocation).toEqual([
      { locationId: ids.kids, area: 'Kids church', checkedIn: 1, headcount: 6 },
      { locationId: ids.hall, area: 'Main hall', checkedIn: 8, headcount: 45 },
    ]);
    expect(summary.definitions.regular).toMatch(/3 different weeks of the 8 weeks/);
  });

  it('takes a whole-service count as the service\'s headcount, never adding an area\'s count to it', async () => {
    const sunday = sundays[2];
    await mcpCall(owner, 'attendance_record_headcount', { instanceId: sunday.id, count: 140 });
    await mcpCall(owner, 'attendance_record_headcount', { instanceId: sunday.id, area: 'Balcony', count: 13 });
    const one = async () => (await mcpCall(reader, 'attendance_get_summary', { from: sunday.localDate, to: sunday.localDate })).services[0];
    expect(await one()).toMatchObject({ headcount: 140, total: 140, totalFrom: 'headcount' });
    // Without a whole-service count, the areas are separate rooms and add up.
    await harness.pool.query("DELETE FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2 AND location_id IS NULL AND area = 'Whole service'", [org.orgId, sunday.id]);
    await mcpCall(owner, 'attendance_record_headcount', { instanceId: sunday.id, area: 'Nave', count: 90 });
    expect(await one()).toMatchObject({ headcount: 103, total: 103 });
    await harness.pool.query('DELETE FROM attendance_headcounts WHERE org_id = $1 AND instance_id = $2', [org.orgId, sunday.id]);
  });

  it('narrows the summary to one location and one service', async () => {
    const hall = await mcpCall(reader, 'attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate, locationId: ids.hall });
    expect(hall.services.map((s: any) => [s.checkedIn, s.total])).toEqual([[2, 2], [1, 1], [1, 1], [4, 45]]);
    const kids = await mcpCall(reader, 'attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate, locationId: ids.kids });
    expect(kids.services.map((s: any) => [s.checkedIn, s.total])).toEqual([[0, 0], [0, 0], [0, 0], [1, 6]]);
    const one = await mcpCall(reader, 'attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate, instanceId: sundays[1].id });
    expect(one.services).toHaveLength(1);
    expect(one.totals.total).toBe(1);
    expect((await mcpRefusal(reader, 'attendance_get_summary', { from: sundays[3].localDate, to: sundays[0].localDate })).code).toBe('validation_failed');
  });

  it('lists check-ins with names, and first-timers only on request', async () => {
    const all = await mcpCall(reader, 'attendance_list_checkins', { from: sundays[3].localDate, to: sundays[3].localDate });
    expect(all.checkins).toHaveLength(5);
    expect(all.truncated).toBe(false);
    const firsts = await mcpCall(reader, 'attendance_list_checkins', { from: sundays[0].localDate, to: sundays[3].localDate, firstTimeOnly: true });
    expect(firsts.checkins.map((c: any) => c.name).sort()).toEqual(['Ann Newcomer', 'Cal Small', 'Gary Sometimes', 'Rita Regular', 'Vic Server']);
    const children = await mcpCall(reader, 'attendance_list_checkins', { from: sundays[0].localDate, to: sundays[3].localDate, personKind: 'child' });
    expect(children.checkins.map((c: any) => [c.name, c.locationName])).toEqual([['Cal Small', 'Kids church']]);
  });

  it('gives a person\'s history, newest first', async () => {
    const history = await mcpCall(reader, 'attendance_get_person_history', { contactId: ids.regular, from: sundays[0].localDate, to: sundays[3].localDate });
    expect(history).toMatchObject({ services: 4, weeksAttended: 4, firstVisit: sundays[0].localDate, lastVisit: sundays[3].localDate, servedAsVolunteer: 0 });
    expect(history.visits.map((v: any) => [v.localDate, v.title, v.firstTime])).toEqual([
      [sundays[3].localDate, 'Morning worship', false], [sundays[2].localDate, 'Morning worship', false],
      [sundays[1].localDate, 'Morning worship', false], [sundays[0].localDate, 'Morning worship', true],
    ]);
    expect((await mcpRefusal(reader, 'attendance_get_person_history', { contactId: ids.regular, from: '2026-02-30' })).code).toBe('validation_failed');
  });

  it('answers attendance metrics through platform_analytics_query with the summary\'s figures', async () => {
    const total = await mcpCall(owner, 'platform_analytics_query', { metric: 'attendance_total', from: sundays[0].localDate, to: sundays[3].localDate });
    expect(total).toMatchObject({ module: 'attendance', data: { total: 55, services: 4, averagePerService: 13.8, firstTimers: 4 } });
    expect(total.speakToUser).toMatch(/^55 people attended 4 services .*13\.8 on average\.$/);
    const trend = await mcpCall(owner, 'platform_analytics_query', { metric: 'weekly_trend_attendance', from: sundays[0].localDate, to: sundays[3].localDate });
    expect(trend.data.weeks.map((w: any) => w.total)).toEqual([2, 1, 1, 51]);
    expect(trend.speakToUser).toMatch(/latest week was up 50 on the week before\.$/);
    const elsewhere = await mcpCall(otherMcp, 'platform_analytics_query', { metric: 'attendance_total', from: sundays[0].localDate, to: sundays[3].localDate });
    expect(elsewhere.data).toMatchObject({ total: 0, services: 0 });
  });

  it('adds last Sunday to platform_overview (none yet: the services are ahead)', async () => {
    const overview = await mcpCall(owner, 'platform_overview', {});
    expect(overview).toHaveProperty('lastSundayAttendance', null);
  });

  it('opens a guest card on Monday for Sunday\'s adult first-timers, exactly once', async () => {
    const firstMonday = await harness.runJob('guests.first_timer_cards', { now: mondayAfter(0), orgId: org.orgId });
    expect(firstMonday).toEqual({ organisations: 1, firstTimers: 2, cardsOpened: 2, alreadyHadCard: 0, deletedSince: 0 });
    const again = await harness.runJob('guests.first_timer_cards', { now: mondayAfter(0, 15), orgId: org.orgId });
    expect(again).toMatchObject({ firstTimers: 2, cardsOpened: 0, alreadyHadCard: 2 });
    // Sunday 4: Ann is the only new adult; Cal is a child and Vic was serving.
    const fourth = await harness.runJob('guests.first_timer_cards', { now: mondayAfter(3) });
    expect(fourth).toMatchObject({ cardsOpened: 1 });
    expect(await harness.runJob('guests.first_timer_cards', { now: mondayAfter(3, 11) })).toMatchObject({ cardsOpened: 0 });
    const journeys = await mcpCall(owner, 'guests_list_guest_journeys', {});
    expect(journeys.journeys.map((j: any) => [j.guestName, j.source, j.instanceId]).sort()).toEqual([
      ['Ann Newcomer', 'first_visit', sundays[3].id], ['Gary Sometimes', 'first_visit', sundays[0].id], ['Rita Regular', 'first_visit', sundays[0].id],
    ]);
    expect(journeys.journeys.find((j: any) => j.guestName === 'Ann Newcomer').steps).toEqual([
      expect.objectContaining({ kind: 'opened', toStage: 'Welcome', note: `First visit on ${sundays[3].localDate}` }),
    ]);
  });

  it('runs on a Sunday without opening that day\'s cards', async () => {
    const sundayItself = DateTime.fromISO(`${sundays[2].localDate}T18:00`, { zone: ZONE }).toJSDate();
    const counts = await harness.runJob('guests.first_timer_cards', { now: sundayItself, orgId: org.orgId });
    expect(counts).toMatchObject({ firstTimers: 0, cardsOpened: 0 });
  });

  it('summarises guests and maps arrivals by time slot and location', async () => {
    const summary = await mcpCall(owner, 'guests_get_analytics_summary', { from: sundays[0].localDate, to: sundays[3].localDate });
    expect(summary).toMatchObject({
      checkins: 9, uniquePeople: 5, firstTimeGuests: 4, byKind: { adult: 7, child: 1, volunteer: 1 }, servicesWithCheckins: 4,
    });
    // Arrival times set to known minutes on Sunday 4, London time.
    const at = (time: string) => DateTime.fromISO(`${sundays[3].localDate}T${time}`, { zone: ZONE }).toJSDate();
    const times: Array<[string, string]> = [[ids.regular, '10:05'], [ids.occasional, '10:20'], [ids.newcomer, '10:25'], [ids.volunteer, '09:40'], [ids.child, '10:22']];
    for (const [contactId, time] of times) {
      await harness.pool.query('UPDATE guests_checkins SET checked_in_at = $1 WHERE org_id = $2 AND contact_id = $3 AND instance_id = $4', [at(time), org.orgId, contactId, sundays[3].id]);
    }
    const heatmap = await mcpCall(owner, 'guests_get_analytics_heatmap', { from: sundays[3].localDate, to: sundays[3].localDate, slotMinutes: 15 });
    expect(heatmap).toMatchObject({ timeZone: ZONE, slots: ['09:30', '09:45', '10:00', '10:15'], totalsBySlot: [1, 0, 1, 3] });
    expect(heatmap.locations).toEqual([
      { locationId: ids.kids, locationName: 'Kids church', arrivals: [0, 0, 0, 1], total: 1 },
      { locationId: ids.hall, locationName: 'Main hall', arrivals: [1, 0, 1, 2], total: 4 },
    ]);
    expect(heatmap.busiest).toEqual({ locationName: 'Main hall', slot: '10:15', arrivals: 2 });
    expect((await mcpRefusal(owner, 'guests_get_analytics_heatmap', { slotMinutes: 20 })).code).toBe('validation_failed');
  });

  it('publishes attendance drops for care: a regular who stopped coming, explained', async () => {
    const asOf = DateTime.fromISO(sundays[3].localDate).plus({ weeks: 5 }).toISODate()!;
    const drops = await withTenantTransaction(harness.pool, org.orgId, (db) => attendanceDropFor(db, org.orgId, [ids.regular, ids.newcomer], asOf));
    expect(drops.get(ids.regular)).toMatchObject({ dropped: true, recentWeeks: 0, priorWeeks: 4, lastVisit: sundays[3].localDate });
    expect(drops.get(ids.regular)!.reason).toMatch(/Came on 4 of the 8 weeks/);
    expect(drops.get(ids.newcomer)).toMatchObject({ dropped: false, priorWeeks: 1 });
    const dropped = await withTenantTransaction(harness.pool, org.orgId, (db) => droppedRegulars(db, org.orgId, asOf));
    expect(dropped.map((drop) => drop.contactId)).toEqual([ids.regular]);
    const stillComing = await withTenantTransaction(harness.pool, org.orgId, (db) => droppedRegulars(db, org.orgId, DateTime.fromISO(sundays[3].localDate).plus({ days: 1 }).toISODate()!));
    expect(stillComing).toEqual([]);
    const elsewhere = await withTenantTransaction(harness.pool, other.orgId, (db) => droppedRegulars(db, other.orgId, asOf));
    expect(elsewhere).toEqual([]);
  });

  it('treats another organisation\'s instances, contacts and locations as missing', async () => {
    expect((await mcpRefusal(otherMcp, 'attendance_record_headcount', { instanceId: sundays[3].id, count: 9 })).code).toBe('not_found');
    expect((await mcpRefusal(otherMcp, 'attendance_get_person_history', { contactId: ids.regular })).code).toBe('not_found');
    const list = await mcpCall(otherMcp, 'attendance_list_checkins', { from: sundays[0].localDate, to: sundays[3].localDate });
    expect(list.checkins).toEqual([]);
    const summary = await mcpCall(otherMcp, 'attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate, instanceId: sundays[3].id });
    expect(summary.services).toEqual([]);
  });

  // Last: it moves this organisation's check-ins (on the coming four Sundays) nine weeks back.
  it('tells pastoral care about a regular who stopped coming, through people_list_care_predictions', async () => {
    const before = await mcpCall(owner, 'people_list_care_predictions', { limit: 200 });
    const signalsOf = (result: any, id: string) => (result.predictions.find((p: any) => p.contactId === id)?.reasons ?? []).map((r: any) => r.signal);
    expect(signalsOf(before, ids.regular)).not.toContain('stopped_attending');
    // As if those Sundays were five to nine weeks ago and nobody has checked in since.
    await harness.pool.query('UPDATE guests_checkins SET local_date = local_date - 63 WHERE org_id = $1', [org.orgId]);
    const after = await mcpCall(owner, 'people_list_care_predictions', { limit: 200 });
    const reason = after.predictions.find((p: any) => p.contactId === ids.regular).reasons.find((r: any) => r.signal === 'stopped_attending');
    expect(reason.detail).toMatch(/^Came on 4 of the 8 weeks before .*, and not at all in the 4 weeks since/);
    expect(signalsOf(after, ids.newcomer)).not.toContain('stopped_attending');
    expect(after.signalsUsed).toContain('stopped_attending');
    const elsewhere = await mcpCall(otherMcp, 'people_list_care_predictions', { limit: 200 });
    expect(elsewhere.predictions.map((p: any) => p.contactId)).not.toContain(ids.regular);
  });
});
