import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryRows, type Queryable } from '../../db/pool';
import { holdSpacesWriteLock } from './write-lock';
import { recordJobChange } from '../audit/api';
import { requireBooking } from './bookings';
import {
  guardOverlap, liveStatus, openConflicts, resourceShortages, roomClashes, settleHeldAgainst, withdrawConflictsOf,
  type BookingRow, type OccurrenceRow, type Planned, type Shortage,
} from './engine';
import type { OccurrenceStatus } from './models';
import { requireRoom } from './sites';

/**
 * What spaces does when the schedule module moves service instances (its `scheduleInstancesMoved`
 * extension point): the room bookings linked to them follow, in the same transaction, checked at
 * the new time as any booking change is. The shape of a move is read structurally; spaces imports
 * nothing of schedule but its api.
 */

export interface InstanceMoveNotice {
  instanceId: string;
  from: { startsAt: Date; endsAt: Date };
  to: { startsAt: Date; endsAt: Date };
}

export interface MovedBooking {
  bookingId: string;
  occurrenceId: string;
  status: OccurrenceStatus;
  conflictsOpened: number;
}

/** A booking's length stays within what the bookings table allows (5 minutes to a day). */
const MIN_MINUTES = 5;
const MAX_MINUTES = 1440;
const MINUTE_MS = 60_000;

interface LinkedOccurrence { booking_id: string; occurrence_id: string; schedule_instance_id: string }

/**
 * The live bookings of the instances with an occurrence still to come. A booking for a service
 * instance happens once (spaces refuses a rule on one), so each has one occurrence to move. Room
 * order, then booking, so two moves in one room take its lock in the same order.
 */
async function linkedOccurrences(db: Queryable, orgId: string, instanceIds: readonly string[], now: Date): Promise<LinkedOccurrence[]> {
  return queryRows<LinkedOccurrence>(db, `SELECT b.id AS booking_id, o.id AS occurrence_id, b.schedule_instance_id FROM spaces_bookings b
    JOIN spaces_occurrences o ON o.booking_id = b.id AND o.starts_at > $2 AND o.status IN ('pending', 'approved', 'held')
    WHERE b.org_id = $1 AND b.schedule_instance_id = ANY($3::uuid[]) AND b.status IN ('pending', 'approved') AND b.rrule IS NULL
    ORDER BY o.room_id NULLS LAST, b.id, o.id`, [orgId, now, [...instanceIds]]);
}

/**
 * The occurrence's new window: its start shifts as the instance's start did and its end as the
 * instance's end did, so a booking that matched the service matches it again and one that began
 * early or ran late keeps those margins; set-up and clear-up are kept as they were.
 */
export function shiftedWindow(occurrence: Pick<OccurrenceRow, 'starts_at' | 'ends_at' | 'busy_from' | 'busy_to'>, move: InstanceMoveNotice, zone: string): Planned {
  const startsAt = new Date(occurrence.starts_at.getTime() + move.to.startsAt.getTime() - move.from.startsAt.getTime());
  const shiftedEnd = occurrence.ends_at.getTime() + move.to.endsAt.getTime() - move.from.endsAt.getTime();
  const minutes = Math.min(MAX_MINUTES, Math.max(MIN_MINUTES, Math.round((shiftedEnd - startsAt.getTime()) / MINUTE_MS)));
  const endsAt = new Date(startsAt.getTime() + minutes * MINUTE_MS);
  const local = DateTime.fromJSDate(startsAt, { zone });
  return {
    originalLocalDate: local.toISODate()!, localDate: local.toISODate()!, localStartTime: local.toFormat('HH:mm'), startsAt, endsAt,
    busyFrom: new Date(startsAt.getTime() - (occurrence.starts_at.getTime() - occurrence.busy_from.getTime())),
    busyTo: new Date(endsAt.getTime() + (occurrence.busy_to.getTime() - occurrence.ends_at.getTime())),
  };
}

function refuseShortage(booking: BookingRow, shortage: Shortage, shortages: readonly Shortage[]): never {
  throw new StewardError('conflict', `The room booking "${booking.title}" cannot follow the service: ${shortage.resource} has only ${shortage.available} free on ${shortage.localDate} at ${shortage.localStartTime} (${shortage.wanted} booked); nothing was changed`, {
    hint: 'Change the booking\'s resources or cancel it first (spaces_update_booking, spaces_cancel_booking), or move the service to another time.',
    details: { bookingId: booking.id, shortages: shortages.slice(0, 25) },
  });
}

function refusePast(booking: BookingRow): never {
  throw new StewardError('conflict', `The room booking "${booking.title}" starts before the service, and at the new time it would start in the past; nothing was changed`, {
    hint: 'Move the booking first (spaces_update_booking) or cancel it, then move the service.', details: { bookingId: booking.id },
  });
}

/**
 * Moves one booking's occurrence to the window its instance's move gives it, under its room's lock.
 * A room free then takes the booking's live status; a room taken (another booking, a blockout) holds
 * the occurrence with an open conflict for a person to resolve, as spaces does for any clash nobody
 * is there to answer: never a double booking, never a lost booking. A countable resource short at
 * the new time refuses the move, as every resource shortage does.
 */
async function moveOccurrence(db: Queryable, orgId: string, linked: LinkedOccurrence, move: InstanceMoveNotice, now: Date): Promise<MovedBooking | null> {
  const booking = await requireBooking(db, orgId, linked.booking_id, { forUpdate: true });
  const [occurrence] = await queryRows<OccurrenceRow>(db, `SELECT * FROM spaces_occurrences WHERE org_id = $1 AND id = $2 AND starts_at > $3
    AND status IN ('pending', 'approved', 'held')`, [orgId, linked.occurrence_id, now]);
  if (!occurrence) return null;
  const window = shiftedWindow(occurrence, move, booking.time_zone);
  if (window.startsAt <= now) refusePast(booking);
  const room = occurrence.room_id ? await requireRoom(db, orgId, occurrence.room_id, { includeArchived: true, forUpdate: true }) : null;
  const clashes = room ? await roomClashes(db, orgId, room, [window], { bookingId: booking.id }) : [];
  const lines = (await queryRows<{ resource_id: string; quantity: number }>(db, 'SELECT resource_id, quantity FROM spaces_booking_resources WHERE org_id = $1 AND booking_id = $2', [orgId, booking.id]))
    .map((line) => ({ resourceId: line.resource_id, quantity: line.quantity }));
  const shortages = await resourceShortages(db, orgId, lines, [window], { bookingId: booking.id });
  if (shortages.length > 0) refuseShortage(booking, shortages[0], shortages);

  const status: OccurrenceStatus = clashes.length > 0 ? 'held' : liveStatus(booking.status);
  await withdrawConflictsOf(db, orgId, [occurrence.id], 'The service instance moved, so the booking was checked again at its new time');
  // A one-off's occurrence is keyed on the booking's date, so spaces' own later edits of the booking find it there.
  await guardOverlap(() => db.query(`UPDATE spaces_occurrences SET original_local_date = $3, local_date = $3, local_start_time = $4, starts_at = $5, ends_at = $6,
    busy_from = $7, busy_to = $8, status = $9, shared = false, updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, occurrence.id, window.localDate, window.localStartTime, window.startsAt, window.endsAt, window.busyFrom, window.busyTo, status]));
  const minutes = Math.round((window.endsAt.getTime() - window.startsAt.getTime()) / MINUTE_MS);
  await db.query('UPDATE spaces_bookings SET start_date = $3, start_time = $4, duration_minutes = $5, updated_at = now() WHERE org_id = $1 AND id = $2',
    [orgId, booking.id, window.localDate, window.localStartTime, minutes]);
  const conflictsOpened = await openConflicts(db, orgId, room?.id ?? null, clashes.length > 0 ? [{ occurrenceId: occurrence.id, clashes }] : []);
  // What this booking held back at its old time may go ahead now.
  const othersReleased = await settleHeldAgainst(db, orgId, [occurrence.id]);
  await recordJobChange(db, {
    orgId, channel: 'schedule.instances_moved', module: 'spaces', noun: 'booking', verb: 'move', target: { type: 'booking', id: booking.id },
    fields: {
      startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString(), localDate: window.localDate, startTime: window.localStartTime,
      occurrenceStatus: status, conflictsOpened, othersReleased, scheduleInstanceId: linked.schedule_instance_id,
    },
    previous: {
      startsAt: occurrence.starts_at.toISOString(), endsAt: occurrence.ends_at.toISOString(), localDate: occurrence.local_date,
      startTime: occurrence.local_start_time, occurrenceStatus: occurrence.status,
    },
  });
  return { bookingId: booking.id, occurrenceId: occurrence.id, status, conflictsOpened };
}

/** Moves every live booking linked to a moved instance; answers what each became. */
export async function followMovedInstances(db: Queryable, orgId: string, moved: { moves: readonly InstanceMoveNotice[]; now: Date }): Promise<MovedBooking[]> {
  if (moved.moves.length === 0) return [];
  const byInstance = new Map(moved.moves.map((move) => [move.instanceId, move]));
  const results: MovedBooking[] = [];
  const linkedToMoved = await linkedOccurrences(db, orgId, [...byInstance.keys()], moved.now);
  if (linkedToMoved.length > 0) await holdSpacesWriteLock(db, orgId);
  for (const linked of linkedToMoved) {
    const result = await moveOccurrence(db, orgId, linked, byInstance.get(linked.schedule_instance_id)!, moved.now);
    if (result) results.push(result);
  }
  return results;
}
