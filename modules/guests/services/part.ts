import type { ModulePart } from '../../module';
import { guestsServicesTools } from './tools';

/**
 * The services part of the guests module (joined in ../index.ts): which services happen today and
 * in a range, read from the schedule module's instances, and one-off extra services. The schedule
 * owns the instances; this part only reads them and asks the schedule to add one-offs.
 */
export const servicesPart: ModulePart = {
  name: 'services',
  tools: guestsServicesTools,
};
