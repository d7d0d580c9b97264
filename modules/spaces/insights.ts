import { z } from 'zod';
import { DateTime } from 'luxon';
import { hasScope } from '../../core/principal';
import { queryOne, queryRows, type Queryable } from '../../db/pool';
import { addDays, countOf, defineMetric, periodRange, rangeOr, spokenRange, type AnyMetric } from '../metrics';
import type { OverviewContribution } from '../module';
import { definePlaybook, HUMAN_FIRST } from '../playbooks';
import { organisationTimeZone } from '../schedule/api';

/** What spaces adds to platform_overview and platform_analytics_query, and its playbooks. */

/** Live occurrences and their hours in [from, to) local dates, by room (busiest first). */
export async function bookingsByRoom(db: Queryable, orgId: string, range: { from: string; to: string }, limit = 50) {
  const zone = await organisationTimeZone(db, orgId);
  const from = DateTime.fromISO(range.from, { zone }).toUTC().toJSDate();
  const to = DateTime.fromISO(range.to, { zone }).plus({ days: 1 }).toUTC().toJSDate();
  const rows = await queryRows<{ room_id: string; room: string; bookings: number; hours: number }>(db, `
    SELECT o.room_id, r.name AS room, count(*)::int AS bookings, round(sum(extract(epoch FROM (o.ends_at - o.starts_at)) / 3600)::numeric, 2)::float8 AS hours
      FROM spaces_occurrences o JOIN spaces_rooms r ON r.id = o.room_id
     WHERE o.org_id = $1 AND o.status IN ('pending', 'approved') AND o.starts_at >= $2 AND o.starts_at < $3
     GROUP BY o.room_id, r.name ORDER BY hours DESC, r.name LIMIT $4`, [orgId, from, to, limit]);
  return rows.map((row) => ({ roomId: row.room_id, room: row.room, bookings: row.bookings, hours: row.hours }));
}

const roomBookings = defineMetric({
  name: 'room_bookings',
  description: 'Bookings (pending or approved occurrences) and booked hours per room over a range (default: this month), busiest first.',
  scope: 'spaces:read',
  params: ['range', 'limit'],
  output: z.object({
    from: z.string(), to: z.string(), bookings: z.number().int(), hours: z.number(),
    rooms: z.array(z.object({ roomId: z.uuid(), room: z.string(), bookings: z.number().int(), hours: z.number() }).strict()),
  }).strict(),
  compute: async (ctx, params) => {
    const { from, to } = rangeOr(params, () => periodRange('this_month'));
    const rooms = await bookingsByRoom(ctx.db, ctx.org.id, { from, to }, params.limit ?? 50);
    const bookings = rooms.reduce((sum, room) => sum + room.bookings, 0);
    const hours = Math.round(rooms.reduce((sum, room) => sum + room.hours, 0) * 100) / 100;
    const speakToUser = bookings === 0 ? `No rooms are booked ${spokenRange(from, to)}.`
      : `${countOf(bookings, 'booking')} over ${hours} hours ${spokenRange(from, to)}; the busiest room is ${rooms[0].room} (${rooms[0].hours} hours).`;
    return { data: { from, to, bookings, hours, rooms }, speakToUser };
  },
});

export const spacesMetrics: readonly AnyMetric[] = [roomBookings];

export const spacesOverview: OverviewContribution = {
  shape: {
    bookingsThisWeek: z.object({
      from: z.string(), to: z.string(), bookings: z.number().int(), pendingApproval: z.number().int(), openConflicts: z.number().int(), openIncidents: z.number().int(),
    }).strict().nullable().describe('Room bookings this week (Monday to Sunday, the organisation\'s zone), those pending approval, open booking conflicts and open incidents; null without spaces:read'),
  },
  compute: async (ctx) => {
    if (!hasScope(ctx.principal, 'spaces:read')) return { bookingsThisWeek: null };
    const zone = await organisationTimeZone(ctx.db, ctx.org.id);
    const monday = DateTime.now().setZone(zone).startOf('week');
    const row = (await queryOne<{ bookings: number; pending: number; conflicts: number; incidents: number }>(ctx.db, `
      SELECT (SELECT count(*)::int FROM spaces_occurrences WHERE org_id = $1 AND status IN ('pending', 'approved') AND starts_at >= $2 AND starts_at < $3) AS bookings,
             (SELECT count(*)::int FROM spaces_occurrences WHERE org_id = $1 AND status = 'pending' AND starts_at >= $2 AND starts_at < $3) AS pending,
             (SELECT count(*)::int FROM spaces_conflicts WHERE org_id = $1 AND status = 'open') AS conflicts,
             (SELECT count(*)::int FROM spaces_incidents WHERE org_id = $1 AND status <> 'done') AS incidents`,
    [ctx.org.id, monday.toUTC().toJSDate(), monday.plus({ weeks: 1 }).toUTC().toJSDate()]))!;
    return {
      bookingsThisWeek: { from: monday.toISODate()!, to: addDays(monday.toISODate()!, 6), bookings: row.bookings, pendingApproval: row.pending, openConflicts: row.conflicts, openIncidents: row.incidents },
    };
  },
};

export const spacesPlaybooks = [
  definePlaybook({
    name: 'book-a-recurring-room',
    title: 'Book a room for a regular group',
    description: 'Books a room for a group that meets regularly ("book the hall for the youth night every Friday"): finds a room free on every date, books it, and has a person settle any clash.',
    scopes: ['spaces:read', 'spaces:write'],
    tools: ['spaces_list_rooms', 'spaces_search_availability', 'spaces_create_booking', 'spaces_list_conflicts', 'spaces_resolve_conflict', 'spaces_get_room_schedule'],
    arguments: [
      { name: 'request', description: 'What and when, e.g. "the youth night every Friday 7 to 9pm in the hall"', required: true },
      { name: 'people', description: 'How many are expected', required: false },
    ],
    steps: (args) => [
      `Book a room for: ${args.request}${args.people ? ` (about ${args.people} people)` : ''}.`,
      '1. Turn the request into a first date, a start time, a length and an RRULE (FREQ=WEEKLY;BYDAY=FR for every Friday; add UNTIL or COUNT when it ends). Ask about set-up and clear-up time.',
      '2. If a room was named, spaces_list_rooms to find its id, capacity and layouts; check it holds the numbers.',
      '3. spaces_search_availability with the rule, the buffers and the minimum capacity: rooms free on every date come first, others say how many dates clash.',
      '4. spaces_create_booking for the room the person picks. If the answer is a conflict, read out the clashing dates and the alternatives it offers, and let the person choose: another room or time, or book with onConflict "hold" so the free dates are booked and the clashing ones wait for a decision.',
      '5. A pending booking waits for the room\'s approval group; say so, and who approves (spaces_list_rooms shows them).',
      '6. For held dates: spaces_list_conflicts, and ask the person with authority which booking keeps the room, or whether they share it; only then spaces_resolve_conflict. Never settle a clash yourself.',
      '7. spaces_get_room_schedule for the first date to read back what the caretaker will see.',
      HUMAN_FIRST,
    ].join('\n'),
  }),
];
