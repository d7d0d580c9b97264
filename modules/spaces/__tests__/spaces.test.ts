import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { withTenantTransaction } from '../../../db/pool';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';
import { releaseForOrg } from '../conflicts';

/**
 * Spaces over the real stack: rooms and resources, bookings that never double-book (Postgres'
 * exclusion constraint under 20 parallel MCP calls), pending blocks and rejected frees, countable
 * resources, recurring bookings checked on every occurrence, series edits re-checked, the approval
 * group, DST, conflicts resolved by a person, blockouts, and another organisation's ids.
 */
describe('spaces: rooms and bookings', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let buildingId: string;
  let hallId: string;
  let loungeId: string;
  let chapelId: string;
  const ZONE = 'Europe/London';
  /** A Friday at least two weeks ahead, as a local date. */
  const friday = DateTime.now().setZone(ZONE).plus({ weeks: 2 }).set({ weekday: 5 }).toISODate()!;
  const fridayPlus = (weeks: number) => DateTime.fromISO(friday, { zone: ZONE }).plus({ weeks }).toISODate()!;
  const call = (tool: string, args: Record<string, unknown>, key = org.apiKey) => harness.call(key, tool, args);
  const refusal = async (tool: string, args: Record<string, unknown>, key = org.apiKey) => {
    const { body } = await harness.invoke(key, tool, args);
    expect(body.ok).toBe(false);
    return body.error!;
  };
  /** Whether a booking's occurrence on a local date is cancelled and none of it is live, as spaces_list_bookings over MCP shows it. */
  const released = async (bookingId: string, localDate: string) => {
    const live = await mcpCall(owner, 'spaces_list_bookings', { bookingId, from: localDate, days: 1 });
    const cancelled = await mcpCall(owner, 'spaces_list_bookings', { bookingId, from: localDate, days: 1, statuses: ['cancelled'] });
    return live.occurrences.length === 0 && cancelled.occurrences.length === 1;
  };
  const countRows = async (sql: string, values: unknown[]) => (await harness.pool.query<{ n: number }>(sql, values)).rows[0].n;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Brigid', planCode: 'growth' });
    other = await harness.createOrg({ name: 'Elsewhere' });
    owner = await harness.mcpClient(org.apiKey);
    buildingId = (await call('spaces_create_building', { name: 'Church centre', campus: 'Town' })).building.id;
    hallId = (await call('spaces_create_room', {
      buildingId, name: 'Main hall', capacity: 150, features: ['Stage', 'Piano'], layouts: [{ name: 'Cabaret', capacity: 90 }, { name: 'Theatre', capacity: 150 }],
      defaultSetupMinutes: 30, defaultTeardownMinutes: 15,
    })).room.id;
    loungeId = (await call('spaces_create_room', { buildingId, name: 'Lounge', capacity: 40, features: ['kitchen'] })).room.id;
    chapelId = (await call('spaces_create_room', { buildingId, name: 'Chapel', capacity: 60, approverUserIds: [org.ownerUserId] })).room.id;
  });

  afterAll(async () => {
    await owner?.close();
    await harness?.close();
  });

  it('lists buildings and rooms, filtered by capacity and features (case does not matter)', async () => {
    const buildings = await call('spaces_list_buildings', {});
    expect(buildings.buildings).toEqual([expect.objectContaining({ id: buildingId, campus: 'Town', rooms: 3 })]);
    const big = await call('spaces_list_rooms', { minCapacity: 100, features: ['PIANO'] });
    expect(big.rooms.map((r: any) => r.name)).toEqual(['Main hall']);
    expect(big.rooms[0].features).toEqual(['piano', 'stage']);
    const usage = await call('platform_usage', {});
    expect(JSON.stringify(usage)).toContain('rooms');
  });

  it('refuses bad room input with a stable error and changes nothing', async () => {
    const before = await countRows('SELECT count(*)::int AS n FROM spaces_rooms WHERE org_id = $1', [org.orgId]);
    expect((await refusal('spaces_create_room', { buildingId, name: 'Tiny', capacity: 10, layouts: [{ name: 'Theatre', capacity: 20 }] })).code).toBe('validation_failed');
    expect((await refusal('spaces_create_room', { buildingId, name: 'main HALL', capacity: 10 })).code).toBe('conflict');
    expect((await refusal('spaces_create_room', { buildingId, name: 'X', capacity: 10, approverUserIds: [other.ownerUserId] })).code).toBe('validation_failed');
    expect((await refusal('spaces_create_room', { buildingId: (await call('spaces_create_building', { name: 'Other hall' }, other.apiKey)).building.id, name: 'X', capacity: 10 })).code).toBe('not_found');
    expect(await countRows('SELECT count(*)::int AS n FROM spaces_rooms WHERE org_id = $1', [org.orgId])).toBe(before);
  });

  it('20 parallel MCP calls booking the same room and hour make exactly one booking', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => harness.mcpClient(org.apiKey)));
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 4].callTool({
        name: 'spaces_create_booking', arguments: { title: `Race ${i}`, roomId: loungeId, localDate: fridayPlus(1), startTime: '10:00', durationMinutes: 60 },
      })));
      const ok = results.filter((r) => !r.isError);
      expect(ok).toHaveLength(1);
      for (const refused of results.filter((r) => r.isError)) expect(JSON.parse((refused.content as any)[0].text).error.code).toBe('conflict');
      expect(await countRows(`SELECT count(*)::int AS n FROM spaces_occurrences WHERE room_id = $1 AND status IN ('pending', 'approved')`, [loungeId])).toBe(1);
    } finally {
      for (const client of clients) await client.close();
    }
  });

  it('the database itself refuses overlapping live occurrences of a room (exclusion constraint)', async () => {
    const row = (await harness.pool.query('SELECT * FROM spaces_occurrences WHERE room_id = $1 LIMIT 1', [loungeId])).rows[0];
    await expect(harness.pool.query(`INSERT INTO spaces_occurrences (id, org_id, booking_id, room_id, original_local_date, local_date, local_start_time, starts_at, ends_at, busy_from, busy_to, status)
      VALUES (gen_random_uuid(), $1, $2, $3, '1999-01-01', $4, $5, $6, $7, $8, $9, 'pending')`,
    [row.org_id, row.booking_id, row.room_id, row.local_date, row.local_start_time, row.starts_at, row.ends_at, row.busy_from, row.busy_to])).rejects.toMatchObject({ code: '23P01' });
  });

  it('a clash answers with the conflicts and free alternatives, never a bare refusal', async () => {
    const error = await refusal('spaces_create_booking', { title: 'Bible study', roomId: loungeId, localDate: fridayPlus(1), startTime: '10:30', durationMinutes: 60, expectedAttendance: 20 });
    expect(error.code).toBe('conflict');
    expect(error.details.conflicts[0]).toMatchObject({ localDate: fridayPlus(1), with: { kind: 'booking', title: expect.stringMatching(/^Race/) } });
    expect(error.details.alternatives.rooms.map((r: any) => r.name)).toEqual(expect.arrayContaining(['Chapel', 'Main hall']));
    expect(error.details.alternatives.times.length).toBeGreaterThan(0);
  });

  it('set-up and clear-up are part of the busy window', async () => {
    // the hall's default 30 minutes set-up: a booking ending at 14:45 clashes with one starting at 15:00
    await call('spaces_create_booking', { title: 'Lunch club', roomId: hallId, localDate: fridayPlus(3), startTime: '12:00', durationMinutes: 165, setupMinutes: 0, teardownMinutes: 0 });
    const error = await refusal('spaces_create_booking', { title: 'Tea dance', roomId: hallId, localDate: fridayPlus(3), startTime: '15:00', durationMinutes: 60 });
    expect(error.code).toBe('conflict');
    await call('spaces_create_booking', { title: 'Tea dance', roomId: hallId, localDate: fridayPlus(3), startTime: '15:00', durationMinutes: 60, setupMinutes: 15 });
    const search = await call('spaces_search_availability', { localDate: fridayPlus(3), startTime: '13:00', durationMinutes: 60, minCapacity: 30 });
    expect(search.rooms.find((r: any) => r.name === 'Main hall')).toMatchObject({ free: false, clashingTimes: 1 });
    expect(search.rooms.find((r: any) => r.name === 'Lounge')).toMatchObject({ free: true });
  });

  it('a requester outside the approval group gets pending; pending blocks, rejected does not; only the group decides', async () => {
    const volunteer = await harness.createKey(org.orgId, ['spaces:read', 'spaces:write'], 'staff');
    const pending = await call('spaces_create_booking', { title: 'Prayer vigil', roomId: chapelId, localDate: fridayPlus(2), startTime: '20:00', durationMinutes: 120 }, volunteer.apiKey);
    expect(pending.booking.status).toBe('pending');
    expect(pending.booking.upcoming.next[0].status).toBe('pending');
    expect((await refusal('spaces_create_booking', { title: 'Rival', roomId: chapelId, localDate: fridayPlus(2), startTime: '21:00', durationMinutes: 30 })).code).toBe('conflict');
    expect((await refusal('spaces_approve_booking', { bookingId: pending.booking.id }, volunteer.apiKey)).code).toBe('forbidden');
    const rejected = await call('spaces_reject_booking', { bookingId: pending.booking.id, note: 'Chapel being cleaned' });
    expect(rejected.booking.status).toBe('rejected');
    const mine = await call('spaces_create_booking', { title: 'Rival', roomId: chapelId, localDate: fridayPlus(2), startTime: '21:00', durationMinutes: 30 });
    expect(mine.booking.status).toBe('approved');
  });

  it('a countable resource is never over-booked, even by parallel calls', async () => {
    const chairs = (await call('spaces_create_resource', { name: 'Stacking chairs', quantity: 100 })).resource;
    const date = fridayPlus(4);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => harness.invoke(org.apiKey, 'spaces_create_booking', {
      title: `Chairs ${i}`, resources: [{ resourceId: chairs.id, quantity: 30 }], localDate: date, startTime: '18:00', durationMinutes: 60,
    })));
    expect(results.filter((r) => r.body.ok)).toHaveLength(3);
    const short = results.find((r) => !r.body.ok)!.body.error!;
    expect(short.code).toBe('conflict');
    expect(short.details.shortages[0]).toMatchObject({ resource: 'Stacking chairs', wanted: 30, available: 10 });
    // back to back is fine: 19:00 starts as the others end
    await call('spaces_create_booking', { title: 'Later chairs', resources: [{ resourceId: chairs.id, quantity: 100 }], localDate: date, startTime: '19:00', durationMinutes: 60 });
  });

  it('keeps local times across a clock change (weekly at 19:00 in London)', async () => {
    const booking = await call('spaces_create_booking', { title: 'Choir', roomId: hallId, localDate: friday, startTime: '19:00', durationMinutes: 90, rrule: 'FREQ=WEEKLY;BYDAY=TH' });
    const rows = (await harness.pool.query<{ local_start_time: string; starts_at: Date }>('SELECT local_start_time, starts_at FROM spaces_occurrences WHERE booking_id = $1 ORDER BY starts_at', [booking.booking.id])).rows;
    // Every Thursday from the first to the rolling horizon (a year from now; the first is two or three weeks
    // ahead, by today's weekday), less one should the call straddle the horizon's moment.
    const horizon = DateTime.now().plus({ days: 365 });
    let thursdays = 0;
    for (let day = DateTime.fromISO(`${friday}T19:00`, { zone: ZONE }).plus({ days: 6 }); day < horizon; day = day.plus({ weeks: 1 })) thursdays += 1;
    expect(rows.length).toBeGreaterThanOrEqual(thursdays - 1);
    expect(rows.length).toBeLessThanOrEqual(thursdays);
    expect(new Set(rows.map((r) => r.local_start_time))).toEqual(new Set(['19:00']));
    const utcHours = new Set(rows.map((r) => r.starts_at.getUTCHours()));
    expect(utcHours).toEqual(new Set([18, 19]));
  });

  it('a recurring booking is checked on every occurrence; editing a series re-checks every future one', async () => {
    // the lounge is taken on the fourth Friday at 19:30
    await call('spaces_create_booking', { title: 'Quiz night', roomId: loungeId, localDate: fridayPlus(3), startTime: '19:30', durationMinutes: 90 });
    const youth = await call('spaces_create_booking', { title: 'Youth night', roomId: loungeId, localDate: friday, startTime: '18:00', durationMinutes: 60, rrule: 'FREQ=WEEKLY;BYDAY=FR' });
    expect(youth.occurrencesHeld).toBe(0);
    // moving every Friday to 19:00 now clashes with the quiz: refused as a whole, nothing changed
    const moved = await refusal('spaces_update_booking', { bookingId: youth.booking.id, scope: 'all', changes: { startTime: '19:00' } });
    expect(moved.code).toBe('conflict');
    expect(moved.details.conflicts).toEqual([expect.objectContaining({ localDate: fridayPlus(3), with: expect.objectContaining({ title: 'Quiz night' }) })]);
    expect(await countRows(`SELECT count(*)::int AS n FROM spaces_occurrences WHERE booking_id = $1 AND local_start_time <> '18:00'`, [youth.booking.id])).toBe(0);
    // this and following from the second Friday, held where it clashes
    const second = (await harness.pool.query<{ id: string }>('SELECT id FROM spaces_occurrences WHERE booking_id = $1 AND original_local_date = $2', [youth.booking.id, fridayPlus(1)])).rows[0].id;
    const split = await call('spaces_update_booking', { bookingId: youth.booking.id, scope: 'this_and_following', occurrenceId: second, changes: { startTime: '19:00' }, onConflict: 'hold' });
    expect(split.splitFromBookingId).toBe(youth.booking.id);
    expect(split.occurrencesHeld).toBe(1);
    expect(split.conflictsOpened).toBe(1);
    const first = await call('spaces_list_bookings', { bookingId: youth.booking.id, from: friday, days: 366 });
    expect(first.occurrences.map((o: any) => o.startTime)).toEqual(['18:00']);
    const later = await call('spaces_list_bookings', { bookingId: split.booking.id, from: friday, days: 60 });
    expect(later.occurrences[0]).toMatchObject({ localDate: fridayPlus(1), startTime: '19:00' });
    expect(later.occurrences.find((o: any) => o.localDate === fridayPlus(3)).status).toBe('held');
    // just one Friday back to 18:00: its own check only
    const single = await call('spaces_update_booking', { bookingId: split.booking.id, scope: 'this', occurrenceId: second, changes: { startTime: '17:30' } });
    expect(single.occurrencesChecked).toBe(1);
    const conflicts = await call('spaces_list_conflicts', { bookingId: split.booking.id });
    expect(conflicts.conflicts).toHaveLength(1);
  });

  it('a blockout opens conflicts for bookings already there and refuses new ones', async () => {
    const date = DateTime.fromISO(fridayPlus(6)).plus({ days: 1 }).toISODate()!;
    const gig = await call('spaces_create_booking', { title: 'Concert', roomId: hallId, localDate: date, startTime: '19:00', durationMinutes: 120 });
    const blockout = await call('spaces_create_blockout', { buildingId, from: `${date}T18:00`, to: `${date}T23:00`, reason: 'Electrical inspection' });
    expect(blockout).toMatchObject({ roomsClosed: 3, bookingsAffected: 1, conflictsOpened: 1 });
    const refused = await refusal('spaces_create_booking', { title: 'Late', roomId: loungeId, localDate: date, startTime: '20:00', durationMinutes: 30 });
    expect(refused.details.conflicts[0].with).toMatchObject({ kind: 'blockout' });
    const open = (await call('spaces_list_conflicts', { bookingId: gig.booking.id })).conflicts;
    expect(open[0].against).toMatchObject({ kind: 'blockout', reason: 'Electrical inspection' });
    expect((await refusal('spaces_resolve_conflict', { conflictId: open[0].id, keep: 'both' })).code).toBe('validation_failed');
    const resolved = await call('spaces_resolve_conflict', { conflictId: open[0].id, keep: 'other', note: 'Inspection wins' });
    expect(resolved.conflict).toMatchObject({ status: 'resolved', resolution: 'other_kept' });
    expect((await call('spaces_list_bookings', { bookingId: gig.booking.id, from: date, days: 1, statuses: ['cancelled'] })).occurrences).toHaveLength(1);
  });

  it('cancelling a service instance frees its room at once, with no job run: booking the same slot succeeds straight after (over MCP)', async () => {
    const series = await mcpCall(owner, 'schedule_create_series', { title: 'Evensong', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: fridayPlus(0), startTime: '18:30', durationMinutes: 60, timeZone: ZONE });
    const instance = series.upcoming[0];
    const booking = await mcpCall(owner, 'spaces_create_booking', { title: 'Evensong', roomId: hallId, scheduleInstanceId: instance.id, setupMinutes: 30 });
    expect(booking.booking.upcoming.next[0]).toMatchObject({ localDate: instance.localDate, startTime: '18:30' });
    // While the service stands, the hall is taken for its slot.
    const taken = await mcpRefusal(owner, 'spaces_create_booking', { title: 'Choir social', roomId: hallId, localDate: instance.localDate, startTime: '18:30', durationMinutes: 60 });
    expect(taken.code).toBe('conflict');

    await mcpCall(owner, 'schedule_cancel_instance', { instanceId: instance.id, reason: 'Snow' });
    const after = await mcpCall(owner, 'spaces_list_bookings', { bookingId: booking.booking.id, from: instance.localDate, days: 1, statuses: ['cancelled'] });
    expect(after.occurrences).toHaveLength(1);
    expect(await released(booking.booking.id, instance.localDate)).toBe(true);
    const social = await mcpCall(owner, 'spaces_create_booking', { title: 'Choir social', roomId: hallId, localDate: instance.localDate, startTime: '18:30', durationMinutes: 60 });
    expect(social.booking.status).toBe('approved');
    // The periodic sweep, kept as a safety net, finds nothing left to release.
    expect((await harness.runJob('spaces.release_cancelled_instances', { orgId: org.orgId })).released).toBe(0);
  });

  it('ending a series, or changing its rule so a date goes, frees the rooms of the instances removed at once', async () => {
    const compline = await mcpCall(owner, 'schedule_create_series', { title: 'Compline', rrule: 'FREQ=WEEKLY;BYDAY=WE', startDate: fridayPlus(1), startTime: '21:00', durationMinutes: 30, timeZone: ZONE });
    const late = compline.upcoming[0];
    const lounge = await mcpCall(owner, 'spaces_create_booking', { title: 'Compline', roomId: loungeId, scheduleInstanceId: late.id });
    await mcpCall(owner, 'schedule_delete_series', { seriesId: compline.series.id });
    expect(await released(lounge.booking.id, late.localDate)).toBe(true);
    expect((await mcpCall(owner, 'spaces_create_booking', { title: 'Quiz', roomId: loungeId, localDate: late.localDate, startTime: '21:00', durationMinutes: 30 })).booking.status).toBe('approved');

    const study = await mcpCall(owner, 'schedule_create_series', { title: 'Bible study', rrule: 'FREQ=WEEKLY;BYDAY=TH', startDate: fridayPlus(1), startTime: '20:00', durationMinutes: 60, timeZone: ZONE });
    const thursday = study.upcoming[0];
    const chapel = await mcpCall(owner, 'spaces_create_booking', { title: 'Bible study', roomId: chapelId, scheduleInstanceId: thursday.id });
    // Moving the series to Tuesdays removes its Thursday instances, and with them the chapel booking.
    await mcpCall(owner, 'schedule_update_series', { seriesId: study.series.id, scope: 'all', changes: { rrule: 'FREQ=WEEKLY;BYDAY=TU' } });
    expect(await released(chapel.booking.id, thursday.localDate)).toBe(true);
    expect((await mcpCall(owner, 'spaces_create_booking', { title: 'Prayer', roomId: chapelId, localDate: thursday.localDate, startTime: '20:00', durationMinutes: 60 })).booking.status).toBe('approved');
  });

  it('the periodic sweep still releases a booking whose instance was cancelled behind the schedule module\'s back', async () => {
    const series = await mcpCall(owner, 'schedule_create_series', { title: 'Lauds', rrule: 'FREQ=WEEKLY;BYDAY=TU', startDate: fridayPlus(2), startTime: '07:00', durationMinutes: 30, timeZone: ZONE });
    const instance = series.upcoming[0];
    const booking = await mcpCall(owner, 'spaces_create_booking', { title: 'Lauds', roomId: loungeId, scheduleInstanceId: instance.id });
    // A write that skips schedule's own code (a repair by hand) tells nobody; the sweep is the net for it.
    await harness.pool.query("UPDATE schedule_instances SET status = 'cancelled', detached = true WHERE org_id = $1 AND id = $2", [org.orgId, instance.id]);
    expect(await released(booking.booking.id, instance.localDate)).toBe(false);
    expect((await harness.runJob('spaces.release_cancelled_instances', { orgId: org.orgId })).released).toBe(1);
    expect(await released(booking.booking.id, instance.localDate)).toBe(true);
    expect((await harness.runJob('spaces.release_cancelled_instances', { orgId: org.orgId })).released).toBe(0);
    // The job's release is in the trail once, over MCP: the system its actor, the job's run its source, the status before and after.
    const trail = (await mcpCall(owner, 'audit_list_events', { targetId: booking.booking.id, actorKind: 'system' })).events;
    expect(trail).toEqual([expect.objectContaining({
      action: 'spaces.booking.release', tool: 'job:spaces.release_cancelled_instances', workflowId: expect.stringContaining('spaces.release_cancelled_instances'),
      outcome: 'success', actor: expect.objectContaining({ kind: 'system', userId: null }), target: { type: 'booking', id: booking.booking.id },
    })]);
    const history = await mcpCall(owner, 'audit_get_entity_history', { targetType: 'booking', targetId: booking.booking.id });
    const release = history.entries.find((entry: any) => entry.action === 'spaces.booking.release');
    expect(release.changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'approved', after: 'cancelled' }, { field: 'scheduleInstanceId', after: instance.id }]));
    expect(await mcpCall(owner, 'audit_verify_chain', {})).toMatchObject({ ok: true, problems: [] });
  });

  it('a release that rolls back leaves neither the cancellation nor its audit event', async () => {
    const series = await call('schedule_create_series', { title: 'Compline', rrule: 'FREQ=WEEKLY;BYDAY=TH', startDate: fridayPlus(0), startTime: '21:00', durationMinutes: 30, timeZone: ZONE });
    const instance = series.upcoming[0];
    const booking = await call('spaces_create_booking', { title: 'Compline', roomId: chapelId, scheduleInstanceId: instance.id });
    // Cancelled out of band, so the release is left to the sweep (schedule_cancel_instance releases at once).
    await harness.pool.query("UPDATE schedule_instances SET status = 'cancelled', detached = true WHERE org_id = $1 AND id = $2", [org.orgId, instance.id]);
    const undone = new Error('rolled back on purpose');
    await expect(withTenantTransaction(harness.pool, org.orgId, async (db) => {
      expect(await releaseForOrg(db, org.orgId, new Date())).toBeGreaterThanOrEqual(1);
      throw undone;
    })).rejects.toBe(undone);
    expect(await countRows(`SELECT count(*)::int AS n FROM audit_events WHERE org_id = $1 AND target_id = $2 AND actor_kind = 'system'`, [org.orgId, booking.booking.id])).toBe(0);
    expect((await call('spaces_list_bookings', { bookingId: booking.booking.id, from: instance.localDate, days: 1 })).occurrences[0].status).not.toBe('cancelled');
  });

  it('the rolling window job materialises further occurrences, checked, and is idempotent', async () => {
    const booking = await call('spaces_create_booking', { title: 'Toddlers', roomId: chapelId, localDate: friday, startTime: '09:30', durationMinutes: 90, rrule: 'FREQ=WEEKLY;BYDAY=MO' });
    const before = await countRows('SELECT count(*)::int AS n FROM spaces_occurrences WHERE booking_id = $1', [booking.booking.id]);
    const later = new Date(Date.now() + 60 * 86_400_000);
    const first = await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: later });
    expect(first.created).toBeGreaterThan(0);
    const after = await countRows('SELECT count(*)::int AS n FROM spaces_occurrences WHERE booking_id = $1', [booking.booking.id]);
    expect(after).toBeGreaterThan(before);
    const again = await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: later });
    expect(again.created).toBe(0);
    // One event for the run that added occurrences, none for the run that added nothing.
    const trail = (await mcpCall(owner, 'audit_list_events', { targetId: booking.booking.id, actionPrefix: 'spaces.booking.materialise' })).events;
    expect(trail).toEqual([expect.objectContaining({ tool: 'job:spaces.materialise_occurrences', actor: expect.objectContaining({ kind: 'system' }), changedFields: expect.arrayContaining(['materialisedUntil', 'occurrencesCreated']) })]);
  });

  it('an occurrence the rolling window reaches later is checked too: a clash there is held, never double-booked', async () => {
    const far = DateTime.fromISO(friday, { zone: ZONE }).plus({ weeks: 58 }).toISODate()!;
    const gala = await call('spaces_create_booking', { title: 'Anniversary gala', roomId: loungeId, localDate: far, startTime: '12:00', durationMinutes: 120 });
    const club = await call('spaces_create_booking', { title: 'Friday lunch club', roomId: loungeId, localDate: friday, startTime: '12:30', durationMinutes: 60, rrule: 'FREQ=WEEKLY;BYDAY=FR' });
    expect(club.occurrencesHeld).toBe(0);
    const run = await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: new Date(Date.now() + 70 * 86_400_000) });
    expect(run.held).toBeGreaterThanOrEqual(1);
    const onTheDay = await call('spaces_list_bookings', { roomId: loungeId, from: far, days: 1 });
    const midday = onTheDay.occurrences.filter((o: any) => o.startTime < '14:00');
    expect(midday.map((o: any) => [o.title, o.status])).toEqual([['Anniversary gala', 'approved'], ['Friday lunch club', 'held']]);
    const conflicts = await call('spaces_list_conflicts', { bookingId: club.booking.id });
    expect(conflicts.conflicts).toEqual([expect.objectContaining({ booking: expect.objectContaining({ localDate: far }), against: expect.objectContaining({ bookingId: gala.booking.id }) })]);
  });

  it('archiving a room with upcoming bookings is refused with the bookings named', async () => {
    const error = await refusal('spaces_archive_room', { roomId: loungeId });
    expect(error.code).toBe('conflict');
    expect(error.details.bookings.length).toBeGreaterThan(0);
    const spare = (await call('spaces_create_room', { buildingId, name: 'Store', capacity: 0 })).room.id;
    expect((await call('spaces_archive_room', { roomId: spare })).room.archived).toBe(true);
    expect((await refusal('spaces_create_booking', { title: 'x', roomId: spare, localDate: friday, startTime: '10:00', durationMinutes: 30 })).code).toBe('not_found');
  });

  it('another organisation\'s room and booking behave as missing', async () => {
    const theirs = await call('spaces_create_booking', { title: 'Secret', roomId: hallId, localDate: fridayPlus(8), startTime: '10:00', durationMinutes: 30 });
    expect((await refusal('spaces_get_room_schedule', { roomId: hallId }, other.apiKey)).code).toBe('not_found');
    expect((await refusal('spaces_cancel_booking', { bookingId: theirs.booking.id }, other.apiKey)).code).toBe('not_found');
    expect((await refusal('spaces_create_booking', { title: 'x', roomId: hallId, localDate: friday, startTime: '10:00', durationMinutes: 30 }, other.apiKey)).code).toBe('not_found');
    expect((await call('spaces_list_bookings', { days: 366 }, other.apiKey)).occurrences).toEqual([]);
  });

  it('cancelling what held an occurrence back withdraws the conflict and books the held date', async () => {
    const date = fridayPlus(7);
    const recital = await call('spaces_create_booking', { title: 'Recital', roomId: chapelId, localDate: date, startTime: '12:00', durationMinutes: 60 });
    const lunch = await call('spaces_create_booking', { title: 'Lunchtime prayers', roomId: chapelId, localDate: fridayPlus(6), startTime: '12:30', durationMinutes: 30, rrule: 'FREQ=WEEKLY;COUNT=3', onConflict: 'hold' });
    expect(lunch).toMatchObject({ occurrencesBooked: 2, occurrencesHeld: 1, conflictsOpened: 1 });
    const cancelled = await call('spaces_cancel_booking', { bookingId: recital.booking.id, reason: 'Soloist ill' });
    expect(cancelled.othersReleased).toBe(1);
    const held = await call('spaces_list_bookings', { bookingId: lunch.booking.id, from: date, days: 1 });
    expect(held.occurrences).toEqual([expect.objectContaining({ localDate: date, status: 'approved' })]);
    const conflicts = await call('spaces_list_conflicts', { bookingId: lunch.booking.id, status: 'all' });
    expect(conflicts.conflicts).toEqual([expect.objectContaining({ status: 'resolved', resolution: 'withdrawn' })]);
  });

  it('serves the dashboard routes through the invoke bridges, and sends writes to their tools', async () => {
    const week = await call('spaces_invoke_api_read', { path: `/api/spaces/rooms/${hallId}/week`, query: { from: fridayPlus(3) } });
    expect(week.result.days).toBe(7);
    expect(week.result.entries.map((e: any) => e.title)).toEqual(expect.arrayContaining(['Lunch club', 'Tea dance']));
    const rooms = await call('spaces_invoke_api_read', { path: '/api/spaces/rooms', query: { minCapacity: '100' } });
    expect(rooms.result.rooms.map((r: any) => r.name)).toEqual(['Main hall']);
    const write = await harness.invoke(org.apiKey, 'spaces_invoke_api_write', {
      method: 'POST', path: '/api/spaces/bookings', body: { title: 'Bypass', roomId: hallId, localDate: fridayPlus(9), startTime: '10:00', durationMinutes: 30 }, actionSummary: 'Book',
    });
    expect(write.status).toBe(405);
    expect(write.body.error).toMatchObject({ code: 'use_workflow_tool', details: { tool: 'spaces_create_booking' } });
    expect((await refusal('spaces_invoke_api_read', { path: `/api/spaces/rooms/${hallId}/week` }, other.apiKey)).code).toBe('not_found');
  });

  describe('service instances that move take their room bookings with them', () => {
    let vestryId: string;
    let parlourId: string;
    /** A booking's one occurrence on a local date, in any status, as spaces_list_bookings shows it over MCP. */
    const occurrenceOn = async (bookingId: string, localDate: string) => {
      const { occurrences } = await mcpCall(owner, 'spaces_list_bookings', { bookingId, from: localDate, days: 1, statuses: ['pending', 'approved', 'held', 'cancelled'] });
      expect(occurrences).toHaveLength(1);
      return occurrences[0];
    };
    const instant = (localDate: string, time: string) => DateTime.fromISO(`${localDate}T${time}`, { zone: ZONE }).toUTC().toISO({ suppressMilliseconds: false })!;

    beforeAll(async () => {
      vestryId = (await call('spaces_create_room', { buildingId, name: 'Vestry', capacity: 20 })).room.id;
      parlourId = (await call('spaces_create_room', { buildingId, name: 'Parlour', capacity: 12 })).room.id;
    });

    it('moving an instance moves its booking, set-up and clear-up kept, and frees the old time (over MCP)', async () => {
      const series = await mcpCall(owner, 'schedule_create_series', { title: 'Taizé', rrule: 'FREQ=WEEKLY;BYDAY=SA', startDate: fridayPlus(1), startTime: '18:30', durationMinutes: 60, timeZone: ZONE });
      const instance = series.upcoming[0];
      const booking = await mcpCall(owner, 'spaces_create_booking', { title: 'Taizé', roomId: vestryId, scheduleInstanceId: instance.id, setupMinutes: 30, teardownMinutes: 15 });
      // Something else waits for the old time: held behind the service's booking.
      const choir = await mcpCall(owner, 'spaces_create_booking', { title: 'Choir practice', roomId: vestryId, localDate: instance.localDate, startTime: '18:00', durationMinutes: 60, onConflict: 'hold' });
      expect(choir.occurrencesHeld).toBe(1);

      await mcpCall(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '20:00' });
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({
        startTime: '20:00', endTime: '21:00', status: 'approved',
        busyFrom: instant(instance.localDate, '19:30'), busyTo: instant(instance.localDate, '21:15'),
      });
      // The old time is free: what waited for it goes ahead, with no job run; the new time is taken.
      expect(await occurrenceOn(choir.booking.id, instance.localDate)).toMatchObject({ startTime: '18:00', status: 'approved' });
      const taken = await mcpRefusal(owner, 'spaces_create_booking', { title: 'Quiz', roomId: vestryId, localDate: instance.localDate, startTime: '20:30', durationMinutes: 30 });
      expect(taken.code).toBe('conflict');
      expect(taken.details.conflicts[0].with).toMatchObject({ bookingId: booking.booking.id });

      // The move is in the booking's trail, before and after.
      const trail = (await mcpCall(owner, 'audit_list_events', { targetId: booking.booking.id, actionPrefix: 'spaces.booking.move' })).events;
      expect(trail).toEqual([expect.objectContaining({ tool: 'schedule.instances_moved', outcome: 'success', actor: expect.objectContaining({ kind: 'system' }) })]);
      const history = await mcpCall(owner, 'audit_get_entity_history', { targetType: 'booking', targetId: booking.booking.id });
      const move = history.entries.find((entry: any) => entry.action === 'spaces.booking.move');
      expect(move.changes).toEqual(expect.arrayContaining([
        { field: 'startTime', before: '18:30', after: '20:00' }, { field: 'occurrenceStatus', before: 'approved', after: 'approved' }, { field: 'conflictsOpened', after: 0 },
      ]));

      // Another organisation cannot move the instance: missing to it, and the booking stays where it is.
      expect((await refusal('schedule_move_instance', { instanceId: instance.id, localStartTime: '09:00' }, other.apiKey)).code).toBe('not_found');
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({ startTime: '20:00', status: 'approved' });
    });

    it('a series time change, a length change and a restore move the linked booking too', async () => {
      const series = await mcpCall(owner, 'schedule_create_series', { title: 'Lauds', rrule: 'FREQ=WEEKLY;BYDAY=TU', startDate: fridayPlus(1), startTime: '07:00', durationMinutes: 30, timeZone: ZONE });
      const instance = series.upcoming[0];
      const booking = await mcpCall(owner, 'spaces_create_booking', { title: 'Lauds', roomId: parlourId, scheduleInstanceId: instance.id });
      // Every instance of the series follows the new time, and so does the booking (the same instance id, re-keyed).
      await mcpCall(owner, 'schedule_update_series', { seriesId: series.series.id, scope: 'all', changes: { startTime: '07:30' } });
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({ startTime: '07:30', endTime: '08:00', status: 'approved' });
      // One instance made longer: the booking's end follows.
      await mcpCall(owner, 'schedule_update_series', { seriesId: series.series.id, scope: 'this', instanceId: instance.id, changes: { durationMinutes: 45 } });
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({ startTime: '07:30', endTime: '08:15' });
      // Restored to the rule's time and length, the booking goes back with it.
      await mcpCall(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '09:00' });
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({ startTime: '09:00', endTime: '09:45' });
      await mcpCall(owner, 'schedule_restore_instance', { instanceId: instance.id });
      expect(await occurrenceOn(booking.booking.id, instance.localDate)).toMatchObject({ startTime: '07:30', endTime: '08:00', status: 'approved' });
      // The booking itself carries the new time, so a later edit of it re-plans from there rather than the old one.
      await mcpCall(owner, 'spaces_update_booking', { bookingId: booking.booking.id, changes: { title: 'Morning prayer' } });
      const after = await occurrenceOn(booking.booking.id, instance.localDate);
      expect(after).toMatchObject({ startTime: '07:30', endTime: '08:00', status: 'approved' });
      const trail = (await mcpCall(owner, 'audit_list_events', { targetId: booking.booking.id, actionPrefix: 'spaces.booking.move' })).events;
      expect(trail).toHaveLength(4);
    });

    it('a move onto a taken time holds the booking with an open conflict, never double-booking, and a person resolves it', async () => {
      const series = await mcpCall(owner, 'schedule_create_series', { title: 'Healing service', rrule: 'FREQ=WEEKLY;BYDAY=TH', startDate: fridayPlus(2), startTime: '10:00', durationMinutes: 60, timeZone: ZONE });
      const instance = series.upcoming[0];
      const healing = await mcpCall(owner, 'spaces_create_booking', { title: 'Healing service', roomId: vestryId, scheduleInstanceId: instance.id });
      const coffee = await mcpCall(owner, 'spaces_create_booking', { title: 'Coffee morning', roomId: vestryId, localDate: instance.localDate, startTime: '11:00', durationMinutes: 60 });

      // The service moves regardless; its booking is not lost, and not double-booked: it waits, held, for a person.
      const moved = await mcpCall(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '11:00' });
      expect(moved.instance).toMatchObject({ localStartTime: '11:00', moved: true });
      expect(await occurrenceOn(healing.booking.id, instance.localDate)).toMatchObject({ startTime: '11:00', status: 'held' });
      expect(await occurrenceOn(coffee.booking.id, instance.localDate)).toMatchObject({ startTime: '11:00', status: 'approved' });
      expect(await countRows(`SELECT count(*)::int AS n FROM spaces_occurrences WHERE room_id = $1 AND local_date = $2 AND status IN ('pending', 'approved')`, [vestryId, instance.localDate])).toBe(1);
      const conflicts = (await mcpCall(owner, 'spaces_list_conflicts', { bookingId: healing.booking.id })).conflicts;
      expect(conflicts).toEqual([expect.objectContaining({
        status: 'open', booking: expect.objectContaining({ bookingId: healing.booking.id, startTime: '11:00', status: 'held' }),
        against: expect.objectContaining({ kind: 'booking', bookingId: coffee.booking.id }),
      })]);
      const history = await mcpCall(owner, 'audit_get_entity_history', { targetType: 'booking', targetId: healing.booking.id });
      expect(history.entries.find((entry: any) => entry.action === 'spaces.booking.move').changes).toEqual(expect.arrayContaining([
        { field: 'occurrenceStatus', before: 'approved', after: 'held' }, { field: 'conflictsOpened', after: 1 },
      ]));

      // Resolved as any conflict is: the service keeps the vestry, the coffee morning gives way.
      const resolved = await mcpCall(owner, 'spaces_resolve_conflict', { conflictId: conflicts[0].id, keep: 'booking', note: 'The service comes first' });
      expect(resolved.conflict).toMatchObject({ status: 'resolved', resolution: 'booking_kept' });
      expect(await occurrenceOn(healing.booking.id, instance.localDate)).toMatchObject({ startTime: '11:00', status: 'approved' });
      expect(await occurrenceOn(coffee.booking.id, instance.localDate)).toMatchObject({ status: 'cancelled' });
    });

    it('moving back off a clash withdraws the conflict and books the new time', async () => {
      const series = await mcpCall(owner, 'schedule_create_series', { title: 'Vespers', rrule: 'FREQ=WEEKLY;BYDAY=FR', startDate: fridayPlus(3), startTime: '17:00', durationMinutes: 30, timeZone: ZONE });
      const instance = series.upcoming[0];
      const vespers = await mcpCall(owner, 'spaces_create_booking', { title: 'Vespers', roomId: parlourId, scheduleInstanceId: instance.id });
      await mcpCall(owner, 'spaces_create_blockout', { roomId: parlourId, from: `${instance.localDate}T18:00`, to: `${instance.localDate}T20:00`, timeZone: ZONE, reason: 'Carpet cleaning' });
      await mcpCall(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '18:30' });
      expect(await occurrenceOn(vespers.booking.id, instance.localDate)).toMatchObject({ startTime: '18:30', status: 'held' });
      expect((await mcpCall(owner, 'spaces_list_conflicts', { bookingId: vespers.booking.id })).conflicts).toEqual([
        expect.objectContaining({ against: expect.objectContaining({ kind: 'blockout', reason: 'Carpet cleaning' }) }),
      ]);
      await mcpCall(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '16:00' });
      expect(await occurrenceOn(vespers.booking.id, instance.localDate)).toMatchObject({ startTime: '16:00', status: 'approved' });
      expect((await mcpCall(owner, 'spaces_list_conflicts', { bookingId: vespers.booking.id })).conflicts).toEqual([]);
      expect((await mcpCall(owner, 'spaces_list_conflicts', { bookingId: vespers.booking.id, status: 'all' })).conflicts).toEqual([
        expect.objectContaining({ status: 'resolved', resolution: 'withdrawn' }),
      ]);
    });

    it('a move that would leave a booked resource short is refused and changes nothing', async () => {
      const projector = (await call('spaces_create_resource', { name: 'Projector', quantity: 1 })).resource;
      const series = await mcpCall(owner, 'schedule_create_series', { title: 'Alpha course', rrule: 'FREQ=WEEKLY;BYDAY=WE', startDate: fridayPlus(2), startTime: '19:00', durationMinutes: 90, timeZone: ZONE });
      const instance = series.upcoming[0];
      const alpha = await mcpCall(owner, 'spaces_create_booking', { title: 'Alpha course', resources: [{ resourceId: projector.id, quantity: 1 }], scheduleInstanceId: instance.id });
      await mcpCall(owner, 'spaces_create_booking', { title: 'Film night', resources: [{ resourceId: projector.id, quantity: 1 }], localDate: instance.localDate, startTime: '21:00', durationMinutes: 60 });

      const refused = await mcpRefusal(owner, 'schedule_move_instance', { instanceId: instance.id, localStartTime: '20:00' });
      expect(refused).toMatchObject({ code: 'conflict', message: expect.stringContaining('Projector'), details: { bookingId: alpha.booking.id } });
      expect(refused.hint).toMatch(/spaces_update_booking/);
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: instance.id })).instance).toMatchObject({ localStartTime: '19:00', moved: false });
      expect(await occurrenceOn(alpha.booking.id, instance.localDate)).toMatchObject({ startTime: '19:00', status: 'approved' });
      expect((await mcpCall(owner, 'audit_list_events', { targetId: alpha.booking.id, actionPrefix: 'spaces.booking.move' })).events).toEqual([]);
    });
  });

  describe('journey over MCP: a recurring booking with a conflict resolved by a person', () => {
    it('books youth night every Friday, holds the clash with the wedding, and a person resolves it', async () => {
      const weddingDay = fridayPlus(5);
      const wedding = await mcpCall(owner, 'spaces_create_booking', { title: 'Wedding reception', roomId: hallId, localDate: weddingDay, startTime: '16:00', durationMinutes: 360, expectedAttendance: 120, layout: 'Cabaret' }).catch((e) => e);
      expect(String(wedding)).toMatch(/holds 90, fewer than the 120 expected/);
      const booked = await mcpCall(owner, 'spaces_create_booking', { title: 'Wedding reception', roomId: hallId, localDate: weddingDay, startTime: '16:00', durationMinutes: 360, expectedAttendance: 120, layout: 'Theatre' });
      const search = await mcpCall(owner, 'spaces_search_availability', { localDate: friday, startTime: '19:30', durationMinutes: 120, rrule: 'FREQ=WEEKLY;BYDAY=FR', minCapacity: 100, setupMinutes: 30 });
      expect(search.rooms[0]).toMatchObject({ name: 'Main hall', free: false, clashingTimes: expect.any(Number) });
      const refused = await mcpRefusal(owner, 'spaces_create_booking', { title: 'Youth night', roomId: hallId, localDate: friday, startTime: '19:30', durationMinutes: 120, rrule: 'FREQ=WEEKLY;BYDAY=FR' });
      expect(refused.code).toBe('conflict');
      expect(refused.details.conflicts.map((c: any) => c.with.title)).toContain('Wedding reception');
      const youth = await mcpCall(owner, 'spaces_create_booking', { title: 'Youth night', roomId: hallId, localDate: friday, startTime: '19:30', durationMinutes: 120, rrule: 'FREQ=WEEKLY;BYDAY=FR', onConflict: 'hold' });
      expect(youth.occurrencesHeld).toBeGreaterThanOrEqual(1);
      const conflicts = await mcpCall(owner, 'spaces_list_conflicts', { bookingId: youth.booking.id });
      const clash = conflicts.conflicts.find((c: any) => c.against.kind === 'booking' && c.against.title === 'Wedding reception');
      expect(clash).toMatchObject({ status: 'open', booking: { localDate: weddingDay, status: 'held' } });
      // the wedding keeps the hall: the youth night that week is cancelled
      const resolved = await mcpCall(owner, 'spaces_resolve_conflict', { conflictId: clash.id, keep: 'other', note: 'Wedding booked first' });
      expect(resolved.conflict).toMatchObject({ status: 'resolved', resolution: 'other_kept', resolvedByUserId: org.ownerUserId });
      const sheet = await mcpCall(owner, 'spaces_get_room_schedule', { roomId: hallId, localDate: weddingDay });
      expect(sheet.entries.map((e: any) => e.title)).toEqual(['Wedding reception']);
      expect(sheet.entries[0]).toMatchObject({ setupFrom: '15:30', start: '16:00', end: '22:00', clearedBy: '22:15', layout: 'Theatre', layoutSeats: 150 });
      // and when the wedding is cancelled later, nothing is left held or double-booked
      await mcpCall(owner, 'spaces_cancel_booking', { bookingId: booked.booking.id, reason: 'Postponed' });
      expect((await mcpCall(owner, 'spaces_list_conflicts', { bookingId: youth.booking.id })).conflicts).toEqual([]);
    });
  });
});
