import { z } from 'zod';
import { DateTime } from 'luxon';
import { StewardError } from '../../../core/errors';
import { queryRows, type Queryable } from '../../../db/pool';
import { calendarDate } from '../../kit';
import { canonicalTimeZone, organisationTimeZone, parseRecurrenceRule } from '../../schedule/api';
import { cancelBooking, createBooking, decideBooking, listOccurrences, updateBooking } from '../bookings';
import { createBlockout, listConflicts, resolveConflict } from '../conflicts';
import { clashCounts, horizonFrom, planOccurrences, type BookingShape } from '../engine';
import { OCCURRENCE_STATUSES } from '../models';
import { listRooms, requireRoom } from '../sites';
import { tools } from './sites';

const localTime = z.string().max(5).regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'a time as HH:MM (24-hour)');
const minutes = z.number().int().min(0).max(1440);
const duration = z.number().int().min(5).max(1440);
const onConflict = z.enum(['refuse', 'hold']).default('refuse')
  .describe('refuse (default): a clash books nothing and answers with the clashes and free alternatives; hold: book the free times and hold the clashing ones, each with an open conflict for a person to resolve');
const seriesScope = z.enum(['this', 'this_and_following', 'all']).default('all').describe('For a recurring booking: this occurrence, this and the following ones, or all');

const occurrenceFields = {
  id: z.uuid(), bookingId: z.uuid(), roomId: z.uuid().nullable(), localDate: z.string(), startTime: z.string(), endTime: z.string(), startsAt: z.string(), endsAt: z.string(),
  busyFrom: z.string().describe('Start minus set-up time'), busyTo: z.string().describe('End plus clear-up time'),
  status: z.enum(OCCURRENCE_STATUSES).describe('held: clashes, waiting for a person to resolve the conflict; it blocks nothing'), shared: z.boolean(), detached: z.boolean(), layout: z.string().nullable(),
};
const occurrenceSchema = z.object(occurrenceFields).strict();
const bookingSchema = z.object({
  id: z.uuid(), title: z.string(), status: z.enum(['pending', 'approved', 'rejected', 'cancelled']), roomId: z.uuid().nullable(), room: z.string().nullable(),
  timeZone: z.string(), startDate: z.string(), startTime: z.string(), durationMinutes: z.number().int(), rrule: z.string().nullable(), fromDate: z.string().nullable(), untilDate: z.string().nullable(),
  setupMinutes: z.number().int(), teardownMinutes: z.number().int(), layout: z.string().nullable(), expectedAttendance: z.number().int().nullable(),
  scheduleInstanceId: z.uuid().nullable(), hirerContactId: z.uuid().nullable(), hirerOrganisation: z.string().nullable(), notes: z.string().nullable(),
  resources: z.array(z.object({ resourceId: z.uuid(), name: z.string(), quantity: z.number().int() }).strict()),
  requestedByUserId: z.uuid().nullable(), decidedByUserId: z.uuid().nullable(), decidedAt: z.string().nullable(), decisionNote: z.string().nullable(),
  splitFromBookingId: z.uuid().nullable(), createdAt: z.string(),
  upcoming: z.object({ occurrences: z.number().int(), held: z.number().int(), next: z.array(occurrenceSchema) }).strict(), openConflicts: z.number().int(),
}).strict();
const resourceLines = z.array(z.object({ resourceId: z.uuid(), quantity: z.number().int().min(1).max(100_000) })).max(20);

export const searchAvailabilityTool = tools.read('search_availability', {
  title: 'Find a free room',
  description: 'Rooms free for a time, or for every occurrence of a recurrence (RRULE in the organisation\'s zone, checked over the coming year), with set-up and clear-up buffers included: capacity at least N, with all the features asked for, in a building or campus. Free rooms first (smallest that fits first), then those taken at some of the times with how many.',
  keywords: ['free room', 'availability', 'is the hall free', 'find a room', 'room search'],
  examples: ['is the main hall free on Friday evening', 'find a room for 30 people next Tuesday 7 to 9pm', 'which rooms with a projector are free every Wednesday at 10', 'we need somewhere for the youth night every Friday 7pm for two hours', 'any room for 100 with a kitchen on Saturday 14th', 'where can the choir practise on Thursday nights', 'can we fit 60 people somewhere on Sunday afternoon', 'free room Thursday 2pm', "Fran's course needs a room for 25 every other Tuesday evening from May, what's available?", 'where could the Guides meet on Wednesdays at 6:30'],
  input: z.object({
    localDate: calendarDate().describe('The (first) date, in the zone'), startTime: localTime, durationMinutes: duration,
    rrule: z.string().trim().max(500).optional().describe('RFC 5545 RRULE without DTSTART, e.g. FREQ=WEEKLY;BYDAY=FR'),
    timeZone: z.string().max(64).optional().describe('IANA zone; default the organisation\'s'),
    setupMinutes: minutes.default(0), teardownMinutes: minutes.default(0), minCapacity: z.number().int().min(0).max(100_000).default(0),
    features: z.array(z.string().trim().min(1).max(60)).max(20).optional(), buildingId: z.uuid().optional(), campusId: z.uuid().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  }),
  output: z.object({
    occurrencesChecked: z.number().int(), timeZone: z.string(),
    rooms: z.array(z.object({ roomId: z.uuid(), name: z.string(), building: z.string(), capacity: z.number().int(), features: z.array(z.string()), free: z.boolean(), clashingTimes: z.number().int(), needsApproval: z.boolean() }).strict()),
  }).strict(),
  run: async (ctx, input) => {
    const zone = input.timeZone ? canonicalTimeZone(input.timeZone) : await organisationTimeZone(ctx.db, ctx.org.id);
    const shape: BookingShape = {
      startDate: input.localDate, startTime: input.startTime, durationMinutes: input.durationMinutes, rrule: input.rrule ? parseRecurrenceRule(input.rrule, zone).text : null,
      timeZone: zone, fromDate: null, untilDate: null, setupMinutes: input.setupMinutes, teardownMinutes: input.teardownMinutes,
    };
    const now = new Date();
    const windows = planOccurrences(shape, now, horizonFrom(now));
    if (windows.length === 0) throw new StewardError('validation_failed', 'No time to check: it has passed, or the rule gives none in the coming year', { issues: [{ path: 'localDate', message: 'in the future' }] });
    const rooms = await listRooms(ctx.db, ctx.org.id, { buildingId: input.buildingId, campusId: input.campusId, minCapacity: input.minCapacity, features: input.features });
    const counts = await clashCounts(ctx.db, ctx.org.id, rooms.map((room) => room.id), windows);
    const ranked = rooms.map((room) => ({
      roomId: room.id, name: room.name, building: room.building, capacity: room.capacity, features: room.features,
      free: !counts.has(room.id), clashingTimes: counts.get(room.id) ?? 0, needsApproval: room.approver_user_ids.length > 0,
    })).sort((a, b) => a.clashingTimes - b.clashingTimes || a.capacity - b.capacity || a.name.localeCompare(b.name));
    return { occurrencesChecked: windows.length, timeZone: zone, rooms: ranked.slice(0, input.limit) };
  },
});

const bookingResult = {
  booking: bookingSchema,
};

export const createBookingTool = tools.write('create_booking', {
  title: 'Book a room',
  description: 'Books a room and/or countable resources, once or on an RFC 5545 RRULE in the organisation\'s zone (local times kept across clock changes), with set-up and clear-up minutes; optionally for a service instance (its time by default) or an external hirer. Every occurrence in the coming year is checked: a clash books nothing and answers with the clashes and free alternatives, unless onConflict is "hold". A requester outside the room\'s approval group gets a pending booking (which already holds the room).',
  keywords: ['book room', 'reserve hall', 'room booking', 'hire', 'recurring booking'],
  examples: ['book the hall for the youth night every Friday 7 to 9pm', 'reserve the upper room on Tuesday at 10 for the staff meeting', 'book the lounge for a funeral tea on the 12th, two hours, with 40 chairs', 'the Scouts want the hall every Monday in term time', 'book the church for a wedding rehearsal Friday 6pm', 'hire the main hall to the Smiths for a party on Saturday afternoon', 'we need the kitchen and hall set up an hour early for the harvest supper', 'put the PCC meeting in the lounge on Tuesday 14th at 7.30', 'reserve the church for the Alpha course every Wednesday evening', 'book the green room Monday 10-12', "Fran's running a course on Tuesdays 7 to 9 until July, reserve the side room for it", 'can the Guides have the mission hall every Wednesday at 6:30'],
  input: z.object({
    title: z.string().trim().min(1).max(200), roomId: z.uuid().optional(), resources: resourceLines.optional(),
    localDate: calendarDate().optional().describe('The (first) date in the zone; default the service instance\'s'),
    startTime: localTime.optional(), durationMinutes: duration.optional(),
    rrule: z.string().trim().max(500).optional().describe('RFC 5545 RRULE without DTSTART: FREQ=WEEKLY;BYDAY=FR, FREQ=MONTHLY;BYDAY=1SA;COUNT=10'),
    timeZone: z.string().max(64).optional(), setupMinutes: minutes.optional(), teardownMinutes: minutes.optional(),
    layout: z.string().trim().min(1).max(200).optional(), expectedAttendance: z.number().int().min(0).max(100_000).optional(),
    scheduleInstanceId: z.uuid().optional().describe('A service instance this booking serves (schedule_list_upcoming_instances); cancelling the instance releases the booking'),
    hirerContactId: z.uuid().optional().describe('An external hirer (a contact)'), hirerOrganisation: z.string().trim().min(1).max(200).optional(),
    notes: z.string().trim().max(2000).optional(), onConflict,
  }),
  output: z.object({ ...bookingResult, occurrencesBooked: z.number().int(), occurrencesHeld: z.number().int(), conflictsOpened: z.number().int() }).strict(),
  run: async (ctx, input) => createBooking(ctx.db, ctx.org.id, ctx.principal, input, new Date()),
});

export const updateBookingTool = tools.write('update_booking', {
  title: 'Change a booking',
  description: 'Changes a booking: one occurrence ("this"), this and the following ones (the series is split there), or all. Time, length, room, set-up and clear-up, layout, rule, title, numbers. Every future occurrence the change touches is checked again against other bookings and blockouts; a clash refuses the change with alternatives unless onConflict is "hold".',
  keywords: ['move booking', 'change booking', 'reschedule', 'edit series'],
  examples: ['move youth night to 7:30 from next week on', 'this Friday only, youth night is in the small hall', 'change every Scouts booking to end at 9', 'make the staff meeting an hour longer', 'move just the 14th to the afternoon', 'push the PCC meeting back half an hour', 'Alpha is moving to the lounge from week 4 onwards', 'change the party booking to 80 guests in cabaret layout', 'shift Guides to 6pm', "Fran's course needs the bigger room from the 3rd session onwards", 'can the Monday booking finish at 1 instead of 12'],
  input: z.object({
    bookingId: z.uuid(), scope: seriesScope, occurrenceId: z.uuid().optional().describe('The occurrence "this" or "this_and_following" starts from'),
    changes: z.object({
      title: z.string().trim().min(1).max(200).optional(), roomId: z.uuid().optional(), localDate: calendarDate().optional(), startTime: localTime.optional(),
      durationMinutes: duration.optional(), rrule: z.string().trim().max(500).optional(), setupMinutes: minutes.optional(), teardownMinutes: minutes.optional(),
      layout: z.string().trim().min(1).max(200).nullable().optional(), expectedAttendance: z.number().int().min(0).max(100_000).nullable().optional(),
      notes: z.string().trim().max(2000).nullable().optional(),
    }),
    onConflict,
  }),
  output: z.object({
    ...bookingResult, splitFromBookingId: z.uuid().nullable().describe('For this_and_following: the booking the changed part was split from'),
    occurrencesChecked: z.number().int(), occurrencesHeld: z.number().int(), conflictsOpened: z.number().int(), othersReleased: z.number().int(),
  }).strict(),
  run: async (ctx, input) => updateBooking(ctx.db, ctx.org.id, ctx.principal, input, new Date()),
});

export const cancelBookingTool = tools.write('cancel_booking', {
  title: 'Cancel a booking',
  description: 'Cancels a booking, one occurrence of it, or this and the following ones; the room and resources are free again, and occurrences held back by it are booked if nothing else clashes.',
  keywords: ['cancel booking', 'call off', 'release room'],
  examples: ['cancel youth night this Friday', 'the Scouts have stopped, cancel their bookings from next week', 'cancel the hall hire on Saturday', 'we no longer need the upper room on the 3rd', 'scrap all the remaining Alpha bookings', 'the PCC meeting on the 14th isn\'t happening, free the lounge', 'call off the toddler group booking for half term', "cancel Monday's green room", 'the Guides have folded, so release all their future Wednesday bookings', "I need the side room freed on the 9th, the course isn't meeting"],
  destructive: true,
  input: z.object({ bookingId: z.uuid(), scope: seriesScope, occurrenceId: z.uuid().optional(), reason: z.string().trim().min(1).max(1000).optional() }),
  output: z.object({ ...bookingResult, occurrencesCancelled: z.number().int(), othersReleased: z.number().int() }).strict(),
  run: async (ctx, input) => cancelBooking(ctx.db, ctx.org.id, input, new Date()),
});

const listedOccurrence = z.object({
  ...occurrenceFields, title: z.string(), bookingStatus: z.string(), room: z.string().nullable(), expectedAttendance: z.number().int().nullable(),
  scheduleInstanceId: z.uuid().nullable(), hirerContactId: z.uuid().nullable(), recurring: z.boolean(),
}).strict();

function rangeIn(zone: string, from: string | undefined, days: number): { from: Date; to: Date; fromDate: string } {
  const start = from ? DateTime.fromISO(from, { zone }) : DateTime.now().setZone(zone).startOf('day');
  return { from: start.toUTC().toJSDate(), to: start.plus({ days }).toUTC().toJSDate(), fromDate: start.toISODate()! };
}

/** Occurrences from a local date (default today) for some days, in the organisation's zone. */
export async function bookingsFrom(db: Queryable, orgId: string, input: {
  from?: string; days: number; roomId?: string; bookingId?: string; statuses?: Array<(typeof OCCURRENCE_STATUSES)[number]>; scheduleInstanceId?: string; hirerContactId?: string; limit: number;
}) {
  const zone = await organisationTimeZone(db, orgId);
  if (input.roomId) await requireRoom(db, orgId, input.roomId, { includeArchived: true });
  const range = rangeIn(zone, input.from, input.days);
  const listed = await listOccurrences(db, orgId, { ...input, from: range.from, to: range.to });
  return { from: range.fromDate, days: input.days, timeZone: zone, ...listed };
}

export const listBookingsTool = tools.read('list_bookings', {
  title: 'Bookings',
  description: 'Booked occurrences from a date (default today, in the organisation\'s zone) for some days (default 7), earliest first: room, times with set-up and clear-up, status (pending, approved, held). Narrow by room, booking, status, service instance or hirer; at most 500.',
  keywords: ['bookings', 'what is booked', 'room bookings this week', 'pending bookings'],
  examples: ['what is booked this week', 'which bookings are waiting for approval', 'show the hall bookings for December', 'what has the Smith family booked', 'what is on in the building tomorrow', 'who is using the church centre on Saturday', 'list the bookings for the next fortnight', 'which hires are on this weekend', 'bookings next week', "Mark's doing the rota for opening up, so what's booked across the site over half term?", 'which requests are still pending'],
  input: z.object({
    from: calendarDate().optional(), days: z.number().int().min(1).max(366).default(7), roomId: z.uuid().optional(), bookingId: z.uuid().optional(),
    statuses: z.array(z.enum(OCCURRENCE_STATUSES)).min(1).max(5).optional(), scheduleInstanceId: z.uuid().optional(), hirerContactId: z.uuid().optional(),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  output: z.object({ from: z.string(), days: z.number().int(), timeZone: z.string(), truncated: z.boolean(), occurrences: z.array(listedOccurrence) }).strict(),
  run: async (ctx, input) => bookingsFrom(ctx.db, ctx.org.id, input),
});

/** A room's day sheet: its bookings with set-up and clear-up, and its blockouts. */
export async function roomSchedule(db: Queryable, orgId: string, input: { roomId: string; localDate?: string; days: number }) {
  const room = await requireRoom(db, orgId, input.roomId, { includeArchived: true });
  const zone = await organisationTimeZone(db, orgId);
  const range = rangeIn(zone, input.localDate, input.days);
  const rows = await queryRows<{ id: string; booking_id: string; title: string; local_date: string; busy_from: Date; starts_at: Date; ends_at: Date; busy_to: Date; status: string; shared: boolean; layout: string | null; expected_attendance: number | null; notes: string | null; resources: Array<{ name: string; quantity: number }> | null }>(db, `
    SELECT o.id, o.booking_id, b.title, o.local_date, o.busy_from, o.starts_at, o.ends_at, o.busy_to, o.status, o.shared, o.layout, b.expected_attendance, b.notes,
      (SELECT json_agg(json_build_object('name', r.name, 'quantity', br.quantity) ORDER BY lower(r.name)) FROM spaces_booking_resources br JOIN spaces_resources r ON r.id = br.resource_id WHERE br.booking_id = b.id) AS resources
      FROM spaces_occurrences o JOIN spaces_bookings b ON b.id = o.booking_id
     WHERE o.org_id = $1 AND o.room_id = $2 AND o.busy_from < $4 AND o.busy_to > $3 AND o.status IN ('pending', 'approved')
     ORDER BY o.busy_from LIMIT 500`, [orgId, room.id, range.from, range.to]);
  const blockouts = await queryRows<{ id: string; reason: string; starts_at: Date; ends_at: Date }>(db, `SELECT id, reason, starts_at, ends_at FROM spaces_blockouts
    WHERE org_id = $1 AND (room_id = $2 OR building_id = $3 OR campus_id = $4) AND starts_at < $6 AND ends_at > $5 ORDER BY starts_at`, [orgId, room.id, room.building_id, room.campus_id, range.from, range.to]);
  const hhmm = (date: Date) => DateTime.fromJSDate(date, { zone }).toFormat('HH:mm');
  return {
    room: { id: room.id, name: room.name, building: room.building, capacity: room.capacity }, from: range.fromDate, days: input.days, timeZone: zone,
    entries: rows.map((row) => ({
      occurrenceId: row.id, bookingId: row.booking_id, title: row.title, localDate: row.local_date, setupFrom: hhmm(row.busy_from), start: hhmm(row.starts_at), end: hhmm(row.ends_at),
      clearedBy: hhmm(row.busy_to), status: row.status, shared: row.shared, layout: row.layout,
      layoutSeats: row.layout ? room.layouts.find((l) => l.name.toLowerCase() === row.layout!.toLowerCase())?.capacity ?? null : null,
      expectedAttendance: row.expected_attendance, resources: row.resources ?? [], notes: row.notes,
    })),
    blockouts: blockouts.map((row) => ({ id: row.id, reason: row.reason, startsAt: row.starts_at.toISOString(), endsAt: row.ends_at.toISOString() })),
  };
}

export const getRoomScheduleTool = tools.read('get_room_schedule', {
  title: 'Room day sheet',
  description: 'A room\'s day sheet (the one a caretaker prints) for a date and some days after (default 1): each booking with set-up from, start, end and cleared by, layout (and its seats), expected numbers, resources, status; blockouts too.',
  keywords: ['room schedule', 'day sheet', 'caretaker', 'setup', 'layout'],
  examples: ['what does the caretaker need to set up in the hall tomorrow', 'print the day sheet for the main hall on Saturday', 'what is happening in the upper room this week', 'how should the hall be laid out on Sunday', 'what\'s in the main hall on Friday', 'caretaker\'s sheet for the lounge this week with set-up times', 'when does the hall need to be cleared by tonight', 'green room day sheet', 'Mark opens up tomorrow, what set-up and times does the mission hall need?', "what's in the side room on Thursday and how is it laid out"],
  input: z.object({ roomId: z.uuid(), localDate: calendarDate().optional(), days: z.number().int().min(1).max(14).default(1) }),
  output: z.object({
    room: z.object({ id: z.uuid(), name: z.string(), building: z.string(), capacity: z.number().int() }).strict(), from: z.string(), days: z.number().int(), timeZone: z.string(),
    entries: z.array(z.object({
      occurrenceId: z.uuid(), bookingId: z.uuid(), title: z.string(), localDate: z.string(), setupFrom: z.string(), start: z.string(), end: z.string(), clearedBy: z.string(),
      status: z.string(), shared: z.boolean(), layout: z.string().nullable(), layoutSeats: z.number().int().nullable(), expectedAttendance: z.number().int().nullable(),
      resources: z.array(z.object({ name: z.string(), quantity: z.number().int() }).strict()), notes: z.string().nullable(),
    }).strict()),
    blockouts: z.array(z.object({ id: z.uuid(), reason: z.string(), startsAt: z.string(), endsAt: z.string() }).strict()),
  }).strict(),
  run: async (ctx, input) => roomSchedule(ctx.db, ctx.org.id, input),
});

const decisionInput = z.object({ bookingId: z.uuid(), note: z.string().trim().min(1).max(1000).optional() });
const decisionOutput = z.object({ ...bookingResult, othersReleased: z.number().int() }).strict();

export const approveBookingTool = tools.write('approve_booking', {
  title: 'Approve a booking',
  description: 'Approves a pending booking (all its pending occurrences); only a member of the room\'s approval group may (staff, for a room whose group is empty).',
  keywords: ['approve booking', 'accept booking request'],
  examples: ['approve the Scouts\' hall booking', 'yes, the choir can have the church on Thursday', 'accept the pending booking for the lounge', 'OK the Brownies\' request for the hall', 'sign off the wedding reception booking', 'approve the Alpha course booking in the lounge', 'the toddler group can have the hall, confirm it', "approve Fran's booking", "the Guides' request for the mission hall is fine, let it go through", 'can you OK the pending green room booking'],
  input: decisionInput,
  output: decisionOutput,
  run: async (ctx, input) => decideBooking(ctx.db, ctx.org.id, ctx.principal, { ...input, decision: 'approved' }, new Date()),
});

export const rejectBookingTool = tools.write('reject_booking', {
  title: 'Reject a booking',
  description: 'Rejects a pending booking; it stops holding the room at once. Only a member of the room\'s approval group may.',
  keywords: ['reject booking', 'decline booking request'],
  examples: ['decline the party booking for the hall', 'say no to the lounge request on Saturday', 'reject the pending booking, the hall is being painted', 'turn down the request to hire the church for a concert', 'we can\'t host the birthday party, refuse the booking', 'no to the Pilates class booking this term', 'refuse the hall booking request for Saturday night', "reject the Guides' request", "the side room is shut for redecorating that week so turn down Fran's booking", 'I need to say no to the pending mission hall booking'],
  input: decisionInput,
  output: decisionOutput,
  run: async (ctx, input) => decideBooking(ctx.db, ctx.org.id, ctx.principal, { ...input, decision: 'rejected' }, new Date()),
});

const conflictSchema = z.object({
  id: z.uuid(), status: z.enum(['open', 'resolved']), resolution: z.enum(['booking_kept', 'other_kept', 'shared', 'withdrawn']).nullable(), roomId: z.uuid().nullable(), room: z.string().nullable(),
  booking: z.object({ bookingId: z.uuid(), occurrenceId: z.uuid(), title: z.string(), localDate: z.string(), startTime: z.string(), status: z.string() }).strict(),
  against: z.union([
    z.object({ kind: z.literal('booking'), bookingId: z.uuid(), occurrenceId: z.uuid(), title: z.string(), localDate: z.string(), startTime: z.string(), status: z.string() }).strict(),
    z.object({ kind: z.literal('blockout'), blockoutId: z.uuid(), reason: z.string(), startsAt: z.string(), endsAt: z.string() }).strict(),
    z.object({
      kind: z.literal('resource'), resourceId: z.uuid(), resource: z.string(), wanted: z.number().int(),
      available: z.number().int().describe('How many were free at that time when the shortage was found'),
    }).strict().describe('Not enough of a countable resource free at that time'),
  ]),
  resolvedByUserId: z.uuid().nullable(), resolvedAt: z.string().nullable(), note: z.string().nullable(), createdAt: z.string(),
}).strict();

export const listConflictsTool = tools.read('list_conflicts', {
  title: 'Booking conflicts',
  description: 'Clashes waiting for a person (default open ones): an occurrence held back, or a booking a blockout falls on, and what it clashes with: another booking, a blockout, or a resource short at that time (the rolling window found more wanted than free). Narrow by room or booking.',
  keywords: ['conflicts', 'clashes', 'double booked', 'overlapping bookings'],
  examples: ['are there any booking clashes', 'what conflicts need sorting out', 'which youth nights clash with something', 'show the double bookings in the hall', 'what booking problems are waiting for me', 'which bookings did the hall closure affect', 'anything held back because the room was taken', 'any clashes', 'after we closed the hall for repairs, which bookings are now in conflict?', 'what double-bookings do I need to decide on'],
  input: z.object({ status: z.enum(['open', 'resolved', 'all']).default('open'), roomId: z.uuid().optional(), bookingId: z.uuid().optional(), limit: z.number().int().min(1).max(200).default(50) }),
  output: z.object({ truncated: z.boolean(), conflicts: z.array(conflictSchema) }).strict(),
  run: async (ctx, input) => listConflicts(ctx.db, ctx.org.id, input),
});

export const resolveConflictTool = tools.write('resolve_conflict', {
  title: 'Resolve a conflict',
  description: 'A person decides a clash: keep "booking" (what it clashes with gives way, or it goes ahead despite a blockout), keep "other" (the held occurrence is cancelled), or "both" (they share the room). A resource shortage is never booked over: "booking" only once enough is free, "both" never. Only a person in the room\'s approval group (or staff, for a room without one); never an agent.',
  keywords: ['resolve conflict', 'settle clash', 'share room', 'who gets the room'],
  examples: ['let the wedding have the hall and cancel the youth night that day', 'the Scouts and the choir can share the hall', 'the blockout stands, cancel that booking', 'keep the funeral, move nothing else', 'the funeral takes priority over the toddler group', 'let the Alpha course share the hall with the choir', 'keep the held booking and drop the other one', 'Guides keep the hall', 'the funeral needs the side room, so the course gives way that day', 'both groups can use the mission hall together, settle it'],
  input: z.object({ conflictId: z.uuid(), keep: z.enum(['booking', 'other', 'both']), note: z.string().trim().min(1).max(1000).optional() }),
  output: z.object({ conflict: conflictSchema, othersReleased: z.number().int() }).strict(),
  run: async (ctx, input) => resolveConflict(ctx.db, ctx.org.id, ctx.principal, input, new Date()),
});

export const createBlockoutTool = tools.write('create_blockout', {
  title: 'Block out a room or site',
  description: 'Closes a room, a resource, a building or a whole campus for a window (local date-times in the organisation\'s zone): nothing new can be booked there. Bookings already there are not cancelled silently: each gets an open conflict for a person to decide.',
  keywords: ['blockout', 'close room', 'maintenance', 'unavailable'],
  examples: ['the hall is closed for floor sanding 2 to 6 December', 'block out the whole site on Christmas Day', 'the projector is away for repair next week', 'close the church centre for the electrical inspection on Monday', 'nobody can book the hall over the summer redecoration', 'shut the site for the bishop\'s visit on the 9th', 'the urns are being serviced on Monday, block them out', 'close the green room next week', 'the roofers are on site 3 to 7 March so nothing can be booked in the mission hall', "I need the gazebos marked unavailable while they're repaired"],
  input: z.object({
    roomId: z.uuid().optional(), resourceId: z.uuid().optional(), buildingId: z.uuid().optional(), campusId: z.uuid().optional(),
    from: z.string().max(40).describe('Local date-time, e.g. 2026-12-02T08:00'), to: z.string().max(40), timeZone: z.string().max(64).optional(),
    reason: z.string().trim().min(1).max(500),
  }),
  output: z.object({
    blockout: z.object({ id: z.uuid(), roomId: z.uuid().nullable(), resourceId: z.uuid().nullable(), buildingId: z.uuid().nullable(), campusId: z.uuid().nullable(), startsAt: z.string(), endsAt: z.string(), reason: z.string() }).strict(),
    roomsClosed: z.number().int(), bookingsAffected: z.number().int(), conflictsOpened: z.number().int(),
  }).strict(),
  run: async (ctx, input) => createBlockout(ctx.db, ctx.org.id, ctx.principal, { ...input, timeZone: input.timeZone ? canonicalTimeZone(input.timeZone) : undefined }),
});

export const bookingTools = [
  searchAvailabilityTool, createBookingTool, updateBookingTool, cancelBookingTool, listBookingsTool, getRoomScheduleTool, approveBookingTool, rejectBookingTool,
  listConflictsTool, resolveConflictTool, createBlockoutTool,
];
