/**
 * The schedule module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/schedule/), and names 'schedule' in its `uses`.
 */
export { getSeries } from './series';
export { MAX_LIST_INSTANCES, addOneOffInstance, canonicalTimeZone, getInstance, instancesOnLocalDate, listInstances, localDateAt, localTimeSchema, localToUtc, organisationTimeZone, serviceInstanceSchema } from './services';
export type { ServiceInstance } from './services';
// A rule expanded in wall-clock time in its zone, and a rule's text checked and normalised, for other modules that recur on the same rules.
export { expand as expandRecurrence, parseRule as parseRecurrenceRule } from './recurrence';
