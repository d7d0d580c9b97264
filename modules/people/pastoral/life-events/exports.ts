import { stringify } from 'csv-stringify/sync';
import ical, { ICalEventRepeatingFreq } from 'ical-generator';
import type { Queryable } from '../../../../db/pool';
import type { OrgSettings } from '../../../tool';
import { ANNUAL_EVENT_TYPES } from './constants';
import { listGriefTouchpoints, listLifeEvents, type GriefTouchpoint, type LifeEvent, type LifeEventFilter } from './service';

/** Rows per export: the file travels in the tool's result, which Temporal keeps well under its payload limit. */
export const MAX_LIFE_EVENT_EXPORT_ROWS = 2000;

/** A cell a spreadsheet would run as a formula is prefixed with a quote (a title typed as "=HYPERLINK(…)" stays text). */
function safeCell(value: string | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

const REPORT_COLUMNS = [
  'Contact', 'Type', 'Intent', 'Status', 'Title', 'Details', 'Event date', 'Shared with community', 'Privacy', 'Confidentiality',
  'Celebrated at', 'Recorded at',
] as const;

/**
 * The life-events report as CSV, read under the caller's visibility: a restricted event is absent
 * from the file and from its row count for a caller without people:safeguarding.
 */
export async function lifeEventsReportCsv(
  db: Queryable, orgId: string, canSeeRestricted: boolean, filter: Omit<LifeEventFilter, 'limit' | 'offset'>,
): Promise<{ csv: string; rowCount: number; total: number; truncated: boolean }> {
  const { lifeEvents, total } = await listLifeEvents(db, orgId, canSeeRestricted, { ...filter, limit: MAX_LIFE_EVENT_EXPORT_ROWS });
  const rows = lifeEvents.map((event) => [
    event.contactName, event.type, event.intent, event.status, event.title, event.details, event.eventDate, event.shareWithCommunity ? 'yes' : 'no',
    event.privacy, event.confidentialityLevel, event.celebratedAt, event.createdAt,
  ].map(safeCell));
  return { csv: stringify([[...REPORT_COLUMNS], ...rows]), rowCount: rows.length, total, truncated: total > rows.length };
}

/**
 * The life events as an iCalendar file: each an all-day event on its date; bereavements, marriages
 * and other annual events repeat yearly, so their anniversaries show in any calendar; open grief
 * touchpoints are their own all-day events. Details stay out of the file: calendars get shared.
 */
export async function lifeEventsCalendar(
  db: Queryable, org: OrgSettings, canSeeRestricted: boolean, options: { filter: Omit<LifeEventFilter, 'limit' | 'offset'>; includeTouchpoints: boolean },
): Promise<{ ics: string; eventCount: number; truncated: boolean }> {
  const { lifeEvents, total } = await listLifeEvents(db, org.id, canSeeRestricted, { ...options.filter, limit: MAX_LIFE_EVENT_EXPORT_ROWS });
  const touchpoints = options.includeTouchpoints
    ? await listGriefTouchpoints(db, org.id, canSeeRestricted, { contactId: options.filter.contactId, status: 'open', limit: MAX_LIFE_EVENT_EXPORT_ROWS })
    : [];
  return { ics: buildLifeEventsCalendar(org.name, lifeEvents, touchpoints), eventCount: lifeEvents.length + touchpoints.length, truncated: total > lifeEvents.length };
}

/** The iCalendar text for events and touchpoints already read (and already filtered by the caller's view). */
export function buildLifeEventsCalendar(organisation: string, lifeEvents: readonly LifeEvent[], touchpoints: readonly GriefTouchpoint[]): string {
  const calendar = ical({ name: `${organisation} life events`, prodId: { company: 'Steward', product: 'life-events', language: 'EN' } });
  for (const event of lifeEvents) {
    const annual = ANNUAL_EVENT_TYPES.includes(event.type);
    calendar.createEvent({
      id: `life-event-${event.id}`,
      start: dateOnly(event.eventDate),
      allDay: true,
      summary: `${event.contactName}: ${event.title}`,
      description: `${event.type.replace(/_/g, ' ')} (${event.intent})`,
      categories: [{ name: event.type }],
      ...(annual ? { repeating: { freq: ICalEventRepeatingFreq.YEARLY } } : {}),
    });
  }
  for (const touchpoint of touchpoints) {
    calendar.createEvent({
      id: `grief-touchpoint-${touchpoint.id}`,
      start: dateOnly(touchpoint.dueOn),
      allDay: true,
      summary: `Grief care (${touchpoint.label}): ${touchpoint.contactName}`,
      description: touchpoint.eventTitle,
    });
  }
  return calendar.toString();
}

/**
 * A calendar date for an all-day event. ical-generator writes an all-day date from a Date's UTC
 * fields, so the date is built at UTC midnight and never shifts a day whatever the server's zone
 * (checked with TZ set to Pacific/Auckland and America/Los_Angeles).
 */
function dateOnly(isoDate: string): Date {
  const [year, month, day] = isoDate.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day));
}
