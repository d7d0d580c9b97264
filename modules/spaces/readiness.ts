import { DateTime } from 'luxon';
import type { Queryable } from '../../db/pool';
import { bookingsForInstance, type InstanceBooking } from './published';

/**
 * Spaces' part of runsheet's Sunday-readiness check (runsheet's `runsheetReadiness` extension
 * point, area `rooms`): the service's room bookings, found through its schedule instance, each with
 * set-up time, approved, free of open conflicts and covering the service's times. Each finding
 * carries the spaces tool call that fixes it. The shapes are runsheet's, restated here because a
 * module reaches another only through its api.ts.
 */
interface PlanAsked {
  instanceId: string | null;
  date: string;
  timeZone: string;
  times: Array<{ kind: 'service' | 'rehearsal' | 'other'; startsAt: string; endsAt: string }>;
}

interface Finding {
  severity: 'blocker' | 'warning' | 'info';
  area: string;
  title: string;
  detail: string;
  fix: { tool: string; args: Record<string, unknown>; approvalGated?: boolean } | null;
}

const AREA = 'rooms';
/** Set-up time suggested when a booking has none. */
const SUGGESTED_SETUP_MINUTES = 30;

function localTime(iso: string, zone: string): string {
  return DateTime.fromISO(iso, { zone }).toFormat('HH:mm');
}

/** The plan's services as one window: the earliest start to the latest end. */
function serviceWindow(plan: PlanAsked): { startsAt: string; endsAt: string } | null {
  const services = plan.times.filter((time) => time.kind === 'service');
  if (services.length === 0) return null;
  const starts = services.map((time) => time.startsAt).sort();
  const ends = services.map((time) => time.endsAt).sort();
  return { startsAt: starts[0]!, endsAt: ends[ends.length - 1]! };
}

function noRoomBooked(plan: PlanAsked): Finding {
  const window = serviceWindow(plan);
  const args: Record<string, unknown> = { localDate: plan.date };
  if (window) {
    args.startTime = localTime(window.startsAt, plan.timeZone);
    args.durationMinutes = Math.round((Date.parse(window.endsAt) - Date.parse(window.startsAt)) / 60_000);
  }
  return {
    severity: 'blocker', area: AREA, title: 'No room is booked for this service',
    detail: 'No live spaces booking is linked to the service\'s schedule instance. Find a free room, then book it with spaces_create_booking and this instance.',
    fix: { tool: 'spaces_search_availability', args },
  };
}

function findingsFor(booking: InstanceBooking, plan: PlanAsked): Finding[] {
  const room = booking.room ?? 'The booked resource';
  const findings: Finding[] = [];
  for (const conflict of booking.openConflicts) {
    findings.push({
      severity: 'blocker', area: AREA, title: `${room}: "${booking.title}" clashes with ${conflict.against}`,
      detail: 'An open conflict holds this booking: a person who may decide for the room keeps one, the other or both.',
      fix: { tool: 'spaces_resolve_conflict', args: { conflictId: conflict.conflictId } },
    });
  }
  if (booking.status === 'pending') {
    findings.push({
      severity: 'warning', area: AREA, title: `${room}: "${booking.title}" is waiting for approval`,
      detail: 'A pending booking holds the room, but the room\'s approval group has not approved it yet.',
      fix: { tool: 'spaces_approve_booking', args: { bookingId: booking.bookingId } },
    });
  }
  const window = serviceWindow(plan);
  if (window && (booking.startsAt > window.startsAt || booking.endsAt < window.endsAt)) {
    findings.push({
      severity: 'blocker', area: AREA,
      title: `${room}: booked ${localTime(booking.startsAt, plan.timeZone)}–${localTime(booking.endsAt, plan.timeZone)}, the service runs ${localTime(window.startsAt, plan.timeZone)}–${localTime(window.endsAt, plan.timeZone)}`,
      detail: 'The booking does not cover the whole service: give the fix new times or a longer duration in `changes`.',
      fix: { tool: 'spaces_update_booking', args: { bookingId: booking.bookingId, scope: 'this', occurrenceId: booking.occurrenceId, changes: {} } },
    });
  }
  if (booking.setupMinutes === 0) {
    findings.push({
      severity: 'warning', area: AREA, title: `${room}: no set-up time booked`,
      detail: `"${booking.title}" starts with no time to set the room up beforehand.`,
      fix: { tool: 'spaces_update_booking', args: { bookingId: booking.bookingId, scope: 'this', occurrenceId: booking.occurrenceId, changes: { setupMinutes: SUGGESTED_SETUP_MINUTES } } },
    });
  }
  return findings;
}

export async function roomsReadiness(db: Queryable, orgId: string, plan: PlanAsked): Promise<Finding[]> {
  if (!plan.instanceId) {
    return [{
      severity: 'info', area: AREA, title: 'Rooms not checked: the plan is not linked to a service instance',
      detail: 'Spaces finds a service\'s room bookings through its schedule instance.', fix: null,
    }];
  }
  const bookings = await bookingsForInstance(db, orgId, plan.instanceId);
  if (bookings.length === 0) return [noRoomBooked(plan)];
  return bookings.flatMap((booking) => findingsFor(booking, plan));
}
