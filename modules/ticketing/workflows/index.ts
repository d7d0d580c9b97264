/** Ticketing's workflows, bundled through its definition's `workflows`. */
export { ticketingReservationWorkflow } from './reservations';
export { followUps } from './follow-ups';
