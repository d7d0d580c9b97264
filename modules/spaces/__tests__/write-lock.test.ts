import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { canLockNow, holdLock, started, waitersBehind, type HeldLock } from '../../../test/helpers/row-locks';
import { eventually } from '../../../test/helpers/sandbox-stack';

/**
 * Spaces' writes of one organisation queue on its spaces lock before they lock any room, resource or
 * booking, so no order of row locks can make two of them wait for each other in a cycle. Shown from
 * outside, over the bridge: while a test transaction holds the organisation's lock, a booking and a
 * cancellation wait for it holding no row (their room and booking can be locked with NOWAIT), a read
 * and another organisation's booking are answered, and both writes finish once it is let go. So do the
 * writes that reach spaces' rows from elsewhere: the schedule module's changes to instances (through its
 * `scheduleInstancesChanging` extension point) and its rolling window wait holding no series or instance
 * row, and reporting an incident in a room or charging a booking wait before their inserts hold its key.
 */
describe('spaces: one organisation\'s writes queue on its spaces lock', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let roomId: string;
  let otherRoomId: string;
  const ZONE = 'Europe/London';
  const date = DateTime.now().setZone(ZONE).plus({ weeks: 3 }).set({ weekday: 3 }).toISODate()!;

  const bridge = async (key: string, tool: string, args: Record<string, unknown>) => {
    const { body } = await harness.invoke(key, tool, args);
    if (!body.ok) throw new Error(`${tool} refused: ${JSON.stringify(body.error)}`);
    return body.result as any;
  };

  /** Holds `orgId`'s spaces lock in an open transaction of the test's own until the answer's release() is called. */
  const holdLockOf = (orgId: string) => holdLock(harness.pool, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`spaces-writes:${orgId}`]);

  /** Backends waiting for the organisation's spaces lock that `held` holds (it holds nothing else). */
  const advisoryWaiters = (held: HeldLock) => () => waitersBehind(harness.pool, held.pid);

  const bookingRow = async (bookingId: string) => (await harness.pool.query<{ status: string; hirer_contact_id: string | null }>(
    'SELECT status, hirer_contact_id FROM spaces_bookings WHERE id = $1', [bookingId])).rows[0];

  /** Whether another transaction can lock the row now (NOWAIT): nobody holds it. */
  const rowIsFree = (table: 'spaces_rooms' | 'spaces_bookings' | 'schedule_series' | 'schedule_instances', id: string) =>
    canLockNow(harness.pool, `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE NOWAIT`, [id]);

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Aidan', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere', planCode: 'growth' });
    const building = (await bridge(org.apiKey, 'spaces_create_building', { name: 'Church hall' })).building;
    roomId = (await bridge(org.apiKey, 'spaces_create_room', { buildingId: building.id, name: 'Hall', capacity: 80 })).room.id;
    const otherBuilding = (await bridge(other.apiKey, 'spaces_create_building', { name: 'Centre' })).building;
    otherRoomId = (await bridge(other.apiKey, 'spaces_create_room', { buildingId: otherBuilding.id, name: 'Hall', capacity: 80 })).room.id;
  });

  /** Starts `write` while `orgId`'s lock is held, checks it queues holding none of `rows`, and gives its answer once the lock is let go. */
  async function queuesBehindTheLock<T>(write: () => Promise<T>, rows: Array<[Parameters<typeof rowIsFree>[0], string]>): Promise<T> {
    const held = await holdLockOf(org.orgId);
    const write$ = started(write);
    try {
      await eventually(advisoryWaiters(held), (n) => n === 1);
      for (const [table, id] of rows) expect({ table, free: await rowIsFree(table, id) }).toEqual({ table, free: true });
      expect(write$.settled()).toBe(false);
    } finally {
      await held.release();
    }
    return write$.running;
  }

  afterAll(async () => {
    await harness?.close();
  });

  it('a booking waits for the lock before it locks its room, and goes through once the lock is free', async () => {
    const held = await holdLockOf(org.orgId);
    let booking: Promise<any> | undefined;
    try {
      booking = bridge(org.apiKey, 'spaces_create_booking', { title: 'Choir practice', roomId, localDate: date, startTime: '19:00', durationMinutes: 90 });
      await eventually(advisoryWaiters(held), (n) => n === 1);
      expect(await rowIsFree('spaces_rooms', roomId)).toBe(true);
      // Reads take no lock, and another organisation's writes queue on a lock of their own.
      expect((await bridge(org.apiKey, 'spaces_list_rooms', {})).rooms).toHaveLength(1);
      const elsewhere = await bridge(other.apiKey, 'spaces_create_booking', { title: 'Their practice', roomId: otherRoomId, localDate: date, startTime: '19:00', durationMinutes: 90 });
      expect(elsewhere.booking.status).toBe('approved');
      expect(await advisoryWaiters(held)()).toBe(1);
    } finally {
      await held.release();
    }
    const booked = await booking!;
    expect(booked.booking).toMatchObject({ title: 'Choir practice', status: 'approved' });
    expect(await advisoryWaiters(held)()).toBe(0);
  });

  it('a cancellation waits for the lock before it locks its booking', async () => {
    const booked = await bridge(org.apiKey, 'spaces_create_booking', { title: 'Youth night', roomId, localDate: date, startTime: '17:00', durationMinutes: 60 });
    const held = await holdLockOf(org.orgId);
    let cancelled: Promise<any> | undefined;
    try {
      cancelled = bridge(org.apiKey, 'spaces_cancel_booking', { bookingId: booked.booking.id, reason: 'Leaders away' });
      await eventually(advisoryWaiters(held), (n) => n === 1);
      expect(await rowIsFree('spaces_bookings', booked.booking.id)).toBe(true);
      expect(await rowIsFree('spaces_rooms', roomId)).toBe(true);
    } finally {
      await held.release();
    }
    expect((await cancelled!).booking.status).toBe('cancelled');
  });

  describe('writes that reach spaces\' rows from elsewhere', () => {
    let seriesId: string;
    let instanceIds: string[];
    const instanceOf = async (instanceId: string) => (await bridge(org.apiKey, 'schedule_get_instance', { instanceId })).instance;

    beforeAll(async () => {
      seriesId = (await bridge(org.apiKey, 'schedule_create_series', {
        title: 'Morning worship', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: date, startTime: '10:30', durationMinutes: 90, timeZone: ZONE,
      })).series.id;
      instanceIds = (await bridge(org.apiKey, 'schedule_list_upcoming_instances', { seriesId, days: 120 })).instances.map((instance: { id: string }) => instance.id);
      expect(instanceIds.length).toBeGreaterThanOrEqual(6);
    });

    it('cancelling an instance waits for the lock before it locks the instance or its linked booking, then releases the booking', async () => {
      const linked = (await bridge(org.apiKey, 'spaces_create_booking', { title: 'Worship: hall', roomId, scheduleInstanceId: instanceIds[0] })).booking;
      const cancelled = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_cancel_instance', { instanceId: instanceIds[0], reason: 'Joint service' }),
        [['schedule_instances', instanceIds[0]], ['spaces_bookings', linked.id]]);
      expect(cancelled.instance.status).toBe('cancelled');
      expect((await bookingRow(linked.id)).status).toBe('cancelled');
    });

    it('moving an instance, and restoring it, wait for the lock before they lock the series or the instance', async () => {
      const moved = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_move_instance', { instanceId: instanceIds[1], localStartTime: '11:00' }), [['schedule_instances', instanceIds[1]]]);
      expect(moved.instance).toMatchObject({ localStartTime: '11:00', moved: true });
      const restored = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_restore_instance', { instanceId: instanceIds[1] }), [['schedule_series', seriesId], ['schedule_instances', instanceIds[1]]]);
      expect(restored.instance).toMatchObject({ localStartTime: '10:30', moved: false });
    });

    it('changing one instance, the whole series, or the series from an instance on waits for the lock before it locks the series', async () => {
      const one = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_update_series', { seriesId, scope: 'this', instanceId: instanceIds[2], changes: { title: 'Harvest' } }),
        [['schedule_series', seriesId], ['schedule_instances', instanceIds[2]]]);
      expect(one.instance.title).toBe('Harvest');
      const all = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_update_series', { seriesId, scope: 'all', changes: { durationMinutes: 75 } }), [['schedule_series', seriesId]]);
      expect(all.series.durationMinutes).toBe(75);
      const split = await queuesBehindTheLock(
        () => bridge(org.apiKey, 'schedule_update_series', { seriesId, scope: 'this_and_following', instanceId: instanceIds[4], changes: { startTime: '11:15' } }),
        [['schedule_series', seriesId], ['schedule_instances', instanceIds[4]]]);
      expect(split.newSeries.startTime).toBe('11:15');
      expect((await instanceOf(instanceIds[4])).localStartTime).toBe('11:15');
    });

    it('the rolling window waits for the lock before it locks any series', async () => {
      const counts = await queuesBehindTheLock(() => harness.runJob('schedule.materialise_instances', { orgId: org.orgId }), [['schedule_series', seriesId]]);
      expect(counts).toMatchObject({ organisations: 1 });
      expect(counts.series).toBeGreaterThanOrEqual(2);
    });

    it('ending a series waits for the lock before it locks the series', async () => {
      const ended = await queuesBehindTheLock(() => bridge(org.apiKey, 'schedule_delete_series', { seriesId }), [['schedule_series', seriesId]]);
      expect(ended.series.id).toBe(seriesId);
      expect(ended.removedInstances).toBeGreaterThan(0);
    });
  });

  it('an incident in a room and a booking\'s charge wait for the lock before their inserts hold the room or booking', async () => {
    const incident = await queuesBehindTheLock(
      () => bridge(org.apiKey, 'spaces_report_incident', { title: 'Radiator leaking', priority: 'normal', roomId }), [['spaces_rooms', roomId]]);
    expect(incident.incident).toMatchObject({ title: 'Radiator leaking', status: 'new' });
    const booked = await bridge(org.apiKey, 'spaces_create_booking', { title: 'Wedding', roomId, localDate: date, startTime: '13:00', durationMinutes: 120 });
    const charge = await queuesBehindTheLock(
      () => bridge(org.apiKey, 'spaces_create_booking_charge', {
        bookingId: booked.booking.id, kind: 'hire', description: 'Hall hire', amountMinor: 12_000, currency: 'GBP', dueDate: date,
      }), [['spaces_bookings', booked.booking.id]]);
    expect(charge.charge).toMatchObject({ amountMinor: 12_000, currency: 'GBP' });
  });

  it('merging a hirer\'s duplicate contact waits for the lock before it rewrites the hirer\'s booking', async () => {
    const contact = async (email: string) => (await bridge(org.apiKey, 'people_create_contact', { firstName: 'Dana', lastName: 'Hirer', email })).contact.id as string;
    const kept = await contact('dana@example.org');
    const duplicate = await contact('dana.hirer@example.org');
    const booked = (await bridge(org.apiKey, 'spaces_create_booking', {
      title: 'Birthday party', roomId, localDate: date, startTime: '10:00', durationMinutes: 120, hirerContactId: duplicate,
    })).booking;
    const proposed = await harness.invoke(org.apiKey, 'people_merge_data_quality_contacts', { keepContactId: kept, mergeContactId: duplicate, actionSummary: 'Dana twice' });
    const proposalId = proposed.body.error?.details?.proposalId as string;
    expect(proposalId).toEqual(expect.any(String));
    await queuesBehindTheLock(() => bridge(org.apiKey, 'platform_approve_proposal', { proposalId }), [['spaces_bookings', booked.id]]);
    expect((await bookingRow(booked.id)).hirer_contact_id).toBe(kept);
  });
});
