import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { eventually } from '../../../test/helpers/sandbox-stack';

/**
 * Spaces' writes of one organisation queue on its spaces lock before they lock any room, resource or
 * booking, so no order of row locks can make two of them wait for each other in a cycle. Shown from
 * outside, over the bridge: while a test transaction holds the organisation's lock, a booking and a
 * cancellation wait for it holding no row (their room and booking can be locked with NOWAIT), a read
 * and another organisation's booking are answered, and both writes finish once it is let go.
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
  async function holdLockOf(orgId: string): Promise<{ release: () => Promise<void> }> {
    const client = await harness.pool.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`spaces-writes:${orgId}`]);
    return { release: async () => { await client.query('COMMIT'); client.release(); } };
  }

  /** Backends of this database waiting for an advisory lock (the test's own transaction holds it, so it is never among them). */
  const advisoryWaiters = async () => (await harness.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
  )).rows[0].n;

  /** Whether another transaction can lock the row now (NOWAIT): nobody holds it. */
  async function rowIsFree(table: 'spaces_rooms' | 'spaces_bookings', id: string): Promise<boolean> {
    const client = await harness.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE NOWAIT`, [id]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false;
      throw error;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Aidan', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere', planCode: 'growth' });
    const building = (await bridge(org.apiKey, 'spaces_create_building', { name: 'Church hall' })).building;
    roomId = (await bridge(org.apiKey, 'spaces_create_room', { buildingId: building.id, name: 'Hall', capacity: 80 })).room.id;
    const otherBuilding = (await bridge(other.apiKey, 'spaces_create_building', { name: 'Centre' })).building;
    otherRoomId = (await bridge(other.apiKey, 'spaces_create_room', { buildingId: otherBuilding.id, name: 'Hall', capacity: 80 })).room.id;
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('a booking waits for the lock before it locks its room, and goes through once the lock is free', async () => {
    const held = await holdLockOf(org.orgId);
    let booking: Promise<any> | undefined;
    try {
      booking = bridge(org.apiKey, 'spaces_create_booking', { title: 'Choir practice', roomId, localDate: date, startTime: '19:00', durationMinutes: 90 });
      await eventually(advisoryWaiters, (n) => n === 1);
      expect(await rowIsFree('spaces_rooms', roomId)).toBe(true);
      // Reads take no lock, and another organisation's writes queue on a lock of their own.
      expect((await bridge(org.apiKey, 'spaces_list_rooms', {})).rooms).toHaveLength(1);
      const elsewhere = await bridge(other.apiKey, 'spaces_create_booking', { title: 'Their practice', roomId: otherRoomId, localDate: date, startTime: '19:00', durationMinutes: 90 });
      expect(elsewhere.booking.status).toBe('approved');
      expect(await advisoryWaiters()).toBe(1);
    } finally {
      await held.release();
    }
    const booked = await booking!;
    expect(booked.booking).toMatchObject({ title: 'Choir practice', status: 'approved' });
    expect(await advisoryWaiters()).toBe(0);
  });

  it('a cancellation waits for the lock before it locks its booking', async () => {
    const booked = await bridge(org.apiKey, 'spaces_create_booking', { title: 'Youth night', roomId, localDate: date, startTime: '17:00', durationMinutes: 60 });
    const held = await holdLockOf(org.orgId);
    let cancelled: Promise<any> | undefined;
    try {
      cancelled = bridge(org.apiKey, 'spaces_cancel_booking', { bookingId: booked.booking.id, reason: 'Leaders away' });
      await eventually(advisoryWaiters, (n) => n === 1);
      expect(await rowIsFree('spaces_bookings', booked.booking.id)).toBe(true);
      expect(await rowIsFree('spaces_rooms', roomId)).toBe(true);
    } finally {
      await held.release();
    }
    expect((await cancelled!).booking.status).toBe('cancelled');
  });
});
