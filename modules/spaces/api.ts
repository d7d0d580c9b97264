/**
 * The spaces module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/spaces/), and names 'spaces' in its `uses`.
 */
export { bookingsForInstance, getBookedRoom, roomsForCheckIn } from './published';
export type { BookedRoom, CheckInRoom, InstanceBooking } from './published';
