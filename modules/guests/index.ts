import { defineModule, withParts } from '../module';
import { checkinPart } from './checkin/part';
import { pipelinePart } from './pipeline/part';
import { servicesPart } from './services/part';
import { guestsWidgets } from './widgets';

/**
 * Sunday mornings: services today (from the schedule module), locations, stations and check-in
 * with child safety, and the guest pipeline with its follow-ups, welcome cards and volunteers.
 * Separate from the people module's Welcome Desk. Three parts, one module.
 */
export default defineModule(withParts({
  name: 'guests',
  title: 'Guests',
  description: 'Guest pipeline and follow-ups, check-in stations, child check-in with security codes, live roster, welcome cards and volunteer schedules.',
  tools: [],
  migrations: [],
  scopes: ['guests:read', 'guests:write'],
  uses: ['platform', 'people', 'schedule', 'channels', 'spaces'],
  routes: [],
  widgets: guestsWidgets,
}, [servicesPart, checkinPart, pipelinePart]));
