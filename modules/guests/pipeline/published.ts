/**
 * What other parts and modules may use of the guest pipeline: opening a guest's one card (idempotent),
 * and the volunteers scheduled per service instance (attendance counts them).
 */
export { openGuestCard, type CardSource } from './cards';
export { volunteersByInstance } from './volunteers';
export { listFollowupsDue } from './followups';
