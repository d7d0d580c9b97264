import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, withTenantTransaction, type Pool, type Queryable } from '../../db/pool';
import { recordJobChange } from '../audit/api';
import { listPage, notFound, type RowOf } from '../kit';
import {
  editInstance, getInstance, insertOneOff, instanceRow, listInstances, materialiseSeries, organisationTimeZone, removeFutureInstances,
  type InstanceChanges, type MaterialiseCounts, type OneOffAt, type ServiceInstance,
} from './instances';
import { beforeInstancesChange } from './extension-points';
import type { ScheduleSeries } from './models/schedule';
import { canonicalTimeZone, describeRule, firstOccurrence, localToUtc, nextOccurrences, parseRule, ruleEndingBefore, ruleFrom, utcToLocal, type Recurrence } from './recurrence';

/** A recurring service. */
export interface ServiceSeries {
  id: string;
  title: string;
  /** RFC 5545 RRULE (UNTIL in local time). */
  rrule: string;
  /** The rule in words. */
  ruleText: string;
  timeZone: string;
  startDate: string;
  startTime: string;
  durationMinutes: number;
  locationLabel: string | null;
  campus: string | null;
  /** The series this one continues after a "this and following" change. */
  splitFromSeriesId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A series as `SELECT *` reads it, typed by its model. */
type SeriesRow = RowOf<ScheduleSeries>;

function toSeries(row: SeriesRow): ServiceSeries {
  return {
    id: row.id, title: row.title, rrule: row.rrule, ruleText: describeRule(row.rrule), timeZone: row.time_zone,
    startDate: row.start_date, startTime: row.start_time, durationMinutes: row.duration_minutes,
    locationLabel: row.location_label, campus: row.campus, splitFromSeriesId: row.split_from_series_id,
    createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

const recurrenceOf = (row: SeriesRow): Recurrence => ({ rrule: row.rrule, startDate: row.start_date, startTime: row.start_time, timeZone: row.time_zone });

function forMaterialising(row: SeriesRow) {
  return { ...recurrenceOf(row), id: row.id, title: row.title, durationMinutes: row.duration_minutes, locationLabel: row.location_label, campus: row.campus };
}

async function seriesRow(db: Queryable, orgId: string, seriesId: string, options: { forUpdate?: boolean } = {}): Promise<SeriesRow> {
  const row = await queryOne<SeriesRow>(db,
    `SELECT * FROM schedule_series WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL${options.forUpdate ? ' FOR UPDATE' : ''}`, [orgId, seriesId]);
  if (!row) throw notFound('Service series', seriesId, 'schedule_list_series lists the series there are.');
  return row;
}

export async function getSeries(db: Queryable, orgId: string, seriesId: string): Promise<ServiceSeries> {
  return toSeries(await seriesRow(db, orgId, seriesId));
}

export async function listSeries(db: Queryable, orgId: string, options: { limit: number; cursor?: string }) {
  const { rows, nextCursor } = await listPage<SeriesRow>(db, { table: 'schedule_series', orgId, limit: options.limit, cursor: options.cursor });
  return { series: rows.map(toSeries), nextCursor };
}

/** The series' next scheduled instances from `now`, at most `limit`. */
export async function upcomingOfSeries(db: Queryable, orgId: string, seriesId: string, now: Date, limit: number): Promise<ServiceInstance[]> {
  const to = new Date(now.getTime() + 399 * 86_400_000);
  return (await listInstances(db, orgId, { from: now.toISOString(), to: to.toISOString(), seriesId })).slice(0, limit);
}

export interface SeriesFields {
  title: string;
  rrule: string;
  startDate: string;
  startTime: string;
  durationMinutes: number;
  timeZone?: string;
  locationLabel?: string | null;
  campus?: string | null;
}

/** Validates a series' recurrence and returns it normalised (rule text, zone spelling); a rule that never happens is refused. */
function checkedRecurrence(recurrence: Recurrence): Recurrence {
  const timeZone = canonicalTimeZone(recurrence.timeZone);
  const { text } = parseRule(recurrence.rrule, timeZone);
  const normalised = { ...recurrence, rrule: text, timeZone };
  if (!firstOccurrence(normalised)) {
    throw new StewardError('validation_failed', 'The rule has no occurrence in the five years from the start date', {
      hint: 'Check BYMONTH, BYMONTHDAY and UNTIL against the start date.', issues: [{ path: 'rrule', message: 'never happens' }],
    });
  }
  return normalised;
}

/** What a rule would give, saving nothing: the normalised rule, in words, and its first occurrences from the start date. */
export async function previewRule(db: Queryable, orgId: string, fields: { rrule: string; startDate: string; startTime: string; timeZone?: string }, limit: number) {
  const recurrence = checkedRecurrence({ ...fields, timeZone: fields.timeZone ?? await organisationTimeZone(db, orgId) });
  const occurrences = nextOccurrences(recurrence, localToUtc(recurrence.startDate, recurrence.startTime, recurrence.timeZone), limit);
  return {
    rrule: recurrence.rrule, ruleText: describeRule(recurrence.rrule), timeZone: recurrence.timeZone,
    occurrences: occurrences.map((o) => ({ startsAt: o.startsAt.toISOString(), localDate: o.localDate, localStartTime: o.localStartTime })),
  };
}

export async function createSeries(db: Queryable, orgId: string, fields: SeriesFields, now: Date): Promise<{ series: ServiceSeries; materialised: MaterialiseCounts }> {
  const { rrule, timeZone } = checkedRecurrence({
    rrule: fields.rrule, startDate: fields.startDate, startTime: fields.startTime, timeZone: fields.timeZone ?? await organisationTimeZone(db, orgId),
  });
  const row = await queryOne<SeriesRow>(db,
    `INSERT INTO schedule_series (id, org_id, title, rrule, time_zone, start_date, start_time, duration_minutes, location_label, campus)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [randomUUID(), orgId, fields.title, rrule, timeZone, fields.startDate, fields.startTime, fields.durationMinutes, fields.locationLabel ?? null, fields.campus ?? null]);
  const materialised = await materialiseSeries(db, orgId, forMaterialising(row!), now);
  return { series: toSeries(row!), materialised };
}

export type UpdateScope = 'this' | 'this_and_following' | 'all';

export interface SeriesChanges {
  title?: string;
  rrule?: string;
  startDate?: string;
  startTime?: string;
  localDate?: string;
  durationMinutes?: number;
  timeZone?: string;
  locationLabel?: string | null;
  campus?: string | null;
}

export interface UpdateResult {
  scope: UpdateScope;
  series: ServiceSeries;
  /** The new series a "this and following" change split off, which now holds the instance and those after it. */
  newSeries: ServiceSeries | null;
  instance: ServiceInstance | null;
  materialised: MaterialiseCounts;
}

function refuseFields(changes: SeriesChanges, fields: Array<keyof SeriesChanges>, scope: UpdateScope, hint: string): void {
  const given = fields.filter((field) => changes[field] !== undefined);
  if (given.length > 0) {
    throw new StewardError('validation_failed', `${given.join(', ')} cannot change with scope "${scope}"`, {
      hint, issues: given.map((field) => ({ path: `changes.${field}`, message: `not accepted with scope ${scope}` })),
    });
  }
}

/**
 * Changes a series: `this` edits one instance on its own (moving it when its date or time
 * changes); `this_and_following` ends the series before the instance and continues it as a new
 * series carrying the changes; `all` changes the series. Instances that have started are never
 * rewritten, whatever the scope.
 */
export async function updateSeries(
  db: Queryable, orgId: string, seriesId: string, scope: UpdateScope, instanceId: string | undefined, changes: SeriesChanges, now: Date,
): Promise<UpdateResult> {
  await beforeInstancesChange(db, orgId);
  const series = await seriesRow(db, orgId, seriesId, { forUpdate: true });
  if (scope === 'all') {
    refuseFields(changes, ['localDate'], scope, 'Move one instance with scope "this" (or schedule_move_instance); a series starts on startDate.');
    return { scope, ...await changeWholeSeries(db, orgId, series, changes, now), newSeries: null, instance: null };
  }
  if (!instanceId) {
    throw new StewardError('validation_failed', `Scope "${scope}" needs the instance it starts from`, {
      hint: 'Pass instanceId (from schedule_list_upcoming_instances).', issues: [{ path: 'instanceId', message: 'required for this scope' }],
    });
  }
  const instance = await instanceRow(db, orgId, instanceId, { forUpdate: true });
  if (instance.series_id !== seriesId) throw notFound('Service instance', instanceId, 'The instance belongs to another series.');
  if (scope === 'this') {
    refuseFields(changes, ['rrule', 'startDate', 'timeZone'], scope, 'Those belong to the series: use scope "this_and_following" or "all".');
    const edited = await editInstance(db, orgId, instanceId, {
      title: changes.title, localDate: changes.localDate, localStartTime: changes.startTime, durationMinutes: changes.durationMinutes,
      locationLabel: changes.locationLabel, campus: changes.campus,
    } satisfies InstanceChanges, now);
    return { scope, series: toSeries(series), newSeries: null, instance: edited, materialised: { created: 0, updated: 1, removed: 0 } };
  }
  refuseFields(changes, ['localDate', 'startDate'], scope, 'The new part starts at the instance; move one instance with scope "this".');
  if (instance.original_starts_at === null) {
    throw new StewardError('validation_failed', 'A one-off instance is not part of the rule, so nothing follows it', {
      hint: 'Change it with scope "this".', issues: [{ path: 'instanceId', message: 'one-off instance' }],
    });
  }
  if (instance.original_starts_at < now || instance.starts_at < now) {
    throw new StewardError('conflict', `Service instance ${instanceId} has already started`, { hint: 'Split the series at a later instance: past instances are kept as they happened.' });
  }
  const original = utcToLocal(instance.original_starts_at, series.time_zone);
  const first = firstOccurrence(recurrenceOf(series));
  if (first && first.startsAt.getTime() === instance.original_starts_at.getTime()) {
    // Splitting at the first occurrence leaves nothing before it: it is a change of the whole series.
    return { scope, ...await changeWholeSeries(db, orgId, series, changes, now), newSeries: null, instance: null };
  }
  return { scope, ...await splitSeries(db, orgId, series, original, instance.original_starts_at, changes, now), instance: null };
}

async function changeWholeSeries(db: Queryable, orgId: string, series: SeriesRow, changes: SeriesChanges, now: Date) {
  const next = {
    rrule: changes.rrule ?? series.rrule, startDate: changes.startDate ?? series.start_date,
    startTime: changes.startTime ?? series.start_time, timeZone: changes.timeZone ?? series.time_zone,
  };
  const { rrule, timeZone } = checkedRecurrence(next);
  const row = await queryOne<SeriesRow>(db,
    `UPDATE schedule_series SET title = $3, rrule = $4, time_zone = $5, start_date = $6, start_time = $7, duration_minutes = $8,
       location_label = $9, campus = $10, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`,
    [orgId, series.id, changes.title ?? series.title, rrule, timeZone, next.startDate, next.startTime,
      changes.durationMinutes ?? series.duration_minutes, pick(changes.locationLabel, series.location_label), pick(changes.campus, series.campus)]);
  const materialised = await materialiseSeries(db, orgId, forMaterialising(row!), now);
  return { series: toSeries(row!), materialised };
}

const pick = <T>(change: T | undefined, current: T): T => (change !== undefined ? change : current);

/**
 * Ends `series` just before the occurrence at `original` (local) and continues it from there as a
 * new series with the changes. The instances from that occurrence on move to the new series
 * (keeping their ids and their own edits); the new series' materialisation then updates or
 * removes them by its own rule.
 */
async function splitSeries(
  db: Queryable, orgId: string, series: SeriesRow, original: { localDate: string; localStartTime: string }, originalStartsAt: Date, changes: SeriesChanges, now: Date,
) {
  const recurrence = recurrenceOf(series);
  const endedRule = ruleEndingBefore(recurrence, original.localDate, original.localStartTime);
  const continued = {
    rrule: changes.rrule ?? ruleFrom(recurrence, original.localDate, original.localStartTime, series.rrule),
    startDate: original.localDate,
    startTime: changes.startTime ?? series.start_time,
    timeZone: changes.timeZone ?? series.time_zone,
  };
  const { rrule: continuedRule, timeZone: continuedZone } = checkedRecurrence(continued);
  const ended = await queryOne<SeriesRow>(db,
    'UPDATE schedule_series SET rrule = $3, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, series.id, endedRule]);
  const created = await queryOne<SeriesRow>(db,
    `INSERT INTO schedule_series (id, org_id, title, rrule, time_zone, start_date, start_time, duration_minutes, location_label, campus, split_from_series_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [randomUUID(), orgId, changes.title ?? series.title, continuedRule, continuedZone, continued.startDate, continued.startTime,
      changes.durationMinutes ?? series.duration_minutes, pick(changes.locationLabel, series.location_label), pick(changes.campus, series.campus), series.id]);
  await db.query(
    `UPDATE schedule_instances SET series_id = $3, updated_at = now()
      WHERE org_id = $1 AND series_id = $2 AND (original_starts_at >= $4 OR (original_starts_at IS NULL AND starts_at >= $4))`,
    [orgId, series.id, created!.id, originalStartsAt]);
  const before = await materialiseSeries(db, orgId, forMaterialising(ended!), now);
  const after = await materialiseSeries(db, orgId, forMaterialising(created!), now);
  return {
    series: toSeries(ended!), newSeries: toSeries(created!),
    materialised: { created: before.created + after.created, updated: before.updated + after.updated, removed: before.removed + after.removed },
  };
}

/** Adds an extra one-off instance to a series (an RDATE: e.g. a Christmas Eve service), in the series' zone, with its title, length and location unless given. */
export async function addExtraInstance(db: Queryable, orgId: string, seriesId: string, at: OneOffAt, now: Date): Promise<ServiceInstance> {
  const series = await seriesRow(db, orgId, seriesId, { forUpdate: true });
  return insertOneOff(db, orgId, {
    seriesId, title: series.title, timeZone: series.time_zone, durationMs: series.duration_minutes * 60_000,
    locationLabel: series.location_label, campus: series.campus,
  }, at, now);
}

/** Ends a series: it leaves the lists and its instances that have not started are removed; past ones stay. */
export async function deleteSeries(db: Queryable, orgId: string, seriesId: string, now: Date): Promise<{ series: ServiceSeries; removedInstances: number }> {
  await beforeInstancesChange(db, orgId);
  const row = await seriesRow(db, orgId, seriesId, { forUpdate: true });
  await db.query('UPDATE schedule_series SET deleted_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, seriesId]);
  return { series: toSeries(row), removedInstances: await removeFutureInstances(db, orgId, seriesId, now) };
}

/** Puts one instance back as its series' rule has it: no longer cancelled, moved or edited. */
export async function restoreInstance(db: Queryable, orgId: string, instanceId: string, now: Date): Promise<ServiceInstance> {
  // Listeners' locks first, then the series before the instance: the order the job and series changes take them in.
  await beforeInstancesChange(db, orgId);
  const series = await seriesRow(db, orgId, (await instanceRow(db, orgId, instanceId)).series_id, { forUpdate: true });
  const instance = await instanceRow(db, orgId, instanceId, { forUpdate: true });
  if (instance.original_starts_at === null) {
    throw new StewardError('validation_failed', 'A one-off instance has no rule to go back to', {
      hint: 'Cancel it with schedule_cancel_instance, or change it with schedule_update_series scope "this".', issues: [{ path: 'instanceId', message: 'one-off instance' }],
    });
  }
  if (instance.starts_at < now || instance.original_starts_at < now) {
    throw new StewardError('conflict', `Service instance ${instanceId} has already started, so it cannot be restored`, { hint: 'Past instances are kept as they happened.' });
  }
  await db.query(`UPDATE schedule_instances SET status = 'scheduled', cancel_reason = NULL, detached = false, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, instanceId]);
  await materialiseSeries(db, orgId, forMaterialising(series), now);
  const restored = await queryOne<{ id: string }>(db, 'SELECT id FROM schedule_instances WHERE org_id = $1 AND id = $2', [orgId, instanceId]);
  if (!restored) {
    throw new StewardError('conflict', 'The series\' rule no longer has this occurrence, so the instance was removed rather than restored', {
      hint: 'Add an extra instance with guests_duplicate_service if the service should still happen.',
    });
  }
  return getInstance(db, orgId, instanceId);
}

// ---------------------------------------------------------------- the rolling window

/**
 * Materialises every live series of one organisation (or of all of them) as of `now`: the
 * periodic job's work. Each organisation runs in its own tenant transaction, so row-level
 * security applies as it does to a tool call; a run repeated with the same `now` changes nothing.
 */
export async function materialiseRollingWindow(pool: Pool, input: { now: Date; orgId?: string }): Promise<Record<string, number>> {
  const organisations = input.orgId
    ? [input.orgId]
    : (await queryRows<{ org_id: string }>(pool, 'SELECT DISTINCT org_id FROM schedule_series WHERE deleted_at IS NULL ORDER BY org_id')).map((row) => row.org_id);
  const totals = { organisations: 0, series: 0, created: 0, updated: 0, removed: 0 };
  let firstFailure: unknown = null;
  for (const orgId of organisations) {
    try {
      const counts = await withTenantTransaction(pool, orgId, async (client) => {
        await beforeInstancesChange(client, orgId);
        const rows = await queryRows<SeriesRow>(client, 'SELECT * FROM schedule_series WHERE org_id = $1 AND deleted_at IS NULL ORDER BY id FOR UPDATE', [orgId]);
        const orgTotals = { series: 0, created: 0, updated: 0, removed: 0 };
        const changed: Array<{ seriesId: string; created: number; updated: number; removed: number }> = [];
        for (const row of rows) {
          const one = await materialiseSeries(client, orgId, forMaterialising(row), input.now);
          if (one.created + one.updated + one.removed > 0) changed.push({ seriesId: row.id, ...one });
          orgTotals.series += 1;
          orgTotals.created += one.created;
          orgTotals.updated += one.updated;
          orgTotals.removed += one.removed;
        }
        // One event per series whose instances the window changed (a run that changed nothing records
        // nothing), all after the loop: an audit event takes the organisation's chain head until commit,
        // and a later series' instances may reach other modules' locks (spaces' rooms), which their own
        // writers take before their audit event; taken in the other order, the two would wait in a cycle.
        for (const one of changed) {
          await recordJobChange(client, {
            orgId, channel: 'job:schedule.materialise_instances', module: 'schedule', noun: 'series', verb: 'materialise', target: { type: 'series', id: one.seriesId },
            fields: { instancesCreated: one.created, instancesUpdated: one.updated, instancesRemoved: one.removed },
          });
        }
        return orgTotals;
      });
      totals.organisations += 1;
      totals.series += counts.series;
      totals.created += counts.created;
      totals.updated += counts.updated;
      totals.removed += counts.removed;
    } catch (error) {
      // One organisation's failure must not hold up every other's window; the run still fails (and is retried) at the end.
      firstFailure ??= error;
    }
  }
  if (firstFailure) throw firstFailure;
  return totals;
}
