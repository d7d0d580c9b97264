import { queryRows, type Queryable } from '../../db/pool';
import { requireBooking } from './bookings';
import { requireBuilding, requireRoom } from './sites';

/**
 * What other modules read of spaces (through api.ts): a booking's room and the seats it gives
 * (ticketing keeps an event's capacity within it), the bookings serving a service instance with
 * their set-up times and open conflicts (runsheet's readiness check), and rooms as check-in
 * locations (guests). Each takes the caller's transaction and organisation; another
 * organisation's id is not found, as a missing one is.
 */

export interface BookedRoom {
  bookingId: string;
  title: string;
  status: 'pending' | 'approved' | 'rejected' | 'cancelled';
  roomId: string | null;
  room: string | null;
  /** The room's capacity. */
  roomCapacity: number | null;
  layout: string | null;
  /** The seats the booking's layout gives (the room's capacity when the layout names none, or without a layout). */
  seats: number | null;
  expectedAttendance: number | null;
  scheduleInstanceId: string | null;
}

/** A booking's room and capacity; throws not_found for a missing or another organisation's booking. */
export async function getBookedRoom(db: Queryable, orgId: string, bookingId: string): Promise<BookedRoom> {
  const booking = await requireBooking(db, orgId, bookingId);
  const room = booking.room_id ? await requireRoom(db, orgId, booking.room_id, { includeArchived: true }) : null;
  const layoutSeats = room && booking.layout ? room.layouts.find((l) => l.name.toLowerCase() === booking.layout!.toLowerCase())?.capacity ?? null : null;
  return {
    bookingId: booking.id, title: booking.title, status: booking.status, roomId: room?.id ?? null, room: room?.name ?? null, roomCapacity: room?.capacity ?? null,
    layout: booking.layout, seats: room ? layoutSeats ?? room.capacity : null, expectedAttendance: booking.expected_attendance, scheduleInstanceId: booking.schedule_instance_id,
  };
}

export interface InstanceBooking {
  bookingId: string;
  occurrenceId: string;
  title: string;
  status: 'pending' | 'approved' | 'held';
  roomId: string | null;
  room: string | null;
  capacity: number | null;
  layout: string | null;
  startsAt: string;
  endsAt: string;
  /** When set-up starts (start minus set-up minutes) and when the room is clear. */
  setupFrom: string;
  clearBy: string;
  setupMinutes: number;
  teardownMinutes: number;
  openConflicts: Array<{ conflictId: string; against: string }>;
}

/** The live bookings (pending, approved, or held by a conflict) linked to a service instance, earliest set-up first. */
export async function bookingsForInstance(db: Queryable, orgId: string, instanceId: string): Promise<InstanceBooking[]> {
  const rows = await queryRows<{ booking_id: string; id: string; title: string; status: InstanceBooking['status']; room_id: string | null; room: string | null; capacity: number | null;
    layout: string | null; starts_at: Date; ends_at: Date; busy_from: Date; busy_to: Date; conflicts: Array<{ conflictId: string; against: string }> | null }>(db, `
    SELECT o.booking_id, o.id, b.title, o.status, o.room_id, r.name AS room, r.capacity, o.layout, o.starts_at, o.ends_at, o.busy_from, o.busy_to,
      (SELECT json_agg(json_build_object('conflictId', c.id, 'against', COALESCE(ob.title, 'Blocked out: ' || k.reason,
          'a shortage of ' || rs.name || ' (' || c.wanted || ' wanted, ' || c.available || ' free)')) ORDER BY c.created_at)
         FROM spaces_conflicts c LEFT JOIN spaces_occurrences oo ON oo.id = c.other_occurrence_id LEFT JOIN spaces_bookings ob ON ob.id = oo.booking_id
         LEFT JOIN spaces_blockouts k ON k.id = c.blockout_id LEFT JOIN spaces_resources rs ON rs.id = c.resource_id
        WHERE c.occurrence_id = o.id AND c.status = 'open') AS conflicts
      FROM spaces_bookings b JOIN spaces_occurrences o ON o.booking_id = b.id LEFT JOIN spaces_rooms r ON r.id = o.room_id
     WHERE b.org_id = $1 AND b.schedule_instance_id = $2 AND o.status IN ('pending', 'approved', 'held')
     ORDER BY o.busy_from, o.id`, [orgId, instanceId]);
  return rows.map((row) => ({
    bookingId: row.booking_id, occurrenceId: row.id, title: row.title, status: row.status, roomId: row.room_id, room: row.room, capacity: row.capacity, layout: row.layout,
    startsAt: row.starts_at.toISOString(), endsAt: row.ends_at.toISOString(), setupFrom: row.busy_from.toISOString(), clearBy: row.busy_to.toISOString(),
    setupMinutes: Math.round((row.starts_at.getTime() - row.busy_from.getTime()) / 60_000), teardownMinutes: Math.round((row.busy_to.getTime() - row.ends_at.getTime()) / 60_000),
    openConflicts: row.conflicts ?? [],
  }));
}

export interface CheckInRoom { roomId: string; name: string; building: string; campus: string; capacity: number }

/** Live rooms as check-in locations would take them (name, capacity), by campus, building and name; another organisation's building is not found. */
export async function roomsForCheckIn(db: Queryable, orgId: string, options: { buildingId?: string } = {}): Promise<CheckInRoom[]> {
  if (options.buildingId) await requireBuilding(db, orgId, options.buildingId);
  const rows = await queryRows<{ id: string; name: string; building: string; campus: string; capacity: number }>(db, `
    SELECT r.id, r.name, b.name AS building, c.name AS campus, r.capacity FROM spaces_rooms r JOIN spaces_buildings b ON b.id = r.building_id JOIN spaces_campuses c ON c.id = b.campus_id
     WHERE r.org_id = $1 AND r.archived_at IS NULL AND ($2::uuid IS NULL OR r.building_id = $2) ORDER BY lower(c.name), lower(b.name), lower(r.name)`, [orgId, options.buildingId ?? null]);
  return rows.map((row) => ({ roomId: row.id, name: row.name, building: row.building, campus: row.campus, capacity: row.capacity }));
}
