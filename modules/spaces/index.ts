import { defineModule } from '../module';
import { materialiseBookings, releaseCancelledInstances, releaseEndedInstances } from './conflicts';
import { spacesTables } from './migrations/2026.11.28T03.00.00.spaces';
import { followMovedInstances } from './instance-moves';
import { spacesFacilities } from './migrations/2026.11.28T03.10.00.spaces-facilities';
import { spacesResourceConflicts } from './migrations/2026.12.01T17.00.00.spaces-resource-conflicts';
import { facilitiesModels, spacesModels } from './models';
import { spacesMetrics, spacesOverview, spacesPlaybooks } from './insights';
import { spacesRoutes } from './routes';
import { countRooms } from './sites';
import { venueCapacity } from './venue-capacity';
import { roomsReadiness } from './readiness';
import { spacesWidgets } from './widgets';
import { holdSpacesWriteLock } from './write-lock';
import { bookingTools } from './tools/bookings';
import { facilitiesTools } from './tools/facilities';
import { siteTools } from './tools/sites';

/**
 * Spaces: campuses, buildings, rooms and countable resources; bookings (once or an RRULE in the
 * organisation's zone) with set-up and clear-up, approvals, blockouts and conflicts a person
 * resolves. Occurrences are materialised a year ahead and kept so by a job; Postgres' exclusion
 * constraint refuses two live occurrences of one room with overlapping busy windows.
 */
export default defineModule({
  name: 'spaces',
  title: 'Spaces',
  description: 'Buildings, rooms and resources, bookings that never double-book, approvals, blockouts and conflicts.',
  tools: [...siteTools, ...bookingTools, ...facilitiesTools],
  models: [...spacesModels, ...facilitiesModels],
  migrations: [spacesTables, spacesFacilities, spacesResourceConflicts],
  scopes: ['spaces:read', 'spaces:write'],
  routes: spacesRoutes,
  widgets: spacesWidgets,
  uses: ['platform', 'people', 'schedule', 'audit'],
  meters: [{ feature: 'rooms', allowances: { starter: 10, growth: 50, enterprise: 1000 }, standingCount: countRooms }],
  metrics: spacesMetrics,
  overview: spacesOverview,
  playbooks: spacesPlaybooks,
  // A merge or erasure rewriting a hirer's bookings queues behind the organisation's other spaces writes, as they do.
  contactRefs: [{ table: 'spaces_bookings', column: 'hirer_contact_id', onMerge: 'move', onErase: 'null', alsoClear: ['hirer_organisation'], lockFirst: holdSpacesWriteLock }],
  contributes: {
    // Ticketing asks how many the booked room holds before it publishes an event linked to a booking.
    ticketingVenueCapacity: { venueCapacity },
    // Runsheet's Sunday-readiness check asks whether the service's rooms are booked and ready.
    runsheetReadiness: [{ area: 'rooms', check: roomsReadiness }],
    // A schedule write that may end or move instances takes the spaces lock before its own rows, in the order spaces' writers take them.
    scheduleInstancesChanging: { beforeInstancesChange: holdSpacesWriteLock },
    // A cancelled or removed service instance frees its rooms in the same transaction.
    scheduleInstancesEnded: { instancesEnded: async (db, orgId, ended) => { await releaseEndedInstances(db, orgId, ended); } },
    // A moved service instance takes its room bookings to the new time in the same transaction; a clash there is held as an open conflict.
    scheduleInstancesMoved: { instancesMoved: async (db, orgId, moved) => { await followMovedInstances(db, orgId, moved); } },
  },
  jobs: [
    {
      name: 'spaces.materialise_occurrences',
      description: 'Keeps every recurring booking\'s occurrences materialised a year ahead, each checked for its room and resource quantities (a clash or shortage is held with an open conflict)',
      everyMs: 6 * 3_600_000,
      run: materialiseBookings,
    },
    {
      name: 'spaces.release_cancelled_instances',
      // Cancelling or removing an instance already releases its bookings at once (scheduleInstancesEnded); this catches anything that slipped past.
      description: 'Safety net: cancels any booking still linked to a cancelled or removed service instance, freeing its room',
      everyMs: 5 * 60_000,
      run: releaseCancelledInstances,
    },
  ],
});
