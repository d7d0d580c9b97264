import { randomUUID } from 'node:crypto';
import { StewardError } from '../../core/errors';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { holdSpacesWriteLock } from './write-lock';
import { notFound, type RowOf } from '../kit';
import { listTeam } from '../platform/api';
import type { Building, Campus, Resource, Room, RoomLayout } from './models';

/** Campuses, buildings, rooms and resources: the places and things bookings take. */

export type CampusRow = RowOf<Campus>;
export type BuildingRow = RowOf<Building>;
export type RoomRow = RowOf<Room>;
export type ResourceRow = RowOf<Resource>;

export interface BuildingView { id: string; name: string; address: string | null; campusId: string; campus: string; rooms: number; createdAt: string }
export interface RoomView {
  id: string; name: string; buildingId: string; building: string; campus: string; capacity: number; features: string[]; layouts: RoomLayout[];
  approverUserIds: string[]; needsApproval: boolean; defaultSetupMinutes: number; defaultTeardownMinutes: number; notes: string | null; archived: boolean;
}
export interface ResourceView { id: string; name: string; quantity: number; buildingId: string | null; notes: string | null; archived: boolean }

const uniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/** The campus named (case does not matter), created when it is new. */
async function campusNamed(db: Queryable, orgId: string, name: string): Promise<CampusRow> {
  const existing = await queryOne<CampusRow>(db, 'SELECT * FROM spaces_campuses WHERE org_id = $1 AND lower(name) = lower($2)', [orgId, name]);
  if (existing) return existing;
  return (await queryOne<CampusRow>(db, `INSERT INTO spaces_campuses (id, org_id, name) VALUES ($1, $2, $3)
    ON CONFLICT (org_id, lower(name)) DO UPDATE SET updated_at = spaces_campuses.updated_at RETURNING *`, [randomUUID(), orgId, name]))!;
}

export async function createBuilding(db: Queryable, orgId: string, input: { name: string; campus?: string; address?: string }): Promise<BuildingView> {
  const campus = await campusNamed(db, orgId, input.campus ?? 'Main site');
  try {
    const row = (await queryOne<BuildingRow>(db, 'INSERT INTO spaces_buildings (id, org_id, campus_id, name, address) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [randomUUID(), orgId, campus.id, input.name, input.address ?? null]))!;
    return { id: row.id, name: row.name, address: row.address, campusId: campus.id, campus: campus.name, rooms: 0, createdAt: row.created_at.toISOString() };
  } catch (error) {
    if (uniqueViolation(error)) throw new StewardError('conflict', `${campus.name} already has a building named "${input.name}"`, { hint: 'spaces_list_buildings lists the buildings there are.' });
    throw error;
  }
}

export async function listBuildings(db: Queryable, orgId: string): Promise<BuildingView[]> {
  const rows = await queryRows<BuildingRow & { campus: string; rooms: number }>(db, `
    SELECT b.*, c.name AS campus, (SELECT count(*)::int FROM spaces_rooms r WHERE r.building_id = b.id AND r.archived_at IS NULL) AS rooms
      FROM spaces_buildings b JOIN spaces_campuses c ON c.id = b.campus_id
     WHERE b.org_id = $1 ORDER BY lower(c.name), lower(b.name) LIMIT 500`, [orgId]);
  return rows.map((row) => ({ id: row.id, name: row.name, address: row.address, campusId: row.campus_id, campus: row.campus, rooms: row.rooms, createdAt: row.created_at.toISOString() }));
}

export async function requireBuilding(db: Queryable, orgId: string, buildingId: string): Promise<BuildingRow> {
  const row = await queryOne<BuildingRow>(db, 'SELECT * FROM spaces_buildings WHERE org_id = $1 AND id = $2', [orgId, buildingId]);
  if (!row) throw notFound('Building', buildingId, 'spaces_list_buildings lists the buildings there are.');
  return row;
}

export async function requireCampus(db: Queryable, orgId: string, campusId: string): Promise<CampusRow> {
  const row = await queryOne<CampusRow>(db, 'SELECT * FROM spaces_campuses WHERE org_id = $1 AND id = $2', [orgId, campusId]);
  if (!row) throw notFound('Campus', campusId, 'spaces_list_buildings names each building\'s campus.');
  return row;
}

export type RoomJoined = RoomRow & { building: string; campus: string; campus_id: string };
const ROOM_SELECT = `SELECT r.*, b.name AS building, c.name AS campus, b.campus_id FROM spaces_rooms r
  JOIN spaces_buildings b ON b.id = r.building_id JOIN spaces_campuses c ON c.id = b.campus_id`;

export function roomView(row: RoomJoined): RoomView {
  return {
    id: row.id, name: row.name, buildingId: row.building_id, building: row.building, campus: row.campus, capacity: row.capacity, features: row.features,
    layouts: row.layouts, approverUserIds: row.approver_user_ids, needsApproval: row.approver_user_ids.length > 0,
    defaultSetupMinutes: row.default_setup_minutes, defaultTeardownMinutes: row.default_teardown_minutes, notes: row.notes, archived: row.archived_at !== null,
  };
}

/**
 * A room of the organisation (archived ones only when asked); another organisation's id is not found.
 * With forUpdate, its row lock, after the organisation's spaces lock (holdSpacesWriteLock).
 */
export async function requireRoom(db: Queryable, orgId: string, roomId: string, options: { includeArchived?: boolean; forUpdate?: boolean } = {}): Promise<RoomJoined> {
  if (options.forUpdate) {
    await holdSpacesWriteLock(db, orgId);
    await db.query('SELECT id FROM spaces_rooms WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, roomId]);
  }
  const row = await queryOne<RoomJoined>(db, `${ROOM_SELECT} WHERE r.org_id = $1 AND r.id = $2`, [orgId, roomId]);
  if (!row || (row.archived_at && !options.includeArchived)) throw notFound('Room', roomId, 'spaces_list_rooms lists the rooms there are.');
  return row;
}

export interface RoomFilter { buildingId?: string; campusId?: string; minCapacity?: number; features?: string[]; includeArchived?: boolean; ids?: string[] }

export async function listRooms(db: Queryable, orgId: string, filter: RoomFilter = {}): Promise<RoomJoined[]> {
  return queryRows<RoomJoined>(db, `${ROOM_SELECT}
    WHERE r.org_id = $1 AND ($2::boolean OR r.archived_at IS NULL) AND ($3::uuid IS NULL OR r.building_id = $3) AND ($4::uuid IS NULL OR b.campus_id = $4)
      AND r.capacity >= $5 AND r.features @> $6::text[] AND ($7::uuid[] IS NULL OR r.id = ANY($7::uuid[]))
    ORDER BY lower(c.name), lower(b.name), lower(r.name) LIMIT 1000`,
  [orgId, filter.includeArchived ?? false, filter.buildingId ?? null, filter.campusId ?? null, filter.minCapacity ?? 0, normaliseFeatures(filter.features ?? []), filter.ids ?? null]);
}

/** Features compare without case or surrounding space ("Projector" is "projector"). */
export function normaliseFeatures(features: readonly string[]): string[] {
  return [...new Set(features.map((feature) => feature.trim().toLowerCase()).filter((feature) => feature.length > 0))].sort();
}

async function assertTeamMembers(db: Queryable, orgId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  const team = new Set((await listTeam(db, orgId)).map((member) => member.userId));
  const missing = userIds.filter((userId) => !team.has(userId));
  if (missing.length > 0) {
    throw new StewardError('validation_failed', `${missing.length} of the approvers ${missing.length === 1 ? 'is' : 'are'} not on the team`, {
      hint: 'An approval group lists team members (platform_list_team_members) by user id.',
      issues: missing.map((userId) => ({ path: 'approverUserIds', message: `${userId} is not a team member` })),
    });
  }
}

export interface RoomInput {
  name?: string; buildingId?: string; capacity?: number; features?: string[]; layouts?: Array<{ name: string; capacity?: number | null; note?: string | null }>;
  approverUserIds?: string[]; defaultSetupMinutes?: number; defaultTeardownMinutes?: number; notes?: string | null;
}

function layoutsOf(layouts: NonNullable<RoomInput['layouts']>, capacity: number): RoomLayout[] {
  const names = new Set<string>();
  return layouts.map((layout, index) => {
    const key = layout.name.trim().toLowerCase();
    if (names.has(key)) throw new StewardError('validation_failed', `Two layouts are named "${layout.name}"`, { issues: [{ path: `layouts.${index}.name`, message: 'layout names must differ' }] });
    names.add(key);
    if (layout.capacity != null && layout.capacity > capacity) {
      throw new StewardError('validation_failed', `Layout "${layout.name}" seats ${layout.capacity}, more than the room's capacity of ${capacity}`, { issues: [{ path: `layouts.${index}.capacity`, message: 'at most the room capacity' }] });
    }
    return { name: layout.name.trim(), capacity: layout.capacity ?? null, note: layout.note ?? null };
  });
}

export async function createRoom(db: Queryable, orgId: string, input: RoomInput & { name: string; buildingId: string; capacity: number }): Promise<RoomView> {
  await requireBuilding(db, orgId, input.buildingId);
  await assertTeamMembers(db, orgId, input.approverUserIds ?? []);
  const id = randomUUID();
  try {
    await db.query(`INSERT INTO spaces_rooms (id, org_id, building_id, name, capacity, features, layouts, approver_user_ids, default_setup_minutes, default_teardown_minutes, notes)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [id, orgId, input.buildingId, input.name, input.capacity, normaliseFeatures(input.features ?? []), JSON.stringify(layoutsOf(input.layouts ?? [], input.capacity)),
      [...new Set(input.approverUserIds ?? [])], input.defaultSetupMinutes ?? 0, input.defaultTeardownMinutes ?? 0, input.notes ?? null]);
  } catch (error) {
    if (uniqueViolation(error)) throw new StewardError('conflict', `The building already has a room named "${input.name}"`, { hint: 'spaces_list_rooms lists its rooms; name the new one differently.' });
    throw error;
  }
  return roomView(await requireRoom(db, orgId, id));
}

export async function updateRoom(db: Queryable, orgId: string, roomId: string, changes: RoomInput): Promise<RoomView> {
  const room = await requireRoom(db, orgId, roomId, { forUpdate: true });
  if (changes.buildingId) await requireBuilding(db, orgId, changes.buildingId);
  if (changes.approverUserIds) await assertTeamMembers(db, orgId, changes.approverUserIds);
  const capacity = changes.capacity ?? room.capacity;
  const layouts = changes.layouts ? layoutsOf(changes.layouts, capacity) : layoutsOf(room.layouts, capacity);
  try {
    await db.query(`UPDATE spaces_rooms SET name = $3, building_id = $4, capacity = $5, features = $6, layouts = $7, approver_user_ids = $8,
      default_setup_minutes = $9, default_teardown_minutes = $10, notes = $11, updated_at = now() WHERE org_id = $1 AND id = $2`,
    [orgId, roomId, changes.name ?? room.name, changes.buildingId ?? room.building_id, capacity,
      changes.features ? normaliseFeatures(changes.features) : room.features, JSON.stringify(layouts),
      changes.approverUserIds ? [...new Set(changes.approverUserIds)] : room.approver_user_ids,
      changes.defaultSetupMinutes ?? room.default_setup_minutes, changes.defaultTeardownMinutes ?? room.default_teardown_minutes,
      changes.notes === undefined ? room.notes : changes.notes]);
  } catch (error) {
    if (uniqueViolation(error)) throw new StewardError('conflict', `The building already has a room named "${changes.name}"`, { hint: 'Name it differently.' });
    throw error;
  }
  return roomView(await requireRoom(db, orgId, roomId));
}

/** Archives a room with no upcoming bookings (they are moved or cancelled first, so nobody is left without a room). */
export async function archiveRoom(db: Queryable, orgId: string, roomId: string, now: Date): Promise<{ room: RoomView }> {
  await requireRoom(db, orgId, roomId, { forUpdate: true });
  const upcoming = await queryRows<{ booking_id: string; title: string; n: number }>(db, `
    SELECT o.booking_id, b.title, count(*)::int AS n FROM spaces_occurrences o JOIN spaces_bookings b ON b.id = o.booking_id
     WHERE o.org_id = $1 AND o.room_id = $2 AND o.ends_at > $3 AND o.status IN ('pending', 'approved', 'held')
     GROUP BY o.booking_id, b.title ORDER BY b.title LIMIT 20`, [orgId, roomId, now]);
  if (upcoming.length > 0) {
    throw new StewardError('conflict', `The room still has upcoming bookings (${upcoming.map((row) => `"${row.title}"`).join(', ')})`, {
      hint: 'Move them to another room (spaces_update_booking) or cancel them (spaces_cancel_booking), then archive the room.',
      details: { bookings: upcoming.map((row) => ({ bookingId: row.booking_id, title: row.title, upcomingOccurrences: row.n })) },
    });
  }
  await db.query('UPDATE spaces_rooms SET archived_at = now(), updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, roomId]);
  return { room: roomView(await requireRoom(db, orgId, roomId, { includeArchived: true })) };
}

export async function countRooms(db: Queryable, orgId: string): Promise<number> {
  return (await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM spaces_rooms WHERE org_id = $1 AND archived_at IS NULL', [orgId]))!.n;
}

export function resourceView(row: ResourceRow): ResourceView {
  return { id: row.id, name: row.name, quantity: row.quantity, buildingId: row.building_id, notes: row.notes, archived: row.archived_at !== null };
}

export async function createResource(db: Queryable, orgId: string, input: { name: string; quantity: number; buildingId?: string; notes?: string }): Promise<ResourceView> {
  if (input.buildingId) await requireBuilding(db, orgId, input.buildingId);
  try {
    return resourceView((await queryOne<ResourceRow>(db, 'INSERT INTO spaces_resources (id, org_id, building_id, name, quantity, notes) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [randomUUID(), orgId, input.buildingId ?? null, input.name, input.quantity, input.notes ?? null]))!);
  } catch (error) {
    if (uniqueViolation(error)) throw new StewardError('conflict', `A resource named "${input.name}" exists already`, { hint: 'spaces_list_resources lists them.' });
    throw error;
  }
}

export async function listResources(db: Queryable, orgId: string, options: { buildingId?: string } = {}): Promise<ResourceView[]> {
  const rows = await queryRows<ResourceRow>(db, `SELECT * FROM spaces_resources WHERE org_id = $1 AND archived_at IS NULL AND ($2::uuid IS NULL OR building_id = $2)
    ORDER BY lower(name) LIMIT 500`, [orgId, options.buildingId ?? null]);
  return rows.map(resourceView);
}

export async function requireResource(db: Queryable, orgId: string, resourceId: string): Promise<ResourceRow> {
  const row = await queryOne<ResourceRow>(db, 'SELECT * FROM spaces_resources WHERE org_id = $1 AND id = $2 AND archived_at IS NULL', [orgId, resourceId]);
  if (!row) throw notFound('Resource', resourceId, 'spaces_list_resources lists the resources there are.');
  return row;
}
