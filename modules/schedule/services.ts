/**
 * What other modules may use of the schedule: service instances by id, by range and by local date,
 * one-off extra instances, and the zone the organisation's services run in. Every function takes
 * the caller's transaction (`db`) and organisation; another organisation's ids are not found.
 */
export {
  addOneOffInstance,
  getInstance,
  instancesOnLocalDate,
  listInstances,
  MAX_LIST_INSTANCES,
  organisationTimeZone,
  type ServiceInstance,
} from './instances';
export { canonicalTimeZone, localDateAt, localToUtc } from './recurrence';
export { instanceSchema as serviceInstanceSchema, localTime as localTimeSchema } from './schemas';
