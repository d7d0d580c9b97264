import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { expandRecurrence, localToUtc } from '../schedule/api';
import type { RowOf } from '../kit';
import type { Booking, BookingStatus, Occurrence, OccurrenceStatus } from './models';
import { listRooms, type RoomJoined } from './sites';
import { holdSpacesWriteLock } from './write-lock';

/**
 * The booking engine: a booking's occurrences planned from its rule in its zone, the clash checks
 * (rooms, blockouts, countable resources) and the materialised occurrences with their busy windows.
 *
 * Concurrency: every write that can lock a room, a resource or a booking first takes its
 * organisation's spaces lock (holdSpacesWriteLock), so the spaces writes of one organisation run one
 * after another and never wait for each other in a cycle over these rows; the schedule module's writes
 * take it before their instance rows (README, "One organisation's writes queue"). Row locks alone
 * could not promise that:
 * releasing what a change freed revives held occurrences in other rooms and takes more resources
 * after the first ones, so a cancellation could hold a resource while waiting for a room that a new
 * booking held while waiting for that resource. The rooms' and resources' row locks (`FOR UPDATE`,
 * READ COMMITTED) are still taken, rooms then resources, each by id where many are taken at once
 * (lockInOrder), and the exclusion constraint on occurrences (see the migration) refuses an overlap
 * in Postgres itself whatever the code above it does.
 */

/** How far ahead a recurring booking's occurrences are materialised (and checked). */
export const HORIZON_DAYS = 365;
/**
 * The longest busy window there can be (a day, plus a day of set-up and one of clear-up; the table
 * checks it). Clash searches look for busy windows starting after a window's start less this, so
 * they scan an index on the start instead of testing every row of the organisation.
 */
const MAX_BUSY_SPAN = "interval '3 days'";

export type BookingRow = RowOf<Booking>;
export type OccurrenceRow = RowOf<Occurrence>;

/** What decides when a booking's occurrences happen. */
export interface BookingShape {
  startDate: string;
  startTime: string;
  durationMinutes: number;
  rrule: string | null;
  timeZone: string;
  fromDate: string | null;
  untilDate: string | null;
  setupMinutes: number;
  teardownMinutes: number;
}

/** One occurrence's times, before it is a row. */
export interface Planned {
  originalLocalDate: string;
  localDate: string;
  localStartTime: string;
  startsAt: Date;
  endsAt: Date;
  busyFrom: Date;
  busyTo: Date;
}

export function shapeOf(row: BookingRow): BookingShape {
  return {
    startDate: row.start_date, startTime: row.start_time, durationMinutes: row.duration_minutes, rrule: row.rrule, timeZone: row.time_zone,
    fromDate: row.from_date, untilDate: row.until_date, setupMinutes: row.setup_minutes, teardownMinutes: row.teardown_minutes,
  };
}

export function horizonFrom(now: Date): Date {
  return new Date(now.getTime() + HORIZON_DAYS * 86_400_000);
}

/** The occurrence on a local date at a local time in the shape's zone, with its busy window. */
export function plannedAt(shape: Pick<BookingShape, 'durationMinutes' | 'timeZone' | 'setupMinutes' | 'teardownMinutes'>, originalLocalDate: string, localDate: string, localStartTime: string): Planned {
  const startsAt = localToUtc(localDate, localStartTime, shape.timeZone);
  const actual = DateTime.fromJSDate(startsAt, { zone: shape.timeZone });
  const endsAt = new Date(startsAt.getTime() + shape.durationMinutes * 60_000);
  return {
    originalLocalDate, localDate: actual.toISODate()!, localStartTime: actual.toFormat('HH:mm'), startsAt, endsAt,
    busyFrom: new Date(startsAt.getTime() - shape.setupMinutes * 60_000), busyTo: new Date(endsAt.getTime() + shape.teardownMinutes * 60_000),
  };
}

/**
 * The occurrences of a booking that have not started by `from` and start by `to`: a one-off
 * booking's single occurrence whatever the horizon, a rule's occurrences expanded in wall-clock
 * time in the zone (so 19:00 stays 19:00 across a clock change), within its from/until dates.
 */
export function planOccurrences(shape: BookingShape, from: Date, to: Date): Planned[] {
  if (!shape.rrule) {
    const one = plannedAt(shape, shape.startDate, shape.startDate, shape.startTime);
    return one.startsAt >= from ? [one] : [];
  }
  return expandRecurrence({ rrule: shape.rrule, startDate: shape.startDate, startTime: shape.startTime, timeZone: shape.timeZone }, from, to)
    .filter((occurrence) => (!shape.fromDate || occurrence.localDate >= shape.fromDate) && (!shape.untilDate || occurrence.localDate < shape.untilDate))
    .map((occurrence) => plannedAt(shape, occurrence.localDate, occurrence.localDate, occurrence.localStartTime));
}

// ---------------------------------------------------------------- clashes

export interface Clash {
  /** Index of the planned window that clashes. */
  index: number;
  kind: 'booking' | 'blockout';
  /** The occurrence or blockout clashed with. */
  id: string;
  bookingId: string | null;
  title: string;
  status: string | null;
  busyFrom: Date;
  busyTo: Date;
}

export interface Exclusions { bookingId?: string | null; occurrenceIds?: readonly string[] }

function windowArrays(windows: readonly Pick<Planned, 'busyFrom' | 'busyTo'>[]): [Date[], Date[]] {
  return [windows.map((window) => window.busyFrom), windows.map((window) => window.busyTo)];
}

/** Every live occurrence and blockout of a room whose busy window overlaps one of `windows`. */
export async function roomClashes(db: Queryable, orgId: string, room: Pick<RoomJoined, 'id' | 'building_id' | 'campus_id'>, windows: readonly Planned[], exclude: Exclusions = {}): Promise<Clash[]> {
  if (windows.length === 0) return [];
  const [froms, tos] = windowArrays(windows);
  const bookings = await queryRows<{ idx: number; id: string; booking_id: string; title: string; status: string; busy_from: Date; busy_to: Date }>(db, `
    SELECT (w.idx - 1)::int AS idx, o.id, o.booking_id, b.title, o.status, o.busy_from, o.busy_to
      FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(bf, bt, idx)
      JOIN spaces_occurrences o ON o.room_id = $2 AND o.status IN ('pending', 'approved')
        AND o.busy_from < w.bt AND o.busy_from > w.bf - ${MAX_BUSY_SPAN} AND o.busy_to > w.bf
      JOIN spaces_bookings b ON b.id = o.booking_id
     WHERE o.org_id = $1 AND ($5::uuid IS NULL OR o.booking_id <> $5) AND NOT (o.id = ANY($6::uuid[]))
     ORDER BY w.idx, o.busy_from`, [orgId, room.id, froms, tos, exclude.bookingId ?? null, [...(exclude.occurrenceIds ?? [])]]);
  const blockouts = await queryRows<{ idx: number; id: string; reason: string; starts_at: Date; ends_at: Date }>(db, `
    SELECT (w.idx - 1)::int AS idx, k.id, k.reason, k.starts_at, k.ends_at
      FROM unnest($5::timestamptz[], $6::timestamptz[]) WITH ORDINALITY AS w(bf, bt, idx)
      JOIN spaces_blockouts k ON k.org_id = $1 AND tstzrange(k.starts_at, k.ends_at) && tstzrange(w.bf, w.bt)
     WHERE k.room_id = $2 OR k.building_id = $3 OR k.campus_id = $4
     ORDER BY w.idx, k.starts_at`, [orgId, room.id, room.building_id, room.campus_id, froms, tos]);
  return [
    ...bookings.map((row) => ({ index: row.idx, kind: 'booking' as const, id: row.id, bookingId: row.booking_id, title: row.title, status: row.status, busyFrom: row.busy_from, busyTo: row.busy_to })),
    ...blockouts.map((row) => ({ index: row.idx, kind: 'blockout' as const, id: row.id, bookingId: null, title: `Blocked out: ${row.reason}`, status: null, busyFrom: row.starts_at, busyTo: row.ends_at })),
  ].sort((a, b) => a.index - b.index);
}

/** For each candidate room, how many of `windows` clash with its bookings or blockouts (rooms free for all are absent). */
export async function clashCounts(db: Queryable, orgId: string, roomIds: readonly string[], windows: readonly Pick<Planned, 'busyFrom' | 'busyTo'>[], exclude: Exclusions = {}): Promise<Map<string, number>> {
  if (roomIds.length === 0 || windows.length === 0) return new Map();
  const [froms, tos] = windowArrays(windows);
  const rows = await queryRows<{ room_id: string; n: number }>(db, `
    WITH w AS (SELECT bf, bt, idx FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(bf, bt, idx)),
    rooms AS (SELECT r.id, r.building_id, b.campus_id FROM spaces_rooms r JOIN spaces_buildings b ON b.id = r.building_id WHERE r.org_id = $1 AND r.id = ANY($2::uuid[])),
    hits AS (
      SELECT o.room_id, w.idx FROM w JOIN spaces_occurrences o ON o.org_id = $1 AND o.status IN ('pending', 'approved')
        AND o.busy_from < w.bt AND o.busy_from > w.bf - ${MAX_BUSY_SPAN} AND o.busy_to > w.bf
        JOIN rooms ON rooms.id = o.room_id
       WHERE ($5::uuid IS NULL OR o.booking_id <> $5) AND NOT (o.id = ANY($6::uuid[]))
      UNION
      SELECT rooms.id, w.idx FROM w JOIN spaces_blockouts k ON k.org_id = $1 AND tstzrange(k.starts_at, k.ends_at) && tstzrange(w.bf, w.bt)
        JOIN rooms ON k.room_id = rooms.id OR k.building_id = rooms.building_id OR k.campus_id = rooms.campus_id
    )
    SELECT room_id, count(DISTINCT idx)::int AS n FROM hits GROUP BY room_id`,
  [orgId, [...roomIds], froms, tos, exclude.bookingId ?? null, [...(exclude.occurrenceIds ?? [])]]);
  return new Map(rows.map((row) => [row.room_id, row.n]));
}

export interface ResourceLine { resourceId: string; quantity: number }
export interface Shortage { resourceId: string; resource: string; localDate: string; localStartTime: string; wanted: number; available: number }

/** Ids in the order Postgres sorts uuids (their text, code unit by code unit), so locks taken in code and in SQL agree. */
export function inLockOrder(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Takes the row locks a write that adds busy time needs, rooms then resources, each by id, after the
 * organisation's spaces lock (which the write's entry point holds already; taken here again in case
 * a new path forgets).
 */
export async function lockInOrder(db: Queryable, orgId: string, ids: { roomIds?: Iterable<string | null>; resourceIds?: Iterable<string> }): Promise<void> {
  await holdSpacesWriteLock(db, orgId);
  const roomIds = inLockOrder([...(ids.roomIds ?? [])].filter((id): id is string => id !== null));
  const resourceIds = inLockOrder(ids.resourceIds ?? []);
  if (roomIds.length > 0) await db.query('SELECT id FROM spaces_rooms WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [orgId, roomIds]);
  if (resourceIds.length > 0) await db.query('SELECT id FROM spaces_resources WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE', [orgId, resourceIds]);
}

/** What each booking takes of resources, by booking. */
export async function bookedResourceLines(db: Queryable, orgId: string, bookingIds: readonly string[]): Promise<Map<string, ResourceLine[]>> {
  const byBooking = new Map<string, ResourceLine[]>();
  if (bookingIds.length === 0) return byBooking;
  const rows = await queryRows<{ booking_id: string; resource_id: string; quantity: number }>(db,
    'SELECT booking_id, resource_id, quantity FROM spaces_booking_resources WHERE org_id = $1 AND booking_id = ANY($2::uuid[]) ORDER BY booking_id, resource_id', [orgId, [...bookingIds]]);
  for (const row of rows) byBooking.set(row.booking_id, [...(byBooking.get(row.booking_id) ?? []), { resourceId: row.resource_id, quantity: row.quantity }]);
  return byBooking;
}

/**
 * Locks each resource's row (in id order, so two bookings never wait on each other) and checks that
 * at every window the peak of what overlapping live bookings take, plus this one, stays within
 * the quantity there is; a blockout of the resource leaves none.
 */
export async function resourceShortages(db: Queryable, orgId: string, lines: readonly ResourceLine[], windows: readonly Planned[], exclude: Exclusions = {}): Promise<Shortage[]> {
  return [...(await shortagesByWindow(db, orgId, lines, windows, exclude)).values()].flat();
}

/** resourceShortages by the index of the window they fall in (windows with none are absent). */
export async function shortagesByWindow(db: Queryable, orgId: string, lines: readonly ResourceLine[], windows: readonly Planned[], exclude: Exclusions = {}): Promise<Map<number, Shortage[]>> {
  const shortages = new Map<number, Shortage[]>();
  if (lines.length === 0 || windows.length === 0) return shortages;
  const [froms, tos] = windowArrays(windows);
  const byResource = new Map(lines.map((line) => [line.resourceId, line]));
  for (const resourceId of inLockOrder(byResource.keys())) {
    const line = byResource.get(resourceId)!;
    const resource = await queryOne<{ name: string; quantity: number }>(db, 'SELECT name, quantity FROM spaces_resources WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, line.resourceId]);
    if (!resource) continue;
    const uses = await queryRows<{ idx: number; busy_from: Date; busy_to: Date; quantity: number }>(db, `
      SELECT (w.idx - 1)::int AS idx, o.busy_from, o.busy_to, br.quantity
        FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(bf, bt, idx)
        JOIN spaces_occurrences o ON o.org_id = $1 AND o.status IN ('pending', 'approved') AND o.busy_from < w.bt AND o.busy_from > w.bf - ${MAX_BUSY_SPAN} AND o.busy_to > w.bf
        JOIN spaces_booking_resources br ON br.booking_id = o.booking_id AND br.resource_id = $2
       WHERE ($5::uuid IS NULL OR o.booking_id <> $5) AND NOT (o.id = ANY($6::uuid[]))`,
    [orgId, line.resourceId, froms, tos, exclude.bookingId ?? null, [...(exclude.occurrenceIds ?? [])]]);
    const blocked = new Set((await queryRows<{ idx: number }>(db, `
      SELECT DISTINCT (w.idx - 1)::int AS idx FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(bf, bt, idx)
        JOIN spaces_blockouts k ON k.org_id = $1 AND k.resource_id = $2 AND k.starts_at < w.bt AND k.ends_at > w.bf`,
    [orgId, line.resourceId, froms, tos])).map((row) => row.idx));
    const byWindow = new Map<number, typeof uses>();
    for (const use of uses) byWindow.set(use.idx, [...(byWindow.get(use.idx) ?? []), use]);
    windows.forEach((window, index) => {
      const peak = blocked.has(index) ? resource.quantity : peakUse(byWindow.get(index) ?? [], window);
      const available = Math.max(0, resource.quantity - peak);
      if (line.quantity > available) {
        const shortage = { resourceId: line.resourceId, resource: resource.name, localDate: window.localDate, localStartTime: window.localStartTime, wanted: line.quantity, available };
        shortages.set(index, [...(shortages.get(index) ?? []), shortage]);
      }
    });
  }
  return new Map([...shortages.entries()].sort(([a], [b]) => a - b));
}

/** The most taken at once inside a window, by a sweep over the overlapping uses' starts and ends. */
export function peakUse(uses: readonly { busy_from: Date; busy_to: Date; quantity: number }[], window: Pick<Planned, 'busyFrom' | 'busyTo'>): number {
  const events: Array<[number, number]> = [];
  for (const use of uses) {
    events.push([Math.max(use.busy_from.getTime(), window.busyFrom.getTime()), use.quantity]);
    events.push([Math.min(use.busy_to.getTime(), window.busyTo.getTime()), -use.quantity]);
  }
  // ends before starts at the same instant: back-to-back uses do not overlap
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of events) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return peak;
}

// ---------------------------------------------------------------- alternatives

export interface Alternatives {
  rooms: Array<{ roomId: string; name: string; building: string; capacity: number }>;
  times: Array<{ localDate: string; startTime: string }>;
}

/**
 * What to offer instead of a bare refusal: other rooms free at every clashing time (big enough for
 * the expected attendance, smallest first), and for a one-off booking the nearest free start times
 * in the same room that day.
 */
export async function alternativesFor(db: Queryable, orgId: string, input: {
  room: RoomJoined | null; windows: readonly Planned[]; shape: BookingShape; minCapacity: number; exclude: Exclusions; features?: string[];
}): Promise<Alternatives> {
  const candidates = (await listRooms(db, orgId, { minCapacity: input.minCapacity, features: input.features })).filter((room) => room.id !== input.room?.id);
  const counts = await clashCounts(db, orgId, candidates.map((room) => room.id), input.windows, input.exclude);
  const rooms = candidates.filter((room) => !counts.has(room.id)).sort((a, b) => a.capacity - b.capacity).slice(0, 5)
    .map((room) => ({ roomId: room.id, name: room.name, building: room.building, capacity: room.capacity }));
  const times: Alternatives['times'] = [];
  const first = input.windows[0];
  if (input.room && input.windows.length === 1 && first) {
    const [hour, minute] = first.localStartTime.split(':').map(Number);
    const start = hour * 60 + minute;
    const offsets = [30, -30, 60, -60, 90, -90, 120, -120, 180, -180, 240, -240].filter((offset) => start + offset >= 6 * 60 && start + offset + input.shape.durationMinutes <= 23 * 60);
    const shifted = offsets.map((offset) => {
      const total = start + offset;
      return plannedAt(input.shape, first.localDate, first.localDate, `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`);
    });
    const taken = new Set((await roomClashes(db, orgId, input.room, shifted, input.exclude)).map((clash) => clash.index));
    shifted.forEach((window, index) => {
      if (!taken.has(index) && times.length < 3 && window.startsAt > new Date()) times.push({ localDate: window.localDate, startTime: window.localStartTime });
    });
  }
  return { rooms, times };
}

export function describeClashes(clashes: readonly Clash[], windows: readonly Planned[]) {
  return clashes.slice(0, 25).map((clash) => ({
    localDate: windows[clash.index].localDate, startTime: windows[clash.index].localStartTime,
    with: clash.kind === 'booking' ? { kind: 'booking' as const, bookingId: clash.bookingId, occurrenceId: clash.id, title: clash.title, status: clash.status }
      : { kind: 'blockout' as const, blockoutId: clash.id, title: clash.title, status: null },
    busyFrom: clash.busyFrom.toISOString(), busyTo: clash.busyTo.toISOString(),
  }));
}

// ---------------------------------------------------------------- occurrence rows

const EXCLUSION_VIOLATION = '23P01';

function doubleBooked(): StewardError {
  return new StewardError('conflict', 'The room was booked for an overlapping time by another request at the same moment', {
    hint: 'Search again (spaces_search_availability) and pick a free room or time.',
  });
}

/** Runs a write that adds or moves busy time; Postgres' exclusion constraint answering "overlap" becomes a conflict. */
export async function guardOverlap<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: string }).code === EXCLUSION_VIOLATION) throw doubleBooked();
    throw error;
  }
}

/** Inserts occurrences (ignoring keys there already, so a rerun adds nothing); returns the ids given to the new ones by index. */
export async function insertOccurrences(db: Queryable, orgId: string, bookingId: string, roomId: string | null, windows: readonly Planned[], statuses: readonly OccurrenceStatus[], layout: string | null): Promise<Map<number, string>> {
  if (windows.length === 0) return new Map();
  const ids = windows.map(() => randomUUID());
  const inserted = await guardOverlap(() => queryRows<{ id: string }>(db, `
    INSERT INTO spaces_occurrences (id, org_id, booking_id, room_id, original_local_date, local_date, local_start_time, starts_at, ends_at, busy_from, busy_to, status, layout)
    SELECT t.id, $1, $2, $3, t.original_local_date, t.local_date, t.local_start_time, t.starts_at, t.ends_at, t.busy_from, t.busy_to, t.status, $4
      FROM unnest($5::uuid[], $6::date[], $7::date[], $8::text[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::text[])
        AS t(id, original_local_date, local_date, local_start_time, starts_at, ends_at, busy_from, busy_to, status)
    ON CONFLICT (booking_id, original_local_date) DO NOTHING RETURNING id`,
  [orgId, bookingId, roomId, layout, ids, windows.map((w) => w.originalLocalDate), windows.map((w) => w.localDate), windows.map((w) => w.localStartTime),
    windows.map((w) => w.startsAt), windows.map((w) => w.endsAt), windows.map((w) => w.busyFrom), windows.map((w) => w.busyTo), [...statuses]]));
  const kept = new Set(inserted.map((row) => row.id));
  return new Map(ids.map((id, index) => [index, id] as const).filter(([, id]) => kept.has(id)));
}

/** Opens one conflict per clash of a held occurrence. */
export async function openConflicts(db: Queryable, orgId: string, roomId: string | null, held: ReadonlyArray<{ occurrenceId: string; clashes: readonly Clash[] }>): Promise<number> {
  let opened = 0;
  for (const { occurrenceId, clashes } of held) {
    for (const clash of clashes) {
      await db.query(`INSERT INTO spaces_conflicts (id, org_id, occurrence_id, other_occurrence_id, blockout_id, room_id) VALUES ($1, $2, $3, $4, $5, $6)`,
        [randomUUID(), orgId, occurrenceId, clash.kind === 'booking' ? clash.id : null, clash.kind === 'blockout' ? clash.id : null, roomId]);
      opened += 1;
    }
  }
  return opened;
}

/**
 * Opens one conflict per resource an occurrence held back is short of, naming what it wanted and
 * what was free. An occurrence already has at most one open shortage per resource (a unique index),
 * so looking again opens nothing twice. Answers how many were opened.
 */
export async function openShortageConflicts(db: Queryable, orgId: string, roomId: string | null, held: ReadonlyArray<{ occurrenceId: string; shortages: readonly Shortage[] }>): Promise<number> {
  let opened = 0;
  for (const { occurrenceId, shortages } of held) {
    for (const shortage of shortages) {
      const result = await db.query(`INSERT INTO spaces_conflicts (id, org_id, occurrence_id, resource_id, wanted, available, room_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (occurrence_id, resource_id) WHERE status = 'open' AND resource_id IS NOT NULL DO NOTHING`,
      [randomUUID(), orgId, occurrenceId, shortage.resourceId, shortage.wanted, shortage.available, roomId]);
      opened += result.rowCount ?? 0;
    }
  }
  return opened;
}

/** Groups clashes by the window they hit. */
export function clashesByWindow(clashes: readonly Clash[]): Map<number, Clash[]> {
  const byWindow = new Map<number, Clash[]>();
  for (const clash of clashes) byWindow.set(clash.index, [...(byWindow.get(clash.index) ?? []), clash]);
  return byWindow;
}

/** The live status an occurrence of the booking takes when nothing holds it back. */
export function liveStatus(status: BookingStatus): OccurrenceStatus {
  return status === 'approved' ? 'approved' : 'pending';
}

/**
 * Held occurrences whose open conflicts were against `changedOccurrenceIds` (cancelled, rejected or
 * moved): a conflict whose other side is no longer live, or no longer overlaps, is withdrawn, and a
 * held occurrence left with no open conflict takes its booking's status again if its room is free
 * and its resources suffice. Shortages of the resources the changed occurrences' bookings use are
 * looked at again too (settleShortages). Answers how many held occurrences went ahead.
 */
export async function settleHeldAgainst(db: Queryable, orgId: string, changedOccurrenceIds: readonly string[]): Promise<number> {
  if (changedOccurrenceIds.length === 0) return 0;
  const stale = await queryRows<{ id: string; occurrence_id: string }>(db, `
    SELECT c.id, c.occurrence_id FROM spaces_conflicts c
      JOIN spaces_occurrences h ON h.id = c.occurrence_id
      JOIN spaces_occurrences o ON o.id = c.other_occurrence_id
     WHERE c.org_id = $1 AND c.status = 'open' AND c.other_occurrence_id = ANY($2::uuid[])
       AND (o.status NOT IN ('pending', 'approved') OR o.room_id IS DISTINCT FROM h.room_id OR NOT (tstzrange(o.busy_from, o.busy_to) && tstzrange(h.busy_from, h.busy_to)))`,
  [orgId, [...changedOccurrenceIds]]);
  let revived = 0;
  if (stale.length > 0) {
    await db.query(`UPDATE spaces_conflicts SET status = 'resolved', resolution = 'withdrawn', resolved_at = now(), note = 'What it clashed with moved, was cancelled or was rejected'
      WHERE org_id = $1 AND id = ANY($2::uuid[])`, [orgId, stale.map((row) => row.id)]);
    const heldIds = [...new Set(stale.map((row) => row.occurrence_id))];
    await lockFor(db, orgId, heldIds);
    for (const occurrenceId of heldIds) {
      if (await reviveHeld(db, orgId, occurrenceId)) revived += 1;
    }
  }
  return revived + await settleShortages(db, orgId, changedOccurrenceIds);
}

/** Takes, in order, the locks of the rooms and resources that reviving these held occurrences may need, before reviving any. */
async function lockFor(db: Queryable, orgId: string, occurrenceIds: readonly string[]): Promise<void> {
  const rows = await queryRows<{ room_id: string | null; resource_id: string | null }>(db, `SELECT o.room_id, br.resource_id FROM spaces_occurrences o
    LEFT JOIN spaces_booking_resources br ON br.booking_id = o.booking_id WHERE o.org_id = $1 AND o.id = ANY($2::uuid[])`, [orgId, [...occurrenceIds]]);
  await lockInOrder(db, orgId, { roomIds: rows.map((row) => row.room_id), resourceIds: rows.flatMap((row) => (row.resource_id ? [row.resource_id] : [])) });
}

/**
 * A shortage has no single other side: any change to a booking using the resource may end it. So
 * the open shortages of the resources the changed occurrences' bookings use are checked again, under
 * the rooms' and resources' locks (taken in order first); a shortage that is over is withdrawn and its
 * occurrence goes ahead if nothing else holds it back. Earliest first, so the first held gets first go.
 */
async function settleShortages(db: Queryable, orgId: string, changedOccurrenceIds: readonly string[]): Promise<number> {
  const open = await queryRows<{ id: string; occurrence_id: string; resource_id: string; room_id: string | null; booking_id: string }>(db, `
    SELECT c.id, c.occurrence_id, c.resource_id, h.room_id, h.booking_id FROM spaces_conflicts c JOIN spaces_occurrences h ON h.id = c.occurrence_id
     WHERE c.org_id = $1 AND c.status = 'open' AND c.resource_id IS NOT NULL AND h.status = 'held'
       AND c.resource_id IN (SELECT br.resource_id FROM spaces_occurrences o JOIN spaces_booking_resources br ON br.booking_id = o.booking_id WHERE o.org_id = $1 AND o.id = ANY($2::uuid[]))
     ORDER BY h.starts_at, h.id, c.resource_id`, [orgId, [...changedOccurrenceIds]]);
  if (open.length === 0) return 0;
  await lockInOrder(db, orgId, { roomIds: open.map((row) => row.room_id), resourceIds: open.map((row) => row.resource_id) });
  const lines = await bookedResourceLines(db, orgId, [...new Set(open.map((row) => row.booking_id))]);
  let revived = 0;
  for (const occurrenceId of [...new Set(open.map((row) => row.occurrence_id))]) {
    const held = await queryOne<OccurrenceRow>(db, `SELECT * FROM spaces_occurrences WHERE org_id = $1 AND id = $2 AND status = 'held'`, [orgId, occurrenceId]);
    if (!held) continue;
    const shortOf = new Set((await resourceShortages(db, orgId, lines.get(held.booking_id) ?? [], [windowOf(held)], { occurrenceIds: [held.id] })).map((s) => s.resourceId));
    const over = open.filter((row) => row.occurrence_id === occurrenceId && !shortOf.has(row.resource_id)).map((row) => row.id);
    if (over.length === 0) continue;
    await db.query(`UPDATE spaces_conflicts SET status = 'resolved', resolution = 'withdrawn', resolved_at = now(), note = 'Enough of the resource is free now'
      WHERE org_id = $1 AND id = ANY($2::uuid[])`, [orgId, over]);
    if (await reviveHeld(db, orgId, occurrenceId)) revived += 1;
  }
  return revived;
}

/** An occurrence row's times as a planned window. */
export function windowOf(row: Pick<OccurrenceRow, 'original_local_date' | 'local_date' | 'local_start_time' | 'starts_at' | 'ends_at' | 'busy_from' | 'busy_to'>): Planned {
  return { originalLocalDate: row.original_local_date, localDate: row.local_date, localStartTime: row.local_start_time, startsAt: row.starts_at, endsAt: row.ends_at, busyFrom: row.busy_from, busyTo: row.busy_to };
}

/**
 * A held occurrence with no open conflict left takes its booking's live status if its room is free
 * now (under the room's lock) and its resources suffice (under theirs, after the room's); what still
 * stands in its way gets an open conflict and it stays held.
 */
export async function reviveHeld(db: Queryable, orgId: string, occurrenceId: string): Promise<boolean> {
  const open = await queryOne<{ n: number }>(db, `SELECT count(*)::int AS n FROM spaces_conflicts WHERE org_id = $1 AND occurrence_id = $2 AND status = 'open'`, [orgId, occurrenceId]);
  if (open!.n > 0) return false;
  const held = await queryOne<OccurrenceRow & { booking_status: BookingStatus; building_id: string | null; campus_id: string | null }>(db, `
    SELECT o.*, b.status AS booking_status, r.building_id, bl.campus_id FROM spaces_occurrences o JOIN spaces_bookings b ON b.id = o.booking_id
      LEFT JOIN spaces_rooms r ON r.id = o.room_id LEFT JOIN spaces_buildings bl ON bl.id = r.building_id
     WHERE o.org_id = $1 AND o.id = $2 AND o.status = 'held'`, [orgId, occurrenceId]);
  if (!held || (held.booking_status !== 'pending' && held.booking_status !== 'approved')) return false;
  const window = [windowOf(held)];
  if (held.room_id) {
    await db.query('SELECT id FROM spaces_rooms WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, held.room_id]);
    const clashes = await roomClashes(db, orgId, { id: held.room_id, building_id: held.building_id!, campus_id: held.campus_id! }, window, { occurrenceIds: [held.id] });
    if (clashes.length > 0) {
      await openConflicts(db, orgId, held.room_id, [{ occurrenceId: held.id, clashes }]);
      return false;
    }
  }
  // A held occurrence takes nothing of its resources while it waits, so others may have taken them meanwhile.
  const shortages = await resourceShortages(db, orgId, (await bookedResourceLines(db, orgId, [held.booking_id])).get(held.booking_id) ?? [], window, { occurrenceIds: [held.id] });
  if (shortages.length > 0) {
    await openShortageConflicts(db, orgId, held.room_id, [{ occurrenceId: held.id, shortages }]);
    return false;
  }
  await guardOverlap(() => db.query(`UPDATE spaces_occurrences SET status = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, occurrenceId, liveStatus(held.booking_status)]));
  return true;
}

/** Closes the open conflicts of occurrences that stop competing (cancelled, rejected, re-planned). */
export async function withdrawConflictsOf(db: Queryable, orgId: string, occurrenceIds: readonly string[], note: string): Promise<number> {
  if (occurrenceIds.length === 0) return 0;
  const result = await db.query(`UPDATE spaces_conflicts SET status = 'resolved', resolution = 'withdrawn', resolved_at = now(), note = $3
    WHERE org_id = $1 AND status = 'open' AND occurrence_id = ANY($2::uuid[])`, [orgId, [...occurrenceIds], note]);
  return result.rowCount ?? 0;
}

export function todayIn(zone: string, now: Date): string {
  return DateTime.fromJSDate(now, { zone }).toISODate()!;
}
