import { DateTime } from 'luxon';
import { withTenantTransaction } from '../../../db/pool';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { bookingsForInstance, getBookedRoom, roomsForCheckIn } from '../api';

/**
 * Spaces facilities and what other modules read: incidents through their states, utility bills and
 * the cost per occupied hour, hire charges whose payments never exceed what is due (under parallel
 * calls), and the api.ts surface (a booking's room and seats, an instance's bookings with set-up and
 * open conflicts, rooms as check-in locations).
 */
describe('spaces: facilities and the published surface', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let buildingId: string;
  let hallId: string;
  const ZONE = 'Europe/London';
  const call = (tool: string, args: Record<string, unknown>, key = org.apiKey) => harness.call(key, tool, args);
  const refusal = async (tool: string, args: Record<string, unknown>, key = org.apiKey) => {
    const { body } = await harness.invoke(key, tool, args);
    expect(body.ok).toBe(false);
    return body.error!;
  };

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Columba' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    buildingId = (await call('spaces_create_building', { name: 'Hall block' })).building.id;
    hallId = (await call('spaces_create_room', { buildingId, name: 'Hall', capacity: 120, layouts: [{ name: 'Dinner', capacity: 80 }] })).room.id;
  });
  afterAll(async () => harness?.close());

  it('takes an incident through its states and refuses a jump it does not allow', async () => {
    const reported = (await call('spaces_report_incident', { title: 'Boiler not firing', priority: 'urgent', roomId: hallId, description: 'No heat' })).incident;
    expect(reported).toMatchObject({ status: 'new', priority: 'urgent', buildingId, room: 'Hall' });
    const done = (await call('spaces_update_incident', { incidentId: reported.id, status: 'done', resolutionNote: 'Pilot relit' })).incident;
    expect(done.status).toBe('done');
    expect(done.doneAt).not.toBeNull();
    expect((await refusal('spaces_update_incident', { incidentId: reported.id, status: 'triaged' })).code).toBe('conflict');
    expect((await refusal('spaces_update_incident', { incidentId: reported.id, assigneeUserId: other.ownerUserId })).code).toBe('validation_failed');
    await call('spaces_report_incident', { title: 'Loose tile', priority: 'low', buildingId });
    const open = (await call('spaces_list_incidents', {})).incidents;
    expect(open.map((i: any) => i.title)).toEqual(['Loose tile']);
    expect((await refusal('spaces_update_incident', { incidentId: reported.id, status: 'in_progress' }, other.apiKey)).code).toBe('not_found');
  });

  it('records utility bills once per period and gives the cost per occupied hour', async () => {
    const monthStart = DateTime.now().setZone(ZONE).startOf('month').plus({ months: 1 });
    const from = monthStart.toISODate()!;
    const to = monthStart.endOf('month').toISODate()!;
    await call('spaces_record_utility_bill', { buildingId, kind: 'electric', periodStart: from, periodEnd: to, usage: 1000, costMinor: 30000, currency: 'GBP' });
    expect((await refusal('spaces_record_utility_bill', { buildingId, kind: 'electric', periodStart: monthStart.plus({ days: 10 }).toISODate(), periodEnd: to, usage: 1, costMinor: 1, currency: 'GBP' })).code).toBe('conflict');
    // two approved three-hour bookings in the month, and an overlapping one in another room counted for its own room
    await call('spaces_create_booking', { title: 'Dinner', roomId: hallId, localDate: monthStart.plus({ days: 3 }).toISODate(), startTime: '18:00', durationMinutes: 180 });
    await call('spaces_create_booking', { title: 'Quiz', roomId: hallId, localDate: monthStart.plus({ days: 10 }).toISODate(), startTime: '18:00', durationMinutes: 180 });
    const summary = await call('spaces_get_utility_summary', { from, to });
    expect(summary.buildings).toEqual([expect.objectContaining({ building: 'Hall block', costMinor: 30000, occupiedHours: 6, costPerOccupiedHourMinor: 5000 })]);
    expect(summary.totals).toMatchObject({ costMinor: 30000, occupiedHours: 6, costPerOccupiedHourMinor: 5000 });
    // half the period: half the bill
    const half = await call('spaces_get_utility_summary', { from, to: monthStart.plus({ days: Math.floor(monthStart.daysInMonth! / 2) - 1 }).toISODate() });
    expect(half.buildings[0].costMinor).toBe(Math.round(30000 * Math.floor(monthStart.daysInMonth! / 2) / monthStart.daysInMonth!));
  });

  it('charges a hire and never records more paid than is due, even in parallel', async () => {
    const hirer = await call('people_create_contact', { firstName: 'Ada', lastName: 'Hirer' });
    const booking = (await call('spaces_create_booking', {
      title: 'Birthday party', roomId: hallId, localDate: DateTime.now().plus({ days: 40 }).toISODate(), startTime: '14:00', durationMinutes: 240,
      hirerContactId: hirer.contact.id, hirerOrganisation: 'Hirer family', layout: 'Dinner', expectedAttendance: 60,
    })).booking;
    const charge = (await call('spaces_create_booking_charge', { bookingId: booking.id, kind: 'hire', description: 'Hall hire', amountMinor: 15000, currency: 'GBP', dueDate: DateTime.now().plus({ days: 30 }).toISODate() })).charge;
    expect(charge).toMatchObject({ status: 'unpaid', outstandingMinor: 15000 });
    const paid = await Promise.all(Array.from({ length: 5 }, () => harness.invoke(org.apiKey, 'spaces_record_charge_payment', { chargeId: charge.id, amountMinor: 5000, paidOn: DateTime.now().toISODate(), method: 'bank_transfer' })));
    expect(paid.filter((r) => r.body.ok)).toHaveLength(3);
    expect(paid.filter((r) => !r.body.ok).map((r) => r.body.error!.code)).toEqual(['conflict', 'conflict']);
    const listed = (await call('spaces_list_charges', { bookingId: booking.id })).charges;
    expect(listed[0]).toMatchObject({ status: 'paid', paidMinor: 15000, outstandingMinor: 0, bookingTitle: 'Birthday party' });
    expect((await call('spaces_list_charges', { unpaidOnly: true })).charges).toEqual([]);
    expect((await refusal('spaces_record_charge_payment', { chargeId: charge.id, amountMinor: 1, paidOn: DateTime.now().toISODate(), method: 'cash' }, other.apiKey)).code).toBe('not_found');

    // what ticketing reads: the booked room and the seats its layout gives
    const booked = await withTenantTransaction(harness.pool, org.orgId, (db) => getBookedRoom(db, org.orgId, booking.id));
    expect(booked).toMatchObject({ room: 'Hall', roomCapacity: 120, layout: 'Dinner', seats: 80, status: 'approved' });
    await expect(withTenantTransaction(harness.pool, other.orgId, (db) => getBookedRoom(db, other.orgId, booking.id))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('gives an instance\'s bookings with set-up times and open conflicts, and rooms for check-in', async () => {
    const start = DateTime.now().setZone(ZONE).plus({ days: 9 }).toISODate()!;
    const series = await call('schedule_create_series', { title: 'Harvest', rrule: 'FREQ=WEEKLY', startDate: start, startTime: '10:30', durationMinutes: 90, timeZone: ZONE });
    const instance = series.upcoming[0];
    await call('spaces_create_booking', { title: 'Harvest lunch', roomId: hallId, scheduleInstanceId: instance.id, setupMinutes: 45 });
    const listed = await withTenantTransaction(harness.pool, org.orgId, (db) => bookingsForInstance(db, org.orgId, instance.id));
    expect(listed).toEqual([expect.objectContaining({ title: 'Harvest lunch', room: 'Hall', capacity: 120, setupMinutes: 45, status: 'approved', openConflicts: [] })]);
    expect(Date.parse(listed[0].startsAt) - Date.parse(listed[0].setupFrom)).toBe(45 * 60_000);
    expect(await withTenantTransaction(harness.pool, other.orgId, (db) => bookingsForInstance(db, other.orgId, instance.id))).toEqual([]);
    const rooms = await withTenantTransaction(harness.pool, org.orgId, (db) => roomsForCheckIn(db, org.orgId));
    expect(rooms).toEqual([{ roomId: hallId, name: 'Hall', building: 'Hall block', campus: 'Main site', capacity: 120 }]);
  });

  it('adds bookings this week to platform_overview and answers room_bookings', async () => {
    const today = DateTime.now().setZone(ZONE);
    const monday = today.startOf('week');
    const overview = await call('platform_overview', {});
    expect(overview.bookingsThisWeek).toMatchObject({ from: monday.toISODate(), openConflicts: 0, openIncidents: 1 });
    const inWeek = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM spaces_occurrences WHERE org_id = $1 AND status IN ('pending', 'approved')
      AND starts_at >= $2 AND starts_at < $3`, [org.orgId, monday.toUTC().toJSDate(), monday.plus({ weeks: 1 }).toUTC().toJSDate()]);
    expect(overview.bookingsThisWeek.bookings).toBe(inWeek.rows[0].n);
    const metric = await call('platform_analytics_query', { metric: 'room_bookings', from: today.toISODate(), to: today.plus({ days: 60 }).toISODate() });
    expect(metric.data.rooms[0]).toMatchObject({ room: 'Hall' });
    expect(metric.data.bookings).toBe(metric.data.rooms.reduce((sum: number, room: any) => sum + room.bookings, 0));
    expect(metric.speakToUser).toMatch(/busiest room is Hall/);
    const elsewhere = await call('platform_analytics_query', { metric: 'room_bookings', from: today.toISODate(), to: today.plus({ days: 60 }).toISODate() }, other.apiKey);
    expect(elsewhere.data.bookings).toBe(0);
  });
});
