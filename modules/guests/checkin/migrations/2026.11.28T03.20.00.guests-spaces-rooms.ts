import type { Migration } from '../../../../db/migrate';

/**
 * A check-in location imported from a spaces room remembers the room, so importing again updates
 * that location (its capacity carried) instead of adding another: one live location per room.
 */
export const guestsSpacesRooms: Migration = {
  name: '2026.11.28T03.20.00.guests-spaces-rooms',
  up: `
ALTER TABLE guests_locations ADD COLUMN spaces_room_id uuid;
CREATE UNIQUE INDEX guests_locations_spaces_room ON guests_locations (org_id, spaces_room_id) WHERE spaces_room_id IS NOT NULL AND deleted_at IS NULL;
`,
  down: `
DROP INDEX guests_locations_spaces_room;
ALTER TABLE guests_locations DROP COLUMN spaces_room_id;
`,
};
