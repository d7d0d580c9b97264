import type { Queryable } from '../../db/pool';
import { listCheckins, type CheckinRecord } from '../guests/api';
import { volunteersByInstance } from '../guests/api';
import { addDays, mondayOf } from '../metrics';
import { listInstances, type ServiceInstance } from '../schedule/api';
import { MAIN_AREA, headcountsBetween, type HeadcountView } from './headcounts';
import { ticketCheckinsBetween, type TicketCheckinRecord } from './ticket-checkins';

/** How far back "regular" looks, and how many of those weeks a regular came on. */
export const REGULAR_LOOKBACK_WEEKS = 8;
export const REGULAR_MIN_WEEKS = 3;

export interface ServiceAttendance {
  instanceId: string;
  seriesId: string;
  title: string;
  localDate: string;
  localStartTime: string;
  headcount: number | null;
  checkedIn: number;
  regulars: number;
  guests: number;
  firstTimers: number;
  volunteers: number;
  volunteersScheduled: number;
  /** Tickets scanned at the door of ticketed events held as this service. */
  ticketCheckins: number;
  total: number;
  totalFrom: 'headcount' | 'checkins';
}

/**
 * A ticketed event held as no service (or as one since cancelled): its door's scans are a line of
 * their own, on the day they were scanned, rather than being dropped or added to a service.
 */
export interface EventAttendance {
  eventId: string;
  title: string;
  localDate: string;
  checkedIn: number;
  regulars: number;
  guests: number;
  firstTimers: number;
  ticketCheckins: number;
}

export interface WeekAttendance {
  weekStart: string;
  services: number;
  total: number;
  /** First-timers checked in at the week's services. */
  firstTimers: number;
  change: number | null;
  changePercent: number | null;
}

export interface AttendanceSummary {
  from: string;
  to: string;
  locationId: string | null;
  definitions: { regular: string; guest: string; firstTimer: string; volunteer: string; ticketCheckins: string; total: string; events: string };
  totals: {
    services: number; total: number; checkedIn: number; regulars: number; guests: number; firstTimers: number; volunteers: number; ticketCheckins: number; averagePerService: number | null;
    /** Event lines (ticketed events held as no service) and the people checked in at them, kept out of the service figures above. */
    events: number; eventCheckedIn: number;
  };
  services: ServiceAttendance[];
  events: EventAttendance[];
  weeks: WeekAttendance[];
  byLocation: Array<{ locationId: string | null; area: string; checkedIn: number; headcount: number | null }>;
}

export const DEFINITIONS = {
  regular: `Checked in on at least ${REGULAR_MIN_WEEKS} different weeks of the ${REGULAR_LOOKBACK_WEEKS} weeks before the service`,
  guest: 'Checked in, not for the first time, and not (yet) a regular',
  firstTimer: 'Checked in for the first time ever at this church',
  volunteer: 'Checked in as a volunteer (serving); volunteersScheduled counts the volunteer schedule',
  ticketCheckins: 'Tickets scanned at the door of a ticketed event held as the service; each holder is checked in once (a holder also checked in at a location counts once), a ticket naming nobody counts as a guest',
  total: 'The headcount when one was recorded for the service (the whole-service count when there is one, as it already includes every area; otherwise the sum of its areas), otherwise the people checked in (at check-in locations or with a ticket at the door)',
  events: 'A ticketed event held as no service (or as a service since cancelled) is a line of its own under events, on the day its tickets were scanned: each holder once, a ticket naming nobody a guest. Events are not services: they are left out of the service totals, weeks and average, and out of a summary narrowed to a service, series or location',
};

/**
 * Who counts as what at one service, each person once: volunteer, then first-timer, regular, or guest.
 * A ticket holder not also checked in at a location is judged by their check-in history (regular or
 * guest); a ticket naming nobody is a guest.
 */
function classify(instance: Pick<ServiceInstance, 'localDate'>, checkins: readonly CheckinRecord[], history: readonly CheckinRecord[], tickets: readonly TicketCheckinRecord[] = []) {
  const people = new Map<string, CheckinRecord[]>();
  for (const checkin of checkins) people.set(checkin.contactId, [...(people.get(checkin.contactId) ?? []), checkin]);
  for (const ticket of tickets) if (ticket.contactId && !people.has(ticket.contactId)) people.set(ticket.contactId, []);
  const anonymousTickets = tickets.filter((ticket) => ticket.contactId === null).length;
  const lookbackFrom = addDays(instance.localDate, -7 * REGULAR_LOOKBACK_WEEKS);
  const counts = { checkedIn: people.size + anonymousTickets, regulars: 0, guests: anonymousTickets, firstTimers: 0, volunteers: 0 };
  for (const [contactId, records] of people) {
    if (records.some((record) => record.personKind === 'volunteer')) {
      counts.volunteers += 1;
      continue;
    }
    if (records.some((record) => record.firstTime)) {
      counts.firstTimers += 1;
      continue;
    }
    const weeks = new Set(history.filter((record) => record.contactId === contactId && record.localDate >= lookbackFrom && record.localDate < instance.localDate).map((record) => mondayOf(record.localDate)));
    if (weeks.size >= REGULAR_MIN_WEEKS) counts.regulars += 1;
    else counts.guests += 1;
  }
  return counts;
}

/**
 * Attendance of the services dated in a range (cancelled ones left out): per service, per ISO week
 * with the change on the week before, per location, and in total. A location narrows check-ins and
 * headcounts to that location. Every figure comes from check-in records and recorded headcounts.
 */
export async function attendanceSummary(
  db: Queryable, orgId: string, filter: { from: string; to: string; instanceId?: string; seriesId?: string; locationId?: string },
): Promise<AttendanceSummary> {
  const instances = (await listInstances(db, orgId, { from: addDays(filter.from, -1), to: addDays(filter.to, 1), seriesId: filter.seriesId }))
    .filter((instance) => instance.localDate >= filter.from && instance.localDate <= filter.to && (!filter.instanceId || instance.id === filter.instanceId));
  const historyFrom = addDays(filter.from, -7 * REGULAR_LOOKBACK_WEEKS);
  const history = await listCheckins(db, orgId, { from: historyFrom, to: filter.to });
  const inScope = history.filter((record) => !filter.locationId || record.locationId === filter.locationId);
  const headcounts = await headcountsBetween(db, orgId, { from: filter.from, to: filter.to, locationId: filter.locationId });
  const scheduled = await volunteersByInstance(db, orgId, instances.map((instance) => instance.id));
  // A ticket has no check-in location, so narrowing to a location leaves the door's scans out.
  const tickets = filter.locationId ? [] : await ticketCheckinsBetween(db, orgId, { from: filter.from, to: filter.to });
  const services = instances.map((instance) => serviceAttendance(instance, inScope.filter((record) => record.instanceId === instance.id), history,
    headcounts.filter((h) => h.instanceId === instance.id), scheduled.get(instance.id)?.length ?? 0, tickets.filter((ticket) => ticket.instanceId === instance.id)));
  const counted = new Set(instances.map((instance) => instance.id));
  // Narrowed to a service or series, an event held as no service is outside what was asked for.
  const eventTickets = filter.instanceId || filter.seriesId ? [] : tickets.filter((ticket) => ticket.instanceId === null || !counted.has(ticket.instanceId));
  const events = eventAttendance(eventTickets, history);
  const sum = (pick: (service: ServiceAttendance) => number) => services.reduce((total, service) => total + pick(service), 0);
  const total = sum((service) => service.total);
  return {
    from: filter.from, to: filter.to, locationId: filter.locationId ?? null, definitions: DEFINITIONS,
    totals: {
      services: services.length, total, checkedIn: sum((s) => s.checkedIn), regulars: sum((s) => s.regulars), guests: sum((s) => s.guests),
      firstTimers: sum((s) => s.firstTimers), volunteers: sum((s) => s.volunteers), ticketCheckins: sum((s) => s.ticketCheckins), averagePerService: services.length ? Math.round((total / services.length) * 10) / 10 : null,
      events: events.length, eventCheckedIn: events.reduce((people, event) => people + event.checkedIn, 0),
    },
    services,
    events,
    weeks: weeklyTotals(services, filter.from, filter.to),
    byLocation: locationTotals(inScope.filter((record) => counted.has(record.instanceId)), headcounts,
      [...tickets.filter((ticket) => ticket.instanceId !== null && counted.has(ticket.instanceId)), ...eventTickets]),
  };
}

/** One line per event and day for tickets scanned at events held as no service, earliest first. */
function eventAttendance(tickets: readonly TicketCheckinRecord[], history: readonly CheckinRecord[]): EventAttendance[] {
  const lines = new Map<string, TicketCheckinRecord[]>();
  for (const ticket of tickets) {
    const key = `${ticket.localDate}:${ticket.eventId}`;
    lines.set(key, [...(lines.get(key) ?? []), ticket]);
  }
  return [...lines.values()].map((scans) => {
    // Nobody is checked in at a location for an event, so nobody counts as a volunteer at it.
    const counts = classify({ localDate: scans[0]!.localDate }, [], history, scans);
    return {
      eventId: scans[0]!.eventId, title: scans[0]!.eventTitle, localDate: scans[0]!.localDate,
      checkedIn: counts.checkedIn, regulars: counts.regulars, guests: counts.guests, firstTimers: counts.firstTimers, ticketCheckins: scans.length,
    };
  }).sort((a, b) => a.localDate.localeCompare(b.localDate) || a.title.localeCompare(b.title) || a.eventId.localeCompare(b.eventId));
}

const isWholeService = (headcount: HeadcountView) => headcount.locationId === null && headcount.area.toLowerCase() === MAIN_AREA.toLowerCase();

/**
 * One service's headcount. A whole-service count already includes everyone in every area, so it is
 * the figure when recorded (adding an area's count to it counted those people twice: 140 + 13 gave
 * 153); without one, the areas are separate rooms and add up.
 */
export function serviceHeadcount(headcounts: readonly HeadcountView[]): number | null {
  if (headcounts.length === 0) return null;
  const whole = headcounts.find(isWholeService);
  return whole ? whole.count : headcounts.reduce((sum, h) => sum + h.count, 0);
}

function serviceAttendance(
  instance: ServiceInstance, checkins: readonly CheckinRecord[], history: readonly CheckinRecord[], headcounts: readonly HeadcountView[], volunteersScheduled: number,
  tickets: readonly TicketCheckinRecord[],
): ServiceAttendance {
  const counts = classify(instance, checkins, history, tickets);
  const headcount = serviceHeadcount(headcounts);
  return {
    instanceId: instance.id, seriesId: instance.seriesId, title: instance.title, localDate: instance.localDate, localStartTime: instance.localStartTime,
    headcount, ...counts, volunteersScheduled, ticketCheckins: tickets.length, total: headcount ?? counts.checkedIn, totalFrom: headcount === null ? 'checkins' : 'headcount',
  };
}

/** Every ISO week the range touches, with its total and the change on the week before (null for the first, or after a week of nothing). */
export function weeklyTotals(services: ReadonlyArray<Pick<ServiceAttendance, 'localDate' | 'total' | 'firstTimers'>>, from: string, to: string): WeekAttendance[] {
  const weeks: WeekAttendance[] = [];
  for (let monday = mondayOf(from); monday <= to; monday = addDays(monday, 7)) {
    const inWeek = services.filter((service) => mondayOf(service.localDate) === monday);
    const total = inWeek.reduce((sum, service) => sum + service.total, 0);
    const firstTimers = inWeek.reduce((sum, service) => sum + service.firstTimers, 0);
    const previous = weeks[weeks.length - 1];
    const change = previous ? total - previous.total : null;
    weeks.push({ weekStart: monday, services: inWeek.length, total, firstTimers, change, changePercent: previous && previous.total > 0 ? Math.round(((total - previous.total) / previous.total) * 1000) / 10 : null });
  }
  return weeks;
}

/** Per check-in location and counted area; each ticketed event's door is a row of its own (no location). */
function locationTotals(checkins: readonly CheckinRecord[], headcounts: readonly HeadcountView[], tickets: readonly TicketCheckinRecord[]): AttendanceSummary['byLocation'] {
  const rows = new Map<string, { locationId: string | null; area: string; people: Set<string>; headcount: number | null }>();
  for (const checkin of checkins) {
    const row = rows.get(checkin.locationId) ?? { locationId: checkin.locationId, area: checkin.locationName, people: new Set<string>(), headcount: null };
    row.people.add(`${checkin.instanceId}:${checkin.contactId}`);
    rows.set(checkin.locationId, row);
  }
  for (const headcount of headcounts) {
    const key = headcount.locationId ?? `area:${headcount.area.toLowerCase()}`;
    const row = rows.get(key) ?? { locationId: headcount.locationId, area: headcount.area, people: new Set<string>(), headcount: null };
    row.headcount = (row.headcount ?? 0) + headcount.count;
    rows.set(key, row);
  }
  for (const ticket of tickets) {
    const key = `event:${ticket.eventId}`;
    const row = rows.get(key) ?? { locationId: null, area: `Tickets: ${ticket.eventTitle}`, people: new Set<string>(), headcount: null };
    row.people.add(`${ticket.instanceId}:${ticket.contactId ?? `ticket:${ticket.ticketId}`}`);
    rows.set(key, row);
  }
  return [...rows.values()].map((row) => ({ locationId: row.locationId, area: row.area, checkedIn: row.people.size, headcount: row.headcount }))
    .sort((a, b) => a.area.localeCompare(b.area));
}

export interface PersonVisit {
  instanceId: string;
  title: string | null;
  localDate: string;
  locations: string[];
  personKind: CheckinRecord['personKind'];
  firstTime: boolean;
  checkedInAt: string;
  checkedOutAt: string | null;
}

/** A person's check-ins over a range, one entry per service, newest first, with how many weeks they came. */
export async function personHistory(db: Queryable, orgId: string, contactId: string, range: { from: string; to: string }) {
  const checkins = await listCheckins(db, orgId, { ...range, contactId });
  const instances = new Map((await listInstances(db, orgId, { from: addDays(range.from, -1), to: addDays(range.to, 1), includeCancelled: true })).map((i) => [i.id, i]));
  const byInstance = new Map<string, CheckinRecord[]>();
  for (const checkin of checkins) byInstance.set(checkin.instanceId, [...(byInstance.get(checkin.instanceId) ?? []), checkin]);
  const visits: PersonVisit[] = [...byInstance.values()].map((records) => ({
    instanceId: records[0].instanceId, title: instances.get(records[0].instanceId)?.title ?? null, localDate: records[0].localDate,
    locations: [...new Set(records.map((r) => r.locationName))], personKind: records[0].personKind, firstTime: records.some((r) => r.firstTime),
    checkedInAt: records[0].checkedInAt, checkedOutAt: records[records.length - 1].checkedOutAt,
  })).sort((a, b) => b.checkedInAt.localeCompare(a.checkedInAt));
  const weeks = new Set(visits.map((visit) => mondayOf(visit.localDate)));
  return {
    contactId, from: range.from, to: range.to, visits, services: visits.length, weeksAttended: weeks.size,
    firstVisit: visits.length ? visits[visits.length - 1].localDate : null, lastVisit: visits.length ? visits[0].localDate : null,
    servedAsVolunteer: visits.filter((visit) => visit.personKind === 'volunteer').length,
  };
}
