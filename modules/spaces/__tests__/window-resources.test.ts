import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { materialiseBookings } from '../conflicts';

/**
 * The rolling window job (`spaces.materialise_occurrences`) and countable resources: an occurrence
 * the window reaches later is checked for resource quantities as a direct booking is, and one that
 * would take more than there is waits, held, with an open conflict for a person; it is never booked
 * over stock, never stops the rest of the run, and a rerun adds nothing.
 */
describe('spaces: the rolling window never over-commits a countable resource', () => {
  let harness: Harness;
  let org: TestOrg;
  const ZONE = 'Europe/London';
  const DAY = 86_400_000;
  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const refusal = async (tool: string, args: Record<string, unknown>) => {
    const { body } = await harness.invoke(org.apiKey, tool, args);
    expect(body.ok).toBe(false);
    return body.error!;
  };
  /** The first given weekday (1 = Monday) on or after an instant, as a local date. */
  const weekdayFrom = (at: Date, weekday: number) => {
    const day = DateTime.fromJSDate(at, { zone: ZONE }).startOf('day');
    return day.plus({ days: (weekday - day.weekday + 7) % 7 }).toISODate()!;
  };

  /**
   * As if the booking had been made `days` ago: its occurrences run only as far as that booking's
   * year did, so the rolling window has the rest still to reach. Answers where they stop.
   */
  const bookedDaysAgo = async (bookingId: string, days: number): Promise<Date> => {
    const until = new Date(Date.now() + (365 - days) * DAY);
    await harness.pool.query('DELETE FROM spaces_occurrences WHERE booking_id = $1 AND starts_at > $2', [bookingId, until]);
    await harness.pool.query('UPDATE spaces_bookings SET materialised_until = $2 WHERE id = $1', [bookingId, until]);
    return until;
  };

  /** Per local date, what the live occurrences of bookings using a resource take of it (each date's uses overlap in these tests). */
  const takenByDate = async (resourceId: string) => (await harness.pool.query<{ date: string; taken: number }>(`
    SELECT o.local_date::text AS date, sum(br.quantity)::int AS taken FROM spaces_occurrences o
      JOIN spaces_booking_resources br ON br.booking_id = o.booking_id AND br.resource_id = $1
     WHERE o.status IN ('pending', 'approved') GROUP BY o.local_date ORDER BY o.local_date`, [resourceId])).rows;

  const occurrencesOf = async (bookingId: string) => (await harness.pool.query<{ id: string; date: string; status: string }>(
    'SELECT id, local_date::text AS date, status FROM spaces_occurrences WHERE booking_id = $1 ORDER BY starts_at', [bookingId])).rows;

  const openConflictCounts = async (bookingId: string) => (await harness.pool.query<{ occurrence_id: string; n: number }>(`
    SELECT c.occurrence_id, count(*)::int AS n FROM spaces_conflicts c JOIN spaces_occurrences o ON o.id = c.occurrence_id
     WHERE o.booking_id = $1 AND c.status = 'open' GROUP BY c.occurrence_id`, [bookingId])).rows;

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Columba', planCode: 'growth' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('two recurring bookings of the same projectors', () => {
    let projectorId: string;
    let chairsId: string;
    let alpha: any;
    let film: any;
    let teas: any;
    let until: Date;
    let filmStarts: string;
    let firstRun: Record<string, number>;

    beforeAll(async () => {
      projectorId = (await call('spaces_create_resource', { name: 'Projector', quantity: 2 })).resource.id;
      chairsId = (await call('spaces_create_resource', { name: 'Stacking chairs', quantity: 50 })).resource.id;
      const firstFriday = weekdayFrom(new Date(Date.now() + 7 * DAY), 5);
      // Alpha takes both projectors every Friday 19:00–20:30; it was booked 70 days ago, so its year runs out sooner.
      alpha = await call('spaces_create_booking', {
        title: 'Alpha course', resources: [{ resourceId: projectorId, quantity: 2 }], localDate: firstFriday, startTime: '19:00', durationMinutes: 90,
        rrule: 'FREQ=WEEKLY;BYDAY=FR', timeZone: ZONE,
      });
      teas = await call('spaces_create_booking', {
        title: 'Friday teas', resources: [{ resourceId: chairsId, quantity: 20 }], localDate: firstFriday, startTime: '15:00', durationMinutes: 60,
        rrule: 'FREQ=WEEKLY;BYDAY=FR', timeZone: ZONE,
      });
      until = await bookedDaysAgo(alpha.booking.id, 70);
      await bookedDaysAgo(teas.booking.id, 70);
      // A film club starting two weeks after Alpha's occurrences stop: checked now, nothing of Alpha's is there yet, so it books one projector.
      filmStarts = weekdayFrom(new Date(until.getTime() + 14 * DAY), 5);
      film = await call('spaces_create_booking', {
        title: 'Film club', resources: [{ resourceId: projectorId, quantity: 1 }], localDate: filmStarts, startTime: '20:00', durationMinutes: 120,
        rrule: 'FREQ=WEEKLY;BYDAY=FR', timeZone: ZONE,
      });
      expect(film).toMatchObject({ occurrencesHeld: 0, booking: { status: 'approved' } });
      firstRun = await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: new Date() });
    });

    it('never commits more projectors than exist at an occurrence the window reaches later', async () => {
      const taken = await takenByDate(projectorId);
      expect(taken.some((row) => row.date >= filmStarts)).toBe(true);
      expect(Math.max(...taken.map((row) => row.taken))).toBeLessThanOrEqual(2);
    });

    it('holds each short occurrence with one open resource conflict; the free ones are booked and the run carries on', async () => {
      const occurrences = (await occurrencesOf(alpha.booking.id)).filter((o) => o.date > until.toISOString().slice(0, 10));
      const before = occurrences.filter((o) => o.date < filmStarts);
      const after = occurrences.filter((o) => o.date >= filmStarts);
      expect(before.length).toBeGreaterThanOrEqual(1);
      expect(after.length).toBeGreaterThanOrEqual(1);
      expect(before.map((o) => o.status)).toEqual(before.map(() => 'approved'));
      expect(after.map((o) => o.status)).toEqual(after.map(() => 'held'));
      expect(firstRun.held).toBeGreaterThanOrEqual(after.length);

      const conflicts = (await call('spaces_list_conflicts', { bookingId: alpha.booking.id, limit: 200 })).conflicts;
      expect(conflicts).toHaveLength(after.length);
      for (const conflict of conflicts) {
        expect(conflict).toMatchObject({
          status: 'open', roomId: null, booking: { bookingId: alpha.booking.id, status: 'held', startTime: '19:00' },
          against: { kind: 'resource', resourceId: projectorId, resource: 'Projector', wanted: 2, available: 1 },
        });
      }
      expect(conflicts.map((c: any) => c.booking.localDate).sort()).toEqual(after.map((o) => o.date));
      // The film club keeps every Friday it booked.
      expect((await occurrencesOf(film.booking.id)).map((o) => o.status)).toEqual((await occurrencesOf(film.booking.id)).map(() => 'approved'));
      // A shortage in one booking does not stop the others: the teas reached the new horizon.
      const teaDates = (await occurrencesOf(teas.booking.id)).map((o) => o.date);
      expect(teaDates[teaDates.length - 1] >= filmStarts).toBe(true);
      // The trail says how many were held.
      const trail = (await call('audit_list_events', { targetId: alpha.booking.id, actionPrefix: 'spaces.booking.materialise' })).events;
      expect(trail).toEqual([expect.objectContaining({ tool: 'job:spaces.materialise_occurrences' })]);
    });

    it('a person settles a shortage: never by sharing, keeping the held date only once enough is free, or letting it give way', async () => {
      const open = (await call('spaces_list_conflicts', { bookingId: alpha.booking.id, limit: 200 })).conflicts;
      const [first, second] = open;
      const both = await refusal('spaces_resolve_conflict', { conflictId: first.id, keep: 'both' });
      expect(both).toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'keep' })] });
      const keep = await refusal('spaces_resolve_conflict', { conflictId: first.id, keep: 'booking' });
      expect(keep).toMatchObject({ code: 'conflict', message: expect.stringContaining('Only 1 Projector free'), details: { conflictId: first.id } });
      expect((await call('spaces_list_conflicts', { bookingId: alpha.booking.id, limit: 200 })).conflicts).toHaveLength(open.length);

      // The film club gives up that Friday: the held Alpha evening takes both projectors at once, and its shortage is withdrawn.
      const filmThatDay = (await occurrencesOf(film.booking.id)).find((o) => o.date === first.booking.localDate)!;
      const cancelled = await call('spaces_cancel_booking', { bookingId: film.booking.id, scope: 'this', occurrenceId: filmThatDay.id, reason: 'Projector bulb' });
      expect(cancelled.othersReleased).toBe(1);
      expect((await occurrencesOf(alpha.booking.id)).find((o) => o.id === first.booking.occurrenceId)!.status).toBe('approved');
      const settled = (await call('spaces_list_conflicts', { bookingId: alpha.booking.id, status: 'all', limit: 200 })).conflicts;
      expect(settled.find((c: any) => c.id === first.id)).toMatchObject({ status: 'resolved', resolution: 'withdrawn' });

      // Another Friday the film club keeps the projector, and Alpha's held evening gives way.
      const gaveWay = await call('spaces_resolve_conflict', { conflictId: second.id, keep: 'other', note: 'Alpha meets without slides that week' });
      expect(gaveWay.conflict).toMatchObject({ status: 'resolved', resolution: 'other_kept', against: { kind: 'resource', resource: 'Projector' } });
      expect((await occurrencesOf(alpha.booking.id)).find((o) => o.id === second.booking.occurrenceId)!.status).toBe('cancelled');
      expect(Math.max(...(await takenByDate(projectorId)).map((row) => row.taken))).toBeLessThanOrEqual(2);
    });

    it('running the job again opens nothing new, even over the same dates; as the window rolls on, the booking made first keeps the projectors', async () => {
      const snapshot = async () => ({ alpha: await occurrencesOf(alpha.booking.id), film: await occurrencesOf(film.booking.id), conflicts: await openConflictCounts(alpha.booking.id) });
      const before = await snapshot();
      expect(await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: new Date() })).toMatchObject({ created: 0, held: 0, failed: 0 });
      // As if a run had stopped before moving the horizon on: the same dates are looked at again.
      await harness.pool.query('UPDATE spaces_bookings SET materialised_until = $2 WHERE id = ANY($1::uuid[])', [[alpha.booking.id, film.booking.id, teas.booking.id], until]);
      expect(await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: new Date() })).toMatchObject({ created: 0, held: 0, failed: 0 });
      expect(await snapshot()).toEqual(before);

      const last = before.alpha[before.alpha.length - 1].date;
      const rolled = await harness.runJob('spaces.materialise_occurrences', { orgId: org.orgId, now: new Date(Date.now() + 21 * DAY) });
      expect(rolled.created).toBeGreaterThan(0);
      const newAlpha = (await occurrencesOf(alpha.booking.id)).filter((o) => o.date > last);
      const newFilm = (await occurrencesOf(film.booking.id)).filter((o) => o.date > last);
      expect(newAlpha.length).toBeGreaterThanOrEqual(2);
      expect(newAlpha.map((o) => o.status)).toEqual(newAlpha.map(() => 'approved'));
      expect(newFilm.map((o) => o.status)).toEqual(newFilm.map(() => 'held'));
      const filmConflicts = (await call('spaces_list_conflicts', { bookingId: film.booking.id, limit: 200 })).conflicts
        .filter((c: any) => c.booking.bookingId === film.booking.id);
      expect(filmConflicts.map((c: any) => c.booking.localDate).sort()).toEqual(newFilm.map((o) => o.date));
      expect(filmConflicts.map((c: any) => c.against)).toEqual(newFilm.map(() => ({ kind: 'resource', resourceId: projectorId, resource: 'Projector', wanted: 1, available: 0 })));
      // One open conflict per held occurrence, and never more projectors than there are.
      expect([...(await openConflictCounts(alpha.booking.id)), ...(await openConflictCounts(film.booking.id))].every((row) => row.n === 1)).toBe(true);
      expect(Math.max(...(await takenByDate(projectorId)).map((row) => row.taken))).toBeLessThanOrEqual(2);
    });
  });

  it('one booking that cannot be extended does not stop the others; they are kept and the run says it failed', async () => {
    const urnId = (await call('spaces_create_resource', { name: 'Tea urn', quantity: 3 })).resource.id;
    const monday = weekdayFrom(new Date(Date.now() + 7 * DAY), 1);
    const book = (title: string) => call('spaces_create_booking', {
      title, resources: [{ resourceId: urnId, quantity: 1 }], localDate: monday, startTime: '10:00', durationMinutes: 60, rrule: 'FREQ=WEEKLY;BYDAY=MO', timeZone: ZONE,
    });
    const broken = await book('Coffee morning');
    const fine = await book('Mothers and toddlers');
    const until = await bookedDaysAgo(broken.booking.id, 70);
    await bookedDaysAgo(fine.booking.id, 70);
    // A rule that can no longer be read (written before a stricter check, say) fails that booking's extension.
    await harness.pool.query("UPDATE spaces_bookings SET rrule = 'FREQ=FORTNIGHTLY' WHERE id = $1", [broken.booking.id]);
    try {
      await expect(materialiseBookings(harness.pool, { orgId: org.orgId, now: new Date() })).rejects.toThrow();
      expect((await occurrencesOf(fine.booking.id)).filter((o) => o.date > until.toISOString().slice(0, 10)).length).toBeGreaterThanOrEqual(8);
      const marks = (await harness.pool.query<{ id: string; materialised_until: Date }>('SELECT id, materialised_until FROM spaces_bookings WHERE id = ANY($1::uuid[])',
        [[broken.booking.id, fine.booking.id]])).rows;
      expect(marks.find((row) => row.id === broken.booking.id)!.materialised_until.getTime()).toBe(until.getTime());
      expect(marks.find((row) => row.id === fine.booking.id)!.materialised_until.getTime()).toBeGreaterThan(until.getTime());
    } finally {
      await harness.pool.query("UPDATE spaces_bookings SET rrule = 'FREQ=WEEKLY;BYDAY=MO' WHERE id = $1", [broken.booking.id]);
    }
    // Once readable again, the next run extends it too.
    await materialiseBookings(harness.pool, { orgId: org.orgId, now: new Date() });
    expect((await occurrencesOf(broken.booking.id)).filter((o) => o.date > until.toISOString().slice(0, 10)).length).toBeGreaterThanOrEqual(8);
  });

  it('the window job and direct bookings of the same resource at once: never over stock, no deadlock, no duplicate', async () => {
    const tablesId = (await call('spaces_create_resource', { name: 'Round tables', quantity: 10 })).resource.id;
    const hallId = (await call('spaces_create_room', {
      buildingId: (await call('spaces_create_building', { name: 'Parish rooms', campus: 'North' })).building.id, name: 'Parish hall', capacity: 120,
    })).room.id;
    const fair = await call('spaces_create_booking', {
      title: 'Saturday fair', roomId: hallId, resources: [{ resourceId: tablesId, quantity: 10 }], localDate: weekdayFrom(new Date(Date.now() + 7 * DAY), 6),
      startTime: '10:00', durationMinutes: 360, rrule: 'FREQ=WEEKLY;BYDAY=SA', timeZone: ZONE,
    });
    const until = await bookedDaysAgo(fair.booking.id, 70);
    const saturday = weekdayFrom(new Date(until.getTime() + DAY), 6);
    // Eight stalls of 4 tables booked through the API; once the first is in, two runs of the job start while the rest are still
    // coming. The job is called as its activity calls it, so a deadlock would reject here rather than be retried.
    const direct = Array.from({ length: 8 }, (_, i) => harness.invoke(org.apiKey, 'spaces_create_booking', {
      title: `Craft stall ${i}`, resources: [{ resourceId: tablesId, quantity: 4 }], localDate: saturday, startTime: '12:00', durationMinutes: 60, timeZone: ZONE,
    }));
    await Promise.race(direct);
    const jobs = await Promise.allSettled([0, 1].map(() => materialiseBookings(harness.pool, { orgId: org.orgId, now: new Date() })));
    expect(jobs.map((job) => job.status)).toEqual(['fulfilled', 'fulfilled']);
    const answers = (await Promise.all(direct)).map((response) => response.body);
    expect(answers.filter((body) => !body.ok).map((body) => body.error!.code)).toEqual(answers.filter((body) => !body.ok).map(() => 'conflict'));
    // Two stalls fit (8 of 10 tables), whatever the order.
    expect(answers.filter((body) => body.ok)).toHaveLength(2);

    // A stall was in before the job reached that Saturday, so the fair waits there: one occurrence, one open shortage.
    const fairThatDay = (await occurrencesOf(fair.booking.id)).filter((o) => o.date === saturday);
    expect(fairThatDay.map((o) => o.status)).toEqual(['held']);
    const conflicts = (await harness.pool.query<{ resource_id: string; wanted: number; available: number }>(
      `SELECT resource_id, wanted, available FROM spaces_conflicts WHERE occurrence_id = $1 AND status = 'open'`, [fairThatDay[0].id])).rows;
    expect(conflicts).toEqual([{ resource_id: tablesId, wanted: 10, available: expect.any(Number) }]);
    // 6 free if the job came between the first and second stall, 2 if after both.
    expect([2, 6]).toContain(conflicts[0].available);
    expect((await takenByDate(tablesId)).find((row) => row.date === saturday)!.taken).toBeLessThanOrEqual(10);
  });
});
