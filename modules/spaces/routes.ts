import { z } from 'zod';
import { calendarDate } from '../kit';
import { routesFor } from '../routes';
import { listConflicts } from './conflicts';
import { listBuildings, listResources, listRooms, requireRoom, roomView } from './sites';
import {
  approveBookingTool, bookingsFrom, cancelBookingTool, createBlockoutTool, createBookingTool, getRoomScheduleTool, listBookingsTool, listConflictsTool, rejectBookingTool,
  resolveConflictTool, roomSchedule, updateBookingTool,
} from './tools/bookings';
import { listBuildingsTool, listResourcesTool, listRoomsTool, roomSchema } from './tools/sites';

/**
 * The spaces dashboard routes: the reads a rooms-and-bookings page needs (buildings, rooms, one
 * room, a room's week, bookings, conflicts). Writes name the curated tool that does them, so the
 * invoke bridges send callers to it.
 */
const routes = routesFor('spaces', { read: 'spaces:read', write: 'spaces:write' });
const roomParams = z.object({ roomId: z.uuid() }).strict();
const bookingParams = z.object({ bookingId: z.uuid() }).strict();

export const spacesRoutes = [
  routes.get('buildings', { summary: 'Buildings by campus', response: listBuildingsTool.output, run: async (ctx) => ({ buildings: await listBuildings(ctx.db, ctx.org.id) }) }),
  routes.get('rooms', {
    summary: 'Rooms, narrowed by building, capacity or archived',
    query: z.object({ buildingId: z.uuid().optional(), minCapacity: z.coerce.number().int().min(0).max(100_000).optional(), includeArchived: z.enum(['true', 'false']).default('false') }).strict(),
    response: listRoomsTool.output,
    run: async (ctx, { query }) => ({ rooms: (await listRooms(ctx.db, ctx.org.id, { ...query, includeArchived: query.includeArchived === 'true' })).map(roomView) }),
  }),
  routes.get('rooms/{roomId}', {
    summary: 'One room', params: roomParams, response: z.object({ room: roomSchema }).strict(),
    run: async (ctx, { params }) => ({ room: roomView(await requireRoom(ctx.db, ctx.org.id, params.roomId, { includeArchived: true })) }),
  }),
  routes.get('rooms/{roomId}/week', {
    summary: 'A room\'s seven days from a date (default today): each booking with set-up and clear-up, and blockouts',
    params: roomParams, query: z.object({ from: calendarDate().optional() }).strict(), response: getRoomScheduleTool.output,
    run: async (ctx, { params, query }) => roomSchedule(ctx.db, ctx.org.id, { roomId: params.roomId, localDate: query.from, days: 7 }),
  }),
  routes.get('resources', { summary: 'Countable resources', response: listResourcesTool.output, run: async (ctx) => ({ resources: await listResources(ctx.db, ctx.org.id) }) }),
  routes.get('bookings', {
    summary: 'Booked occurrences from a date for some days, earliest first',
    query: z.object({ from: calendarDate().optional(), days: z.coerce.number().int().min(1).max(366).default(7), roomId: z.uuid().optional() }).strict(),
    response: listBookingsTool.output,
    run: async (ctx, { query }) => bookingsFrom(ctx.db, ctx.org.id, { ...query, limit: 500 }),
  }),
  routes.get('conflicts', {
    summary: 'Open booking conflicts',
    query: z.object({ status: z.enum(['open', 'resolved', 'all']).default('open') }).strict(),
    response: listConflictsTool.output,
    run: async (ctx, { query }) => listConflicts(ctx.db, ctx.org.id, { status: query.status, limit: 200 }),
  }),
  routes.post('bookings', { summary: 'Book a room', body: createBookingTool.input, response: createBookingTool.output, curatedTool: 'spaces_create_booking' }),
  routes.patch('bookings/{bookingId}', {
    summary: 'Change a booking (this, this and following, all)', params: bookingParams, body: updateBookingTool.input.omit({ bookingId: true }),
    response: updateBookingTool.output, curatedTool: 'spaces_update_booking',
  }),
  routes.post('bookings/{bookingId}/cancel', { summary: 'Cancel a booking', params: bookingParams, body: cancelBookingTool.input.omit({ bookingId: true }), response: cancelBookingTool.output, curatedTool: 'spaces_cancel_booking' }),
  routes.post('bookings/{bookingId}/approve', { summary: 'Approve a pending booking', params: bookingParams, body: approveBookingTool.input.omit({ bookingId: true }), response: approveBookingTool.output, curatedTool: 'spaces_approve_booking' }),
  routes.post('bookings/{bookingId}/reject', { summary: 'Reject a pending booking', params: bookingParams, body: rejectBookingTool.input.omit({ bookingId: true }), response: rejectBookingTool.output, curatedTool: 'spaces_reject_booking' }),
  routes.post('conflicts/{conflictId}/resolve', {
    summary: 'Resolve a conflict', params: z.object({ conflictId: z.uuid() }).strict(), body: resolveConflictTool.input.omit({ conflictId: true }),
    response: resolveConflictTool.output, curatedTool: 'spaces_resolve_conflict',
  }),
  routes.post('blockouts', { summary: 'Block out a room, resource, building or campus', body: createBlockoutTool.input, response: createBlockoutTool.output, curatedTool: 'spaces_create_blockout' }),
];
