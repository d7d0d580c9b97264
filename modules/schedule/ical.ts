import ical from 'ical-generator';
import { DateTime } from 'luxon';
import { queryRows, type Queryable } from '../../db/pool';
import { toInstance, type InstanceRow } from './instances';
import { firstOccurrence } from './recurrence';
import { getSeries, type ServiceSeries } from './series';

/**
 * The organisation's services as an iCalendar text: each live series one recurring event in its
 * zone, with the dates changed on their own excluded (EXDATE) and written as events of their own
 * (moved, retitled, one-off extras); cancelled dates are only excluded.
 */
export async function exportIcal(db: Queryable, orgId: string, seriesId?: string): Promise<{ ical: string; events: number }> {
  const ids = seriesId
    ? [seriesId]
    : (await queryRows<{ id: string }>(db, 'SELECT id FROM schedule_series WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id', [orgId])).map((row) => row.id);
  const calendar = ical({ name: 'Services', prodId: { company: 'Steward', product: 'schedule' } });
  let events = 0;
  for (const id of ids) {
    const one = await getSeries(db, orgId, id);
    const detached = (await queryRows<InstanceRow>(db,
      `SELECT id, series_id, original_starts_at, title, starts_at, ends_at, local_date, local_start_time, time_zone, location_label, campus,
              status, cancel_reason, detached
         FROM schedule_instances WHERE org_id = $1 AND series_id = $2 AND detached ORDER BY starts_at, id`, [orgId, one.id])).map(toInstance);
    const first = firstOccurrence(one);
    if (first) {
      const excluded = detached.filter((instance) => instance.originalStartsAt !== null).map((instance) => localStamp(instance.originalStartsAt!, one.timeZone));
      calendar.createEvent({
        id: `${one.id}@steward`,
        start: first.startsAt,
        end: new Date(first.startsAt.getTime() + one.durationMinutes * 60_000),
        timezone: one.timeZone,
        summary: one.title,
        location: one.locationLabel ?? undefined,
        repeating: [`RRULE:${ruleWithUtcUntil(one)}`, ...(excluded.length > 0 ? [`EXDATE;TZID=${one.timeZone}:${excluded.join(',')}`] : [])].join('\n'),
      });
      events += 1;
    }
    for (const instance of detached.filter((candidate) => candidate.status === 'scheduled')) {
      calendar.createEvent({
        id: `${instance.id}@steward`,
        start: new Date(instance.startsAt),
        end: new Date(instance.endsAt),
        timezone: instance.timeZone,
        summary: instance.title,
        location: instance.locationLabel ?? undefined,
      });
      events += 1;
    }
  }
  return { ical: calendar.toString(), events };
}

function localStamp(instant: string, zone: string): string {
  return DateTime.fromISO(instant, { zone }).toFormat("yyyyMMdd'T'HHmmss");
}

/** RFC 5545 wants UNTIL in UTC when DTSTART carries a zone; the stored rule keeps it local. */
function ruleWithUtcUntil(series: ServiceSeries): string {
  return series.rrule.replace(/UNTIL=(\d{8}T\d{6})(?!Z)/, (_match, local: string) =>
    `UNTIL=${DateTime.fromFormat(local, "yyyyMMdd'T'HHmmss", { zone: series.timeZone }).toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`);
}
