import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { STAFF_ROLES } from '../../core/roles';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { holdSpacesWriteLock } from './write-lock';
import { recordJobChange } from '../audit/api';
import { notFound } from '../kit';
import { getInstance, organisationTimeZone } from '../schedule/api';
import { cancelBooking } from './bookings';
import {
  bookedResourceLines, clashesByWindow, guardOverlap, horizonFrom, insertOccurrences, liveStatus, lockInOrder, openConflicts, openShortageConflicts, planOccurrences,
  resourceShortages, reviveHeld, roomClashes, settleHeldAgainst, shapeOf, shortagesByWindow, windowOf, withdrawConflictsOf, type BookingRow, type OccurrenceRow, type ResourceLine,
} from './engine';
import type { ConflictResolution } from './models';
import { requireBuilding, requireCampus, requireResource, requireRoom } from './sites';

// ---------------------------------------------------------------- conflicts

export interface ConflictView {
  id: string; status: 'open' | 'resolved'; resolution: ConflictResolution | null; roomId: string | null; room: string | null;
  booking: { bookingId: string; occurrenceId: string; title: string; localDate: string; startTime: string; status: string };
  against: { kind: 'booking'; bookingId: string; occurrenceId: string; title: string; localDate: string; startTime: string; status: string }
    | { kind: 'blockout'; blockoutId: string; reason: string; startsAt: string; endsAt: string }
    | { kind: 'resource'; resourceId: string; resource: string; wanted: number; available: number };
  resolvedByUserId: string | null; resolvedAt: string | null; note: string | null; createdAt: string;
}

interface ConflictJoined {
  id: string; status: 'open' | 'resolved'; resolution: ConflictResolution | null; room_id: string | null; room: string | null; resolved_by_user_id: string | null;
  resolved_at: Date | null; note: string | null; created_at: Date; occurrence_id: string; h_booking_id: string; h_title: string; h_local_date: string; h_time: string; h_status: string;
  other_occurrence_id: string | null; o_booking_id: string | null; o_title: string | null; o_local_date: string | null; o_time: string | null; o_status: string | null;
  blockout_id: string | null; k_reason: string | null; k_starts_at: Date | null; k_ends_at: Date | null;
  resource_id: string | null; rs_name: string | null; wanted: number | null; available: number | null;
}

const CONFLICT_SELECT = `SELECT c.id, c.status, c.resolution, c.room_id, r.name AS room, c.resolved_by_user_id, c.resolved_at, c.note, c.created_at,
    c.occurrence_id, h.booking_id AS h_booking_id, hb.title AS h_title, h.local_date AS h_local_date, h.local_start_time AS h_time, h.status AS h_status,
    c.other_occurrence_id, o.booking_id AS o_booking_id, ob.title AS o_title, o.local_date AS o_local_date, o.local_start_time AS o_time, o.status AS o_status,
    c.blockout_id, k.reason AS k_reason, k.starts_at AS k_starts_at, k.ends_at AS k_ends_at, c.resource_id, rs.name AS rs_name, c.wanted, c.available
  FROM spaces_conflicts c JOIN spaces_occurrences h ON h.id = c.occurrence_id JOIN spaces_bookings hb ON hb.id = h.booking_id
  LEFT JOIN spaces_occurrences o ON o.id = c.other_occurrence_id LEFT JOIN spaces_bookings ob ON ob.id = o.booking_id
  LEFT JOIN spaces_blockouts k ON k.id = c.blockout_id LEFT JOIN spaces_resources rs ON rs.id = c.resource_id LEFT JOIN spaces_rooms r ON r.id = c.room_id`;

function againstView(row: ConflictJoined): ConflictView['against'] {
  if (row.other_occurrence_id) {
    return { kind: 'booking', bookingId: row.o_booking_id!, occurrenceId: row.other_occurrence_id, title: row.o_title!, localDate: row.o_local_date!, startTime: row.o_time!, status: row.o_status! };
  }
  if (row.resource_id) return { kind: 'resource', resourceId: row.resource_id, resource: row.rs_name!, wanted: row.wanted!, available: row.available! };
  return { kind: 'blockout', blockoutId: row.blockout_id!, reason: row.k_reason!, startsAt: row.k_starts_at!.toISOString(), endsAt: row.k_ends_at!.toISOString() };
}

function conflictView(row: ConflictJoined): ConflictView {
  return {
    id: row.id, status: row.status, resolution: row.resolution, roomId: row.room_id, room: row.room,
    booking: { bookingId: row.h_booking_id, occurrenceId: row.occurrence_id, title: row.h_title, localDate: row.h_local_date, startTime: row.h_time, status: row.h_status },
    against: againstView(row),
    resolvedByUserId: row.resolved_by_user_id, resolvedAt: row.resolved_at?.toISOString() ?? null, note: row.note, createdAt: row.created_at.toISOString(),
  };
}

export async function listConflicts(db: Queryable, orgId: string, filter: { status: 'open' | 'resolved' | 'all'; roomId?: string; bookingId?: string; limit: number }) {
  const rows = await queryRows<ConflictJoined>(db, `${CONFLICT_SELECT}
    WHERE c.org_id = $1 AND ($2 = 'all' OR c.status = $2) AND ($3::uuid IS NULL OR c.room_id = $3) AND ($4::uuid IS NULL OR h.booking_id = $4 OR o.booking_id = $4)
    ORDER BY h.starts_at, c.created_at, c.id LIMIT $5`, [orgId, filter.status, filter.roomId ?? null, filter.bookingId ?? null, filter.limit + 1]);
  return { truncated: rows.length > filter.limit, conflicts: rows.slice(0, filter.limit).map(conflictView) };
}

async function requireConflict(db: Queryable, orgId: string, conflictId: string): Promise<ConflictJoined> {
  const row = await queryOne<ConflictJoined>(db, `${CONFLICT_SELECT} WHERE c.org_id = $1 AND c.id = $2`, [orgId, conflictId]);
  if (!row) throw notFound('Conflict', conflictId, 'spaces_list_conflicts lists the open conflicts.');
  return row;
}

/**
 * Who may resolve a conflict: a person (never an autonomous agent's own run) in the room's
 * approval group, or, for a room without one, a staff member or above.
 */
async function assertMayResolve(db: Queryable, orgId: string, roomId: string | null, principal: Principal): Promise<void> {
  if (principal.credentialKind === 'agent') {
    throw new StewardError('forbidden', 'A conflict is resolved by a person, not an agent', { hint: 'Leave it open for a facilities manager (spaces_list_conflicts).' });
  }
  const room = roomId ? await requireRoom(db, orgId, roomId, { includeArchived: true }) : null;
  const allowed = room && room.approver_user_ids.length > 0 ? room.approver_user_ids.includes(principal.userId) : STAFF_ROLES.includes(principal.role);
  if (!allowed) {
    throw new StewardError('forbidden', 'Only a member of the room\'s approval group may resolve its conflicts', { hint: 'spaces_list_rooms shows each room\'s approverUserIds.' });
  }
}

/**
 * A resource shortage is never settled by booking over stock: "both" is refused, and keeping the
 * held booking needs enough of the resource free now (something else was cancelled or cut down);
 * otherwise the refusal names the shortage and nothing changes. Locks its resources (after the room).
 */
async function assertShortageMayGo(db: Queryable, orgId: string, conflict: ConflictJoined, keep: 'booking' | 'other' | 'both'): Promise<void> {
  if (keep === 'both') {
    throw new StewardError('validation_failed', `${conflict.rs_name} cannot be shared: both bookings would take more than there is`, {
      hint: 'Keep the booking if enough is free now, or keep "other" to let the held occurrence give way.', issues: [{ path: 'keep', message: 'booking or other for a resource shortage' }],
    });
  }
  if (keep !== 'booking') return;
  const held = await queryOne<OccurrenceRow>(db, 'SELECT * FROM spaces_occurrences WHERE org_id = $1 AND id = $2', [orgId, conflict.occurrence_id]);
  const lines = ((await bookedResourceLines(db, orgId, [held!.booking_id])).get(held!.booking_id) ?? []).filter((line) => line.resourceId === conflict.resource_id);
  const [shortage] = await resourceShortages(db, orgId, lines, [windowOf(held!)], { occurrenceIds: [held!.id] });
  if (!shortage) return;
  throw new StewardError('conflict', `Only ${shortage.available} ${shortage.resource} free on ${shortage.localDate} at ${shortage.localStartTime}, and "${conflict.h_title}" needs ${shortage.wanted}; nothing was changed`, {
    hint: 'Free some first (cancel or change another booking that uses it; spaces_list_bookings finds them), or keep "other" to let the held occurrence give way.',
    details: { conflictId: conflict.id, shortage },
  });
}

/**
 * Resolves an open conflict: keep the booking (what it clashed with is cancelled, or for a
 * blockout, the booking goes ahead despite it), keep the other (the held occurrence is cancelled),
 * or share the room (both go ahead; only for two bookings).
 */
export async function resolveConflict(db: Queryable, orgId: string, principal: Principal, input: { conflictId: string; keep: 'booking' | 'other' | 'both'; note?: string }, now: Date) {
  await holdSpacesWriteLock(db, orgId);
  const conflict = await requireConflict(db, orgId, input.conflictId);
  await assertMayResolve(db, orgId, conflict.room_id, principal);
  if (conflict.status !== 'open') throw new StewardError('conflict', 'The conflict is resolved already', { hint: 'spaces_list_conflicts lists the open ones.' });
  if (conflict.room_id) await db.query('SELECT id FROM spaces_rooms WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, conflict.room_id]);
  if (input.keep === 'both' && conflict.blockout_id) throw new StewardError('validation_failed', 'A blockout cannot share the room', { hint: 'Keep the booking (it goes ahead despite the blockout) or the blockout.', issues: [{ path: 'keep', message: 'booking or other for a blockout' }] });
  if (conflict.resource_id) await assertShortageMayGo(db, orgId, conflict, input.keep);
  const resolution: ConflictResolution = input.keep === 'booking' ? 'booking_kept' : input.keep === 'other' ? 'other_kept' : 'shared';
  await db.query(`UPDATE spaces_conflicts SET status = 'resolved', resolution = $3, resolved_by_user_id = $4, resolved_at = $5, note = $6 WHERE org_id = $1 AND id = $2`,
    [orgId, conflict.id, resolution, principal.userId, now, input.note ?? null]);
  const changed: string[] = [];
  if (input.keep === 'other') {
    // The held (or, for a blockout, the live) occurrence gives way.
    await db.query(`UPDATE spaces_occurrences SET status = 'cancelled', detached = true, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, conflict.occurrence_id]);
    await withdrawConflictsOf(db, orgId, [conflict.occurrence_id], 'The occurrence gave way in another conflict');
    changed.push(conflict.occurrence_id);
  } else if (input.keep === 'booking') {
    if (conflict.other_occurrence_id) {
      await db.query(`UPDATE spaces_occurrences SET status = 'cancelled', detached = true, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, conflict.other_occurrence_id]);
      await withdrawConflictsOf(db, orgId, [conflict.other_occurrence_id], 'The occurrence gave way in another conflict');
      changed.push(conflict.other_occurrence_id);
    }
    if (conflict.h_status === 'held' && !(await reviveHeld(db, orgId, conflict.occurrence_id))) {
      const still = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM spaces_conflicts WHERE org_id = $1 AND occurrence_id = $2 AND status = 'open'`, [orgId, conflict.occurrence_id]);
      if (still!.n === 0) throw new StewardError('conflict', 'The booking cannot go ahead: the room is taken by something else at that time', { hint: 'spaces_list_conflicts shows what else clashes.' });
    }
  } else {
    await guardOverlap(() => db.query(`UPDATE spaces_occurrences o SET shared = true, status = CASE WHEN o.status = 'held' THEN (SELECT CASE WHEN b.status = 'approved' THEN 'approved' ELSE 'pending' END FROM spaces_bookings b WHERE b.id = o.booking_id) ELSE o.status END,
      updated_at = now() WHERE o.org_id = $1 AND o.id = $2 AND NOT EXISTS (SELECT 1 FROM spaces_conflicts c WHERE c.occurrence_id = o.id AND c.status = 'open')`, [orgId, conflict.occurrence_id]));
  }
  const released = await settleHeldAgainst(db, orgId, changed);
  return { conflict: conflictView(await requireConflict(db, orgId, conflict.id)), othersReleased: released };
}

// ---------------------------------------------------------------- blockouts

export interface BlockoutInput { roomId?: string; resourceId?: string; buildingId?: string; campusId?: string; from: string; to: string; timeZone?: string; reason: string }

/** A local date-time ("2026-12-24T09:00") in the zone, or an instant with an offset. */
function instantOf(value: string, zone: string, path: string): Date {
  const parsed = /[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? DateTime.fromISO(value) : DateTime.fromISO(value, { zone });
  if (!parsed.isValid) throw new StewardError('validation_failed', `\`${path}\` is not a date-time`, { issues: [{ path, message: 'expected YYYY-MM-DDTHH:MM' }] });
  return parsed.toUTC().toJSDate();
}

/**
 * Closes a room, a resource, a building or a whole campus for a window. Bookings already in that
 * window are not cancelled silently: each gets an open conflict against the blockout, for a person
 * to decide (keep the booking, or let the blockout win). Takes every affected room's lock.
 */
export async function createBlockout(db: Queryable, orgId: string, principal: Pick<Principal, 'userId'>, input: BlockoutInput) {
  await holdSpacesWriteLock(db, orgId);
  const targets = [input.roomId, input.resourceId, input.buildingId, input.campusId].filter(Boolean);
  if (targets.length !== 1) throw new StewardError('validation_failed', 'Name exactly one of roomId, resourceId, buildingId or campusId', { issues: [{ path: 'roomId', message: 'exactly one target' }] });
  const zone = input.timeZone ?? await organisationTimeZone(db, orgId);
  const startsAt = instantOf(input.from, zone, 'from');
  const endsAt = instantOf(input.to, zone, 'to');
  if (endsAt <= startsAt) throw new StewardError('validation_failed', '`to` must be after `from`', { issues: [{ path: 'to', message: 'after from' }] });
  if (input.roomId) await requireRoom(db, orgId, input.roomId);
  if (input.resourceId) await requireResource(db, orgId, input.resourceId);
  if (input.buildingId) await requireBuilding(db, orgId, input.buildingId);
  if (input.campusId) await requireCampus(db, orgId, input.campusId);
  const rooms = input.resourceId ? [] : (await queryRows<{ id: string }>(db, `SELECT r.id FROM spaces_rooms r JOIN spaces_buildings b ON b.id = r.building_id
    WHERE r.org_id = $1 AND r.archived_at IS NULL AND (r.id = $2 OR r.building_id = $3 OR b.campus_id = $4) ORDER BY r.id FOR UPDATE OF r`,
  [orgId, input.roomId ?? null, input.buildingId ?? null, input.campusId ?? null])).map((row) => row.id);
  const id = randomUUID();
  await db.query(`INSERT INTO spaces_blockouts (id, org_id, room_id, resource_id, building_id, campus_id, starts_at, ends_at, reason, created_by_user_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [id, orgId, input.roomId ?? null, input.resourceId ?? null, input.buildingId ?? null, input.campusId ?? null, startsAt, endsAt, input.reason, principal.userId]);
  const hit = await queryRows<{ id: string; room_id: string | null }>(db, `SELECT o.id, o.room_id FROM spaces_occurrences o
    LEFT JOIN spaces_booking_resources br ON br.booking_id = o.booking_id AND br.resource_id = $3
    WHERE o.org_id = $1 AND o.status IN ('pending', 'approved') AND o.busy_from < $5 AND o.busy_to > $4
      AND (o.room_id = ANY($2::uuid[]) OR br.id IS NOT NULL) ORDER BY o.starts_at`, [orgId, rooms, input.resourceId ?? null, startsAt, endsAt]);
  for (const occurrence of hit) {
    await db.query(`INSERT INTO spaces_conflicts (id, org_id, occurrence_id, blockout_id, room_id) VALUES ($1, $2, $3, $4, $5)`, [randomUUID(), orgId, occurrence.id, id, occurrence.room_id]);
  }
  return {
    blockout: { id, roomId: input.roomId ?? null, resourceId: input.resourceId ?? null, buildingId: input.buildingId ?? null, campusId: input.campusId ?? null, startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString(), reason: input.reason },
    roomsClosed: rooms.length, bookingsAffected: hit.length, conflictsOpened: hit.length,
  };
}

// ---------------------------------------------------------------- jobs

/**
 * Extends every live recurring booking's occurrences to the rolling horizon. A new occurrence is
 * checked as a direct booking is: its room (other bookings, blockouts) and what it takes of
 * countable resources. One that clashes, or would take more of a resource than is free, is held
 * with an open conflict for a person, never booked over. Idempotent (occurrences are keyed on
 * booking and original date, and an occurrence has one open shortage per resource at most).
 */
export async function materialiseBookings(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const organisations = input.orgId ? [input.orgId]
    : (await queryRows<{ org_id: string }>(pool, `SELECT DISTINCT org_id FROM spaces_bookings WHERE rrule IS NOT NULL AND status IN ('pending', 'approved') ORDER BY org_id`)).map((row) => row.org_id);
  const totals = { organisations: 0, bookings: 0, created: 0, held: 0, failed: 0 };
  let firstFailure: unknown = null;
  for (const orgId of organisations) {
    try {
      const run = await withTenantTransaction(pool, orgId, async (db) => materialiseForOrg(db, orgId, input.now));
      totals.organisations += 1;
      totals.bookings += run.bookings;
      totals.created += run.created;
      totals.held += run.held;
      totals.failed += run.failed;
      firstFailure ??= run.firstFailure;
    } catch (error) {
      firstFailure ??= error;
    }
  }
  // Whatever failed is retried by the next attempt; what went through is kept (and not redone: the job is idempotent).
  if (firstFailure) throw firstFailure;
  return totals;
}

interface OrgRun { bookings: number; created: number; held: number; failed: number; firstFailure: unknown }

/**
 * One organisation's run, in its transaction. The locks are taken first and in the order every
 * booking write takes them (the due bookings, then their rooms, then their resources, each by id),
 * so the run never deadlocks with a booking made or changed meanwhile. The booking made first is
 * extended first, so where two series first meet on a date, the earlier one keeps what it booked.
 * Each booking is extended under its own savepoint: one that fails is rolled back alone and the
 * others go through.
 */
async function materialiseForOrg(db: Queryable, orgId: string, now: Date): Promise<OrgRun> {
  const run: OrgRun = { bookings: 0, created: 0, held: 0, failed: 0, firstFailure: null };
  const horizon = horizonFrom(now);
  await holdSpacesWriteLock(db, orgId);
  const due = await queryRows<BookingRow>(db, `SELECT * FROM spaces_bookings WHERE org_id = $1 AND rrule IS NOT NULL AND status IN ('pending', 'approved')
    AND (materialised_until IS NULL OR materialised_until < $2) ORDER BY id FOR UPDATE`, [orgId, horizon]);
  if (due.length === 0) return run;
  const lines = await bookedResourceLines(db, orgId, due.map((booking) => booking.id));
  await lockInOrder(db, orgId, { roomIds: due.map((booking) => booking.room_id), resourceIds: [...lines.values()].flat().map((line) => line.resourceId) });
  const byAge = [...due].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
  for (const booking of byAge) {
    await db.query('SAVEPOINT spaces_materialise');
    try {
      const done = await materialiseBooking(db, orgId, booking, lines.get(booking.id) ?? [], now, horizon);
      await db.query('RELEASE SAVEPOINT spaces_materialise');
      run.bookings += 1;
      run.created += done.created;
      run.held += done.held;
    } catch (error) {
      await db.query('ROLLBACK TO SAVEPOINT spaces_materialise');
      run.failed += 1;
      run.firstFailure ??= error;
    }
  }
  return run;
}

/** Extends one booking to the horizon: its new occurrences checked, the clashing or short ones held with their conflicts. */
async function materialiseBooking(db: Queryable, orgId: string, booking: BookingRow, lines: readonly ResourceLine[], now: Date, horizon: Date): Promise<{ created: number; held: number }> {
  const room = booking.room_id ? await requireRoom(db, orgId, booking.room_id, { includeArchived: true, forUpdate: true }) : null;
  const from = booking.materialised_until && booking.materialised_until > now ? booking.materialised_until : now;
  const windows = planOccurrences(shapeOf(booking), from, horizon).filter((w) => w.startsAt > from);
  const clashes = clashesByWindow(room ? await roomClashes(db, orgId, room, windows, { bookingId: booking.id }) : []);
  const shortages = await shortagesByWindow(db, orgId, lines, windows, { bookingId: booking.id });
  const ids = await insertOccurrences(db, orgId, booking.id, room?.id ?? null, windows,
    windows.map((_, i) => (clashes.has(i) || shortages.has(i) ? 'held' : liveStatus(booking.status))), booking.layout);
  // Only occurrences this run created get conflicts: one there already (a rerun) keeps the ones it has.
  const created = <T>(byWindow: Map<number, T>) => [...byWindow.entries()].filter(([i]) => ids.has(i)).map(([i, value]) => ({ occurrenceId: ids.get(i)!, value }));
  const conflictsOpened = await openConflicts(db, orgId, room?.id ?? null, created(clashes).map(({ occurrenceId, value }) => ({ occurrenceId, clashes: value })))
    + await openShortageConflicts(db, orgId, room?.id ?? null, created(shortages).map(({ occurrenceId, value }) => ({ occurrenceId, shortages: value })));
  await db.query('UPDATE spaces_bookings SET materialised_until = $3 WHERE org_id = $1 AND id = $2', [orgId, booking.id, horizon]);
  const held = new Set([...created(clashes), ...created(shortages)].map((entry) => entry.occurrenceId)).size;
  // One event per booking that gained occurrences: the horizon moves every run, which alone is bookkeeping, not a change anyone asks about.
  if (ids.size > 0) {
    await recordJobChange(db, {
      orgId, channel: 'job:spaces.materialise_occurrences', module: 'spaces', noun: 'booking', verb: 'materialise', target: { type: 'booking', id: booking.id },
      fields: { materialisedUntil: horizon.toISOString(), occurrencesCreated: ids.size, occurrencesHeld: held, conflictsOpened },
      previous: { materialisedUntil: booking.materialised_until?.toISOString() ?? null },
    });
  }
  return { created: ids.size, held };
}

/**
 * The safety net behind the schedule module's `scheduleInstancesEnded` notice (releaseEndedInstances,
 * which frees rooms in the transaction that cancels or removes an instance): any live booking still
 * linked to a cancelled or missing instance is cancelled here, which frees its room and resources and
 * revives what it held back.
 */
export async function releaseCancelledInstances(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const organisations = input.orgId ? [input.orgId]
    : (await queryRows<{ org_id: string }>(pool, `SELECT DISTINCT b.org_id FROM spaces_bookings b WHERE b.schedule_instance_id IS NOT NULL AND b.status IN ('pending', 'approved') ORDER BY b.org_id`)).map((row) => row.org_id);
  const totals = { organisations: 0, released: 0 };
  let firstFailure: unknown = null;
  for (const orgId of organisations) {
    try {
      totals.released += await withTenantTransaction(pool, orgId, async (db) => releaseForOrg(db, orgId, input.now));
      totals.organisations += 1;
    } catch (error) {
      // One organisation's failure must not hold up every other's release; the run still fails (and is retried) at the end.
      firstFailure ??= error;
    }
  }
  if (firstFailure) throw firstFailure;
  return totals;
}

const RELEASE_REASON = { cancelled: 'The service instance was cancelled', removed: 'The service instance was removed from its series' } as const;

interface LinkedBooking { id: string; schedule_instance_id: string; status: string }

/** Live bookings linked to any of the instances that still have an occurrence to come. */
async function liveBookingsOf(db: Queryable, orgId: string, instanceIds: readonly string[] | null, now: Date) {
  return queryRows<LinkedBooking>(db, `SELECT DISTINCT b.id, b.schedule_instance_id, b.status FROM spaces_bookings b
    JOIN spaces_occurrences o ON o.booking_id = b.id AND o.ends_at > $2
    WHERE b.org_id = $1 AND b.schedule_instance_id IS NOT NULL AND b.status IN ('pending', 'approved')
      AND ($3::uuid[] IS NULL OR b.schedule_instance_id = ANY($3::uuid[]))
    ORDER BY b.id`, [orgId, now, instanceIds ? [...instanceIds] : null]);
}

/** Cancels one linked booking and records the release in the trail, in the same transaction. */
async function releaseBooking(db: Queryable, orgId: string, booking: LinkedBooking, cause: keyof typeof RELEASE_REASON, now: Date, channel: string): Promise<void> {
  const done = await cancelBooking(db, orgId, { bookingId: booking.id, scope: 'all', reason: RELEASE_REASON[cause] }, now);
  await recordJobChange(db, {
    orgId, channel, module: 'spaces', noun: 'booking', verb: 'release', target: { type: 'booking', id: booking.id },
    fields: { status: 'cancelled', cause, scheduleInstanceId: booking.schedule_instance_id, occurrencesCancelled: done.occurrencesCancelled, othersReleased: done.othersReleased },
    previous: { status: booking.status },
  });
}

/**
 * What spaces does when the schedule module cancels or removes instances (its `scheduleInstancesEnded`
 * extension point): every live booking linked to one is cancelled in the same transaction, so the room
 * is free the moment the cancellation commits. Answers how many bookings were released.
 */
export async function releaseEndedInstances(db: Queryable, orgId: string, ended: { instanceIds: readonly string[]; cause: 'cancelled' | 'removed'; now: Date }): Promise<number> {
  const linked = await liveBookingsOf(db, orgId, ended.instanceIds, ended.now);
  if (linked.length > 0) await holdSpacesWriteLock(db, orgId);
  for (const booking of linked) await releaseBooking(db, orgId, booking, ended.cause, ended.now, 'schedule.instances_ended');
  return linked.length;
}

export async function releaseForOrg(db: Queryable, orgId: string, now: Date): Promise<number> {
  const linked = await liveBookingsOf(db, orgId, null, now);
  if (linked.length > 0) await holdSpacesWriteLock(db, orgId);
  let released = 0;
  for (const booking of linked) {
    // Cancelled, or removed with its series (not found); any other failure is thrown, never taken as a cancellation.
    const cause = await getInstance(db, orgId, booking.schedule_instance_id).then((instance) => (instance.status === 'cancelled' ? 'cancelled' as const : null), (error: unknown) => {
      if (error instanceof StewardError && error.code === 'not_found') return 'removed' as const;
      throw error;
    });
    if (!cause) continue;
    await releaseBooking(db, orgId, booking, cause, now, 'job:spaces.release_cancelled_instances');
    released += 1;
  }
  return released;
}

