import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { queryOne, type Queryable } from '../../../../db/pool';
import { toolsFor } from '../../../kit';
import { roomsForCheckIn } from '../../../spaces/api';
import { locationSchema } from '../schemas';
import { locationView, type LocationRow } from '../setup';

const tools = toolsFor('guests', { read: 'guests:read', write: 'guests:write' });

/**
 * Rooms of the spaces module become check-in locations, their capacity carried. Idempotent: a room
 * imported before updates its own location (name and capacity; the check-in rules set here are
 * kept); a live location already named like the room is linked to it rather than duplicated.
 */
export async function importSpacesRooms(db: Queryable, orgId: string, options: { buildingId?: string }) {
  const rooms = await roomsForCheckIn(db, orgId, options);
  const counts = { created: 0, linked: 0, updated: 0, unchanged: 0 };
  const locations: LocationRow[] = [];
  for (const room of rooms) {
    // A room holding nobody (a store) carries no limit: check-in capacity must be positive.
    const capacity = room.capacity > 0 ? room.capacity : null;
    const linked = await queryOne<LocationRow>(db, 'SELECT * FROM guests_locations WHERE org_id = $1 AND spaces_room_id = $2 AND deleted_at IS NULL FOR UPDATE', [orgId, room.roomId]);
    const named = linked ? undefined : await queryOne<LocationRow>(db, 'SELECT * FROM guests_locations WHERE org_id = $1 AND lower(name) = lower($2) AND deleted_at IS NULL FOR UPDATE', [orgId, room.name]);
    const existing = linked ?? named;
    if (!existing) {
      locations.push((await queryOne<LocationRow>(db, `INSERT INTO guests_locations (id, org_id, name, capacity, spaces_room_id) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [randomUUID(), orgId, room.name, capacity, room.roomId]))!);
      counts.created += 1;
      continue;
    }
    if (existing.spaces_room_id === room.roomId && existing.name === room.name && existing.capacity === capacity) {
      locations.push(existing);
      counts.unchanged += 1;
      continue;
    }
    locations.push((await queryOne<LocationRow>(db, `UPDATE guests_locations SET name = $3, capacity = $4, spaces_room_id = $5, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, existing.id, room.name, capacity, room.roomId]))!);
    if (linked) counts.updated += 1; else counts.linked += 1;
  }
  return { ...counts, locations: locations.map((row) => ({ ...locationView(row), spacesRoomId: row.spaces_room_id! })) };
}

export const importSpacesRoomsTool = tools.write('import_spaces_rooms', {
  title: 'Import rooms as check-in locations',
  description: 'Makes the rooms managed in spaces check-in locations, their capacity carried (a room holding nobody gets no limit). Running it again changes nothing new: a room imported before updates its own location\'s name and capacity and keeps the check-in rules set on it; a location already named like a room is linked to it. Narrow to one building.',
  keywords: ['import rooms', 'rooms as check-in locations', 'sync rooms', 'rooms to check-in', 'copy rooms'],
  examples: ['set up check-in locations from our rooms', 'use the church centre rooms for kids check-in', 'bring the room list into check-in with capacities', 'the hall capacity changed, update the check-in rooms', 'turn the rooms in the church hall building into check-in rooms', "copy our bookable rooms across to children's check-in", 'sync check-in locations with the room list after the refit', 'link check-in to the Sunday school rooms we already manage', 'import our rooms as kids check-in locations', 'make the parish centre rooms into check-in locations', "we've added a new room in the hall, bring it into check-in", 'refresh check-in locations from the rooms list for the church centre'],
  idempotent: true,
  input: z.object({ buildingId: z.uuid().optional().describe('Only this building\'s rooms (spaces_list_buildings)') }),
  output: z.object({
    created: z.number().int(), linked: z.number().int(), updated: z.number().int(), unchanged: z.number().int(),
    locations: z.array(locationSchema.extend({ spacesRoomId: z.uuid() }).strict()),
  }).strict(),
  run: async (ctx, input) => importSpacesRooms(ctx.db, ctx.org.id, input),
});
