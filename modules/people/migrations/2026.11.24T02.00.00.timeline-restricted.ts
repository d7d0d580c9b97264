import type { Migration } from '../../../db/migrate';

/**
 * A timeline entry says whether it is restricted: pastoral records other than notes (visits,
 * life events, prayer requests, grief touchpoints) are private or confidential by their own
 * fields, and their entries must follow the same rule as restricted notes without each list
 * joining every source table. Entries from notes keep following the note itself (a later
 * privacy change applies at once); for every other source the flag is written at sync time and
 * rewritten whenever the source syncs again.
 */
export const timelineRestricted: Migration = {
  name: '2026.11.24T02.00.00.timeline-restricted',
  up: `ALTER TABLE timeline_entries ADD COLUMN restricted boolean NOT NULL DEFAULT false;`,
  down: `ALTER TABLE timeline_entries DROP COLUMN restricted;`,
};
