import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { DateTime } from 'luxon';
import { Harness, type TestOrg } from '../../../test/helpers/harness';
import { daytimeZone } from '../../../test/helpers/service-times';
import { mcpCall, mcpRefusal } from '../../../test/helpers/mcp-calls';

/**
 * The schedule module end to end over MCP: a weekly series materialised at once, today's instance,
 * exceptions (cancel, move, restore), "this", "this and following" and "all" changes that never
 * rewrite what has started, the rolling-window job (idempotent, and correct across clock changes),
 * the iCalendar export, bad input and another organisation's ids.
 */
describe('schedule: service series and instances', () => {
  let harness: Harness;
  let org: TestOrg;
  let other: TestOrg;
  let owner: McpClient;
  let otherMcp: McpClient;

  // London, unless it is night there: then a zone where it is day, so today's 23:30 service is still ahead
  // and no step crosses midnight (the test once failed when run in London's last half hour of the day).
  const ZONE = daytimeZone();
  const today = () => DateTime.now().setZone(ZONE);
  const todayDate = () => today().toISODate()!;
  const weekdayCode = () => ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'][today().weekday - 1];
  const localDatePlus = (days: number) => today().plus({ days }).toISODate()!;

  const upcoming = async (args: Record<string, unknown>) => (await mcpCall(owner, 'schedule_list_upcoming_instances', args)).instances as any[];
  const instanceCount = async (seriesId: string) => (await harness.pool.query<{ n: number; keys: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT (series_id, original_starts_at))::int AS keys FROM schedule_instances WHERE series_id = $1', [seriesId])).rows[0];

  beforeAll(async () => {
    harness = await Harness.start();
    org = await harness.createOrg({ name: 'St Anne' });
    other = await harness.createOrg({ name: 'Elsewhere Chapel' });
    owner = await harness.mcpClient(org.apiKey);
    otherMcp = await harness.mcpClient(other.apiKey);
  });

  afterAll(async () => {
    await otherMcp?.close();
    await owner?.close();
    await harness?.close();
  });

  describe('a weekly series on today\'s weekday', () => {
    let seriesId: string;
    let weekly: any[];

    it('creates the series and materialises today\'s instance and the next twelve weeks at once', async () => {
      const created = await mcpCall(owner, 'schedule_create_series', {
        title: 'Evening worship', rrule: `RRULE:FREQ=WEEKLY;BYDAY=${weekdayCode()}`, startDate: todayDate(), startTime: '23:30',
        durationMinutes: 75, timeZone: ZONE, locationLabel: 'Main hall',
      });
      seriesId = created.series.id;
      expect(created.series).toMatchObject({ rrule: `FREQ=WEEKLY;BYDAY=${weekdayCode()}`, timeZone: ZONE, startTime: '23:30', durationMinutes: 75, locationLabel: 'Main hall' });
      expect(created.series.ruleText).toMatch(/every week/i);
      expect(created.materialised.created).toBeGreaterThanOrEqual(12);
      expect(created.materialised.created).toBeLessThanOrEqual(13);
      expect(created.upcoming[0]).toMatchObject({ seriesId, localDate: todayDate(), localStartTime: '23:30', timeZone: ZONE, status: 'scheduled', moved: false, oneOff: false });
      expect(Date.parse(created.upcoming[0].endsAt) - Date.parse(created.upcoming[0].startsAt)).toBe(75 * 60_000);
      weekly = await upcoming({ seriesId, days: 60 });
      expect(weekly.map((instance) => instance.localDate).slice(0, 4)).toEqual([0, 7, 14, 21].map(localDatePlus));
      expect(weekly.every((instance) => instance.localStartTime === '23:30')).toBe(true);
    });

    it('guests_list_services_today shows today\'s instance', async () => {
      const result = await mcpCall(owner, 'guests_list_services_today', {});
      expect(result).toMatchObject({ date: todayDate(), timeZone: ZONE });
      expect(result.services.map((service: any) => service.id)).toContain(weekly[0].id);
    });

    it('gets one instance, and lists the series with its rule', async () => {
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[1].id })).instance).toEqual(weekly[1]);
      const { series } = await mcpCall(owner, 'schedule_list_series', {});
      expect(series.map((one: any) => one.id)).toContain(seriesId);
      const got = await mcpCall(owner, 'schedule_get_series', { seriesId });
      expect(got.upcoming[0].id).toBe(weekly[0].id);
    });

    it('cancels one instance: hidden from the upcoming list unless asked for, and restored on request', async () => {
      const cancelled = (await mcpCall(owner, 'schedule_cancel_instance', { instanceId: weekly[1].id, reason: 'Joint service at St Mark\'s' })).instance;
      expect(cancelled).toMatchObject({ status: 'cancelled', cancelReason: 'Joint service at St Mark\'s', detached: true });
      expect((await upcoming({ seriesId, days: 30 })).map((i) => i.id)).not.toContain(weekly[1].id);
      expect((await upcoming({ seriesId, days: 30, includeCancelled: true })).map((i) => i.id)).toContain(weekly[1].id);
      // Cancelling again changes nothing; an "all" change leaves the cancellation alone.
      expect((await mcpCall(owner, 'schedule_cancel_instance', { instanceId: weekly[1].id })).instance.cancelReason).toBe('Joint service at St Mark\'s');
      await mcpCall(owner, 'schedule_update_series', { seriesId, scope: 'all', changes: { locationLabel: 'Church hall' } });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[1].id })).instance).toMatchObject({ status: 'cancelled', locationLabel: 'Main hall' });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[2].id })).instance.locationLabel).toBe('Church hall');
      const restored = (await mcpCall(owner, 'schedule_restore_instance', { instanceId: weekly[1].id })).instance;
      expect(restored).toMatchObject({ id: weekly[1].id, status: 'scheduled', cancelReason: null, detached: false, locationLabel: 'Church hall' });
    });

    it('"this" moves one instance only, keeping its original start', async () => {
      const result = await mcpCall(owner, 'schedule_update_series', { seriesId, scope: 'this', instanceId: weekly[2].id, changes: { startTime: '19:00', title: 'Carol service' } });
      expect(result.instance).toMatchObject({ id: weekly[2].id, localStartTime: '19:00', title: 'Carol service', moved: true, originalStartsAt: weekly[2].startsAt, detached: true });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[3].id })).instance).toMatchObject({ localStartTime: '23:30', title: 'Evening worship' });
      const moved = (await mcpCall(owner, 'schedule_move_instance', { instanceId: weekly[3].id, localDate: localDatePlus(22) })).instance;
      expect(moved).toMatchObject({ localDate: localDatePlus(22), localStartTime: '23:30', moved: true });
      await mcpCall(owner, 'schedule_restore_instance', { instanceId: weekly[3].id });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[3].id })).instance).toMatchObject({ localDate: localDatePlus(21), moved: false });
    });

    it('"this and following" ends the series before the instance and continues it as a new series', async () => {
      const result = await mcpCall(owner, 'schedule_update_series', {
        seriesId, scope: 'this_and_following', instanceId: weekly[4].id, changes: { startTime: '18:00', title: 'Early evening worship' },
      });
      expect(result.series.rrule).toMatch(/UNTIL=\d{8}T\d{6}$/);
      expect(result.newSeries).toMatchObject({ splitFromSeriesId: seriesId, startDate: localDatePlus(28), startTime: '18:00', title: 'Early evening worship' });
      expect(result.upcoming[0]).toMatchObject({ seriesId: result.newSeries.id, localDate: localDatePlus(28), localStartTime: '18:00' });
      const all = await upcoming({ days: 84 });
      const ours = all.filter((i) => [seriesId, result.newSeries.id].includes(i.seriesId));
      expect(ours.filter((i) => i.seriesId === seriesId).map((i) => i.localDate)).toEqual([0, 7, 14, 21].map(localDatePlus));
      expect(ours.filter((i) => i.seriesId === result.newSeries.id).every((i) => i.localStartTime === '18:00' && i.title === 'Early evening worship')).toBe(true);
      // The moved "Carol service" before the split point is untouched.
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[2].id })).instance).toMatchObject({ title: 'Carol service', localStartTime: '19:00' });
      // An "all" change of the new series leaves the first part alone.
      await mcpCall(owner, 'schedule_update_series', { seriesId: result.newSeries.id, scope: 'all', changes: { title: 'Vespers' } });
      expect((await upcoming({ seriesId: result.newSeries.id, days: 84 })).every((i) => i.title === 'Vespers')).toBe(true);
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: weekly[0].id })).instance.title).toBe('Evening worship');
    });

    it('exports the series as iCalendar with the rule, the zone and the exceptions', async () => {
      await mcpCall(owner, 'schedule_cancel_instance', { instanceId: weekly[3].id });
      const { ical, events } = await mcpCall(owner, 'schedule_export_ical', { seriesId });
      expect(events).toBe(2);
      expect(ical).toContain('BEGIN:VCALENDAR');
      expect(ical).toContain(`DTSTART;TZID=${ZONE}:`);
      expect(ical).toMatch(/RRULE:FREQ=WEEKLY;BYDAY=[A-Z]{2};UNTIL=\d{8}T\d{6}Z/);
      expect(ical).toContain(`EXDATE;TZID=${ZONE}:`);
      expect(ical).toContain('SUMMARY:Carol service');
    });
  });

  describe('dashboard routes through the invoke bridges', () => {
    it('reads series and instances, and sends writes to the curated tools', async () => {
      const { series, upcoming: next } = await mcpCall(owner, 'schedule_create_series', {
        title: 'Routed service', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: localDatePlus(1), startTime: '09:15', durationMinutes: 60, timeZone: ZONE,
      });
      const got = await harness.call(org.apiKey, 'schedule_invoke_api_read', { path: `/api/schedule/series/${series.id}` });
      expect(got.result.series.id).toBe(series.id);
      const listed = await harness.call(org.apiKey, 'schedule_invoke_api_read', {
        path: '/api/schedule/instances', query: { from: next[0].localDate, to: next[1].localDate, seriesId: series.id },
      });
      expect(listed.result.instances.map((i: any) => i.id)).toEqual([next[0].id, next[1].id]);
      const one = await harness.call(org.apiKey, 'schedule_invoke_api_read', { path: `/api/schedule/instances/${next[0].id}` });
      expect(one.result.instance).toEqual(next[0]);
      const refused = await harness.invoke(org.apiKey, 'schedule_invoke_api_write', {
        method: 'POST', path: `/api/schedule/instances/${next[0].id}/cancel`, body: {}, actionSummary: 'Cancel it',
      });
      expect(refused.status).toBe(405);
      expect(refused.body.error?.details?.tool).toBe('schedule_cancel_instance');
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: next[0].id })).instance.status).toBe('scheduled');
      const foreign = await harness.invoke(other.apiKey, 'schedule_invoke_api_read', { path: `/api/schedule/instances/${next[0].id}` });
      expect(foreign.body.error?.code).toBe('not_found');
      await mcpCall(owner, 'schedule_delete_series', { seriesId: series.id });
    });
  });

  describe('previews and extra dates', () => {
    it('previews a rule without saving anything, in local time across a clock change', async () => {
      const seriesBefore = (await mcpCall(owner, 'schedule_list_series', { limit: 100 })).series.length;
      const preview = await mcpCall(owner, 'schedule_preview_rule', {
        rrule: 'FREQ=MONTHLY;BYDAY=-1SU', startDate: '2027-01-01', startTime: '10:30', timeZone: 'europe/london', count: 4,
      });
      expect(preview).toMatchObject({ rrule: 'FREQ=MONTHLY;BYDAY=-1SU', timeZone: 'Europe/London' });
      expect(preview.ruleText).toMatch(/last Sunday/i);
      expect(preview.occurrences).toEqual([
        { localDate: '2027-01-31', localStartTime: '10:30', startsAt: '2027-01-31T10:30:00.000Z' },
        { localDate: '2027-02-28', localStartTime: '10:30', startsAt: '2027-02-28T10:30:00.000Z' },
        { localDate: '2027-03-28', localStartTime: '10:30', startsAt: '2027-03-28T09:30:00.000Z' },
        { localDate: '2027-04-25', localStartTime: '10:30', startsAt: '2027-04-25T09:30:00.000Z' },
      ]);
      expect((await mcpCall(owner, 'schedule_list_series', { limit: 100 })).series).toHaveLength(seriesBefore);
      expect((await mcpRefusal(owner, 'schedule_preview_rule', { rrule: 'FREQ=SOMETIMES', startDate: '2027-01-01', startTime: '10:30' })).code).toBe('validation_failed');
    });

    it('adds an extra date to a series in its zone, kept through the series\' changes and the job', async () => {
      const { series } = await mcpCall(owner, 'schedule_create_series', {
        title: 'Evensong', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: localDatePlus(1), startTime: '18:00', durationMinutes: 50, timeZone: 'America/New_York', locationLabel: 'Nave',
      });
      const extra = (await mcpCall(owner, 'schedule_add_extra_instance', { seriesId: series.id, localDate: localDatePlus(30), localStartTime: '23:30', title: 'Christmas Eve vigil' })).instance;
      expect(extra).toMatchObject({ seriesId: series.id, title: 'Christmas Eve vigil', localDate: localDatePlus(30), localStartTime: '23:30', timeZone: 'America/New_York', oneOff: true, locationLabel: 'Nave' });
      expect(Date.parse(extra.endsAt) - Date.parse(extra.startsAt)).toBe(50 * 60_000);
      await mcpCall(owner, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: { startTime: '17:00', title: 'Choral evensong' } });
      await harness.runJob('schedule.materialise_instances', { orgId: org.orgId });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: extra.id })).instance).toMatchObject({ title: 'Christmas Eve vigil', localStartTime: '23:30' });
      expect((await mcpRefusal(owner, 'schedule_add_extra_instance', { seriesId: series.id, localDate: localDatePlus(-1), localStartTime: '10:00' })).code).toBe('validation_failed');
      await mcpCall(owner, 'schedule_delete_series', { seriesId: series.id });
    });
  });

  describe('changing the time of the whole series', () => {
    it('keeps each date\'s instance id and its cancellation when 10:30 becomes 11:00', async () => {
      const { series } = await mcpCall(owner, 'schedule_create_series', {
        title: 'Sung eucharist', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: localDatePlus(1), startTime: '10:30', durationMinutes: 60, timeZone: ZONE,
      });
      // The window ends on a Wednesday, days from any Sunday. 84 days from a Sunday at 10:42 would end at 10:42
      // on the twelfth Sunday: it would hold that date's service at 10:30 and drop it once it moved to 11:00.
      const days = 77 + ((3 - today().weekday + 7) % 7);
      const before = await upcoming({ seriesId: series.id, days, includeCancelled: true });
      expect(before.length).toBeGreaterThanOrEqual(10);
      await mcpCall(owner, 'schedule_cancel_instance', { instanceId: before[2].id, reason: 'Joint service' });
      await mcpCall(owner, 'schedule_move_instance', { instanceId: before[3].id, localStartTime: '09:00' });
      const result = await mcpCall(owner, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: { startTime: '11:00' } });
      expect(result.materialised.created).toBe(0);
      const after = await upcoming({ seriesId: series.id, days, includeCancelled: true });
      expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
      expect(after.map((i) => i.localStartTime)).toEqual(before.map((_, index) => (index === 3 ? '09:00' : '11:00')));
      expect(after[2]).toMatchObject({ status: 'cancelled', cancelReason: 'Joint service', moved: false });
      expect(after[3]).toMatchObject({ moved: true, localStartTime: '09:00' });
      expect(DateTime.fromISO(after[3].originalStartsAt, { zone: ZONE }).toFormat('HH:mm')).toBe('11:00');
    });

    it('holds under concurrent changes and job runs: one instance per occurrence', async () => {
      const { series } = await mcpCall(owner, 'schedule_create_series', {
        title: 'Compline', rrule: 'FREQ=DAILY', startDate: localDatePlus(1), startTime: '21:00', durationMinutes: 20, timeZone: ZONE,
      });
      const now = new Date();
      await Promise.all([
        ...['21:15', '21:30', '21:45'].map((startTime) => mcpCall(owner, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: { startTime } })),
        harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now }),
        harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now }),
      ]);
      const counts = await instanceCount(series.id);
      expect(counts.n).toBe(counts.keys);
      const instances = await upcoming({ seriesId: series.id, days: 90 });
      const finalTime = (await mcpCall(owner, 'schedule_get_series', { seriesId: series.id })).series.startTime;
      expect(instances.every((i) => i.localStartTime === finalTime)).toBe(true);
      expect(new Set(instances.map((i) => i.localDate)).size).toBe(instances.length);
      expect(instances.length).toBeGreaterThanOrEqual(82);
    });
  });

  describe('the rolling window job', () => {
    it('is idempotent: a second run with the same time creates nothing and leaves no duplicate', async () => {
      const { series } = await mcpCall(owner, 'schedule_create_series', {
        title: 'Morning prayer', rrule: 'FREQ=DAILY', startDate: todayDate(), startTime: '23:15', durationMinutes: 30, timeZone: ZONE,
      });
      const now = new Date();
      const first = await harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now });
      expect(first.organisations).toBe(1);
      expect(first.created).toBe(0);
      const second = await harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now });
      expect(second).toMatchObject({ created: 0, updated: 0, removed: 0 });
      const before = await instanceCount(series.id);
      expect(before.n).toBe(before.keys);

      // A week later the window has rolled on by seven days; running it twice adds them once.
      const later = new Date(now.getTime() + 7 * 86_400_000);
      const rolled = await harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now: later });
      const again = await harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now: later });
      expect(again.created).toBe(0);
      const after = await instanceCount(series.id);
      expect(after.n).toBe(after.keys);
      expect(after.n - before.n).toBe(7);
      expect(rolled.created).toBeGreaterThanOrEqual(7);
      // The run that rolled the window on is in the audit trail once for this series; the repeat that changed nothing is not.
      const trail = await harness.pool.query(`SELECT actor_kind, tool, changes->'fields'->'instancesCreated'->'after' AS created FROM audit_events
        WHERE org_id = $1 AND target_id = $2 AND action = 'schedule.series.materialise'`, [org.orgId, series.id]);
      expect(trail.rows).toEqual([{ actor_kind: 'system', tool: 'job:schedule.materialise_instances', created: 7 }]);
    });

    it('materialises across clock changes: 10:30 local in London and New York in March 2027', async () => {
      const london = (await mcpCall(owner, 'schedule_create_series', {
        title: 'London 10:30', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: todayDate(), startTime: '10:30', durationMinutes: 60, timeZone: 'Europe/London',
      })).series.id;
      const newYork = (await mcpCall(owner, 'schedule_create_series', {
        title: 'New York 10:30', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: todayDate(), startTime: '10:30', durationMinutes: 60, timeZone: 'America/New_York',
      })).series.id;
      await harness.runJob('schedule.materialise_instances', { orgId: org.orgId, now: new Date('2027-03-01T12:00:00Z') });
      const starts = async (id: string) => (await upcoming({ seriesId: id, from: '2027-03-07', days: 28 })).map((i) => [i.localDate, i.localStartTime, i.startsAt]);
      expect(await starts(london)).toEqual([
        ['2027-03-07', '10:30', '2027-03-07T10:30:00.000Z'], ['2027-03-14', '10:30', '2027-03-14T10:30:00.000Z'],
        ['2027-03-21', '10:30', '2027-03-21T10:30:00.000Z'], ['2027-03-28', '10:30', '2027-03-28T09:30:00.000Z'],
      ]);
      expect(await starts(newYork)).toEqual([
        ['2027-03-07', '10:30', '2027-03-07T15:30:00.000Z'], ['2027-03-14', '10:30', '2027-03-14T14:30:00.000Z'],
        ['2027-03-21', '10:30', '2027-03-21T14:30:00.000Z'], ['2027-03-28', '10:30', '2027-03-28T14:30:00.000Z'],
      ]);
    });
  });

  describe('what has started is never rewritten', () => {
    it('keeps today\'s past instance as it was through an "all" change, and refuses to cancel or split at it', async () => {
      // 00:00 local today has always passed by the time the test runs.
      const created = await mcpCall(owner, 'schedule_create_series', {
        title: 'Midnight office', rrule: 'FREQ=DAILY', startDate: todayDate(), startTime: '00:00', durationMinutes: 10, timeZone: ZONE,
      });
      const seriesId = created.series.id;
      const [past] = await upcoming({ seriesId, from: todayDate(), days: 1, includeCancelled: true });
      expect(past.localDate).toBe(todayDate());
      await mcpCall(owner, 'schedule_update_series', { seriesId, scope: 'all', changes: { title: 'Night office', startTime: '00:05' } });
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: past.id })).instance).toMatchObject({ title: 'Midnight office', localStartTime: '00:00' });
      // No 00:05 instance appears for today after the fact: today keeps the one that happened.
      expect((await upcoming({ seriesId, from: todayDate(), days: 1, includeCancelled: true })).filter((i) => i.localDate === todayDate()).map((i) => i.id)).toEqual([past.id]);
      expect((await mcpRefusal(owner, 'schedule_cancel_instance', { instanceId: past.id })).code).toBe('conflict');
      expect((await mcpRefusal(owner, 'schedule_update_series', { seriesId, scope: 'this_and_following', instanceId: past.id, changes: { title: 'x' } })).code).toBe('conflict');
      expect((await mcpRefusal(owner, 'schedule_move_instance', { instanceId: past.id, localStartTime: '23:00' })).code).toBe('conflict');
      // Ending the series removes only what has not started.
      const deleted = await mcpCall(owner, 'schedule_delete_series', { seriesId });
      expect(deleted.removedInstances).toBeGreaterThan(70);
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: past.id })).instance.title).toBe('Midnight office');
      expect((await mcpRefusal(owner, 'schedule_get_series', { seriesId })).code).toBe('not_found');
    });
  });

  describe('bad input', () => {
    const valid = { title: 'Bad', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: '2027-01-03', startTime: '10:30', durationMinutes: 60 };

    it.each([
      ['an unreadable rule', { rrule: 'EVERY SUNDAY' }, 'rrule'],
      ['a rule without FREQ', { rrule: 'BYDAY=SU' }, 'rrule'],
      ['a rule with DTSTART', { rrule: 'FREQ=WEEKLY;DTSTART=20270103T103000Z' }, 'rrule'],
      ['a rule that never happens', { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' }, 'rrule'],
      ['an unknown zone', { timeZone: 'Mars/Olympus' }, 'timeZone'],
      ['a time that is not HH:MM', { startTime: '10.30am' }, 'startTime'],
      ['a day that does not exist', { startDate: '2027-02-30' }, 'startDate'],
    ])('refuses %s with validation_failed and a hint', async (_label, change, path) => {
      const error = await mcpRefusal(owner, 'schedule_create_series', { ...valid, ...change });
      expect(error.code).toBe('validation_failed');
      expect(JSON.stringify(error.issues)).toContain(path);
    });

    it('stores a zone in its canonical spelling', async () => {
      const { series } = await mcpCall(owner, 'schedule_create_series', { ...valid, timeZone: 'america/new_york' });
      expect(series.timeZone).toBe('America/New_York');
      await mcpCall(owner, 'schedule_delete_series', { seriesId: series.id });
    });

    it('explains what a rule should look like', async () => {
      const error = await mcpRefusal(owner, 'schedule_create_series', { ...valid, rrule: 'FREQ=WEEKLY;BYDAY=XX' });
      expect(error.hint).toContain('FREQ=WEEKLY;BYDAY=SU');
    });

    it('refuses scopes without the instance, and fields a scope cannot change', async () => {
      const { series, upcoming: next } = await mcpCall(owner, 'schedule_create_series', { ...valid, startDate: todayDate(), startTime: '23:55', timeZone: ZONE });
      expect((await mcpRefusal(owner, 'schedule_update_series', { seriesId: series.id, scope: 'this', changes: { title: 'x' } })).issues[0].path).toBe('instanceId');
      expect((await mcpRefusal(owner, 'schedule_update_series', { seriesId: series.id, scope: 'this', instanceId: next[0].id, changes: { rrule: 'FREQ=DAILY' } })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: {} })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: { rrule: 'FREQ=MINUTELY' } })).code).toBe('validation_failed');
      expect((await mcpRefusal(owner, 'schedule_list_upcoming_instances', { days: 1000 })).code).toBe('validation_failed');
    });

    it('says when a long range holds more instances than one list returns', async () => {
      const busy = await harness.createOrg({ name: 'Busy Minster' });
      const mcp = await harness.mcpClient(busy.apiKey);
      try {
        for (const hour of ['07', '08', '09', '10', '11', '12', '13']) {
          await mcpCall(mcp, 'schedule_create_series', { ...valid, title: `Daily ${hour}:00`, rrule: 'FREQ=DAILY', startDate: localDatePlus(1), startTime: `${hour}:00`, timeZone: ZONE });
        }
        const all = await mcpCall(mcp, 'schedule_list_upcoming_instances', { days: 90 });
        expect(all).toMatchObject({ truncated: true });
        expect(all.instances).toHaveLength(500);
        const week = await mcpCall(mcp, 'schedule_list_upcoming_instances', { from: localDatePlus(1), days: 7 });
        expect(week).toMatchObject({ truncated: false });
        expect(week.instances).toHaveLength(49);
      } finally {
        await mcp.close();
      }
    });

    it('treats unknown ids and another organisation\'s ids as missing', async () => {
      const { series, upcoming: next } = await mcpCall(owner, 'schedule_create_series', { ...valid, startDate: todayDate(), startTime: '23:50', timeZone: ZONE, title: 'Ours only' });
      expect((await mcpRefusal(owner, 'schedule_get_instance', { instanceId: '00000000-0000-4000-8000-000000000000' })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'schedule_get_instance', { instanceId: next[0].id })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'schedule_cancel_instance', { instanceId: next[0].id })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'schedule_update_series', { seriesId: series.id, scope: 'all', changes: { title: 'Theirs' } })).code).toBe('not_found');
      expect((await mcpRefusal(otherMcp, 'guests_duplicate_service', { instanceId: next[0].id, localDate: localDatePlus(3), localStartTime: '18:00' })).code).toBe('not_found');
      expect((await mcpCall(otherMcp, 'schedule_list_series', {})).series).toEqual([]);
      expect((await mcpCall(otherMcp, 'guests_list_services_today', {})).services).toEqual([]);
      expect((await mcpCall(owner, 'schedule_get_instance', { instanceId: next[0].id })).instance).toMatchObject({ title: 'Ours only', status: 'scheduled' });
    });
  });
});
