/**
 * The guests module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/guests/), and names 'guests' in its `uses`.
 */
export { listCheckins, listLocations, requireLocation } from './checkin/published';
export type { CheckinRecord } from './checkin/published';
export { listFollowupsDue, openGuestCard, volunteersByInstance } from './pipeline/published';
