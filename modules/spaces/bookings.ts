import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import type { Principal } from '../../core/principal';
import { STAFF_ROLES } from '../../core/roles';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { holdSpacesWriteLock } from './write-lock';
import { notFound } from '../kit';
import { requireContact } from '../people/api';
import { canonicalTimeZone, getInstance, organisationTimeZone, parseRecurrenceRule } from '../schedule/api';
import {
  alternativesFor, clashesByWindow, describeClashes, guardOverlap, horizonFrom, insertOccurrences, liveStatus, openConflicts, planOccurrences,
  plannedAt, resourceShortages, roomClashes, settleHeldAgainst, shapeOf, withdrawConflictsOf,
  type BookingRow, type BookingShape, type Clash, type OccurrenceRow, type Planned, type ResourceLine, type Shortage,
} from './engine';
import type { BookingStatus, OccurrenceStatus } from './models';
import { requireResource, requireRoom, type RoomJoined } from './sites';

export type OnConflict = 'refuse' | 'hold';
export type SeriesScope = 'this' | 'this_and_following' | 'all';

export interface OccurrenceView {
  id: string; bookingId: string; roomId: string | null; localDate: string; startTime: string; endTime: string; startsAt: string; endsAt: string;
  busyFrom: string; busyTo: string; status: OccurrenceStatus; shared: boolean; detached: boolean; layout: string | null;
}

export interface BookingView {
  id: string; title: string; status: BookingStatus; roomId: string | null; room: string | null; timeZone: string; startDate: string; startTime: string;
  durationMinutes: number; rrule: string | null; fromDate: string | null; untilDate: string | null; setupMinutes: number; teardownMinutes: number;
  layout: string | null; expectedAttendance: number | null; scheduleInstanceId: string | null; hirerContactId: string | null; hirerOrganisation: string | null;
  notes: string | null; resources: Array<{ resourceId: string; name: string; quantity: number }>; requestedByUserId: string | null;
  decidedByUserId: string | null; decidedAt: string | null; decisionNote: string | null; splitFromBookingId: string | null; createdAt: string;
  upcoming: { occurrences: number; held: number; next: OccurrenceView[] }; openConflicts: number;
}

function endTimeOf(row: Pick<OccurrenceRow, 'ends_at'>, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(row.ends_at);
}

export function occurrenceView(row: OccurrenceRow, zone: string): OccurrenceView {
  return {
    id: row.id, bookingId: row.booking_id, roomId: row.room_id, localDate: row.local_date, startTime: row.local_start_time, endTime: endTimeOf(row, zone),
    startsAt: row.starts_at.toISOString(), endsAt: row.ends_at.toISOString(), busyFrom: row.busy_from.toISOString(), busyTo: row.busy_to.toISOString(),
    status: row.status, shared: row.shared, detached: row.detached, layout: row.layout,
  };
}

/** A booking of the organisation; with forUpdate, its row lock, after the organisation's spaces lock (holdSpacesWriteLock). */
export async function requireBooking(db: Queryable, orgId: string, bookingId: string, options: { forUpdate?: boolean } = {}): Promise<BookingRow> {
  if (options.forUpdate) await holdSpacesWriteLock(db, orgId);
  const row = await queryOne<BookingRow>(db, `SELECT * FROM spaces_bookings WHERE org_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, bookingId]);
  if (!row) throw notFound('Booking', bookingId, 'spaces_list_bookings lists the bookings there are.');
  return row;
}

export async function bookingView(db: Queryable, orgId: string, bookingId: string, now: Date): Promise<BookingView> {
  const row = await requireBooking(db, orgId, bookingId);
  const room = row.room_id ? await queryOne<{ name: string }>(db, 'SELECT name FROM spaces_rooms WHERE org_id = $1 AND id = $2', [orgId, row.room_id]) : undefined;
  const resources = await queryRows<{ resource_id: string; name: string; quantity: number }>(db, `SELECT br.resource_id, r.name, br.quantity FROM spaces_booking_resources br
    JOIN spaces_resources r ON r.id = br.resource_id WHERE br.org_id = $1 AND br.booking_id = $2 ORDER BY lower(r.name)`, [orgId, bookingId]);
  const counts = (await queryOne<{ n: number; held: number; conflicts: number }>(db, `SELECT count(*) FILTER (WHERE status IN ('pending', 'approved', 'held'))::int AS n,
    count(*) FILTER (WHERE status = 'held')::int AS held,
    (SELECT count(*)::int FROM spaces_conflicts c JOIN spaces_occurrences x ON x.id = c.occurrence_id WHERE c.org_id = $1 AND x.booking_id = $2 AND c.status = 'open') AS conflicts
    FROM spaces_occurrences WHERE org_id = $1 AND booking_id = $2 AND ends_at > $3`, [orgId, bookingId, now]))!;
  const next = await queryRows<OccurrenceRow>(db, `SELECT * FROM spaces_occurrences WHERE org_id = $1 AND booking_id = $2 AND ends_at > $3
    AND status IN ('pending', 'approved', 'held') ORDER BY starts_at LIMIT 5`, [orgId, bookingId, now]);
  return {
    id: row.id, title: row.title, status: row.status, roomId: row.room_id, room: room?.name ?? null, timeZone: row.time_zone, startDate: row.start_date,
    startTime: row.start_time, durationMinutes: row.duration_minutes, rrule: row.rrule, fromDate: row.from_date, untilDate: row.until_date,
    setupMinutes: row.setup_minutes, teardownMinutes: row.teardown_minutes, layout: row.layout, expectedAttendance: row.expected_attendance,
    scheduleInstanceId: row.schedule_instance_id, hirerContactId: row.hirer_contact_id, hirerOrganisation: row.hirer_organisation, notes: row.notes,
    resources: resources.map((r) => ({ resourceId: r.resource_id, name: r.name, quantity: r.quantity })), requestedByUserId: row.requested_by_user_id,
    decidedByUserId: row.decided_by_user_id, decidedAt: row.decided_at?.toISOString() ?? null, decisionNote: row.decision_note, splitFromBookingId: row.split_from_booking_id,
    createdAt: row.created_at.toISOString(), upcoming: { occurrences: counts.n, held: counts.held, next: next.map((o) => occurrenceView(o, row.time_zone)) }, openConflicts: counts.conflicts,
  };
}

/** A requester in the room's approval group (or any requester, for a room without one) is approved; anyone else waits as pending. */
export function statusFor(room: Pick<RoomJoined, 'approver_user_ids'> | null, userId: string): BookingStatus {
  if (!room || room.approver_user_ids.length === 0) return 'approved';
  return room.approver_user_ids.includes(userId) ? 'approved' : 'pending';
}

function refuseClashes(room: RoomJoined | null, windows: readonly Planned[], clashes: readonly Clash[], shortages: readonly Shortage[], alternatives: unknown): never {
  const clashing = new Set(clashes.map((clash) => clash.index)).size;
  const parts: string[] = [];
  if (clashing > 0) parts.push(`${room?.name ?? 'The room'} is taken at ${clashing} of ${windows.length} time${windows.length === 1 ? '' : 's'} asked for`);
  if (shortages.length > 0) parts.push(`${shortages[0].resource} has only ${shortages[0].available} free on ${shortages[0].localDate} (${shortages[0].wanted} asked for)`);
  throw new StewardError('conflict', `${parts.join('; ')}; nothing was booked`, {
    hint: clashing > 0
      ? 'Book one of the free alternatives, or pass onConflict "hold" to book the free times and hold the clashing ones for a person to resolve (spaces_list_conflicts, spaces_resolve_conflict).'
      : 'Ask for fewer, or free some up first (spaces_list_bookings).',
    details: { clashingTimes: clashing, conflicts: describeClashes(clashes, windows), shortages: shortages.slice(0, 25), alternatives },
  });
}

export interface CreateBookingInput {
  title: string; roomId?: string; resources?: ResourceLine[]; localDate?: string; startTime?: string; durationMinutes?: number; rrule?: string;
  timeZone?: string; setupMinutes?: number; teardownMinutes?: number; layout?: string; expectedAttendance?: number; scheduleInstanceId?: string;
  hirerContactId?: string; hirerOrganisation?: string; notes?: string; onConflict: OnConflict;
}

function validation(path: string, message: string, hint?: string): StewardError {
  return new StewardError('validation_failed', message, { ...(hint ? { hint } : {}), issues: [{ path, message }] });
}

function assertFits(room: RoomJoined | null, expected: number | null | undefined, layout: string | null | undefined): void {
  if (!room) return;
  if (layout && !room.layouts.some((l) => l.name.toLowerCase() === layout.toLowerCase())) {
    throw validation('layout', `${room.name} has no layout "${layout}"`, room.layouts.length ? `Its layouts: ${room.layouts.map((l) => l.name).join(', ')}.` : 'The room has no layouts; leave layout out or add one with spaces_update_room.');
  }
  const seats = layout ? room.layouts.find((l) => l.name.toLowerCase() === layout.toLowerCase())?.capacity ?? room.capacity : room.capacity;
  if (expected != null && expected > seats) {
    throw validation('expectedAttendance', `${room.name}${layout ? ` laid out as ${layout}` : ''} holds ${seats}, fewer than the ${expected} expected`, 'spaces_search_availability finds rooms with the capacity needed.');
  }
}

async function resourceLinesOf(db: Queryable, orgId: string, lines: readonly ResourceLine[]): Promise<ResourceLine[]> {
  const seen = new Set<string>();
  for (const [index, line] of lines.entries()) {
    if (seen.has(line.resourceId)) throw validation(`resources.${index}.resourceId`, 'A resource is listed twice');
    seen.add(line.resourceId);
    const resource = await requireResource(db, orgId, line.resourceId);
    if (line.quantity > resource.quantity) throw validation(`resources.${index}.quantity`, `There are only ${resource.quantity} ${resource.name}`);
  }
  return [...lines];
}

/**
 * Books a room and/or resources once or on a rule. Every occurrence in the rolling window is
 * checked under the room's and resources' locks; a clash refuses the whole booking with the clashes
 * and free alternatives, unless onConflict is "hold": then the free occurrences are booked and the
 * clashing ones held, each with an open conflict for a person to resolve. Resource shortages always refuse.
 */
export async function createBooking(db: Queryable, orgId: string, principal: Pick<Principal, 'userId'>, input: CreateBookingInput, now: Date) {
  await holdSpacesWriteLock(db, orgId);
  if (!input.roomId && !(input.resources?.length)) throw validation('roomId', 'A booking needs a room or at least one resource', 'Name roomId, resources, or both.');
  let localDate = input.localDate;
  let startTime = input.startTime;
  let duration = input.durationMinutes;
  let zone = input.timeZone ? canonicalTimeZone(input.timeZone) : await organisationTimeZone(db, orgId);
  if (input.scheduleInstanceId) {
    if (input.rrule) throw validation('rrule', 'A booking for one service instance happens once', 'Leave rrule out, or book the series without scheduleInstanceId.');
    const instance = await getInstance(db, orgId, input.scheduleInstanceId);
    if (instance.status === 'cancelled') throw new StewardError('conflict', 'The service instance is cancelled', { hint: 'Book for a scheduled instance (schedule_list_upcoming_instances).' });
    localDate ??= instance.localDate;
    startTime ??= instance.localStartTime;
    duration ??= Math.round((Date.parse(instance.endsAt) - Date.parse(instance.startsAt)) / 60_000);
    if (!input.timeZone) zone = instance.timeZone;
  }
  if (!localDate) throw validation('localDate', 'When does it start? Give localDate (or scheduleInstanceId)');
  if (!startTime) throw validation('startTime', 'Give startTime as HH:MM (or scheduleInstanceId)');
  if (!duration) throw validation('durationMinutes', 'Give durationMinutes (or scheduleInstanceId)');
  const rrule = input.rrule ? parseRecurrenceRule(input.rrule, zone).text : null;
  if (input.hirerContactId) await requireContact(db, orgId, input.hirerContactId);

  const room = input.roomId ? await requireRoom(db, orgId, input.roomId, { forUpdate: true }) : null;
  assertFits(room, input.expectedAttendance, input.layout);
  const lines = await resourceLinesOf(db, orgId, input.resources ?? []);
  const shape: BookingShape = {
    startDate: localDate, startTime, durationMinutes: duration, rrule, timeZone: zone, fromDate: null, untilDate: null,
    setupMinutes: input.setupMinutes ?? room?.default_setup_minutes ?? 0, teardownMinutes: input.teardownMinutes ?? room?.default_teardown_minutes ?? 0,
  };
  const first = plannedAt(shape, localDate, localDate, startTime);
  if (!rrule && first.startsAt <= now) throw validation('localDate', 'That time has passed', 'Book a time in the future.');
  const windows = planOccurrences(shape, now, horizonFrom(now));
  if (windows.length === 0) throw validation('rrule', 'The rule gives no occurrence in the coming year', 'Check the rule, its start date and any UNTIL or COUNT.');

  const clashes = room ? await roomClashes(db, orgId, room, windows) : [];
  const shortages = await resourceShortages(db, orgId, lines, windows);
  if (shortages.length > 0 || (clashes.length > 0 && input.onConflict === 'refuse')) {
    const alternatives = clashes.length > 0 ? await alternativesFor(db, orgId, { room, windows: windows.filter((_, i) => clashes.some((c) => c.index === i)), shape, minCapacity: input.expectedAttendance ?? 0, exclude: {} }) : { rooms: [], times: [] };
    refuseClashes(room, windows, clashes, shortages, alternatives);
  }

  const status = statusFor(room, principal.userId);
  const id = randomUUID();
  await db.query(`INSERT INTO spaces_bookings (id, org_id, room_id, title, status, time_zone, start_date, start_time, duration_minutes, rrule, setup_minutes, teardown_minutes,
      layout, expected_attendance, schedule_instance_id, hirer_contact_id, hirer_organisation, notes, requested_by_user_id, decided_by_user_id, decided_at, materialised_until)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
  [id, orgId, room?.id ?? null, input.title, status, zone, localDate, startTime, duration, rrule, shape.setupMinutes, shape.teardownMinutes,
    input.layout ?? null, input.expectedAttendance ?? null, input.scheduleInstanceId ?? null, input.hirerContactId ?? null, input.hirerOrganisation ?? null,
    input.notes ?? null, principal.userId, status === 'approved' ? principal.userId : null, status === 'approved' ? now : null, horizonFrom(now)]);
  for (const line of lines) {
    await db.query('INSERT INTO spaces_booking_resources (id, org_id, booking_id, resource_id, quantity) VALUES ($1, $2, $3, $4, $5)', [randomUUID(), orgId, id, line.resourceId, line.quantity]);
  }
  const byWindow = clashesByWindow(clashes);
  const ids = await insertOccurrences(db, orgId, id, room?.id ?? null, windows, windows.map((_, i) => (byWindow.has(i) ? 'held' : liveStatus(status))), input.layout ?? null);
  const conflicts = await openConflicts(db, orgId, room?.id ?? null, [...byWindow.entries()].map(([index, list]) => ({ occurrenceId: ids.get(index)!, clashes: list })));
  return { booking: await bookingView(db, orgId, id, now), occurrencesBooked: windows.length - byWindow.size, occurrencesHeld: byWindow.size, conflictsOpened: conflicts };
}

export interface BookingChanges {
  title?: string; roomId?: string; localDate?: string; startTime?: string; durationMinutes?: number; rrule?: string; setupMinutes?: number;
  teardownMinutes?: number; layout?: string | null; expectedAttendance?: number | null; notes?: string | null;
}

async function requireOccurrence(db: Queryable, orgId: string, bookingId: string, occurrenceId: string): Promise<OccurrenceRow> {
  const row = await queryOne<OccurrenceRow>(db, 'SELECT * FROM spaces_occurrences WHERE org_id = $1 AND id = $2 AND booking_id = $3', [orgId, occurrenceId, bookingId]);
  if (!row) throw notFound('Occurrence', occurrenceId, 'spaces_list_bookings and spaces_get_room_schedule list occurrences with their ids.');
  return row;
}

function assertEditable(booking: BookingRow): void {
  if (booking.status === 'rejected' || booking.status === 'cancelled') {
    throw new StewardError('conflict', `The booking is ${booking.status}`, { hint: 'Make a new booking instead (spaces_create_booking).' });
  }
}

/**
 * Changes one occurrence, this and every following one (the series is split there), or all of a
 * series. Every future occurrence the change touches is checked again, against other bookings and
 * blockouts: a clash refuses the change (with alternatives) unless onConflict is "hold".
 */
export async function updateBooking(db: Queryable, orgId: string, principal: Pick<Principal, 'userId'>, input: {
  bookingId: string; scope: SeriesScope; occurrenceId?: string; changes: BookingChanges; onConflict: OnConflict;
}, now: Date) {
  const booking = await requireBooking(db, orgId, input.bookingId, { forUpdate: true });
  assertEditable(booking);
  const changes = input.changes;
  if (Object.keys(changes).length === 0) throw validation('changes', 'Nothing to change');
  const scope: SeriesScope = booking.rrule ? input.scope : 'all';
  if (scope !== 'all' && !input.occurrenceId) throw validation('occurrenceId', `scope "${scope}" needs the occurrence it starts from`);
  if (scope !== 'this' && changes.localDate && booking.rrule) throw validation('changes.localDate', 'A series\' dates come from its rule', 'Change one occurrence\'s date with scope "this", or change the rule.');
  if (scope === 'this' && changes.rrule) throw validation('changes.rrule', 'One occurrence has no rule', 'Use scope "this_and_following" or "all" to change the rule.');
  if (!booking.rrule && changes.rrule) throw validation('changes.rrule', 'A one-off booking has no rule to change', 'Cancel it and book a recurring one.');

  if (scope === 'this') return updateOne(db, orgId, booking, await requireOccurrence(db, orgId, booking.id, input.occurrenceId!), changes, input.onConflict, principal, now);
  let target = booking;
  if (scope === 'this_and_following') {
    const from = await requireOccurrence(db, orgId, booking.id, input.occurrenceId!);
    if (from.starts_at <= now) throw new StewardError('conflict', 'That occurrence has started', { hint: 'Start the change from a later occurrence.' });
    const earlier = await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM spaces_occurrences WHERE org_id = $1 AND booking_id = $2 AND original_local_date < $3',
      [orgId, booking.id, from.original_local_date]);
    if (earlier!.n > 0) target = await splitAt(db, orgId, booking, from.original_local_date, changes);
  }
  return updateSeries(db, orgId, target, changes, input.onConflict, principal, now, booking.id);
}

/** Ends a series before a local date and starts a copy there, which takes the occurrences from that date on (their ids and conflicts kept). */
async function splitAt(db: Queryable, orgId: string, booking: BookingRow, localDate: string, changes: BookingChanges): Promise<BookingRow> {
  const id = randomUUID();
  const newRule = changes.rrule !== undefined;
  await db.query(`INSERT INTO spaces_bookings (id, org_id, room_id, title, status, time_zone, start_date, start_time, duration_minutes, rrule, from_date, until_date,
      setup_minutes, teardown_minutes, layout, expected_attendance, schedule_instance_id, hirer_contact_id, hirer_organisation, notes, requested_by_user_id,
      decided_by_user_id, decided_at, decision_note, split_from_booking_id, materialised_until)
    SELECT $3, org_id, room_id, title, status, time_zone, CASE WHEN $5 THEN $4::date ELSE start_date END, start_time, duration_minutes, rrule, CASE WHEN $5 THEN NULL ELSE $4::date END, until_date,
      setup_minutes, teardown_minutes, layout, expected_attendance, schedule_instance_id, hirer_contact_id, hirer_organisation, notes, requested_by_user_id,
      decided_by_user_id, decided_at, decision_note, id, materialised_until
    FROM spaces_bookings WHERE org_id = $1 AND id = $2`, [orgId, booking.id, id, localDate, newRule]);
  await db.query(`INSERT INTO spaces_booking_resources (id, org_id, booking_id, resource_id, quantity)
    SELECT gen_random_uuid(), org_id, $3, resource_id, quantity FROM spaces_booking_resources WHERE org_id = $1 AND booking_id = $2`, [orgId, booking.id, id]);
  await db.query('UPDATE spaces_occurrences SET booking_id = $3, updated_at = now() WHERE org_id = $1 AND booking_id = $2 AND original_local_date >= $4', [orgId, booking.id, id, localDate]);
  await db.query('UPDATE spaces_bookings SET until_date = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, booking.id, localDate]);
  return requireBooking(db, orgId, id, { forUpdate: true });
}

async function updateSeries(db: Queryable, orgId: string, booking: BookingRow, changes: BookingChanges, onConflict: OnConflict, principal: Pick<Principal, 'userId'>, now: Date, originalId: string) {
  const roomId = changes.roomId ?? booking.room_id;
  const room = roomId ? await requireRoom(db, orgId, roomId, { forUpdate: true }) : null;
  const layout = changes.layout === undefined ? booking.layout : changes.layout;
  const expected = changes.expectedAttendance === undefined ? booking.expected_attendance : changes.expectedAttendance;
  assertFits(room, expected, layout);
  const shape: BookingShape = {
    ...shapeOf(booking),
    startDate: changes.localDate ?? booking.start_date, startTime: changes.startTime ?? booking.start_time, durationMinutes: changes.durationMinutes ?? booking.duration_minutes,
    rrule: changes.rrule !== undefined ? parseRecurrenceRule(changes.rrule, booking.time_zone).text : booking.rrule,
    setupMinutes: changes.setupMinutes ?? booking.setup_minutes, teardownMinutes: changes.teardownMinutes ?? booking.teardown_minutes,
  };
  if (!shape.rrule && plannedAt(shape, shape.startDate, shape.startDate, shape.startTime).startsAt <= now) throw validation('changes.startTime', 'That time has passed');
  const windows = planOccurrences(shape, now, horizonFrom(now));
  // A room change makes the booking pending again unless the requester approves for the new room.
  const status: BookingStatus = room && room.id !== booking.room_id ? (statusFor(room, principal.userId) === 'approved' ? 'approved' : 'pending') : booking.status;
  const existing = await queryRows<OccurrenceRow>(db, `SELECT * FROM spaces_occurrences WHERE org_id = $1 AND booking_id = $2 AND NOT detached AND starts_at > $3
    AND status IN ('pending', 'approved', 'held')`, [orgId, booking.id, now]);
  const lines = (await queryRows<{ resource_id: string; quantity: number }>(db, 'SELECT resource_id, quantity FROM spaces_booking_resources WHERE org_id = $1 AND booking_id = $2', [orgId, booking.id]))
    .map((line) => ({ resourceId: line.resource_id, quantity: line.quantity }));
  const clashes = room ? await roomClashes(db, orgId, room, windows, { bookingId: booking.id }) : [];
  const shortages = await resourceShortages(db, orgId, lines, windows, { bookingId: booking.id });
  if (shortages.length > 0 || (clashes.length > 0 && onConflict === 'refuse')) {
    const alternatives = clashes.length > 0 ? await alternativesFor(db, orgId, { room, windows: windows.filter((_, i) => clashes.some((c) => c.index === i)), shape, minCapacity: expected ?? 0, exclude: { bookingId: booking.id } }) : { rooms: [], times: [] };
    refuseClashes(room, windows, clashes, shortages, alternatives);
  }
  await db.query(`UPDATE spaces_bookings SET title = $3, room_id = $4, start_date = $5, start_time = $6, duration_minutes = $7, rrule = $8, setup_minutes = $9, teardown_minutes = $10,
    layout = $11, expected_attendance = $12, notes = $13, status = $14, materialised_until = $15, updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, booking.id, changes.title ?? booking.title, room?.id ?? null, shape.startDate, shape.startTime, shape.durationMinutes, shape.rrule, shape.setupMinutes, shape.teardownMinutes,
    layout, expected, changes.notes === undefined ? booking.notes : changes.notes, status, horizonFrom(now)]);

  const byWindow = clashesByWindow(clashes);
  await withdrawConflictsOf(db, orgId, existing.map((o) => o.id), 'The booking was changed and checked again');
  const keyed = new Map(existing.map((o) => [o.original_local_date, o]));
  const planned = new Set(windows.map((w) => w.originalLocalDate));
  const dropped = existing.filter((o) => !planned.has(o.original_local_date));
  if (dropped.length > 0) await db.query('DELETE FROM spaces_occurrences WHERE org_id = $1 AND id = ANY($2::uuid[])', [orgId, dropped.map((o) => o.id)]);
  const fresh: number[] = [];
  const heldIds: Array<{ occurrenceId: string; clashes: Clash[] }> = [];
  // Park the re-planned occurrences first, so moving one never trips the constraint on a sibling not moved yet.
  if (existing.length > 0) await db.query(`UPDATE spaces_occurrences SET status = 'held' WHERE org_id = $1 AND id = ANY($2::uuid[])`, [orgId, existing.map((o) => o.id)]);
  for (const [index, window] of windows.entries()) {
    const row = keyed.get(window.originalLocalDate);
    if (!row) { fresh.push(index); continue; }
    const clashing = byWindow.get(index);
    await guardOverlap(() => db.query(`UPDATE spaces_occurrences SET room_id = $3, local_date = $4, local_start_time = $5, starts_at = $6, ends_at = $7, busy_from = $8, busy_to = $9,
      status = $10, shared = false, layout = $11, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, row.id, room?.id ?? null, window.localDate, window.localStartTime, window.startsAt, window.endsAt, window.busyFrom, window.busyTo, clashing ? 'held' : liveStatus(status), layout]));
    if (clashing) heldIds.push({ occurrenceId: row.id, clashes: clashing });
  }
  const ids = await insertOccurrences(db, orgId, booking.id, room?.id ?? null, fresh.map((i) => windows[i]), fresh.map((i) => (byWindow.has(i) ? 'held' : liveStatus(status))), layout);
  fresh.forEach((windowIndex, position) => {
    const clashing = byWindow.get(windowIndex);
    const id = ids.get(position);
    if (clashing && id) heldIds.push({ occurrenceId: id, clashes: clashing });
  });
  const conflicts = await openConflicts(db, orgId, room?.id ?? null, heldIds);
  const released = await settleHeldAgainst(db, orgId, [...existing, ...dropped].map((o) => o.id));
  return {
    booking: await bookingView(db, orgId, booking.id, now), splitFromBookingId: booking.id === originalId ? null : originalId,
    occurrencesChecked: windows.length, occurrencesHeld: byWindow.size, conflictsOpened: conflicts, othersReleased: released,
  };
}

async function updateOne(db: Queryable, orgId: string, booking: BookingRow, occurrence: OccurrenceRow, changes: BookingChanges, onConflict: OnConflict, principal: Pick<Principal, 'userId'>, now: Date) {
  if (occurrence.starts_at <= now) throw new StewardError('conflict', 'That occurrence has started', { hint: 'Only occurrences still to come can be changed.' });
  if (occurrence.status === 'cancelled' || occurrence.status === 'rejected') throw new StewardError('conflict', `That occurrence is ${occurrence.status}`);
  const forbidden = (['title', 'expectedAttendance', 'notes'] as const).find((key) => changes[key] !== undefined);
  if (forbidden) throw validation(`changes.${forbidden}`, `${forbidden} belongs to the whole booking`, 'Use scope "all" (or "this_and_following") for it.');
  const roomId = changes.roomId ?? occurrence.room_id;
  const room = roomId ? await requireRoom(db, orgId, roomId, { forUpdate: true }) : null;
  const layout = changes.layout === undefined ? occurrence.layout : changes.layout;
  assertFits(room, booking.expected_attendance, layout);
  const shape: BookingShape = {
    ...shapeOf(booking), durationMinutes: changes.durationMinutes ?? Math.round((occurrence.ends_at.getTime() - occurrence.starts_at.getTime()) / 60_000),
    setupMinutes: changes.setupMinutes ?? Math.round((occurrence.starts_at.getTime() - occurrence.busy_from.getTime()) / 60_000),
    teardownMinutes: changes.teardownMinutes ?? Math.round((occurrence.busy_to.getTime() - occurrence.ends_at.getTime()) / 60_000),
  };
  const window = plannedAt(shape, occurrence.original_local_date, changes.localDate ?? occurrence.local_date, changes.startTime ?? occurrence.local_start_time);
  if (window.startsAt <= now) throw validation('changes.startTime', 'That time has passed');
  const clashes = room ? await roomClashes(db, orgId, room, [window], { occurrenceIds: [occurrence.id] }) : [];
  const lines = (await queryRows<{ resource_id: string; quantity: number }>(db, 'SELECT resource_id, quantity FROM spaces_booking_resources WHERE org_id = $1 AND booking_id = $2', [orgId, booking.id]))
    .map((line) => ({ resourceId: line.resource_id, quantity: line.quantity }));
  const shortages = await resourceShortages(db, orgId, lines, [window], { occurrenceIds: [occurrence.id] });
  if (shortages.length > 0 || (clashes.length > 0 && onConflict === 'refuse')) {
    refuseClashes(room, [window], clashes, shortages, clashes.length > 0 ? await alternativesFor(db, orgId, { room, windows: [window], shape, minCapacity: booking.expected_attendance ?? 0, exclude: { occurrenceIds: [occurrence.id] } }) : { rooms: [], times: [] });
  }
  const roomChanged = (room?.id ?? null) !== booking.room_id;
  const live = roomChanged && room && statusFor(room, principal.userId) === 'pending' ? 'pending' : liveStatus(booking.status);
  await withdrawConflictsOf(db, orgId, [occurrence.id], 'The occurrence was changed and checked again');
  await guardOverlap(() => db.query(`UPDATE spaces_occurrences SET room_id = $3, local_date = $4, local_start_time = $5, starts_at = $6, ends_at = $7, busy_from = $8, busy_to = $9,
    status = $10, shared = false, detached = true, layout = $11, updated_at = now() WHERE org_id = $1 AND id = $2`,
  [orgId, occurrence.id, room?.id ?? null, window.localDate, window.localStartTime, window.startsAt, window.endsAt, window.busyFrom, window.busyTo, clashes.length ? 'held' : live, layout]));
  const conflicts = await openConflicts(db, orgId, room?.id ?? null, clashes.length ? [{ occurrenceId: occurrence.id, clashes }] : []);
  const released = await settleHeldAgainst(db, orgId, [occurrence.id]);
  return {
    booking: await bookingView(db, orgId, booking.id, now), splitFromBookingId: null, occurrencesChecked: 1, occurrencesHeld: clashes.length ? 1 : 0,
    conflictsOpened: conflicts, othersReleased: released,
  };
}

/** Cancels one occurrence, this and the following ones, or the whole booking; what they held back is released. */
export async function cancelBooking(db: Queryable, orgId: string, input: { bookingId: string; scope: SeriesScope; occurrenceId?: string; reason?: string }, now: Date) {
  const booking = await requireBooking(db, orgId, input.bookingId, { forUpdate: true });
  if (booking.status === 'cancelled' || booking.status === 'rejected') throw new StewardError('conflict', `The booking is ${booking.status} already`);
  const scope: SeriesScope = booking.rrule ? input.scope : 'all';
  if (scope !== 'all' && !input.occurrenceId) throw validation('occurrenceId', `scope "${scope}" needs the occurrence`);
  const from = scope === 'all' ? null : await requireOccurrence(db, orgId, booking.id, input.occurrenceId!);
  if (from && from.starts_at <= now) throw new StewardError('conflict', 'That occurrence has started', { hint: 'Cancel a later occurrence.' });
  const rows = await queryRows<{ id: string }>(db, `UPDATE spaces_occurrences SET status = 'cancelled', detached = detached OR $5, updated_at = now()
    WHERE org_id = $1 AND booking_id = $2 AND ends_at > $3 AND status IN ('pending', 'approved', 'held')
      AND ($4::uuid IS NULL OR ($5 AND id = $4) OR (NOT $5 AND original_local_date >= (SELECT original_local_date FROM spaces_occurrences WHERE id = $4)))
    RETURNING id`, [orgId, booking.id, now, from?.id ?? null, scope === 'this']);
  if (scope === 'all') {
    await db.query(`UPDATE spaces_bookings SET status = 'cancelled', decision_note = COALESCE($3, decision_note), updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, booking.id, input.reason ?? null]);
  } else if (scope === 'this_and_following') {
    await db.query('UPDATE spaces_bookings SET until_date = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, booking.id, from!.original_local_date]);
  }
  const ids = rows.map((row) => row.id);
  await withdrawConflictsOf(db, orgId, ids, 'The booking was cancelled');
  const released = await settleHeldAgainst(db, orgId, ids);
  return { booking: await bookingView(db, orgId, booking.id, now), occurrencesCancelled: ids.length, othersReleased: released };
}

/**
 * Who decides a pending booking: a member of its room's approval group; for a room whose group was
 * emptied since (nobody else could ever decide it), staff and above.
 */
async function assertApprover(db: Queryable, orgId: string, booking: BookingRow, principal: Pick<Principal, 'userId' | 'role'>): Promise<void> {
  const room = booking.room_id ? await requireRoom(db, orgId, booking.room_id, { includeArchived: true }) : null;
  const allowed = room && (room.approver_user_ids.length > 0 ? room.approver_user_ids.includes(principal.userId) : STAFF_ROLES.includes(principal.role));
  if (!allowed) {
    throw new StewardError('forbidden', 'Only a member of the room\'s approval group may decide this booking', {
      hint: room ? 'spaces_list_rooms shows each room\'s approverUserIds; ask one of them.' : 'A booking without a room needs no approval.',
    });
  }
}

/** Approves or rejects a pending booking; only a member of its room's approval group decides. A rejected booking blocks nothing. */
export async function decideBooking(db: Queryable, orgId: string, principal: Pick<Principal, 'userId' | 'role'>, input: { bookingId: string; decision: 'approved' | 'rejected'; note?: string }, now: Date) {
  const booking = await requireBooking(db, orgId, input.bookingId, { forUpdate: true });
  await assertApprover(db, orgId, booking, principal);
  if (booking.status !== 'pending') {
    throw new StewardError('conflict', `The booking is ${booking.status}, not pending`, { hint: booking.status === 'approved' ? 'To take it back, cancel it (spaces_cancel_booking).' : 'Make a new booking instead.' });
  }
  await db.query(`UPDATE spaces_bookings SET status = $3, decided_by_user_id = $4, decided_at = $5, decision_note = $6, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, booking.id, input.decision, principal.userId, now, input.note ?? null]);
  let released = 0;
  if (input.decision === 'approved') {
    await db.query(`UPDATE spaces_occurrences SET status = 'approved', updated_at = now() WHERE org_id = $1 AND booking_id = $2 AND status = 'pending'`, [orgId, booking.id]);
  } else {
    const rows = await queryRows<{ id: string }>(db, `UPDATE spaces_occurrences SET status = 'rejected', updated_at = now() WHERE org_id = $1 AND booking_id = $2 AND status IN ('pending', 'held') RETURNING id`,
      [orgId, booking.id]);
    await withdrawConflictsOf(db, orgId, rows.map((r) => r.id), 'The booking was rejected');
    released = await settleHeldAgainst(db, orgId, rows.map((r) => r.id));
  }
  return { booking: await bookingView(db, orgId, booking.id, now), othersReleased: released };
}

/** Occurrences in [from, to) with their bookings, earliest first (at most `limit`). */
export async function listOccurrences(db: Queryable, orgId: string, filter: {
  from: Date; to: Date; roomId?: string; bookingId?: string; statuses?: readonly OccurrenceStatus[]; scheduleInstanceId?: string; hirerContactId?: string; limit: number;
}) {
  const rows = await queryRows<OccurrenceRow & { title: string; booking_status: BookingStatus; time_zone: string; room: string | null; expected_attendance: number | null; schedule_instance_id: string | null; hirer_contact_id: string | null; recurring: boolean }>(db, `
    SELECT o.*, b.title, b.status AS booking_status, b.time_zone, r.name AS room, b.expected_attendance, b.schedule_instance_id, b.hirer_contact_id, b.rrule IS NOT NULL AS recurring
      FROM spaces_occurrences o JOIN spaces_bookings b ON b.id = o.booking_id LEFT JOIN spaces_rooms r ON r.id = o.room_id
     WHERE o.org_id = $1 AND o.starts_at < $3 AND o.ends_at > $2 AND ($4::uuid IS NULL OR o.room_id = $4) AND ($5::uuid IS NULL OR o.booking_id = $5)
       AND o.status = ANY($6::text[]) AND ($7::uuid IS NULL OR b.schedule_instance_id = $7) AND ($8::uuid IS NULL OR b.hirer_contact_id = $8)
     ORDER BY o.starts_at, o.id LIMIT $9`,
  [orgId, filter.from, filter.to, filter.roomId ?? null, filter.bookingId ?? null, [...(filter.statuses ?? ['pending', 'approved', 'held'])], filter.scheduleInstanceId ?? null, filter.hirerContactId ?? null, filter.limit + 1]);
  return {
    truncated: rows.length > filter.limit,
    occurrences: rows.slice(0, filter.limit).map((row) => ({
      ...occurrenceView(row, row.time_zone), title: row.title, bookingStatus: row.booking_status, room: row.room, expectedAttendance: row.expected_attendance,
      scheduleInstanceId: row.schedule_instance_id, hirerContactId: row.hirer_contact_id, recurring: row.recurring,
    })),
  };
}

