import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import type { FrameLocator } from 'playwright-core';
import { withTransaction } from '../../db/pool';
import { recordConsent } from '../../modules/channels/audience/consent';
import type { Harness, TestOrg } from '../helpers/harness';
import { HOSTILE_TEXT, openWidgetSuite, type WidgetHost, type WidgetSuite } from '../helpers/widget-host';

/**
 * The chart widgets rendered in headless Chromium by a minimal MCP Apps host from each tool's real
 * result: a chart is drawn (uPlot's canvas, or an SVG) with one series or row for each the result
 * carries and one point for each period, slot or stage; its numbers are there as a table and its
 * picture has a text description; and the text content (for clients without widgets) still says
 * the same figures.
 */
describe('chart widgets in headless Chromium', () => {
  let suite: WidgetSuite;
  let harness: Harness;
  let org: TestOrg;
  let host: WidgetHost;
  const ZONE = 'Europe/London';

  beforeAll(async () => {
    suite = await openWidgetSuite('Chart Parish');
    ({ harness, org, host } = suite);
  });

  afterEach(async () => {
    if (process.env.STEWARD_SCREENSHOTS) {
      const name = (expect.getState().currentTestName ?? 'chart').replace(/^chart widgets in headless Chromium /, '').replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await host.page.screenshot({ path: `${process.env.STEWARD_SCREENSHOTS}/chart-${name}.png`, fullPage: true });
    }
    // Nothing the widget drew ran as script or was blocked by its policy.
    expect(host.errors).toEqual([]);
    await expect(host.page.frameLocator('#widget').locator('img, b').count()).resolves.toBe(0);
  });

  afterAll(async () => {
    await suite?.close();
  });

  const call = (tool: string, args: Record<string, unknown>) => harness.call(org.apiKey, tool, args);
  const contact = async (firstName: string, lastName: string, extra: Record<string, unknown> = {}) => (await call('people_create_contact', { firstName, lastName, ...extra })).contact.id as string;

  /** The numbers table of a chart: its column headings and each row's cells. */
  async function numbers(frame: FrameLocator, chart: string): Promise<{ columns: string[]; rows: string[][] }> {
    const figure = frame.locator(`figure[data-chart="${chart}"]`);
    const columns = await figure.locator('details.numbers table thead th').allTextContents();
    const rows: string[][] = [];
    const count = await figure.locator('details.numbers table tbody tr').count();
    for (let index = 0; index < count; index += 1) rows.push(await figure.locator('details.numbers table tbody tr').nth(index).locator('th, td').allTextContents());
    return { columns, rows };
  }

  /** A uPlot chart: a canvas, a legend row for each series (besides x), and a description naming the figures. */
  async function expectSeriesChart(frame: FrameLocator, chart: string, series: string[], points: number): Promise<string> {
    const figure = frame.locator(`figure[data-chart="${chart}"]`);
    await expect(figure.locator('.uplot canvas').count()).resolves.toBeGreaterThan(0);
    const box = await figure.locator('.uplot canvas').first().boundingBox();
    expect(box!.width).toBeGreaterThan(200);
    expect(box!.height).toBeGreaterThan(100);
    await expect(figure.locator('.u-legend .u-series th').allTextContents()).resolves.toEqual(series);
    const table = await numbers(frame, chart);
    expect(table.columns).toEqual(['', ...series]);
    expect(table.rows).toHaveLength(points);
    return (await figure.locator('[role=img]').getAttribute('aria-label'))!;
  }

  /** What a client without widgets reads: the text content, which must say the same figures. */
  const textOf = (result: any) => JSON.parse(result.content[0].text);

  it('giving summary draws each month and each fund with the same dates last year beside them', async () => {
    const today = DateTime.now().toUTC().toISODate()!;
    const lastYear = DateTime.fromISO(today).minus({ years: 1 }).toISODate()!;
    const building = (await call('giving_create_fund', { name: 'Building' })).fund;
    await call('giving_record_donation', { amount: 10_000, method: 'cash', receivedOn: today, commit: true });
    await call('giving_record_donation', { amount: 5_000, method: 'cash', receivedOn: today, fundId: building.id, commit: true });
    await call('giving_record_donation', { amount: 7_000, method: 'cash', receivedOn: lastYear, commit: true });
    const from = `${today.slice(0, 8)}01`;

    const { frame, result } = await host.callAndShow('giving_summary', { from, to: today, period: 'month' });
    const shown = result.structuredContent;
    expect(shown.byPeriod).toEqual([{ periodStart: from, total: 15_000, donationCount: 2, lastYearTotal: 7_000 }]);
    expect(shown.byFund.map((fund: any) => [fund.fundName, fund.total, fund.lastYearTotal])).toEqual([['General Fund', 10_000, 7_000], ['Building', 5_000, 0]]);
    expect(textOf(result).byPeriod).toEqual(shown.byPeriod);

    const byPeriod = await expectSeriesChart(frame, 'by-period', ['This year', 'Last year'], 1);
    expect(byPeriod).toContain('150.00');
    expect(byPeriod).toContain('70.00');
    const byFund = await expectSeriesChart(frame, 'by-fund', ['This year', 'Last year'], 2);
    expect(byFund).toContain('Building');
    const table = await numbers(frame, 'by-fund');
    expect(table.rows.map((row) => row[0])).toEqual(['General Fund', 'Building']);
    expect(table.rows[0][2]).toContain('70.00');
  });

  describe('from check-ins on four coming Sundays', () => {
    const sundays: Array<{ id: string; localDate: string }> = [];
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const today = DateTime.now().setZone(ZONE).startOf('day');
      const firstSunday = today.plus({ days: 7 - (today.weekday % 7) }).toISODate()!;
      const { series } = await call('schedule_create_series', {
        title: 'Morning worship', rrule: 'FREQ=WEEKLY;BYDAY=SU', startDate: firstSunday, startTime: '10:30', durationMinutes: 90, timeZone: ZONE,
      });
      sundays.push(...(await call('schedule_list_upcoming_instances', { seriesId: series.id, days: 40 })).instances.slice(0, 4));
      await call('guests_update_settings', { checkinOpensMinutesBefore: 30 * 24 * 60 });
      ids.hall = (await call('guests_create_location', { name: `Main hall ${HOSTILE_TEXT}` })).location.id;
      ids.kids = (await call('guests_create_location', { name: 'Kids church' })).location.id;
      ids.desk = (await call('guests_create_check_in_station', { name: 'Welcome desk', kind: 'manned' })).station.id;
      const rita = await contact('Rita', 'Regular');
      const gary = await contact('Gary', 'Sometimes');
      const ann = await contact('Ann', 'Newcomer');
      const cal = await contact('Cal', 'Small');
      const checkIn = (sunday: number, contactId: string, locationId: string, personKind: 'adult' | 'child') =>
        call('guests_check_in', { instanceId: sundays[sunday].id, stationId: ids.desk, contactId, locationId, personKind });
      // Rita and Gary come first on Sunday 1; Rita again on 2 and 3; Sunday 4 everyone, Ann and Cal for the first time.
      await checkIn(0, rita, ids.hall, 'adult');
      await checkIn(0, gary, ids.hall, 'adult');
      await checkIn(1, rita, ids.hall, 'adult');
      await checkIn(2, rita, ids.hall, 'adult');
      await checkIn(3, rita, ids.hall, 'adult');
      await checkIn(3, gary, ids.hall, 'adult');
      await checkIn(3, ann, ids.hall, 'adult');
      await checkIn(3, cal, ids.kids, 'child');
      // Sunday 4's arrival times, London time, so the heatmap's slots are known.
      const at = (time: string) => DateTime.fromISO(`${sundays[3].localDate}T${time}`, { zone: ZONE }).toJSDate();
      for (const [contactId, time] of [[rita, '10:05'], [gary, '10:20'], [ann, '10:25'], [cal, '10:22']] as const) {
        await harness.pool.query('UPDATE guests_checkins SET checked_in_at = $1 WHERE org_id = $2 AND contact_id = $3 AND instance_id = $4', [at(time), org.orgId, contactId, sundays[3].id]);
      }
    });

    it('attendance trend draws each week as a bar with first-timers as a line', async () => {
      const { frame, result } = await host.callAndShow('attendance_get_summary', { from: sundays[0].localDate, to: sundays[3].localDate });
      const weeks = result.structuredContent.weeks;
      expect(weeks.map((week: any) => [week.total, week.firstTimers])).toEqual([[2, 2], [1, 0], [1, 0], [4, 2]]);
      expect(textOf(result).weeks).toEqual(weeks);
      const description = await expectSeriesChart(frame, 'attendance-trend', ['Attendance', 'First-timers'], 4);
      expect(description).toContain(`week of ${weeks[3].weekStart} 4, 2 first-timers`);
      const table = await numbers(frame, 'attendance-trend');
      expect(table.rows.map((row) => row.slice(1))).toEqual([['2', '2'], ['1', '0'], ['1', '0'], ['4', '2']]);
    });

    it('arrivals heatmap draws a cell for each slot and location, darker where more arrived', async () => {
      const { frame, result } = await host.callAndShow('guests_get_analytics_heatmap', { from: sundays[3].localDate, to: sundays[3].localDate, slotMinutes: 15 });
      const shown = result.structuredContent;
      expect(shown.slots).toEqual(['10:00', '10:15']);
      expect(textOf(result).locations).toEqual(shown.locations);
      const figure = frame.locator('figure[data-chart="arrivals-heatmap"]');
      const cells = figure.locator('svg rect');
      await expect(cells.count()).resolves.toBe(shown.slots.length * shown.locations.length);
      const values = await cells.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))));
      expect(values).toEqual(shown.locations.flatMap((location: any) => location.arrivals));
      // The busiest cell is the darkest.
      const opacities = await cells.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('fill-opacity'))));
      expect(opacities[values.indexOf(Math.max(...values))]).toBe(Math.max(...opacities));
      await expect(figure.locator('svg').getAttribute('aria-label')).resolves.toContain('busiest');
      // The location's name, typed by a person, is text in the picture and the table.
      await expect(figure.locator('svg text').allTextContents()).resolves.toEqual(expect.arrayContaining([expect.stringContaining('Main hall <img')]));
      const table = await numbers(frame, 'arrivals-heatmap');
      expect(table.columns).toEqual(['', '10:00', '10:15']);
      expect(table.rows).toEqual(shown.locations.map((location: any) => [location.locationName, ...location.arrivals.map(String)]));
    });
  });

  it('prayer analytics draws requests added and answered each month', async () => {
    const person = await contact('Pat', 'Prayer');
    const first = (await call('people_add_prayer_request', { contactId: person, request: 'For my mother in hospital', visibility: 'team' })).prayerRequest;
    await call('people_add_prayer_request', { contactId: person, request: 'For a new job', visibility: 'team' });
    await call('people_set_prayer_request_status', { prayerRequestId: first.id, status: 'answered', answerNote: 'Home again' });

    const { frame, result } = await host.callAndShow('people_get_prayer_analytics', {});
    const shown = result.structuredContent;
    expect(shown.byMonth).toEqual([{ month: DateTime.now().toUTC().toFormat('yyyy-MM'), added: 2, answered: 1 }]);
    expect(textOf(result).byMonth).toEqual(shown.byMonth);
    const description = await expectSeriesChart(frame, 'prayer-by-month', ['Added', 'Answered'], 1);
    expect(description).toContain('2 added, 1 answered');
  });

  it('visit analytics draws visits each month and by visitor', async () => {
    const person = await contact('Vera', 'Visited');
    await call('people_log_pastoral_visit', { contactId: person, summary: 'Home visit', kind: 'home', durationMinutes: 45, visitorName: 'Revd Jo' });
    await call('people_log_pastoral_visit', { contactId: person, summary: 'Hospital visit', kind: 'hospital', durationMinutes: 30, visitorName: 'Revd Jo' });

    const { frame, result } = await host.callAndShow('people_get_visit_analytics', {});
    const shown = result.structuredContent;
    expect(shown.byMonth).toEqual([{ month: DateTime.now().toUTC().toFormat('yyyy-MM'), visits: 2, contacts: 1 }]);
    expect(textOf(result).byVisitor).toEqual(shown.byVisitor);
    await expectSeriesChart(frame, 'visits-by-month', ['Visits', 'People visited'], 1);
    const byVisitor = await expectSeriesChart(frame, 'visits-by-visitor', ['Visits'], shown.byVisitor.length);
    expect(byVisitor).toContain('Revd Jo 2');
  });

  it('a broadcast\'s delivery funnel draws a bar for each stage, each a share of the audience', async () => {
    const tagId = randomUUID();
    await harness.pool.query('INSERT INTO tags (id, org_id, name) VALUES ($1, $2, $3)', [tagId, org.orgId, 'Newsletter']);
    const people: string[] = [];
    for (const name of ['Ada', 'Ben', 'Cy']) {
      const id = await contact(name, 'Reader', { email: `${name.toLowerCase()}@example.org` });
      people.push(id);
      await harness.pool.query('INSERT INTO contact_tags (org_id, contact_id, tag_id) VALUES ($1, $2, $3)', [org.orgId, id, tagId]);
    }
    // Ada and Ben signed up for the newsletter; Cy never did.
    for (const contactId of people.slice(0, 2)) {
      await withTransaction(harness.pool, (db) => recordConsent(db, org.orgId, {
        contactId, channel: 'email', purpose: 'marketing', basis: 'consent', source: 'website newsletter form', wording: 'Send me the monthly newsletter',
      }, null));
    }
    const previewed = await call('channels_preview_broadcast', {
      name: `March newsletter ${HOSTILE_TEXT}`, channel: 'email', purpose: 'marketing', audience: { kind: 'tag', id: tagId },
      subject: 'St Anne in March', body: 'Lent lunches every Friday at noon.',
    });

    const { frame, result } = await host.callAndShow('channels_get_broadcast', { broadcastId: previewed.broadcast.id });
    const shown = result.structuredContent;
    // Cy has no marketing consent: the audience is three, two may be sent to, nothing has gone yet.
    expect(shown.funnel).toEqual([{ stage: 'audience', count: 3 }, { stage: 'recipients', count: 2 }, { stage: 'sent', count: 0 }, { stage: 'delivered', count: 0 }]);
    expect(textOf(result).funnel).toEqual(shown.funnel);
    await expect(frame.locator('h1').textContent()).resolves.toBe(shown.broadcast.name);
    const figure = frame.locator('figure[data-chart="delivery-funnel"]');
    const bars = figure.locator('svg rect');
    await expect(bars.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-value'))))).resolves.toEqual(shown.funnel.map((stage: any) => stage.count));
    const widths = await bars.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('width'))));
    // Each stage is drawn no wider than the audience.
    expect(widths.every((width) => width <= widths[0])).toBe(true);
    await expect(figure.locator('svg').getAttribute('aria-label')).resolves.toContain('Audience 3');
    const table = await numbers(frame, 'delivery-funnel');
    expect(table.rows.map((row) => row[0])).toEqual(['Audience', 'Recipients', 'Sent', 'Delivered']);
    expect(table.rows[0]).toEqual(['Audience', '3', '100%']);
  });
});
