import type { Queryable } from '../../db/pool';
import { contributionsTo } from '../registry';

/**
 * Where ticketing needs other modules to answer or act, it declares an extension point here and
 * they fill it from their definitions (`contributes`): ticketing imports none of them.
 *
 * - `ticketingVenueCapacity`: the spaces module tells how many a booked room holds, so publishing
 *   an event linked to a spaces booking checks its capacity fits the room. Unfilled (spaces is not
 *   installed) the check is skipped, and publishing says so.
 * - `ticketingCheckins`: told of every ticket checked in at the door, in the check-in's
 *   transaction (attendance records it). Unfilled, the check-in is kept by ticketing alone and the
 *   answer says attendance was not written.
 */

export interface VenueCapacity {
  /** The capacity of the room a booking is for; null when the booking is not this organisation's (or has no room). */
  venueCapacity(db: Queryable, orgId: string, bookingId: string): Promise<{ capacity: number; roomName: string } | null>;
}

export interface TicketCheckin {
  eventId: string;
  eventTitle: string;
  ticketId: string;
  ticketTypeName: string;
  contactId: string | null;
  scheduleInstanceId: string | null;
  checkedInAt: Date;
  checkedInByUserId: string | null;
}

export interface CheckinListener {
  ticketCheckedIn(db: Queryable, orgId: string, checkin: TicketCheckin): Promise<void>;
}

declare module '../module' {
  interface ModuleContributions {
    /** At most one module fills it (spaces). */
    ticketingVenueCapacity?: VenueCapacity;
    ticketingCheckins?: CheckinListener;
  }
}

/** The room's capacity for a booking, or why it cannot be checked. */
export async function venueCapacityOf(db: Queryable, orgId: string, bookingId: string): Promise<{ capacity: number; roomName: string } | 'not_installed' | 'not_found'> {
  const providers = contributionsTo('ticketingVenueCapacity');
  if (providers.length === 0) return 'not_installed';
  const found = await providers[0]!.venueCapacity(db, orgId, bookingId);
  return found ?? 'not_found';
}

/** Tells every listener; true when at least one recorded the check-in. */
export async function ticketCheckedIn(db: Queryable, orgId: string, checkin: TicketCheckin): Promise<boolean> {
  const listeners = contributionsTo('ticketingCheckins');
  for (const listener of listeners) await listener.ticketCheckedIn(db, orgId, checkin);
  return listeners.length > 0;
}
