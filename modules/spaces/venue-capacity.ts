import { StewardError } from '../../core/errors';
import type { Queryable } from '../../db/pool';
import { getBookedRoom } from './published';

/**
 * What ticketing's `ticketingVenueCapacity` extension point asks: the places a booking's room
 * holds in its booked layout (the room's capacity without one). A booking of another organisation
 * or none at all, and a booking of a countable resource rather than a room, answer null.
 */
export async function venueCapacity(db: Queryable, orgId: string, bookingId: string): Promise<{ capacity: number; roomName: string } | null> {
  try {
    const booked = await getBookedRoom(db, orgId, bookingId);
    if (booked.seats === null || booked.room === null) return null;
    return { capacity: booked.seats, roomName: booked.layout ? `${booked.room} (${booked.layout})` : booked.room };
  } catch (error) {
    if (error instanceof StewardError && error.code === 'not_found') return null;
    throw error;
  }
}
