import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { notFound, type RowOf } from '../kit';
import { beforeInstancesChange, instancesEnded, instancesMoved, type InstanceMove } from './extension-points';
import type { ScheduleInstance } from './models/schedule';
import { DEFAULT_TIME_ZONE, expand, localToUtc, utcToLocal, type Occurrence, type Recurrence } from './recurrence';

/** One service on one day: a materialised occurrence of a series, or a one-off extra. */
export interface ServiceInstance {
  id: string;
  seriesId: string;
  title: string;
  /** Real start and end, UTC ISO. */
  startsAt: string;
  endsAt: string;
  /** The start's date and time on the wall clock of `timeZone`. */
  localDate: string;
  localStartTime: string;
  timeZone: string;
  status: 'scheduled' | 'cancelled';
  locationLabel: string | null;
  campus: string | null;
  cancelReason: string | null;
  /** When the series' rule put it; null for a one-off. */
  originalStartsAt: string | null;
  /** Moved away from the rule's time. */
  moved: boolean;
  /** An extra instance added by hand, not an occurrence of the rule. */
  oneOff: boolean;
  /** Edited on its own, so edits of the whole series leave it alone. */
  detached: boolean;
}

export type InstanceRow = Pick<RowOf<ScheduleInstance>, 'id' | 'series_id' | 'original_starts_at' | 'title' | 'starts_at' | 'ends_at' | 'local_date'
  | 'local_start_time' | 'time_zone' | 'location_label' | 'campus' | 'status' | 'cancel_reason' | 'detached'>;

/** How far ahead instances are kept materialised. */
export const MATERIALISE_WEEKS = 12;
const WEEK_MS = 7 * 86_400_000;
/** The longest range one instance list covers. */
export const MAX_LIST_DAYS = 400;
/** The most instances one list returns. */
export const MAX_LIST_INSTANCES = 500;

export function toInstance(row: InstanceRow): ServiceInstance {
  return {
    id: row.id,
    seriesId: row.series_id,
    title: row.title,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    localDate: row.local_date,
    localStartTime: row.local_start_time,
    timeZone: row.time_zone,
    status: row.status,
    locationLabel: row.location_label,
    campus: row.campus,
    cancelReason: row.cancel_reason,
    originalStartsAt: row.original_starts_at ? row.original_starts_at.toISOString() : null,
    moved: row.original_starts_at !== null && row.original_starts_at.getTime() !== row.starts_at.getTime(),
    oneOff: row.original_starts_at === null,
    detached: row.detached,
  };
}

const INSTANCE_COLUMNS = `i.id, i.series_id, i.original_starts_at, i.title, i.starts_at, i.ends_at, i.local_date, i.local_start_time,
  i.time_zone, i.location_label, i.campus, i.status, i.cancel_reason, i.detached`;

/** One instance of the organisation; another organisation's id is not found, as a missing one is. */
export async function getInstance(db: Queryable, orgId: string, instanceId: string): Promise<ServiceInstance> {
  return toInstance(await instanceRow(db, orgId, instanceId));
}

export async function instanceRow(db: Queryable, orgId: string, instanceId: string, options: { forUpdate?: boolean } = {}): Promise<InstanceRow> {
  const row = await queryOne<InstanceRow>(db,
    `SELECT ${INSTANCE_COLUMNS} FROM schedule_instances i WHERE i.org_id = $1 AND i.id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, instanceId]);
  if (!row) throw notFound('Service instance', instanceId, 'schedule_list_upcoming_instances lists the instances there are.');
  return row;
}

/**
 * Instances starting in [from, to] (UTC ISO instants, or YYYY-MM-DD dates meaning the whole UTC
 * day), earliest first, at most 500. Cancelled instances only when asked for.
 */
export async function listInstances(
  db: Queryable,
  orgId: string,
  range: { from: string; to: string; includeCancelled?: boolean; seriesId?: string },
): Promise<ServiceInstance[]> {
  const from = rangeBound(range.from, 'from', 'start');
  const to = rangeBound(range.to, 'to', 'end');
  if (from > to) throw new StewardError('validation_failed', '`from` is after `to`', { issues: [{ path: 'from', message: 'must be on or before to' }] });
  if (to.getTime() - from.getTime() > MAX_LIST_DAYS * 86_400_000) {
    throw new StewardError('validation_failed', `The range is longer than ${MAX_LIST_DAYS} days`, { hint: 'Ask for a shorter range.', issues: [{ path: 'to', message: `at most ${MAX_LIST_DAYS} days after from` }] });
  }
  const rows = await queryRows<InstanceRow>(db,
    `SELECT ${INSTANCE_COLUMNS} FROM schedule_instances i
      WHERE i.org_id = $1 AND i.starts_at BETWEEN $2 AND $3 AND ($4::boolean OR i.status = 'scheduled') AND ($5::uuid IS NULL OR i.series_id = $5)
      ORDER BY i.starts_at, i.id LIMIT ${MAX_LIST_INSTANCES}`,
    [orgId, from, to, range.includeCancelled ?? false, range.seriesId ?? null]);
  return rows.map(toInstance);
}

function rangeBound(value: string, path: string, edge: 'start' | 'end'): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`) : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new StewardError('validation_failed', `\`${path}\` is not a date or an ISO instant`, { issues: [{ path, message: 'expected YYYY-MM-DD or an ISO 8601 instant' }] });
  }
  return date;
}

/** Instances whose local date (in each instance's own zone) is `localDate`, earliest first, cancelled included (their status says so). */
export async function instancesOnLocalDate(db: Queryable, orgId: string, localDate: string, options: { includeCancelled?: boolean } = {}): Promise<ServiceInstance[]> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(localDate) || Number.isNaN(Date.parse(`${localDate}T00:00:00Z`))) {
    throw new StewardError('validation_failed', 'The local date is not a date', { issues: [{ path: 'localDate', message: 'expected YYYY-MM-DD' }] });
  }
  const rows = await queryRows<InstanceRow>(db,
    `SELECT ${INSTANCE_COLUMNS} FROM schedule_instances i
      WHERE i.org_id = $1 AND i.local_date = $2 AND ($3::boolean OR i.status = 'scheduled')
      ORDER BY i.starts_at, i.id LIMIT ${MAX_LIST_INSTANCES}`,
    [orgId, localDate, options.includeCancelled ?? true]);
  return rows.map(toInstance);
}

/**
 * The zone the organisation's services run in: the zone most of its live series use, or
 * Europe/London when it has none (organisation settings carry no zone yet).
 */
export async function organisationTimeZone(db: Queryable, orgId: string): Promise<string> {
  const row = await queryOne<{ time_zone: string }>(db,
    `SELECT time_zone FROM schedule_series WHERE org_id = $1 AND deleted_at IS NULL
      GROUP BY time_zone ORDER BY count(*) DESC, min(created_at) LIMIT 1`, [orgId]);
  return row?.time_zone ?? DEFAULT_TIME_ZONE;
}

// ---------------------------------------------------------------- materialisation

export interface SeriesForMaterialising extends Recurrence {
  id: string;
  title: string;
  durationMinutes: number;
  locationLabel: string | null;
  campus: string | null;
}

export interface MaterialiseCounts {
  created: number;
  updated: number;
  removed: number;
}

/** The start of `now`'s local day in the zone: today's earlier services are still materialised (inserted, never rewritten). */
function windowStart(now: Date, zone: string): Date {
  return localToUtc(utcToLocal(now, zone).localDate, '00:00', zone);
}

/**
 * Brings a series' instances in line with its rule from the start of today (local) to
 * MATERIALISE_WEEKS ahead. Keyed on (series, original start), so running it again changes nothing.
 * Instances that started before `now` are never rewritten; instances edited on their own
 * (detached) keep their edits; future occurrences the rule no longer has are removed, along with
 * cancellations of such occurrences.
 */
export async function materialiseSeries(db: Queryable, orgId: string, series: SeriesForMaterialising, now: Date): Promise<MaterialiseCounts> {
  const from = windowStart(now, series.timeZone);
  const to = new Date(now.getTime() + MATERIALISE_WEEKS * WEEK_MS);
  const occurrences = expand(series, from, to);
  const durationMs = series.durationMinutes * 60_000;
  let created = 0;
  let updated = 0;
  let rekeyed = 0;
  // What other modules hang on an instance follows it when its time changes, so the times before are kept to compare.
  const before = await timesNotStarted(db, orgId, series.id, now);
  if (occurrences.length > 0) {
    rekeyed = await rekeyByLocalDate(db, orgId, series.id, occurrences, now);
    // Today's earlier occurrences are added only to a day the series has nothing on yet (a new series), never after a change.
    const { rows } = await db.query<{ inserted: boolean }>(
      `INSERT INTO schedule_instances AS i (id, org_id, series_id, original_starts_at, title, starts_at, ends_at, local_date, local_start_time, time_zone, location_label, campus)
       SELECT gen_random_uuid(), $1, $2, o.starts_at, $3, o.starts_at, o.starts_at + make_interval(secs => $4::double precision / 1000), o.local_date, o.local_time, $5, $6, $7
         FROM unnest($8::timestamptz[], $9::date[], $10::text[]) AS o(starts_at, local_date, local_time)
        WHERE o.starts_at >= $11 OR NOT EXISTS (SELECT 1 FROM schedule_instances x WHERE x.org_id = $1 AND x.series_id = $2 AND x.local_date = o.local_date)
       ON CONFLICT (series_id, original_starts_at) DO UPDATE
         SET title = EXCLUDED.title, starts_at = EXCLUDED.starts_at, ends_at = EXCLUDED.ends_at, local_date = EXCLUDED.local_date,
             local_start_time = EXCLUDED.local_start_time, time_zone = EXCLUDED.time_zone, location_label = EXCLUDED.location_label,
             campus = EXCLUDED.campus, updated_at = now()
         WHERE NOT i.detached AND i.starts_at >= $11
           AND (i.title, i.starts_at, i.ends_at, i.location_label, i.campus, i.time_zone) IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.starts_at, EXCLUDED.ends_at, EXCLUDED.location_label, EXCLUDED.campus, EXCLUDED.time_zone)
       RETURNING (xmax = 0) AS inserted`,
      [orgId, series.id, series.title, durationMs, series.timeZone, series.locationLabel, series.campus,
        occurrences.map((o) => o.startsAt), occurrences.map((o) => o.localDate), occurrences.map((o) => o.localStartTime), now]);
    created = rows.filter((row) => row.inserted).length;
    updated = rows.length - created;
  }
  const removed = await queryRows<{ id: string }>(db,
    `DELETE FROM schedule_instances
      WHERE org_id = $1 AND series_id = $2 AND original_starts_at IS NOT NULL AND starts_at >= $3 AND original_starts_at <= $4
        AND NOT (original_starts_at = ANY($5::timestamptz[]))
        AND (NOT detached OR (status = 'cancelled' AND starts_at = original_starts_at))
      RETURNING id`,
    [orgId, series.id, now, to, occurrences.map((o) => o.startsAt)]);
  await instancesEnded(db, orgId, { instanceIds: removed.map((row) => row.id), cause: 'removed', now });
  // Told after the removals, so a room a removed instance freed is free for an instance moved onto its time.
  if (rekeyed + updated > 0) await instancesMoved(db, orgId, { moves: await movesSince(db, orgId, before), now });
  return { created, updated, removed: removed.length };
}

type InstanceTimes = InstanceMove['from'];

/** The real times of a series' instances that have not started: the only ones materialisation may move. */
async function timesNotStarted(db: Queryable, orgId: string, seriesId: string, now: Date): Promise<Map<string, InstanceTimes>> {
  const rows = await queryRows<{ id: string; starts_at: Date; ends_at: Date }>(db,
    'SELECT id, starts_at, ends_at FROM schedule_instances WHERE org_id = $1 AND series_id = $2 AND starts_at >= $3', [orgId, seriesId, now]);
  return new Map(rows.map((row) => [row.id, { startsAt: row.starts_at, endsAt: row.ends_at }]));
}

/** The instances of `before` still there whose start or end is no longer what it was (removed ones have ended, not moved). */
async function movesSince(db: Queryable, orgId: string, before: ReadonlyMap<string, InstanceTimes>): Promise<InstanceMove[]> {
  if (before.size === 0) return [];
  const rows = await queryRows<{ id: string; starts_at: Date; ends_at: Date }>(db,
    'SELECT id, starts_at, ends_at FROM schedule_instances WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY starts_at, id', [orgId, [...before.keys()]]);
  return rows.flatMap((row) => {
    const from = before.get(row.id)!;
    const moved = from.startsAt.getTime() !== row.starts_at.getTime() || from.endsAt.getTime() !== row.ends_at.getTime();
    return moved ? [{ instanceId: row.id, from, to: { startsAt: row.starts_at, endsAt: row.ends_at } }] : [];
  });
}

/**
 * When a series' time changes, each future instance whose occurrence the rule no longer has is
 * re-keyed to the rule's new occurrence on the same local date (a rule has at most one a day, since
 * it cannot name hours). The instance keeps its id, so what other modules hang on it (check-in
 * settings, volunteer rotas) and its own exceptions (a cancellation) survive "10:30 becomes 11:00".
 * An instance not moved on its own follows the new time; a moved one keeps where it was moved to.
 */
async function rekeyByLocalDate(db: Queryable, orgId: string, seriesId: string, occurrences: Occurrence[], now: Date): Promise<number> {
  const result = await db.query(
    `WITH occurrence AS (
       SELECT * FROM unnest($3::timestamptz[], $4::date[], $5::text[]) AS o(starts_at, local_date, local_time)
     ), stale AS (
       SELECT i.id, i.original_starts_at, (i.original_starts_at AT TIME ZONE i.time_zone)::date AS original_local_date
         FROM schedule_instances i
        WHERE i.org_id = $1 AND i.series_id = $2 AND i.original_starts_at IS NOT NULL AND i.starts_at >= $6 AND i.original_starts_at >= $6
          AND NOT (i.original_starts_at = ANY($3::timestamptz[]))
     ), candidate AS (
       SELECT DISTINCT ON (s.id) s.id, s.original_starts_at, o.starts_at AS new_start, o.local_date, o.local_time
         FROM stale s JOIN occurrence o ON o.local_date = s.original_local_date
        WHERE o.starts_at >= $6 AND NOT EXISTS (SELECT 1 FROM schedule_instances x WHERE x.series_id = $2 AND x.original_starts_at = o.starts_at)
        ORDER BY s.id, o.starts_at
     ), pair AS (
       SELECT DISTINCT ON (new_start) * FROM candidate ORDER BY new_start, id
     )
     UPDATE schedule_instances i
        SET original_starts_at = p.new_start,
            starts_at = CASE WHEN i.starts_at = p.original_starts_at THEN p.new_start ELSE i.starts_at END,
            ends_at = CASE WHEN i.starts_at = p.original_starts_at THEN p.new_start + (i.ends_at - i.starts_at) ELSE i.ends_at END,
            local_date = CASE WHEN i.starts_at = p.original_starts_at THEN p.local_date ELSE i.local_date END,
            local_start_time = CASE WHEN i.starts_at = p.original_starts_at THEN p.local_time ELSE i.local_start_time END,
            updated_at = now()
       FROM pair p
      WHERE i.org_id = $1 AND i.id = p.id`,
    [orgId, seriesId, occurrences.map((o) => o.startsAt), occurrences.map((o) => o.localDate), occurrences.map((o) => o.localStartTime), now]);
  return result.rowCount ?? 0;
}

/** Removes a series' instances that have not started yet (a deleted series), telling the modules built on them; past ones stay as the record of what happened. */
export async function removeFutureInstances(db: Queryable, orgId: string, seriesId: string, now: Date): Promise<number> {
  const removed = await queryRows<{ id: string }>(db, 'DELETE FROM schedule_instances WHERE org_id = $1 AND series_id = $2 AND starts_at >= $3 RETURNING id', [orgId, seriesId, now]);
  await instancesEnded(db, orgId, { instanceIds: removed.map((row) => row.id), cause: 'removed', now });
  return removed.length;
}

// ---------------------------------------------------------------- one instance's own edits

function assertNotStarted(row: InstanceRow, now: Date, action: string): void {
  if (row.starts_at < now) {
    throw new StewardError('conflict', `Service instance ${row.id} has already started, so it cannot be ${action}`, {
      hint: 'Past instances are kept as they happened; change a later one.',
    });
  }
}

/** Cancels one instance (an exception to its series); cancelling a cancelled one changes nothing. */
export async function cancelInstance(db: Queryable, orgId: string, instanceId: string, reason: string | null, now: Date): Promise<ServiceInstance> {
  await beforeInstancesChange(db, orgId);
  const row = await instanceRow(db, orgId, instanceId, { forUpdate: true });
  if (row.status === 'cancelled') return toInstance(row);
  assertNotStarted(row, now, 'cancelled');
  await db.query(`UPDATE schedule_instances SET status = 'cancelled', cancel_reason = $3, detached = true, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, instanceId, reason]);
  // What other modules hang on the instance (a room booking) is let go in this same transaction.
  await instancesEnded(db, orgId, { instanceIds: [instanceId], cause: 'cancelled', now });
  return getInstance(db, orgId, instanceId);
}

export interface InstanceChanges {
  title?: string;
  localDate?: string;
  localStartTime?: string;
  durationMinutes?: number;
  locationLabel?: string | null;
  campus?: string | null;
}

/**
 * Edits one instance on its own: a new local date or time moves it (the rule's time is kept as
 * its original start), and it becomes detached so the series' later edits leave it alone. A new
 * start or end is told to the modules built on the instance in this same transaction.
 */
export async function editInstance(db: Queryable, orgId: string, instanceId: string, changes: InstanceChanges, now: Date): Promise<ServiceInstance> {
  await beforeInstancesChange(db, orgId);
  const row = await instanceRow(db, orgId, instanceId, { forUpdate: true });
  assertNotStarted(row, now, 'changed');
  const localDate = changes.localDate ?? row.local_date;
  const localStartTime = changes.localStartTime ?? row.local_start_time;
  const startsAt = localToUtc(localDate, localStartTime, row.time_zone);
  if (startsAt < now) {
    throw new StewardError('validation_failed', 'The new start is in the past', { hint: 'Move the instance to a time that has not passed.', issues: [{ path: 'localDate', message: 'must be in the future' }] });
  }
  const durationMs = changes.durationMinutes !== undefined ? changes.durationMinutes * 60_000 : row.ends_at.getTime() - row.starts_at.getTime();
  const endsAt = new Date(startsAt.getTime() + durationMs);
  const local = utcToLocal(startsAt, row.time_zone);
  await db.query(
    `UPDATE schedule_instances SET title = $3, starts_at = $4, ends_at = $5, local_date = $6, local_start_time = $7, location_label = $8, campus = $9,
       detached = true, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, instanceId, changes.title ?? row.title, startsAt, endsAt, local.localDate, local.localStartTime,
      changes.locationLabel !== undefined ? changes.locationLabel : row.location_label, changes.campus !== undefined ? changes.campus : row.campus]);
  await instancesMoved(db, orgId, { moves: [{ instanceId, from: { startsAt: row.starts_at, endsAt: row.ends_at }, to: { startsAt, endsAt } }], now });
  return getInstance(db, orgId, instanceId);
}

/** What a one-off instance copies when the caller does not say otherwise. */
export interface OneOffTemplate {
  seriesId: string;
  title: string;
  timeZone: string;
  durationMs: number;
  locationLabel: string | null;
  campus: string | null;
}

export interface OneOffAt {
  localDate: string;
  localStartTime: string;
  title?: string;
  durationMinutes?: number;
  locationLabel?: string | null;
}

/** Inserts a one-off instance (no occurrence of the rule behind it, so always detached) at a future local date and time in the template's zone. */
export async function insertOneOff(db: Queryable, orgId: string, template: OneOffTemplate, at: OneOffAt, now: Date): Promise<ServiceInstance> {
  const startsAt = localToUtc(at.localDate, at.localStartTime, template.timeZone);
  if (startsAt < now) {
    throw new StewardError('validation_failed', 'The new instance would start in the past', { hint: 'Choose a date and time that has not passed.', issues: [{ path: 'localDate', message: 'must be in the future' }] });
  }
  const durationMs = at.durationMinutes !== undefined ? at.durationMinutes * 60_000 : template.durationMs;
  const local = utcToLocal(startsAt, template.timeZone);
  const id = randomUUID();
  await db.query(
    `INSERT INTO schedule_instances (id, org_id, series_id, original_starts_at, title, starts_at, ends_at, local_date, local_start_time, time_zone, location_label, campus, detached)
     VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10, $11, true)`,
    [id, orgId, template.seriesId, at.title ?? template.title, startsAt, new Date(startsAt.getTime() + durationMs), local.localDate, local.localStartTime,
      template.timeZone, at.locationLabel !== undefined ? at.locationLabel : template.locationLabel, template.campus]);
  return getInstance(db, orgId, id);
}

/**
 * Adds a one-off extra instance of a series (a duplicated service) at a local date and time in the
 * source instance's zone, copying its title, length, location and campus unless given.
 */
export async function addOneOffInstance(db: Queryable, orgId: string, sourceInstanceId: string, at: OneOffAt, now: Date = new Date()): Promise<ServiceInstance> {
  const source = await instanceRow(db, orgId, sourceInstanceId);
  return insertOneOff(db, orgId, {
    seriesId: source.series_id, title: source.title, timeZone: source.time_zone, durationMs: source.ends_at.getTime() - source.starts_at.getTime(),
    locationLabel: source.location_label, campus: source.campus,
  }, at, now);
}
