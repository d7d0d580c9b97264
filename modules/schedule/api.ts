/**
 * The schedule module's public surface: what other modules may call. Another module imports only this
 * file (the boundary lint refuses any other path into modules/schedule/), and names 'schedule' in its `uses`.
 */
export { getSeries } from './series';
export { MAX_LIST_INSTANCES, addOneOffInstance, canonicalTimeZone, getInstance, instancesOnLocalDate, listInstances, localDateAt, localTimeSchema, localToUtc, organisationTimeZone, serviceInstanceSchema } from './services';
export type { ServiceInstance } from './services';
export { expand as expandRecurrence, parseRule as parseRecurrenceRule, MAX_OCCURRENCES_PER_EXPANSION } from './recurrence';
export type { Occurrence, Recurrence } from './recurrence';
